package kv

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// A writable file's views each have their own read transaction, ended
// after it. A read-only file's views share transactions kept open between
// them: after
// many views from several goroutines at once, as many transactions are open
// as views ran at the same time (at most the goroutines), every view saw
// every item, a view whose fn panics gives its transaction back, and Close
// ends the idle ones instead of waiting for them forever.
func TestBoltReadTxsReused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	w, err := OpenBolt(path, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]Item, 100)
	for i := range items {
		items[i] = Item{PK: "P", SK: fmt.Sprintf("%03d", i), Data: []byte(`{}`)}
	}
	if err := w.Put(ctx, items[:50]); err != nil {
		t.Fatal(err)
	}
	// A writable file keeps none: each view sees the writes before it.
	for _, want := range []int{50, 100} {
		if want == 100 {
			if err := w.Put(ctx, items[50:]); err != nil {
				t.Fatal(err)
			}
		}
		n := 0
		if err := w.View(ctx, Query{PK: "P"}, func(string, []byte) error { n++; return nil }); err != nil || n != want {
			t.Fatalf("writable file: a view saw %d items (%v), want %d", n, err, want)
		}
		if open := w.db.Stats().OpenTxN; open != 0 {
			t.Fatalf("writable file: %d read transactions open after a view, want 0", open)
		}
	}
	w.Close()

	r, err := OpenBolt(path, BoltOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	const workers, views = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range views {
				n := 0
				err := r.View(ctx, Query{PK: "P"}, func(string, []byte) error { n++; return nil })
				if err == nil && n != len(items) {
					err = fmt.Errorf("a view saw %d items, want %d", n, len(items))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if open := r.db.Stats().OpenTxN; open < 1 || open > workers {
		t.Errorf("%d read transactions open after %d views on %d goroutines, want 1 to %d", open, workers*views, workers, workers)
	}
	idle := len(r.txs.free)
	if idle < 1 || idle > workers {
		t.Errorf("%d idle transactions kept, want 1 to %d", idle, workers)
	}

	func() {
		defer func() { recover() }()
		r.View(ctx, Query{PK: "P"}, func(string, []byte) error { panic("boom") })
	}()
	if got := len(r.txs.free); got != idle {
		t.Errorf("after a view that panicked: %d idle transactions, want %d (its own given back)", got, idle)
	}

	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return: an idle read transaction was left open")
	}
	if err := r.View(ctx, Query{PK: "P"}, func(string, []byte) error { return nil }); err == nil {
		t.Error("a view after Close: no error")
	}
}
