package kv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// rankOf is a test rank: a hash of the partition, so that rank order and
// key order differ everywhere, with one rank in eight shared by several
// partitions (ties go by key) and the partitions under "Z" all ranked last.
func rankOf(pk string) uint64 {
	if pk[len("Q#")] == 'Z' {
		return ^uint64(0)
	}
	h := fnv.New64a()
	h.Write([]byte(pk))
	r := h.Sum64() >> 8
	if r%8 == 0 {
		r = 0
	}
	return r
}

// TestScanRanked publishes partitions of random items and checks that
// ScanRanked returns every item once, with its data, ordered by rank,
// then PK, then SK: in the arena alone, through spilled runs, and through
// merge passes; from a Bolt and from a Mem store.
func TestScanRanked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lim  loadLimits
		mem  bool
	}{
		{"arena", loadLimits{}, false},
		{"runs", loadLimits{budget: 32 << 10}, false},
		{"merge passes", loadLimits{budget: 8 << 10, fanIn: 3}, false},
		{"memory store", loadLimits{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(7, 0))
			var want []Item
			for p := range 400 {
				pk := fmt.Sprintf("Q#P%04d", p)
				if p%50 == 0 {
					pk = fmt.Sprintf("Q#Z%04d", p)
				}
				for s := range 1 + r.IntN(6) {
					data := make([]byte, r.IntN(300))
					for i := range data {
						data[i] = byte(r.Uint32())
					}
					want = append(want, Item{PK: pk, SK: fmt.Sprintf("S%02d", s), Data: data})
				}
			}
			var store Store = newLoadBolt(t, tc.lim)
			if tc.mem {
				store = NewMem()
			}
			ctx := context.Background()
			_, err := Publish(ctx, store, DatasetInfo{Name: "ranked"}, func(w *Writer) error {
				for _, i := range r.Perm(len(want)) {
					if err := w.PutRaw(want[i].PK, want[i].SK, want[i].Data); err != nil {
						return err
					}
				}
				// A partition outside the prefix is not scanned.
				return w.PutRaw("R#OTHER", "S", []byte("x"))
			})
			if err != nil {
				t.Fatal(err)
			}
			ds, _, err := Open(ctx, store, "ranked")
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(want, func(a, b Item) int {
				return cmp.Or(cmp.Compare(rankOf(a.PK), rankOf(b.PK)), cmp.Compare(a.PK, b.PK), cmp.Compare(a.SK, b.SK))
			})
			var got []Item
			err = ds.ScanRanked(ctx, "Q#", func(pk string) uint64 {
				if pk == "R#OTHER" {
					t.Error("rank asked for a partition outside the prefix")
				}
				return rankOf(pk)
			}, func(it Item) error {
				it.Data = slices.Clone(it.Data) // valid until fn returns
				got = append(got, it)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("scanned %d items, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].PK != want[i].PK || got[i].SK != want[i].SK || string(got[i].Data) != string(want[i].Data) {
					t.Fatalf("item %d: %s %s (%d bytes), want %s %s (%d bytes)", i,
						got[i].PK, got[i].SK, len(got[i].Data), want[i].PK, want[i].SK, len(want[i].Data))
				}
			}
			if b, ok := store.(*Bolt); ok {
				checkNoSortFiles(t, b)
			}
		})
	}
}

// checkNoSortFiles fails if a sort left a temporary file next to b's file.
func checkNoSortFiles(t *testing.T, b *Bolt) {
	t.Helper()
	left, _ := filepath.Glob(b.path + ".sort-*")
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestScanRankedStops: an error from fn, or a canceled context, ends the
// scan with that error and removes the temporary file.
func TestScanRankedStops(t *testing.T) {
	t.Parallel()
	b := newLoadBolt(t, loadLimits{budget: 4 << 10})
	ctx := context.Background()
	items, _ := randomItems(9, 3000, 0)
	if _, err := Publish(ctx, b, DatasetInfo{Name: "ranked"}, func(w *Writer) error {
		for _, it := range items {
			if err := w.PutRaw(it.PK, it.SK, it.Data); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ds, _, err := Open(ctx, b, "ranked")
	if err != nil {
		t.Fatal(err)
	}
	rank := func(pk string) uint64 { return uint64(len(pk)) }
	stop := errors.New("stop")
	n := 0
	err = ds.ScanRanked(ctx, "", rank, func(Item) error {
		if n++; n == 100 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 100 {
		t.Errorf("after fn's error: %v, %d items, want stop at 100", err, n)
	}
	checkNoSortFiles(t, b)

	cctx, cancel := context.WithCancel(ctx)
	calls := 0
	err = ds.ScanRanked(cctx, "", func(pk string) uint64 {
		if calls++; calls == 500 { // during the read, after some spills
			cancel()
		}
		return rank(pk)
	}, func(Item) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled scan: %v, want context.Canceled", err)
	}
	checkNoSortFiles(t, b)
	if _, err := os.Stat(b.path); err != nil {
		t.Error(err)
	}
}
