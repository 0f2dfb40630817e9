package dls

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// grid returns the numbers of an n × n snake grid as printed, north row
// first, west to east.
func snakeGrid(n int) [][]int {
	g := make([][]int, n)
	for r := range n {
		row := make([]int, n)
		for c := range n {
			row[c] = snakeNumber(r, c, n)
		}
		g[n-1-r] = row
	}
	return g
}

func TestSnakeNumbering(t *testing.T) {
	t.Parallel()
	sections := [][]int{
		{31, 32, 33, 34, 35, 36},
		{30, 29, 28, 27, 26, 25},
		{19, 20, 21, 22, 23, 24},
		{18, 17, 16, 15, 14, 13},
		{7, 8, 9, 10, 11, 12},
		{6, 5, 4, 3, 2, 1},
	}
	if diff := cmp.Diff(sections, snakeGrid(6)); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	lsds := [][]int{
		{13, 14, 15, 16},
		{12, 11, 10, 9},
		{5, 6, 7, 8},
		{4, 3, 2, 1},
	}
	if diff := cmp.Diff(lsds, snakeGrid(4)); diff != "" {
		t.Errorf("LSDs (-want +got):\n%s", diff)
	}
	for _, n := range []int{4, 6} {
		for k := 1; k <= n*n; k++ {
			if r, c := snakeCell(k, n); snakeNumber(r, c, n) != k {
				t.Errorf("snakeNumber(snakeCell(%d, %d)) = %d", k, n, snakeNumber(r, c, n))
			}
		}
	}
}

func TestQuarterOfLSDCells(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 16; n++ {
		r, c := snakeCell(n, 4)
		if got, want := quarterAt(r, c), lld.QuarterOfLSD(n); got != want {
			t.Errorf("quarterAt(LSD %d) = %v, want %v", n, got, want)
		}
		q, _ := aliquotCells(lld.QuarterOfLSD(n))
		if c < q.x0 || c >= q.x1 || r < q.y0 || r >= q.y1 {
			t.Errorf("LSD %d (row %d, col %d) outside its quarter's cells %v", n, r, c, q)
		}
	}
}

