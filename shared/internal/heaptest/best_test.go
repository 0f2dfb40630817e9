package heaptest

import "testing"

// TestLowest: the lowest of three attempts when none is within the bound,
// and no further attempt once one is.
func TestLowest(t *testing.T) {
	for _, c := range []struct {
		bound    int
		values   []int
		want, nb int
	}{
		{bound: 10, values: []int{30, 20, 25}, want: 20, nb: 3},
		{bound: 10, values: []int{30, 5, 1}, want: 5, nb: 2},
		{bound: 10, values: []int{10, 1, 1}, want: 10, nb: 1},
		{bound: 10, values: []int{12, 11, 40}, want: 11, nb: 3},
	} {
		n := 0
		got := Lowest(c.bound, func() int { n++; return c.values[n-1] })
		if got != c.want || n != c.nb {
			t.Errorf("Lowest(%d) over %v = %d after %d attempts, want %d after %d", c.bound, c.values, got, n, c.want, c.nb)
		}
	}
	type pair struct{ small, large int }
	n := 0
	attempts := []pair{{1, 50}, {30, 40}, {2, 45}}
	got := LowestBy(5, func(p pair) int { return p.large - p.small }, func() pair { n++; return attempts[n-1] })
	if got != (pair{30, 40}) || n != 3 {
		t.Errorf("LowestBy = %v after %d attempts, want {30 40} after 3", got, n)
	}
}
