//go:build heaptest

package griddemo

import (
	"runtime"
	"testing"

	"meridian/shared/internal/heaptest"
	"meridian/shared/scale"
)

// TestWriteScaleHeapFlat writes the grids at a fraction f and at 8f and
// compares the largest live heap seen after a township (sampled after a
// GC every few townships): the generator streams, so 8 times the output
// must not need more than a little more heap. Holding the records would
// multiply it. The peak is taken above the lowest heap seen (at the start
// or at any sample): under -shuffle a test before it can leave memory that
// is live at the start and freed during the run, which made a run's peak
// read 0 KiB above its start.
func TestWriteScaleHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 1,000 townships")
	}
	peak := func(f float64) (uint64, int64) {
		var ms runtime.MemStats
		var top, low uint64
		n := 0
		scaleTownshipHook = func() {
			n++
			if n%10 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				top = max(top, ms.HeapAlloc)
				low = min(low, ms.HeapAlloc)
			}
		}
		defer func() { scaleTownshipHook = nil }()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		low = ms.HeapAlloc
		_, rep, _ := writeScale(t, scale.Options{Seed: 1, Fraction: f})
		return top - min(top, low), rep.Bytes()
	}
	// The best of three attempts (heaptest.LowestBy), by how far the
	// larger fraction's growth is over the bound below.
	type attempt struct {
		small, large uint64
		sb, lb       int64
	}
	over := func(a attempt) int64 { return int64(a.large) - int64(a.small+a.small/2+256<<10) }
	a := heaptest.LowestBy(0, over, func() (a attempt) {
		a.small, a.sb = peak(0.005)
		a.large, a.lb = peak(0.04)
		return a
	})
	small, sb, large, lb := a.small, a.sb, a.large, a.lb
	t.Logf("fraction 0.005: %d bytes written, live heap peak %d KiB above the start; 0.04: %d bytes, %d KiB", sb, small>>10, lb, large>>10)
	if lb < 6*sb {
		t.Fatalf("8f wrote %d bytes, f %d: the test does not measure what it should", lb, sb)
	}
	if large > small+small/2+256<<10 {
		t.Errorf("live heap grew from %d KiB to %d KiB with 8 times the output", small>>10, large>>10)
	}
}
