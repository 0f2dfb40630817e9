package gridindex_test

import (
	"context"
	"runtime"
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

// The live heap of an index whose every page was read stays within its
// cache bound (plus the root and leaves), however many pages the file
// has: the bytes the cache counts (blocks and directories) are the bytes
// it holds.
func TestPageCacheHeapBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200 townships")
	}
	data, lsds := manyTownships(t, 200)
	ctx := context.Background()
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC() // the gzip writers' pool survives one collection in its victim cache
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	measure := func(bound int64) (grew int64, st gridindex.CacheStats) {
		base := heap()
		ix, err := gridindex.Open(ctx, &memFile{data: data}, "k", gridindex.Options{CacheBytes: bound})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lsds {
			if _, ok, err := ix.Lookup(ctx, l); err != nil || !ok {
				t.Fatalf("Lookup(%s) = %v, %v", l, ok, err)
			}
		}
		grew = heap() - base
		st = ix.CacheStats()
		runtime.KeepAlive(ix)
		return grew, st
	}
	// A bound under what 200 townships' blocks and directories take (about
	// 830 KiB), so that the cache evicts.
	const bound = 512 << 10
	grew, st := measure(bound)
	t.Logf("bound %d KiB: live heap grew %d KiB; the cache counts %d KiB in %d blocks and %d directories", bound>>10, grew>>10, st.Bytes>>10, st.Blocks, st.Dirs)
	if st.Evictions == 0 {
		t.Errorf("a %d KiB cache evicted nothing reading 200 townships", bound>>10)
	}
	if grew > bound+bound/4 {
		t.Errorf("live heap grew %d KiB reading 200 townships with a %d KiB cache", grew>>10, bound>>10)
	}
	// All held: the estimate is within 15% of what the heap holds.
	all, st := measure(256 << 20)
	t.Logf("unbounded: live heap grew %d KiB; the cache counts %d KiB in %d blocks and %d directories", all>>10, st.Bytes>>10, st.Blocks, st.Dirs)
	if st.Blocks != len(lsds) || st.Dirs != len(lsds) {
		t.Fatalf("%d blocks and %d directories held, want %d of each", st.Blocks, st.Dirs, len(lsds))
	}
	if d := float64(all) / float64(st.Bytes); d < 0.85 || d > 1.15 {
		t.Errorf("the cache counts %d KiB, the heap grew %d KiB (ratio %.2f)", st.Bytes>>10, all>>10, d)
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

// TestCachedLookupAllocs: a lookup whose block is cached builds its keys
// on the stack: it allocates only the record it returns (the polygon and
// its ring), never the group key or the record key (5 allocations before,
// 3 after).
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
	// orb.Polygon: the ring slice and the polygon's slice of rings, and
	// the interface holding the polygon.
	t.Logf("%.0f allocations a cached lookup", allocs)
	if allocs > 3 {
		t.Errorf("a cached lookup allocates %.0f times, want at most 3 (the record's geometry)", allocs)
	}
}
