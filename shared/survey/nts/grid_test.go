package nts_test

import (
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/nts"
)

func quarterUnit(q byte, u uint8, b byte, series uint8, area byte, sheet uint8) lld.Location {
	return lld.Location{System: lld.NTS, Unit: lld.QuarterUnit, Series: series, Area: area, Sheet: sheet, Block: b, UnitNo: u, Quarter: q}
}

func near(a, b orb.Bound, tol float64) bool {
	return math.Abs(a.Min[0]-b.Min[0]) <= tol && math.Abs(a.Min[1]-b.Min[1]) <= tol &&
		math.Abs(a.Max[0]-b.Max[0]) <= tol && math.Abs(a.Max[1]-b.Max[1]) <= tol
}

func box(s, n, w, e float64) orb.Bound {
	return orb.Bound{Min: orb.Point{w, s}, Max: orb.Point{e, n}}
}

// The worked examples of survey-geometry.md §4 (exact: S, N in 1/240°, W, E
// in 1/160°).
func TestBoundWorkedExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		l    lld.Location
		want orb.Bound
	}{
		{quarterUnit('A', 2, 'F', 93, 'P', 8), box(55+80.0/240, 55+81.0/240, -(120 + 43.0/160), -(120 + 42.0/160))},
		{quarterUnit('D', 80, 'H', 92, 'G', 3), box(49+35.0/240, 49+36.0/240, -(123 + 19.0/160), -(123 + 18.0/160))},
		{quarterUnit('A', 45, 'D', 94, 'B', 16), box(56+188.0/240, 56+189.0/240, -(122 + 69.0/160), -(122 + 68.0/160))},
	}
	for _, tc := range tests {
		if got := nts.Bound(tc.l); !near(got, tc.want, 1e-9) {
			t.Errorf("Bound(%v) = %v, want %v", tc.l, got, tc.want)
		}
	}
	// The table's rounded values.
	got := nts.Bound(tests[0].l)
	if want := box(55.333333, 55.337500, -120.268750, -120.262500); !near(got, want, 5e-7) {
		t.Errorf("Bound(A-2-F/93-P-8) = %v, want %v", got, want)
	}
}

// The hand check of A-2-F/93-P-8, level by level.
func TestBoundHandCheck(t *testing.T) {
	t.Parallel()
	l := quarterUnit('A', 2, 'F', 93, 'P', 8)
	want := []orb.Bound{
		box(55+80.0/240, 55+81.0/240, -120.26875, -120.2625), // quarter A (SE)
		box(55+80.0/240, 55+82.0/240, -120.275, -120.2625),   // unit 2 (row 0, col 1)
		box(55+1.0/3, 55+5.0/12, -120.375, -120.25),          // block F (row 1, col 2)
		box(55.25, 55.5, -120.5, -120),                       // sheet 8 (row 1, col 0)
		box(55, 56, -122, -120),                              // map area P (row 3, col 0)
		box(52, 56, -128, -120),                              // series 93
	}
	for i, w := range want {
		if got := nts.Bound(l); !near(got, w, 1e-9) {
			t.Errorf("Bound(%v) = %v, want %v", l, got, w)
		}
		if i+1 < len(want) {
			var ok bool
			if l, ok = l.Parent(); !ok {
				t.Fatalf("%v has no parent", l)
			}
		}
	}
}

