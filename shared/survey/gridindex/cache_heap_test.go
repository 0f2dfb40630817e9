//go:build heaptest

package gridindex_test

import (
	"context"
	"math"
	"runtime"
	"testing"

	"meridian/shared/internal/heaptest"
	"meridian/shared/survey/gridindex"
)

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
	// Each attempt measures the bounded cache and the unbounded one; the
	// best of three (heaptest.LowestBy) is the one least outside the two
	// checks below (growth within a quarter over the bound, the estimate
	// within 15% of the heap).
	type attempt struct {
		grew, all int64
		st, stAll gridindex.CacheStats
	}
	// The townships' groups (CacheStats.GroupBytes) are heap beside the
	// bound, counted.
	ratio := func(a attempt) float64 {
		return float64(a.all) / float64(a.stAll.Bytes+a.stAll.RecordBytes+a.stAll.GroupBytes)
	}
	over := func(a attempt) float64 {
		return max(float64(a.grew-(bound+bound/4+a.st.GroupBytes))/bound, math.Abs(ratio(a)-1)-0.15)
	}
	a := heaptest.LowestBy(0, over, func() (a attempt) {
		a.grew, a.st = measure(bound)
		a.all, a.stAll = measure(256 << 20)
		return a
	})
	grew, st := a.grew, a.st
	t.Logf("bound %d KiB: live heap grew %d KiB; the cache counts %d KiB in %d blocks and %d directories, and %d KiB in %d townships' groups", bound>>10, grew>>10, st.Bytes>>10, st.Blocks, st.Dirs, st.GroupBytes>>10, st.Groups)
	if st.Evictions == 0 {
		t.Errorf("a %d KiB cache evicted nothing reading 200 townships", bound>>10)
	}
	if st.Groups != len(lsds) {
		t.Errorf("%d townships' groups for %d townships asked for", st.Groups, len(lsds))
	}
	if grew > bound+bound/4+st.GroupBytes {
		t.Errorf("live heap grew %d KiB reading 200 townships with a %d KiB cache and %d KiB of groups", grew>>10, bound>>10, st.GroupBytes>>10)
	}
	// All held: the estimate is within 15% of what the heap holds.
	all, st := a.all, a.stAll
	counted := st.Bytes + st.RecordBytes + st.GroupBytes
	t.Logf("unbounded: live heap grew %d KiB; the cache counts %d KiB in %d blocks and %d directories, %d KiB in %d records, %d KiB in %d groups", all>>10, st.Bytes>>10, st.Blocks, st.Dirs, st.RecordBytes>>10, st.Records, st.GroupBytes>>10, st.Groups)
	if st.Blocks != len(lsds) || st.Dirs != len(lsds) || st.Records != len(lsds) {
		t.Fatalf("%d blocks, %d directories and %d records held, want %d of each", st.Blocks, st.Dirs, st.Records, len(lsds))
	}
	if d := ratio(a); d < 0.85 || d > 1.15 {
		t.Errorf("the cache counts %d KiB, the heap grew %d KiB (ratio %.2f)", counted>>10, all>>10, d)
	}
}
