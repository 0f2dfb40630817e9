package kvtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"meridian/shared/kv"
)

// testSwap checks Swap's conditions: absent, equal data, different data.
func testSwap(t *testing.T, s kv.Store) {
	ctx := t.Context()
	a, b := []byte(`{"v":1}`), []byte(`{"v":2}`)
	steps := []struct {
		name   string
		data   []byte
		expect []byte
		want   bool
		stored []byte // what Get returns afterwards
	}{
		{"create when absent", a, nil, true, a},
		{"create when present", b, nil, false, a},
		{"replace with stale data expected", b, b, false, a},
		{"replace with the stored data expected", b, a, true, b},
		{"replace again with the old data expected", a, a, false, b},
		{"replace with a prefix of the stored data expected", a, b[:3], false, b},
	}
	for _, st := range steps {
		got, err := s.Swap(ctx, kv.Item{PK: "CTL", SK: "x", Data: st.data}, st.expect)
		if err != nil || got != st.want {
			t.Errorf("%s: Swap = %v, %v; want %v", st.name, got, err, st.want)
		}
		it, ok, err := s.Get(ctx, "CTL", "x")
		if err != nil || !ok || string(it.Data) != string(st.stored) {
			t.Errorf("%s: then Get = %q, %v, %v; want %q", st.name, it.Data, ok, err, st.stored)
		}
	}
	// Another item of the partition is unaffected; invalid keys are errors.
	if got, err := s.Swap(ctx, kv.Item{PK: "CTL", SK: "y", Data: a}, nil); err != nil || !got {
		t.Errorf("Swap of a second item = %v, %v; want true", got, err)
	}
	if _, err := s.Swap(ctx, kv.Item{PK: "", SK: "x", Data: a}, nil); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Swap with an empty PK = %v; want fs.ErrInvalid", err)
	}
}

// testSwapAtomic runs compare-and-swap increments of one counter from
// several goroutines: with an atomic Swap no increment is lost.
func testSwapAtomic(t *testing.T, s kv.Store) {
	const workers, each = 4, 8
	ctx := t.Context()
	var wg sync.WaitGroup
	var lost atomic.Int64
	for range workers {
		wg.Go(func() {
			for range each {
				for {
					it, ok, err := s.Get(ctx, "CTL", "counter")
					if err != nil {
						t.Errorf("Get: %v", err)
						return
					}
					n := 0
					var expect []byte
					if ok {
						expect = it.Data
						json.Unmarshal(it.Data, &n)
					}
					data, _ := json.Marshal(n + 1)
					swapped, err := s.Swap(ctx, kv.Item{PK: "CTL", SK: "counter", Data: data}, expect)
					if err != nil {
						t.Errorf("Swap: %v", err)
						return
					}
					if swapped {
						break
					}
					lost.Add(1)
				}
			}
		})
	}
	wg.Wait()
	it, _, err := s.Get(ctx, "CTL", "counter")
	var n int
	if err == nil {
		err = json.Unmarshal(it.Data, &n)
	}
	if err != nil || n != workers*each {
		t.Errorf("counter after %d increments = %d (%v)", workers*each, n, err)
	}
	t.Logf("%d increments, %d lost swaps retried", workers*each, lost.Load())
}

// rendezvous makes the first two reads of the version counter wait for
// each other once read, so that two Publish calls both read it before
// either writes it: the interleaving in which a read-then-write
// reservation hands both the same version.
type rendezvous struct {
	kv.Store
	arrived atomic.Int64
	both    chan struct{}
	met     atomic.Bool
}

func newRendezvous(s kv.Store) *rendezvous { return &rendezvous{Store: s, both: make(chan struct{})} }

func (r *rendezvous) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	it, ok, err := r.Store.Get(ctx, pk, sk)
	if pk == kv.LastVersionPK {
		switch r.arrived.Add(1) {
		case 1:
			select {
			case <-r.both:
				r.met.Store(true)
			case <-time.After(10 * time.Second):
			}
		case 2:
			close(r.both)
		}
	}
	return it, ok, err
}

