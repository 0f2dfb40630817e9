//go:build heaptest

package gridindex_test

import (
	"io"
	"runtime"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/internal/heaptest"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// The writer holds a bounded buffer whatever the number of records: the
// live heap while adding 200,000 records stays where it was at 50,000.
func TestWriterHeapIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 250,000 records")
	}
	peak := func(n int) uint64 {
		w := gridindex.NewWriter(gridindex.Meta{Name: "mem"}, gridindex.WriterOptions{TempDir: t.TempDir(), MemoryLimit: 2 << 20})
		defer w.Close()
		var max uint64
		i := 0
		for twp := uint8(1); twp <= 126 && i < n; twp++ {
			for rng := uint8(1); rng <= 30 && i < n; rng++ {
				for sec := uint8(1); sec <= 36 && i < n; sec++ {
					for a := lld.NE; a <= lld.SE && i < n; a++ {
						l := lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W1, Range: rng, Township: twp, Section: sec, Aliquot: a}
						c := orb.Point{-97.5 - float64(rng)*0.14, 49 + float64(twp)*0.087}
						if err := w.Add(gridindex.Record{Location: l, Province: survey.MB, Centroid: c, HasCentroid: true, AccuracyM: 1}); err != nil {
							t.Fatal(err)
						}
						if i++; i%25000 == 0 {
							var ms runtime.MemStats
							runtime.GC()
							runtime.ReadMemStats(&ms)
							max = maxU(max, ms.HeapAlloc)
						}
					}
				}
			}
		}
		if _, err := w.Write(io.Discard); err != nil {
			t.Fatal(err)
		}
		return max
	}
	// The best of three attempts (heaptest.LowestBy): the lowest growth.
	type attempt struct{ small, large uint64 }
	a := heaptest.LowestBy(4<<20, func(a attempt) int64 { return int64(a.large) - int64(a.small) },
		func() attempt { return attempt{peak(50000), peak(200000)} })
	small, large := a.small, a.large
	t.Logf("live heap while adding: %d KiB for 50,000 records, %d KiB for 200,000", small>>10, large>>10)
	if large > small+4<<20 {
		t.Errorf("the writer's heap grew with its input: %d KiB at 50,000 records, %d KiB at 200,000", small>>10, large>>10)
	}
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}
