//go:build heaptest && linux

package boltdir_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/shared/internal/heaptest"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
)

// TestLiveReleasesPagesRSS: a server's version file does not stay mapped
// as it is read. 48 MB read through a Live leave under 8 MB resident once
// ServeRelease has passed; the same reads through a handle that keeps its
// pages leave most of them.
func TestLiveReleasesPagesRSS(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "energy")
	d := boltdir.New(path)
	big := strings.Repeat("x", 300<<10)
	_, err := d.Publish(ctx, func(ctx context.Context, s kv.Store) error {
		_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells", Source: "test"}, func(w *kv.Writer) error {
			for i := range 160 { // 160 items of 300 KB: 48 MB
				if err := w.Put(fmt.Sprintf("P%03d", i), "A", big); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	readAll := func(s kv.Store) {
		t.Helper()
		ds, ok, err := kv.Open(ctx, s, "wells")
		if err != nil || !ok {
			t.Fatalf("open wells: %v, %v", ok, err)
		}
		n := 0
		if err := ds.ScanItems(ctx, "", func(items []kv.Item) error { n += len(items); return nil }); err != nil || n != 160 {
			t.Fatalf("scan: %d items, %v", n, err)
		}
	}

	name, err := d.Current()
	if err != nil {
		t.Fatal(err)
	}
	keep, err := kv.OpenBolt(filepath.Join(path, name), kv.BoltOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	before := heaptest.RssFile(t)
	readAll(keep)
	kept := heaptest.RssFile(t) - before
	keep.Close()
	if kept < 32<<20 {
		t.Skipf("the pages did not stay resident without release (%d MB): nothing to compare", kept>>20)
	}

	live, err := boltdir.NewLive(d, func(s kv.Store) kv.Store { return s })
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	s, _, release := live.Acquire()
	before = heaptest.RssFile(t)
	readAll(s)
	time.Sleep(5 * boltdir.ServeRelease / 2)
	left := heaptest.RssFile(t) - before
	release()
	t.Logf("file-backed resident growth over a 48 MB read: %d MB kept mapped, %d MB through Live", kept>>20, left>>20)
	if left > 8<<20 {
		t.Errorf("through Live the read left %d MB resident after %v, want under 8 MB", left>>20, 5*boltdir.ServeRelease/2)
	}
}
