//go:build heaptest

package energydemo

import (
	"context"
	"runtime"
	"testing"

	"meridian/shared/internal/heaptest"
	"meridian/shared/scale"
)

// TestWriteScaleHeapFlat: the generator holds one township's entities and
// the files' buffers, so eight times the fraction must not grow the live
// heap: the growth at 8f stays within 2 MiB of the growth at f (the orphan
// inventory, 0.6 % of the wells, is the one list that grows: 60 rows at
// 8f here), and under 24 MiB in all (the buffers of 22 open files are
// 5.5 MiB).
func TestWriteScaleHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 0.4 % and 3.2 % of Alberta")
	}
	peak := func(f float64) (uint64, int) {
		runtime.GC()
		runtime.GC() // what a sync.Pool held (bbolt's page buffers after an earlier test's load) survives one collection
		var base, m runtime.MemStats
		runtime.ReadMemStats(&base)
		var top uint64
		n := 0
		_, err := writeScale(context.Background(), t.TempDir(), scale.Options{Seed: 3, Fraction: f}, func() {
			if n++; n%500 == 0 {
				runtime.GC() // live memory, not garbage awaiting collection
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapAlloc-min(m.HeapAlloc, base.HeapAlloc))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return top, n
	}
	// The best of three attempts (heaptest.LowestBy), by how far the
	// larger fraction's growth is over the bounds below.
	type attempt struct {
		small, big uint64
		n          int
	}
	over := func(a attempt) int64 { return max(int64(a.big)-int64(a.small)-2<<20, int64(a.big)-24<<20) }
	a := heaptest.LowestBy(0, over, func() (a attempt) {
		a.small, a.n = peak(0.004)
		a.big, _ = peak(0.032)
		return a
	})
	small, big, n := a.small, a.big, a.n
	t.Logf("live heap growth: %d KiB at fraction 0.004, %d KiB at 0.032 (%d townships)", small>>10, big>>10, n)
	if big > small+2<<20 || big > 24<<20 {
		t.Errorf("live heap grew by %d bytes at fraction 0.032, %d at 0.004: not bounded by a township", big, small)
	}
}