func TestCellsOf(t *testing.T) {
	t.Parallel()
	base := lld.Location{System: lld.DLS, Meridian: lld.W5, Range: 1, Township: 1}
	at := func(u lld.Unit, sec uint8, a lld.Aliquot, n uint8) lld.Location {
		l := base
		l.Unit, l.Section, l.Aliquot, l.LSD = u, sec, a, n
		return l
	}
	tests := []struct {
		name string
		l    lld.Location
		want cells
		ok   bool
	}{
		{"township", at(lld.Township, 0, 0, 0), cells{0, 24, 0, 24}, true},
		{"section 1 is SE", at(lld.Section, 1, 0, 0), cells{20, 24, 0, 4}, true},
		{"section 6 is SW", at(lld.Section, 6, 0, 0), cells{0, 4, 0, 4}, true},
		{"section 7 is above 6", at(lld.Section, 7, 0, 0), cells{0, 4, 4, 8}, true},
		{"section 36 is NE", at(lld.Section, 36, 0, 0), cells{20, 24, 20, 24}, true},
		{"NW-36", at(lld.QuarterSection, 36, lld.NW, 0), cells{20, 22, 22, 24}, true},
		{"N-36", at(lld.HalfSection, 36, lld.NorthHalf, 0), cells{20, 24, 22, 24}, true},
		{"W-1", at(lld.HalfSection, 1, lld.WestHalf, 0), cells{20, 22, 0, 4}, true},
		{"LSD 1 of 1", at(lld.LSD, 1, 0, 1), cells{23, 24, 0, 1}, true},
		{"LSD 16 of 36", at(lld.LSD, 36, 0, 16), cells{23, 24, 23, 24}, true},
		{"LSD 5 of 1", at(lld.LSD, 1, 0, 5), cells{20, 21, 1, 2}, true},
		{"section 0", at(lld.Section, 0, 0, 0), cells{}, false},
		{"section 37", at(lld.Section, 37, 0, 0), cells{}, false},
		{"LSD 17", at(lld.LSD, 1, 0, 17), cells{}, false},
		{"quarter with a half", at(lld.QuarterSection, 1, lld.NorthHalf, 0), cells{}, false},
		{"half with a quarter", at(lld.HalfSection, 1, lld.NE, 0), cells{}, false},
		{"no unit", at(lld.UnitUnknown, 1, 0, 0), cells{}, false},
		{"NTS unit", at(lld.QuarterUnit, 1, 0, 0), cells{}, false},
	}
	for _, tc := range tests {
		got, ok := cellsOf(tc.l)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: cellsOf(%v) = %v, %v, want %v, %v", tc.name, tc.l, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLocationAtInvertsCellsOf(t *testing.T) {
	t.Parallel()
	for _, unit := range []lld.Unit{lld.Township, lld.Section, lld.QuarterSection, lld.LSD} {
		for x := range grid {
			for y := range grid {
				l, c := locationAt(lld.W4, 7, 12, x, y, unit)
				got, ok := cellsOf(l)
				if !ok || got != c {
					t.Fatalf("cellsOf(locationAt(%d, %d, %v)) = %v, %v, want %v", x, y, unit, got, ok, c)
				}
				if x < c.x0 || x >= c.x1 || y < c.y0 || y >= c.y1 {
					t.Fatalf("locationAt(%d, %d, %v) = %v, cells %v do not hold the cell", x, y, unit, l, c)
				}
				if l != canonical(l) {
					t.Fatalf("locationAt(%d, %d, %v) = %v, not canonical", x, y, unit, l)
				}
			}
		}
	}
}

func TestSectionPart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		l    lld.Location
		want orb.Bound
	}{
		{lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Aliquot: lld.NE}, orb.Bound{Min: orb.Point{0.5, 0.5}, Max: orb.Point{1, 1}}},
		{lld.Location{System: lld.DLS, Unit: lld.HalfSection, Aliquot: lld.WestHalf}, orb.Bound{Min: orb.Point{0, 0}, Max: orb.Point{0.5, 1}}},
		{lld.Location{System: lld.DLS, Unit: lld.LSD, LSD: 1}, orb.Bound{Min: orb.Point{0.75, 0}, Max: orb.Point{1, 0.25}}},
		{lld.Location{System: lld.DLS, Unit: lld.LSD, LSD: 5}, orb.Bound{Min: orb.Point{0, 0.25}, Max: orb.Point{0.25, 0.5}}},
		{lld.Location{System: lld.DLS, Unit: lld.LSD, LSD: 16}, orb.Bound{Min: orb.Point{0.75, 0.75}, Max: orb.Point{1, 1}}},
		{lld.Location{System: lld.DLS, Unit: lld.LSD, LSD: 13}, orb.Bound{Min: orb.Point{0, 0.75}, Max: orb.Point{0.25, 1}}},
	}
	for _, tc := range tests {
		got, ok := SectionPart(tc.l)
		if !ok || got != tc.want {
			t.Errorf("SectionPart(%v) = %v, %v, want %v", tc.l, got, ok, tc.want)
		}
	}
	// Every LSD lies inside its quarter.
	for n := uint8(1); n <= 16; n++ {
		l := lld.Location{System: lld.DLS, Unit: lld.LSD, LSD: n}
		lb, _ := SectionPart(l)
		qb, _ := SectionPart(lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Aliquot: lld.QuarterOfLSD(int(n))})
		if !qb.Contains(lb.Min) || !qb.Contains(lb.Max) {
			t.Errorf("LSD %d %v is not inside its quarter %v", n, lb, qb)
		}
	}
	if _, ok := SectionPart(lld.Location{System: lld.DLS, Unit: lld.Section}); ok {
		t.Error("SectionPart(section) ok")
	}
}
