//go:build heaptest

package convert_test

import (
	"context"
	"io"
	"runtime"
	"testing"

	"meridian/shared/convert"
	"meridian/shared/internal/heaptest"
	"meridian/shared/survey/grid"
)

// The conversion streams: the heap after 100,000 rows is no larger than
// after 8,192.
func TestConvertCSVStreamsInConstantHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 100,000 rows")
	}
	heapAfter := func(n int) uint64 {
		var peak uint64
		_, err := convert.ConvertCSV(context.Background(), grid.New(), &rowSource{n: n}, io.Discard, convert.CSVOptions{
			Progress: func(rows, bytes int64) {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return peak
	}
	// The best of three attempts (heaptest.LowestBy): the lowest growth.
	type attempt struct{ small, large uint64 }
	a := heaptest.LowestBy(4<<20, func(a attempt) int64 { return int64(a.large) - int64(a.small) },
		func() attempt { return attempt{heapAfter(8192), heapAfter(100000)} })
	small, large := a.small, a.large
	t.Logf("heap in use: %d KiB after 8,192 rows, %d KiB after 100,000 rows", small>>10, large>>10)
	if large > small+4<<20 {
		t.Errorf("heap grew from %d KiB to %d KiB: the conversion is not streaming", small>>10, large>>10)
	}
}
