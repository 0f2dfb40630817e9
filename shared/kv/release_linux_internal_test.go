package kv

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// vmFlags returns the VmFlags of this process's mapping that starts at
// addr (/proc/self/smaps: "rr" is random-read advice, MADV_RANDOM).
func vmFlags(t *testing.T, addr uintptr) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			start, _, _ := strings.Cut(f[0], "-")
			a, err := strconv.ParseUint(start, 16, 64)
			in = err == nil && uintptr(a) == addr
			continue
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.Fields(v)
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", addr)
	return nil
}

// TestAdviseScan: bbolt maps its file for random reads (no read-ahead); a
// read-only handle that releases its pages is a scan, and reads ahead,
// unless it says it is a server's (RandomAccess).
func TestAdviseScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	w, err := OpenBolt(path, BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, tc := range []struct {
		release    time.Duration
		random     bool // RandomAccess
		wantRandom bool
	}{{0, false, true}, {time.Hour, false, false}, {time.Hour, true, true}} {
		b, err := OpenBolt(path, BoltOptions{ReadOnly: true, ReleaseEvery: tc.release, RandomAccess: tc.random})
		if err != nil {
			t.Fatal(err)
		}
		flags := vmFlags(t, b.db.Info().Data)
		if random := slices.Contains(flags, "rr"); random != tc.wantRandom {
			t.Errorf("ReleaseEvery %v, RandomAccess %v: mapping flags %s, random-read advice %v, want %v", tc.release, tc.random, flags, random, tc.wantRandom)
		}
		b.Close()
	}
}
