//go:build heaptest

package shp_test

import (
	"math"
	"runtime"
	"testing"

	"meridian/shared/ingest/shp"
	"meridian/shared/internal/heaptest"
)

// TestNoHugeHeapAllocation feeds headers that claim the largest counts: the
// reader must fail without allocating more than the input justifies (the
// lowest of three attempts: the counter is the process's).
func TestNoHugeHeapAllocation(t *testing.T) {
	f := polygonFile(t)
	put32BE(f.shp, 24, math.MaxInt32)
	put32BE(f.shp, 104, math.MaxInt32-60)
	put32LE(f.dbf, 4, -1)
	d := heaptest.Lowest(50<<20, func() uint64 {
		var before, after runtimeMem
		before.read()
		for range 10 {
			if _, _, err := readAll(f.shp, f.dbf, shp.ReaderOptions{}); err == nil {
				t.Fatal("readAll succeeded on a damaged file")
			}
		}
		after.read()
		return after.total - before.total
	})
	if d > 50<<20 {
		t.Errorf("10 reads of a %d-byte file allocated %d MB", len(f.shp), d>>20)
	}
}

// runtimeMem is a snapshot of the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}
