package awsemu

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestGridIndexes(t *testing.T) {
	dir := t.TempDir()
	if _, err := GridIndexes(dir); err == nil {
		t.Error("no grid/: want an error")
	}
	os.MkdirAll(filepath.Join(dir, "grid"), 0o755)
	for _, n := range []string{"b.mgix", "a.mgix", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, "grid", n), nil, 0o644)
	}
	got, err := GridIndexes(dir)
	if err != nil || !slices.Equal(got, []string{"a.mgix", "b.mgix"}) {
		t.Errorf("got %v %v, want [a.mgix b.mgix]", got, err)
	}
}

// ChildRSS reads the peak memory of a process's children, not its own: a
// shell waiting on a child that holds 64 MB reads at least that much.
func TestChildPeakMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// The child is this test binary, holding 64 MB (TestMain below).
	cmd := exec.Command(sh, "-c", `"$0" -test.run='^$' & wait`, os.Args[0])
	cmd.Env = append(os.Environ(), "AWSEMU_TEST_HOLD_MB=64")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	var got int64
	for time.Now().Before(deadline) {
		if got = ChildRSS(cmd.Process.Pid); got >= 64<<20 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got < 64<<20 {
		t.Errorf("child peak RSS %d bytes, want at least 64 MB", got)
	}
	if own := ChildRSS(os.Getpid() + 1<<22); own != 0 {
		t.Errorf("a process that does not exist: %d, want 0", own)
	}
}

// Stop ends a process with SIGTERM and forgets it; StopAll kills the rest.
func TestProcsStop(t *testing.T) {
	var ps Procs
	dir := t.TempDir()
	a, err := ps.Start(context.Background(), dir, "a", nil, "sleep", "60")
	if err != nil {
		t.Skip(err)
	}
	b, err := ps.Start(context.Background(), dir, "b", nil, "sleep", "60")
	if err != nil {
		t.Fatal(err)
	}
	ps.Stop(a, time.Minute)
	if ws, ok := a.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("a not stopped by SIGTERM: %v", a.ProcessState)
	}
	if len(ps.cmds) != 1 || ps.cmds[0] != b {
		t.Errorf("procs left: %d, want b only", len(ps.cmds))
	}
	ps.StopAll()
	if b.ProcessState == nil || len(ps.cmds) != 0 {
		t.Errorf("b not stopped: %v", b.ProcessState)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("AWSEMU_TEST_HOLD_MB") == "64" {
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = 1
		}
		time.Sleep(30 * time.Second)
		runtime.KeepAlive(b)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
