package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// meridianBin builds the meridian binary (functions/local) once for the
// tests that run it as meridian-bench does.
func meridianBin(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "meridian-bench-test-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "meridian")
		built.out, built.err = exec.Command("go", "build", "-o", built.path, "meridian/functions/local").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build meridian: %v\n%s", built.err, built.out)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// TestLoadReportsHelloFractions runs a tiny load test, on meridian serve
// children, (a handful of
// requests, so nothing is timed) and checks the table: the hello-world
// baseline first at 1.00, every scenario with its fraction of it, and the
// batch's locations per second.
func TestLoadReportsHelloFractions(t *testing.T) {
	var stdout, stderr strings.Builder
	code := loadCommand([]string{"-meridian", meridianBin(t), "-requests", "20", "-c", "2", "-scenarios", "search,batch100"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("loadtest exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 6 || !strings.Contains(lines[1], "x hello") {
		t.Fatalf("table:\n%s\nwant a header with x hello and rows hello, search, batch100", stdout.String())
	}
	rows := map[string][]string{}
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		rows[f[0]] = f
	}
	if f := rows["hello"]; len(f) < 4 || f[1] != "20" || f[3] != "1.00" {
		t.Errorf("hello row %q: want 20 requests at 1.00", f)
	}
	for _, name := range []string{"search", "batch100"} {
		f := rows[name]
		if len(f) < 8 || f[1] != "20" || f[7] != "0" {
			t.Errorf("%s row %q: want 20 requests, no errors", name, f)
			continue
		}
		if frac, err := strconv.ParseFloat(f[3], 64); err != nil || frac <= 0 {
			t.Errorf("%s row %q: x hello %q, want a positive fraction", name, f, f[3])
		}
	}
	if !strings.Contains(stdout.String(), "batch100: ") || !strings.Contains(stdout.String(), " locations/s") {
		t.Errorf("no batch locations/s line:\n%s", stdout.String())
	}
	// The search scenario ran on the logged and the quiet server.
	if !strings.Contains(stdout.String(), "request log: search ") {
		t.Errorf("no request log line (the two servers):\n%s", stdout.String())
	}
}

// The commands refuse what they cannot run: tiles without an archive, an
// unknown command, a -url without its -key.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"tiles"}, {"nope"}, {}, {"load", "-url", "http://127.0.0.1:1"}} {
		var stdout, stderr strings.Builder
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("meridian-bench %q: exit %d, stderr %q; want 2 and a reason", args, code, stderr.String())
		}
	}
}

// The static baseline answers exactly the size asked, and runScenario
// counts the bytes it read: the mean a route is compared at.
func TestStaticScenarioSize(t *testing.T) {
	url, stop, err := startHello()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, n := range []int64{0, 5000, maxStaticBytes} {
		res := runScenario(context.Background(), url, "", staticScenario(url, n), 2, time.Second, 20)
		if res.errors > 0 || res.n != 20 || res.bytes != 20*n {
			t.Errorf("static %d bytes: %d answers, %d errors (%s), %d bytes read, want 20 answers of %d", n, res.n, res.errors, res.firstErr, res.bytes, n)
		}
	}
}

// procCPU reads this process's CPU time as getrusage does (to within two
// of /proc's 10 ms ticks, a rounding at each end), and a process that is
// not there as 0.
func TestProcCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	rusage := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0, r0 := procCPU(os.Getpid()), rusage()
	for deadline := time.Now().Add(20 * time.Second); rusage()-r0 < 200*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatal("no 200 ms of CPU in 20 s")
		}
	}
	c, r := procCPU(os.Getpid())-c0, rusage()-r0
	if d := c - r; d < -20*time.Millisecond || d > 20*time.Millisecond {
		t.Errorf("procCPU grew by %v while getrusage grew by %v", c, r)
	}
	if d := procCPU(1 << 30); d != 0 {
		t.Errorf("a process that is not there read %v", d)
	}
}
