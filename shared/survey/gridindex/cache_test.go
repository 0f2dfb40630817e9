package gridindex_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"meridian/shared/lld"
	"meridian/shared/survey/gridindex"
)

// manyTownships is an index of n DLS townships (ranges 1-25 of W4 from
// township 20 up), each its own page, and one LSD of each to look up.
func manyTownships(t testing.TB, n int) ([]byte, []lld.Location) {
	t.Helper()
	var recs []gridindex.Record
	var lsds []lld.Location
	for i := range n {
		twp, rge := uint8(20+i/25), uint8(1+i%25)
		recs = append(recs, dlsRecords(t, twp, rge, lld.W4)...)
		lsds = append(lsds, lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W4, Range: rge, Township: twp, Section: 7, LSD: 3})
	}
	return buildIndex(t, recs, gridindex.WriterOptions{}), lsds
}

// The cache holds what fits its bytes and evicts the rest: with room for
// a few blocks, a second pass over every township misses as often as the
// first, the bytes held stay under the bound, and every block left is
// counted. With room for all, the second pass only hits: a first lookup
// misses the block and the page's directory, a second finds the block.
func TestPageCacheEviction(t *testing.T) {
	t.Parallel()
	data, lsds := manyTownships(t, 48)
	ctx := context.Background()
	pass := func(ix *gridindex.Index) {
		for _, l := range lsds {
			if _, ok, err := ix.Lookup(ctx, l); err != nil || !ok {
				t.Fatalf("Lookup(%s) = %v, %v", l, ok, err)
			}
		}
	}
	big, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	pass(big)
	pass(big)
	st := big.CacheStats()
	if n := len(lsds); st.Misses != 2*int64(n) || st.Hits != int64(n) || st.Evictions != 0 || st.Blocks != n || st.Dirs != n {
		t.Errorf("room for all: %+v, want %d misses (block, directory) then %d hits, no eviction", st, 2*n, n)
	}
	perLookup := st.Bytes / int64(st.Blocks)
	t.Logf("a section block and its township's directory: %d bytes in the cache", perLookup)

	// Room for about a quarter of them (the bound is split over 16
	// shards, so a few per shard).
	bound := perLookup * int64(len(lsds)) / 4
	small, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	pass(small)
	pass(small)
	st = small.CacheStats()
	if st.Bytes > bound || st.Bytes > st.MaxBytes {
		t.Errorf("cache holds %d bytes, bound %d", st.Bytes, bound)
	}
	if st.Evictions == 0 || st.Misses < int64(len(lsds))*3 {
		t.Errorf("room for a quarter: %+v; want evictions and most of the second pass missing", st)
	}
	if st.Blocks == 0 || int64(st.Blocks) > int64(len(lsds))/4+1 {
		t.Errorf("room for a quarter holds %d blocks", st.Blocks)
	}
}

// A DLS township keeps its blocks for lookups by key while the cache
// holds them, and never one the cache evicted: with room for a quarter of
// the blocks, every block a township keeps is in the cache, and the
// lookups still count their hits and misses. With room for all, each
// township keeps its block after the first pass.
func TestDLSSlotsFollowEviction(t *testing.T) {
	t.Parallel()
	data, lsds := manyTownships(t, 48)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		bytes int64
	}{{"room for all", 64 << 20}, {"room for a quarter", 0}} {
		bytes := tc.bytes
		if bytes == 0 {
			big, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: 64 << 20})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lsds {
				big.Lookup(ctx, l)
			}
			st := big.CacheStats()
			bytes = st.Bytes / int64(st.Blocks) * int64(len(lsds)) / 4
		}
		ix, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: bytes})
		if err != nil {
			t.Fatal(err)
		}
		for pass := range 3 {
			for i, l := range lsds {
				l := l
				if pass == 1 {
					l = lsds[(i*17)%len(lsds)] // another order
				}
				if r, ok, err := ix.Lookup(ctx, l); err != nil || !ok || r.Location != l {
					t.Fatalf("%s: Lookup(%s) = %s, %v, %v", tc.name, l, r.Location, ok, err)
				}
			}
		}
		kept, err := gridindex.DLSSlots(ix)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		st := ix.CacheStats()
		if st.Hits+st.Misses < 3*int64(len(lsds)) {
			t.Errorf("%s: %d hits and %d misses for %d lookups", tc.name, st.Hits, st.Misses, 3*len(lsds))
		}
		switch {
		case tc.bytes != 0 && (kept != len(lsds) || st.Evictions != 0):
			t.Errorf("%s: townships keep %d blocks (%+v), want %d", tc.name, kept, st, len(lsds))
		case tc.bytes == 0 && (st.Evictions == 0 || kept > st.Blocks):
			t.Errorf("%s: townships keep %d blocks of the %d cached (%d evictions)", tc.name, kept, st.Blocks, st.Evictions)
		}
	}
}

