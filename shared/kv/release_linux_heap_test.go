//go:build heaptest && linux

package kv_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/shared/internal/heaptest"
	"meridian/shared/kv"
)

// TestReleaseEveryRSS reads a 48 MB store whole through a read-only
// handle: without ReleaseEvery its pages stay resident, with it they leave
// (the lowest of three attempts: the kernel may fault pages back in under
// memory pressure from other processes).
func TestReleaseEveryRSS(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "big.db")
	w, err := kv.OpenBolt(path, kv.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(strings.Repeat("x", 300<<10))
	for i := range 160 { // 160 items of 300 KB: 48 MB
		if err := w.Put(ctx, []kv.Item{{PK: fmt.Sprintf("P%03d", i), SK: "A", Data: data}}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	readAll := func(release time.Duration, readOnly bool) int64 {
		r, err := kv.OpenBolt(path, kv.BoltOptions{ReadOnly: readOnly, ReleaseEvery: release})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		before := heaptest.RssFile(t)
		for i := range 160 {
			it, ok, err := r.Get(ctx, fmt.Sprintf("P%03d", i), "A")
			if err != nil || !ok || len(it.Data) != len(data) {
				t.Fatalf("item %d: ok %v, %v", i, ok, err)
			}
			if !readOnly && i%16 == 0 { // writes grow and remap the file while pages are released
				if err := r.Put(ctx, []kv.Item{{PK: fmt.Sprintf("Q%03d", i), SK: "A", Data: data}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if release > 0 {
			time.Sleep(5 * release)
		}
		return heaptest.RssFile(t) - before
	}
	kept := readAll(0, true)
	type attempt struct{ released, written int64 }
	a := heaptest.LowestBy(8<<20, func(a attempt) int64 { return max(a.released, a.written) }, func() attempt {
		return attempt{readAll(20*time.Millisecond, true), readAll(time.Millisecond, false)}
	})
	released, written := a.released, a.written
	t.Logf("file-backed resident growth over a 48 MB read: %d MB kept mapped, %d MB with ReleaseEvery, %d MB read and written with it", kept>>20, released>>20, written>>20)
	if kept < 32<<20 {
		t.Skipf("the pages did not stay resident without release (%d MB): nothing to compare", kept>>20)
	}
	if released > 8<<20 {
		t.Errorf("with ReleaseEvery the read left %d MB resident, want under 8 MB", released>>20)
	}
	if written > 8<<20 {
		t.Errorf("with ReleaseEvery, reads and writes left %d MB resident, want under 8 MB", written>>20)
	}
}