// testPublishRace: two Publish calls of one dataset read the version
// counter at the same moment, and both write their items before either
// flips the pointer (each write callback waits for the other to start).
// Exactly one wins; the other fails with kv.ErrConflict and leaves
// nothing behind; readers see the winner's items only, never the union of
// both.
func testPublishRace(t *testing.T, s kv.Store) {
	ctx := t.Context()
	publish(t, s, "race", 0, 10, "A", "B", "C")
	r := newRendezvous(s)
	type job struct {
		gen, n int
		pks    []string
	}
	jobs := []job{{1, 30, []string{"A", "B"}}, {2, 40, []string{"A", "C"}}}
	vs := make([]kv.Version, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	var writing atomic.Int64
	bothWriting := make(chan struct{})
	var notOverlapped atomic.Bool
	for i, j := range jobs {
		wg.Go(func() {
			write := writeRecords(j.gen, j.n, j.pks...)
			vs[i], errs[i] = kv.Publish(ctx, r, kv.DatasetInfo{Name: "race", Source: "test"}, func(w *kv.Writer) error {
				if writing.Add(1) == 2 {
					close(bothWriting)
				}
				select {
				case <-bothWriting:
				case <-time.After(10 * time.Second):
					notOverlapped.Store(true)
				}
				return write(w)
			})
		})
	}
	wg.Wait()
	if !r.met.Load() || notOverlapped.Load() {
		t.Errorf("the two publishes did not overlap (counter read together: %v, writing together: %v)", r.met.Load(), !notOverlapped.Load())
	}
	won := -1
	for i := range jobs {
		switch {
		case errs[i] == nil:
			if won >= 0 {
				t.Errorf("both publishes succeeded (versions %d and %d); want one to fail with kv.ErrConflict", vs[won], vs[i])
			}
			won = i
		case !errors.Is(errs[i], kv.ErrConflict):
			t.Errorf("publish of gen %d = %v; want success or kv.ErrConflict", jobs[i].gen, errs[i])
		}
	}
	if vs[0] != 0 && vs[0] == vs[1] {
		t.Errorf("both publishes got version %d", vs[0])
	}
	if won < 0 {
		t.Fatalf("no publish succeeded: %v", errs)
	}
	w := jobs[won]
	d := open(t, s, "race")
	if d.Version != vs[won] {
		t.Errorf("served version %d, want the winner's %d", d.Version, vs[won])
	}
	for _, pk := range []string{"A", "B", "C"} {
		g, n := gens(t, d, pk)
		want := 0
		if pk == "A" || pk == w.pks[1] {
			want = w.n
		}
		if n != want || g[w.gen] != want {
			t.Errorf("served %s: generations %v (%d items); want only the winner's (gen %d): %d", pk, g, n, w.gen, want)
		}
	}
	checkServes(t, s, "race", w.gen, w.n, w.pks...)
}

// testPublishContention runs several Publish calls of one dataset at once,
// with no forced interleaving: each either succeeds or fails with
// kv.ErrConflict, and the dataset serves one whole version.
func testPublishContention(t *testing.T, s kv.Store) {
	const publishers, n = 4, 50
	ctx := t.Context()
	publish(t, s, "busy", 0, n, "P")
	var wg sync.WaitGroup
	results := make([]error, publishers)
	versions := make([]kv.Version, publishers)
	for i := range publishers {
		wg.Go(func() {
			versions[i], results[i] = kv.Publish(ctx, s, kv.DatasetInfo{Name: "busy", Source: "test"}, writeRecords(i+1, n+i, "P", fmt.Sprintf("Q%d", i)))
		})
	}
	wg.Wait()
	seen := map[kv.Version]bool{}
	ok := 0
	for i, err := range results {
		switch {
		case err == nil:
			ok++
			if seen[versions[i]] {
				t.Errorf("version %d returned by two publishes", versions[i])
			}
			seen[versions[i]] = true
		case !errors.Is(err, kv.ErrConflict):
			t.Errorf("publisher %d: %v; want success or kv.ErrConflict", i, err)
		}
	}
	d := open(t, s, "busy")
	gen := 0
	for i, v := range versions {
		if results[i] == nil && v == d.Version {
			gen = i + 1
		}
	}
	if ok == 0 || gen == 0 {
		t.Fatalf("%d publishes succeeded, served version %d is none of theirs (%v)", ok, d.Version, versions)
	}
	checkServes(t, s, "busy", gen, n+gen-1, "P", fmt.Sprintf("Q%d", gen-1))
	for i := range publishers {
		if i+1 != gen {
			if _, got := gens(t, d, fmt.Sprintf("Q%d", i)); got != 0 {
				t.Errorf("served version %d (gen %d) has %d items of publisher %d", d.Version, gen, got, i)
			}
		}
	}
	t.Logf("%d of %d concurrent publishes succeeded", ok, publishers)
}