// Readers of the same blocks at once, with a cache small enough to evict
// under them, all get their records (run with -race).
func TestPageCacheConcurrent(t *testing.T) {
	t.Parallel()
	data, lsds := manyTownships(t, 32)
	ctx := context.Background()
	ix, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				l := lsds[(g*7+i*13)%len(lsds)]
				r, ok, err := ix.Lookup(ctx, l)
				if err != nil || !ok || r.Location != l {
					t.Errorf("Lookup(%s) = %s, %v, %v", l, r.Location, ok, err)
					return
				}
				if _, err := ix.Containing(ctx, r.Centroid); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := ix.CacheStats()
	if st.Hits == 0 || st.Misses == 0 || st.Bytes > st.MaxBytes {
		t.Errorf("after concurrent readers: %+v", st)
	}
}

// BenchmarkLookupMiss is a lookup whose township is not cached at all
// (CacheBytes 1 keeps nothing): one range read of the page, its directory
// parsed, one block inflated and scanned (a section's 20 records of the
// township's 757). A province-wide random workload pays it, or the
// cheaper miss of a block whose directory is cached, on most lookups.
func BenchmarkLookupMiss(b *testing.B) {
	data, lsds := manyTownships(b, 8)
	ix, err := gridindex.Open(context.Background(), &memFile{data: data}, "k", gridindex.Options{CacheBytes: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok, err := ix.Lookup(context.Background(), lsds[i%len(lsds)]); err != nil || !ok {
			b.Fatal(ok, err)
		}
		i++
	}
}

// TestCachedLookupAllocs: a lookup whose block and record are cached
// builds its keys on the stack and returns the record decoded before: it
// allocates nothing (5 allocations before the keys moved to the stack, 3
// before records were cached: the polygon, its ring and the interface).
func TestCachedLookupAllocs(t *testing.T) {
	data, lsds := manyTownships(t, 4)
	ctx := context.Background()
	ix, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	l := lsds[2]
	if _, ok, err := ix.Lookup(ctx, l); err != nil || !ok {
		t.Fatalf("Lookup(%s) = %v, %v", l, ok, err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if _, ok, _ := ix.Lookup(ctx, l); !ok {
			t.Fatal("not found")
		}
	})
	t.Logf("%.0f allocations a cached lookup", allocs)
	if allocs > 0 {
		t.Errorf("a cached lookup allocates %.0f times, want none", allocs)
	}
}

// The record cache answers what decoding answers, for lookups, reverse
// hits and nearest centroids, and holds no more than its share of the
// bound: an index with room for every record and one that keeps nothing
// (CacheBytes 1) give equal records, twice over; with room for a few, the
// records held stay under the bound and later lookups still find theirs.
func TestRecordCache(t *testing.T) {
	t.Parallel()
	data, lsds := manyTownships(t, 48)
	ctx := context.Background()
	open := func(bytes int64) *gridindex.Index {
		ix, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: bytes})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	none, all := open(1), open(64<<20)
	records := func(ix *gridindex.Index, l lld.Location) (gridindex.Record, []gridindex.Record) {
		r, ok, err := ix.Lookup(ctx, l)
		if err != nil || !ok {
			t.Fatalf("Lookup(%s) = %v, %v", l, ok, err)
		}
		hits, err := ix.ContainingHits(ctx, r.Centroid)
		if err != nil {
			t.Fatal(err)
		}
		var in []gridindex.Record
		for i := range hits {
			h, err := hits[i].Record()
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, h)
		}
		return r, in
	}
	for pass := range 2 {
		for _, l := range lsds {
			want, wantIn := records(none, l)
			got, gotIn := records(all, l)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotIn, wantIn) {
				t.Fatalf("pass %d, %s: cached %+v and %d containing; decoded %+v and %d", pass, l, got, len(gotIn), want, len(wantIn))
			}
		}
	}
	st := all.CacheStats()
	if st.RecordHits == 0 || st.Records == 0 || st.RecordBytes > st.RecordMax {
		t.Errorf("room for all: %+v; want records kept and found", st)
	}
	if st := none.CacheStats(); st.Records != 0 || st.RecordHits != 0 {
		t.Errorf("CacheBytes 1: %+v; want no record kept", st)
	}

	// Room for about 40 of the some 200 records read: the cache stays under
	// its bound, evicting.
	few := open(16 * 40 * st.RecordBytes / int64(st.Records))
	for range 2 {
		for _, l := range lsds {
			records(few, l)
		}
	}
	if st := few.CacheStats(); st.RecordBytes > st.RecordMax || st.Records == 0 || st.Records > 60 {
		t.Errorf("room for a few: %d records, %d bytes of %d", st.Records, st.RecordBytes, st.RecordMax)
	}
}
