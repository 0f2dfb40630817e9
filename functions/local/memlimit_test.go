package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestLimitJobMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOMEMLIMIT", "")
	limitJobMemory()
	if got := debug.SetMemoryLimit(-1); got != jobMemoryLimit {
		t.Errorf("without GOMEMLIMIT the limit is %d, want %d", got, jobMemoryLimit)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "3GiB")
	limitJobMemory()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: limitJobMemory changed the limit to %d", got)
	}
}

// MERIDIAN_HEAPPROFILE and MERIDIAN_CPUPROFILE write their profiles, one
// file per command and process, gzipped pprof protobufs; without them
// nothing is started.
func TestProfileFromEnv(t *testing.T) {
	if stop := profileFromEnv("x", io.Discard); stop != nil {
		t.Fatal("a profile started with neither variable set")
	}
	dir := t.TempDir()
	t.Setenv("MERIDIAN_HEAPPROFILE", filepath.Join(dir, "h"))
	t.Setenv("MERIDIAN_CPUPROFILE", filepath.Join(dir, "c"))
	stop := profileFromEnv("test", io.Discard)
	if stop == nil {
		t.Fatal("no profile started")
	}
	stop()
	for _, name := range []string{fmt.Sprintf("h-test-%d.heap", os.Getpid()), fmt.Sprintf("c-test-%d.pprof", os.Getpid())} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: %d bytes, not a gzipped profile", name, len(b))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".heap-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
