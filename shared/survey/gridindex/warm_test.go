package gridindex_test

import (
	"context"
	"errors"
	"testing"

	"meridian/shared/survey/gridindex"
)

// Warm with room for the whole index loads every page, and then every
// lookup is answered from memory: no range read, no cache miss.
func TestWarmHoldsTheIndex(t *testing.T) {
	t.Parallel()
	data, lsds := manyTownships(t, 12)
	f := &memFile{data: data}
	ctx := context.Background()
	ix, err := gridindex.Open(ctx, f, "k", gridindex.Options{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Warm(ctx, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Full || st.Pages != len(lsds) || st.Blocks != 37*len(lsds) {
		t.Fatalf("Warm = %+v, want %d pages of 37 blocks, not full", st, len(lsds))
	}
	reads, misses := f.reads.Load(), ix.CacheStats().Misses
	for _, l := range lsds {
		r, ok, err := ix.Lookup(ctx, l)
		if err != nil || !ok {
			t.Fatalf("Lookup(%v) = %v, %v", l, ok, err)
		}
		if hits, err := ix.Containing(ctx, r.Centroid); err != nil || len(hits) == 0 {
			t.Fatalf("Containing(%v) = %d records, %v", r.Centroid, len(hits), err)
		}
	}
	if d := f.reads.Load() - reads; d != 0 {
		t.Errorf("%d range reads after Warm, want 0", d)
	}
	if d := ix.CacheStats().Misses - misses; d != 0 {
		t.Errorf("%d cache misses after Warm, want 0", d)
	}
}

// Warm with room for a few blocks stops at the first eviction: the cache
// is full, within its bound, and Warm says so without an error.
func TestWarmStopsWhenFull(t *testing.T) {
	t.Parallel()
	data, lsds := manyTownships(t, 12)
	ctx := context.Background()
	ix, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: 40 << 10})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Warm(ctx, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs := ix.CacheStats()
	if !st.Full || st.Pages >= len(lsds) {
		t.Errorf("Warm = %+v, want full before %d pages", st, len(lsds))
	}
	if cs.Bytes > cs.MaxBytes || cs.Evictions == 0 {
		t.Errorf("cache %d of %d bytes, %d evictions: want within the bound and full", cs.Bytes, cs.MaxBytes, cs.Evictions)
	}
}

// A cancelled context ends Warm with its error.
func TestWarmCancelled(t *testing.T) {
	t.Parallel()
	data, _ := manyTownships(t, 4)
	ix, err := gridindex.Open(context.Background(), &memFile{data: data}, "k", gridindex.Options{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Warm(ctx, 1, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Warm on a cancelled context = %v, want context.Canceled", err)
	}
}

// Warm with a byte budget stops at the page that reaches it, before the
// cache itself is full: with one worker, a budget of one page and a half
// warms two pages.
func TestWarmBudget(t *testing.T) {
	t.Parallel()
	data, lsds := manyTownships(t, 12)
	ctx := context.Background()
	open := func() *gridindex.Index {
		ix, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	one := open()
	if st, err := one.Warm(ctx, 1, 1); err != nil || st.Pages != 1 || !st.Full {
		t.Fatalf("Warm with a 1-byte budget = %+v, %v; want one page", st, err)
	}
	page := one.CacheStats().Bytes
	ix := open()
	st, err := ix.Warm(ctx, 1, page+page/2)
	if err != nil {
		t.Fatal(err)
	}
	if cs := ix.CacheStats(); !st.Full || st.Pages != 2 || cs.Evictions != 0 || len(lsds) <= 2 {
		t.Errorf("Warm with a budget of 1.5 pages = %+v (%d evictions, %d bytes, a page %d)", st, cs.Evictions, cs.Bytes, page)
	}
}
