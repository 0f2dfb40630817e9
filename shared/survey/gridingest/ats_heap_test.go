//go:build heaptest

package gridingest_test

import (
	"runtime"
	"testing"

	"meridian/shared/internal/heaptest"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

// TestReadATSHeapBounded reads 200 townships (10 ranges of 20) and checks
// that the live heap stays flat: the reader keeps at most three range
// columns, whatever the file's length. Keeping every point would make the
// heap at the end about three times what it is after three ranges. The
// best of three attempts is kept (heaptest.LowestBy).
func TestReadATSHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200 townships")
	}
	const perRange = 20 * 757
	type attempt struct{ early, late uint64 }
	over := func(a attempt) int64 { return int64(a.late) - int64(a.early+a.early/4+256<<10) }
	a := heaptest.LowestBy(0, over, func() (a attempt) {
		n := 0
		var ms runtime.MemStats
		_, err := gridingest.ReadATS(largeATS(10, 20), "large.SEQ", func(r gridindex.Record) error {
			n++
			if n%4000 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				switch {
				case n > 2*perRange && n <= 3*perRange:
					a.early = max(a.early, ms.HeapAlloc)
				case n > 7*perRange:
					a.late = max(a.late, ms.HeapAlloc)
				}
			}
			return nil
		}, gridingest.ATSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n != 10*perRange {
			t.Fatalf("%d records, want %d", n, 10*perRange)
		}
		return a
	})
	early, late := a.early, a.late
	t.Logf("live heap while reading range 4: %.2f MB; ranges 9-10: %.2f MB", float64(early)/1e6, float64(late)/1e6)
	if late > early+early/4+256<<10 {
		t.Errorf("live heap grew from %d to %d bytes: memory is not bounded", early, late)
	}
}