// TestLetters checks the boustrophedon layouts of map areas, sheets and
// blocks and the quarter units against the diagrams of §4.
func TestLetters(t *testing.T) {
	t.Parallel()
	// Rows north first, columns west to east; the value is the code.
	areas := [][]byte{[]byte("MNOP"), []byte("LKJI"), []byte("EFGH"), []byte("DCBA")}
	for r, row := range areas {
		for c, code := range row {
			l := lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 93, Area: code}
			// Series 93 is 52–56°N, 120–128°W; areas are 1° × 2°.
			want := box(55-float64(r), 56-float64(r), -128+2*float64(c), -126+2*float64(c))
			if got := nts.Bound(l); !near(got, want, 1e-9) {
				t.Errorf("map area %c: Bound = %v, want %v", code, got, want)
			}
		}
	}
	sheets := [][]uint8{{13, 14, 15, 16}, {12, 11, 10, 9}, {5, 6, 7, 8}, {4, 3, 2, 1}}
	for r, row := range sheets {
		for c, n := range row {
			l := lld.Location{System: lld.NTS, Unit: lld.MapSheet, Series: 93, Area: 'A', Sheet: n}
			// 93-A is 52–53°N, 120–122°W; sheets are 15′ × 30′.
			want := box(52.75-0.25*float64(r), 53-0.25*float64(r), -122+0.5*float64(c), -121.5+0.5*float64(c))
			if got := nts.Bound(l); !near(got, want, 1e-9) {
				t.Errorf("sheet %d: Bound = %v, want %v", n, got, want)
			}
		}
	}
	blocks := [][]byte{[]byte("LKJI"), []byte("EFGH"), []byte("DCBA")}
	for r, row := range blocks {
		for c, code := range row {
			l := lld.Location{System: lld.NTS, Unit: lld.Block, Series: 93, Area: 'A', Sheet: 1, Block: code}
			// 93-A-1 is 52–52.25°N, 120–120.5°W; blocks are 5′ × 7.5′.
			want := box(52+float64(2-r)/12, 52+float64(3-r)/12, -120.5+0.125*float64(c), -120.375+0.125*float64(c))
			if got := nts.Bound(l); !near(got, want, 1e-9) {
				t.Errorf("block %c: Bound = %v, want %v", code, got, want)
			}
		}
	}
	// Units: every row east → west; unit 1 SE, 10 SW, 11 north of 1, 100 NW.
	unit := func(u uint8) orb.Bound {
		return nts.Bound(lld.Location{System: lld.NTS, Unit: lld.NTSUnit, Series: 93, Area: 'A', Sheet: 1, Block: 'A', UnitNo: u})
	}
	blk := nts.Bound(lld.Location{System: lld.NTS, Unit: lld.Block, Series: 93, Area: 'A', Sheet: 1, Block: 'A'})
	if u := unit(1); u.Max[0] != blk.Max[0] || u.Min[1] != blk.Min[1] {
		t.Errorf("unit 1 = %v, not at the SE of block %v", u, blk)
	}
	if u := unit(10); u.Min[0] != blk.Min[0] || u.Min[1] != blk.Min[1] {
		t.Errorf("unit 10 = %v, not at the SW of block %v", u, blk)
	}
	if u1, u11 := unit(1), unit(11); u11.Min[1] != u1.Max[1] || u11.Max[0] != u1.Max[0] {
		t.Errorf("unit 11 = %v, not north of unit 1 %v", u11, u1)
	}
	if u := unit(100); u.Min[0] != blk.Min[0] || u.Max[1] != blk.Max[1] {
		t.Errorf("unit 100 = %v, not at the NW of block %v", u, blk)
	}
	// Quarter units: A = SE, B = SW, C = NW, D = NE.
	u := unit(1)
	c := u.Center()
	wantQ := map[byte]orb.Bound{
		'A': {Min: orb.Point{c[0], u.Min[1]}, Max: orb.Point{u.Max[0], c[1]}},
		'B': {Min: u.Min, Max: c},
		'C': {Min: orb.Point{u.Min[0], c[1]}, Max: orb.Point{c[0], u.Max[1]}},
		'D': {Min: c, Max: u.Max},
	}
	for q, want := range wantQ {
		got := nts.Bound(quarterUnit(q, 1, 'A', 93, 'A', 1))
		if !near(got, want, 1e-12) {
			t.Errorf("quarter %c = %v, want %v", q, got, want)
		}
	}
}

func TestBoundInvalid(t *testing.T) {
	t.Parallel()
	valid := quarterUnit('A', 2, 'F', 93, 'P', 8)
	tests := []struct {
		name string
		edit func(*lld.Location)
	}{
		{"not NTS", func(l *lld.Location) { l.System = lld.DLS }},
		{"DLS unit", func(l *lld.Location) { l.Unit = lld.LSD }},
		{"series outside BC", func(l *lld.Location) { l.Series = 73 }},
		{"series 0", func(l *lld.Location) { l.Series = 0 }},
		{"area Q", func(l *lld.Location) { l.Area = 'Q' }},
		{"area lower case", func(l *lld.Location) { l.Area = 'p' }},
		{"sheet 0", func(l *lld.Location) { l.Sheet = 0 }},
		{"sheet 17", func(l *lld.Location) { l.Sheet = 17 }},
		{"block M", func(l *lld.Location) { l.Block = 'M' }},
		{"unit 0", func(l *lld.Location) { l.UnitNo = 0 }},
		{"unit 101", func(l *lld.Location) { l.UnitNo = 101 }},
		{"quarter E", func(l *lld.Location) { l.Quarter = 'E' }},
		{"quarter none", func(l *lld.Location) { l.Quarter = 0 }},
	}
	for _, tc := range tests {
		l := valid
		tc.edit(&l)
		if got := nts.Bound(l); got != (orb.Bound{}) {
			t.Errorf("%s: Bound(%v) = %v, want the zero Bound", tc.name, l, got)
		}
		if b, ok := nts.Resolve(l); ok {
			t.Errorf("%s: Resolve(%v) = %v, want not ok", tc.name, l, b)
		}
	}
}
