//go:build heaptest

package energyapi_test

import (
	"testing"
)

// TestListHeapFlat: the live heap during a list request does not grow
// with the partition: a partition 8 times larger adds less than 1 MiB at
// the peak, for every list and sort (the rows decoded at once are a store
// page of 1000 items and the kept rows, page × per_page at most).
func TestListHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two stores of 2,000 and 16,000 rows per partition")
	}
	const n = 2000
	peaks := func(n int) map[string]uint64 {
		d := newBigData(n, 2)
		store := &meteredStore{Store: d.store(t)}
		h := mux(store, d.now)
		out := map[string]uint64{}
		for _, c := range listCases {
			_, _, peak := store.request(t, h, pagePath(c.path, 200), true)
			out[c.name] = peak
		}
		return out
	}
	small, big := peaks(n), peaks(8*n)
	for _, c := range listCases {
		t.Logf("%-32s peak heap growth %5d KiB at %d rows, %5d KiB at %d", c.name, small[c.name]>>10, n, big[c.name]>>10, 8*n)
		if big[c.name] > small[c.name]+1<<20 || big[c.name] > 8<<20 {
			t.Errorf("%s: heap grew by %d KiB with %d rows (%d KiB with %d): not bounded by the page", c.name, big[c.name]>>10, 8*n, small[c.name]>>10, n)
		}
	}
}
