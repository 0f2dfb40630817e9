//go:build heaptest

package changefeed

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"meridian/shared/energy"
	"meridian/shared/internal/heaptest"
)

// diffHeapBound bounds the growth of the live heap from n to 8n records
// of a snapshot's sort and of a diff: the sort's budget, two records and
// two scanners' buffers, whatever n. Measured: see the test's log.
const diffHeapBound = 1 << 20

// TestDiffHeapFlat builds two snapshots of n records (one in 50 changed)
// and diffs them, then the same with 8n, sampling the live heap every
// 2,000 records added and every 20 changes found: the peaks stay within
// diffHeapBound of each other (the best of three attempts).
func TestDiffHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("sorts and diffs 360,000 records")
	}
	record := func(i int, changed bool) Record {
		lsd := fmt.Sprintf("%d-%d-%d-%d-W5", 1+i%16, 1+i/16%36, 1+i/576%120, 1+i/69120%30)
		status, ba := "active", fmt.Sprintf("A%03d", i%700)
		if changed {
			status, ba = "abandoned", "B001"
		}
		return WellRecord("AB", "wells", energy.WellRow{LSD: lsd, UWI: fmt.Sprintf("100/%08d/00", i), Status: energy.Bucket(status),
			LicenceStatusRaw: "Issued", Operator: energy.NewParty(ba, "Operator "+ba)})
	}
	measure := func(n int) (peak uint64, found int) {
		dir := t.TempDir()
		base := heaptest.Live()
		sample := func() {
			h := heaptest.Live()
			peak = max(peak, h-min(base, h))
		}
		for k, path := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")} {
			s := NewSnapshot(context.Background(), 256<<10)
			for j := range n {
				// Out of order, as an ingest adds them.
				i := (j * 7919) % n
				if err := s.Add(record(i, k == 1 && i%50 == 0)); err != nil {
					t.Fatal(err)
				}
				if j%2000 == 0 {
					sample()
				}
			}
			if _, err := s.WriteTo(path, Header{Version: int64(k + 1), AsOf: "2026-11-21"}); err != nil {
				t.Fatal(err)
			}
		}
		err := Diff(filepath.Join(dir, "a"), filepath.Join(dir, "b"), Version{Version: 2, AsOf: "2026-11-21"}, func(energy.Change) error {
			found++
			if found%20 == 0 {
				sample()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return peak, found
	}
	measure(5000) // warm-up
	type attempt struct {
		small, big           uint64
		smallFound, bigFound int
	}
	a := heaptest.LowestBy(diffHeapBound, func(a attempt) int64 { return int64(a.big) - int64(a.small) }, func() (a attempt) {
		a.small, a.smallFound = measure(40_000)
		a.big, a.bigFound = measure(320_000)
		return a
	})
	t.Logf("peak live heap %d KiB over 40,000 records (%d changes), %d KiB over 320,000 (%d changes)", a.small>>10, a.smallFound, a.big>>10, a.bigFound)
	if a.bigFound != 8*a.smallFound || a.smallFound == 0 {
		t.Fatalf("found %d and %d changes, want the second 8 times the first", a.smallFound, a.bigFound)
	}
	if int64(a.big)-int64(a.small) > diffHeapBound {
		t.Errorf("the live heap peaks at %d KiB over 320,000 records, %d KiB over 40,000: want at most %d KiB more",
			a.big>>10, a.small>>10, diffHeapBound>>10)
	}
}
