//go:build heaptest

package agingest_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	"meridian/shared/internal/heaptest"
)

// TestZonalHeapFlat: the zonal statistics hold one block row and the
// quarters open across it, so a raster eight times as tall (eight times
// the quarters) must not grow the live heap with it.
func TestZonalHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads rasters of millions of pixels")
	}
	dir := t.TempDir()
	smallTIF, tallTIF := filepath.Join(dir, "aci_2023_ab_small.tif"), filepath.Join(dir, "aci_2023_ab_tall.tif")
	writeRaster(t, smallTIF, 26912, orb.Bound{Min: orb.Point{-114.5, 51.0}, Max: orb.Point{-113.5, 51.1}}, 153)
	writeRaster(t, tallTIF, 26912, orb.Bound{Min: orb.Point{-114.5, 51.0}, Max: orb.Point{-113.5, 51.8}}, 153)
	peak := func(p string) (uint64, int) {
		runtime.GC()
		var base, m runtime.MemStats
		runtime.ReadMemStats(&base)
		var top uint64
		n := 0
		_, err := agingest.ReadCropRaster(p, agingest.RasterOptions{Quarters: agingest.ModelQuarters, Year: 2023}, func(agingest.QuarterYear) error {
			if n++; n%250 == 0 {
				runtime.GC() // live memory, not garbage awaiting collection
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapAlloc-min(m.HeapAlloc, base.HeapAlloc))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return top, n
	}
	// Best of three (heaptest.LowestBy), by how far the tall raster's
	// growth is over the bounds below.
	type growth struct {
		small, tall uint64
		ns, nt      int
	}
	over := func(g growth) int64 { return max(int64(g.tall)-int64(g.small)-512<<10, int64(g.tall)-16<<20) }
	g := heaptest.LowestBy(0, over, func() (g growth) {
		g.small, g.ns = peak(smallTIF)
		g.tall, g.nt = peak(tallTIF)
		return g
	})
	small, ns, tall, nt := g.small, g.ns, g.tall, g.nt
	t.Logf("live heap growth: %d KiB over %d quarters, %d KiB over %d quarters", small>>10, ns, tall>>10, nt)
	if nt < 6*ns {
		t.Fatalf("the tall raster covers %d quarters, the small %d: the test does not grow the input", nt, ns)
	}
	if tall > small+(512<<10) || tall > 16<<20 {
		t.Errorf("live heap grew by %d bytes over %d quarters (%d over %d): not bounded by a block row", tall, nt, small, ns)
	}
}
