//go:build heaptest

package heaptest

import (
	"testing"
	"time"
)

var sink [][]byte

// TestPeakHeap: holding 32 MiB while sampled reads as about that (at least
// 31 MiB: what else was live at the start and is freed meanwhile, 15 KB
// in one run of make test-heap, comes off the peak), and
// allocating the same bytes as garbage (nothing held), a MiB every 2 ms,
// reads as far less (the lowest of three attempts). Not nothing: what is
// allocated while a collection marks counts as live for that collection.
func TestPeakHeap(t *testing.T) {
	held := Peak(5*time.Millisecond, func() {
		for range 32 {
			sink = append(sink, make([]byte, 1<<20))
		}
		time.Sleep(50 * time.Millisecond)
		sink = nil
	})
	garbage := Lowest(16<<20, func() uint64 {
		return Peak(5*time.Millisecond, func() {
			for range 32 {
				b := make([]byte, 1<<20)
				b[0] = 1
				time.Sleep(2 * time.Millisecond)
			}
		})
	})
	t.Logf("held %.1f MiB, garbage %.1f MiB", float64(held)/(1<<20), float64(garbage)/(1<<20))
	if held < 31<<20 {
		t.Errorf("holding 32 MiB: peak %d bytes, want at least 31 MiB", held)
	}
	if garbage > 16<<20 {
		t.Errorf("holding nothing: peak %d bytes", garbage)
	}
}
