//go:build heaptest

package energyingest_test

import (
	"runtime"
	"testing"

	"meridian/shared/energy/energyingest"
	"meridian/shared/internal/heaptest"
)

// TestReadWellListConstantHeap streams 240,000 rows (~50 MB) and checks
// that the live heap stays small (the lowest growth of three attempts).
func TestReadWellListConstantHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 50 MB")
	}
	body := demoBody(t, "WellList_2026-11.txt", false)
	grow := heaptest.Lowest(8<<20, func() int64 {
		r := &repeatReader{body: body, n: 2000}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, peak := ms.HeapAlloc, uint64(0)
		n := 0
		err := energyingest.ReadWellList(r, "WellList.txt", func(energyingest.Well) error {
			n++
			if n%40000 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 240000 {
			t.Fatalf("%d rows, want 240000", n)
		}
		return int64(peak) - int64(base)
	})
	if grow > 8<<20 {
		t.Errorf("live heap grew by %d bytes while streaming %d MB", grow, len(body)*2000>>20)
	}
}
