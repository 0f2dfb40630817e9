//go:build heaptest

package writer_test

import (
	"encoding/binary"
	"io"
	"runtime"
	"testing"

	"github.com/protomaps/go-pmtiles/pmtiles"

	"meridian/shared/internal/heaptest"
	"meridian/shared/tile/archive/internal/archivetest"
	"meridian/shared/tile/archive/writer"
)

// The writer keeps tile data on disk: adding 5 times as many 4 KiB tiles
// (80 MiB more data) grows the live heap only by their directory entries
// and hashes (about 2 MiB). The best of three attempts is kept
// (heaptest.LowestBy).
func TestHeapIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MiB of tile data")
	}
	peak := func(n int) uint64 {
		meta := archivetest.Meta()
		meta.MaxZoom = 10
		w, err := writer.New(t.TempDir(), meta)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		data := make([]byte, 4<<10)
		data[0], data[1] = 0x1f, 0x8b
		var peak uint64
		i := 0
		for id := pmtiles.ZxyToID(10, 0, 0); i < n; id++ {
			z, x, y := pmtiles.IDToZxy(id)
			binary.LittleEndian.PutUint64(data[8:], id) // every tile distinct
			if err := w.Add(z, x, y, data); err != nil {
				t.Fatal(err)
			}
			if i++; i%2500 == 0 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		if _, err := w.Finish(io.Discard); err != nil {
			t.Fatal(err)
		}
		return peak
	}
	type attempt struct{ small, large uint64 }
	a := heaptest.LowestBy(8<<20, func(a attempt) int64 { return int64(a.large) - int64(a.small) },
		func() attempt { return attempt{peak(5000), peak(25000)} })
	small, large := a.small, a.large
	t.Logf("live heap while adding: %d KiB for 5,000 tiles, %d KiB for 25,000 (80 MiB more data)", small>>10, large>>10)
	if large > small+8<<20 {
		t.Errorf("the writer's heap grew with its data: %d KiB at 5,000 tiles, %d KiB at 25,000", small>>10, large>>10)
	}
}
