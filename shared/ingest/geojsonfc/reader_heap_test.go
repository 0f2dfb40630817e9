//go:build heaptest

package geojsonfc_test

import (
	"runtime"
	"testing"

	"meridian/shared/ingest/geojsonfc"
	"meridian/shared/internal/heaptest"
)

// TestStreamFlatHeap streams 200,000 features (34 MB) and checks that the
// live heap does not grow with their number. Not parallel: it reads the
// heap of the whole process.
func TestStreamFlatHeap(t *testing.T) {
	const n = 200_000
	// The lowest growth of three attempts (heaptest.Lowest).
	grow := heaptest.Lowest(256<<10, func() int64 {
		rd := geojsonfc.NewReader(&collection{n: n}, geojsonfc.Options{ClosedRings: true})
		var ms runtime.MemStats
		var base, peak uint64
		count := 0
		err := each(rd, func(f *geojsonfc.Feature) {
			count++
			if f.Number != count || f.Line != count+1 || len(f.Properties) != 3 {
				t.Fatalf("feature %d: number %d, line %d, %d properties", count, f.Number, f.Line, len(f.Properties))
			}
			if count%20_000 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if base == 0 {
					base = ms.HeapAlloc
				}
				peak = max(peak, ms.HeapAlloc)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if count != n {
			t.Fatalf("%d features, want %d", count, n)
		}
		return int64(peak) - int64(base)
	})
	if grow > 256<<10 {
		t.Errorf("live heap grew by %d bytes from feature 20,000 to %d", grow, n)
	}
}
