package dls

import (
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Sanity values of survey-geometry.md §1.6: the model, not the ground.
func TestTownshipSouthEdges(t *testing.T) {
	t.Parallel()
	want := []float64{49.000000, 49.087370, 49.174738, 49.262105, 49.349470}
	for i, w := range want {
		twp := i + 1
		if got := plain.south[twp]; math.Abs(got-w) > 5e-7 {
			t.Errorf("south edge of T%d = %.7f, want %.6f", twp, got, w)
		}
		b := plain.bound1(lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: lld.W4, Range: 1, Township: uint8(twp)})
		if b.Min[1] != plain.south[twp] || b.Max[1] != plain.south[twp+1] {
			t.Errorf("Bound(T%d R1 W4) lat %v..%v, want %v..%v", twp, b.Min[1], b.Max[1], plain.south[twp], plain.south[twp+1])
		}
	}
	// §1.2: 126 townships of 483 chains end at 59.9984°N; township 126 is
	// stretched to the 60th parallel, its boundary.
	if got := inverseMeridianArc(meridianArc(firstBaseLine*degree)+126*townshipHeight) / degree; math.Abs(got-59.9984) > 5e-5 {
		t.Errorf("126 townships end at %.5f°N, want 59.9984", got)
	}
	if got := std.south[127]; got != 60 {
		t.Errorf("north edge of T126 = %v, want 60", got)
	}
}

func TestRangeWidth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		twp  uint8
		want float64 // degrees of longitude of range 1 W5
	}{
		{1, 0.133614}, {2, 0.133614}, {61, 0.149954},
	}
	for _, tc := range tests {
		b := plain.bound1(lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: lld.W5, Range: 1, Township: tc.twp})
		if got := b.Max[0] - b.Min[0]; math.Abs(got-tc.want) > 5e-7 {
			t.Errorf("width of T%d R1 W5 = %.7f°, want %.6f°", tc.twp, got, tc.want)
		}
		if b.Max[0] != lngW5 {
			t.Errorf("east edge of T%d R1 W5 = %v, want %v", tc.twp, b.Max[0], lngW5)
		}
		// Along the governing base line the width is 486 chains.
		phiB := plain.south[governingBaseTownship(int(tc.twp))] * degree
		if got := plain.dlng[tc.twp] * degree * parallelRadius(phiB); math.Abs(got-9776.7648) > 1e-6 {
			t.Errorf("T%d range width on its base line = %.4f m, want 9776.7648 (486 ch)", tc.twp, got)
		}
	}
}

func TestGoverningBaseTownship(t *testing.T) {
	t.Parallel()
	want := map[int]int{1: 1, 2: 1, 3: 5, 4: 5, 5: 5, 6: 5, 7: 9, 10: 9, 11: 13, 125: 125, 126: 125}
	for twp, w := range want {
		if got := governingBaseTownship(twp); got != w {
			t.Errorf("governingBaseTownship(%d) = %d, want %d", twp, got, w)
		}
	}
}

func TestSanityQuarter(t *testing.T) {
	t.Parallel()
	nw36 := lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W5, Range: 3, Township: 42, Section: 36, Aliquot: lld.NW}
	// §1.6, computed with equal sixths.
	want := orb.Bound{Min: orb.Point{-114.311882, 52.661107}, Max: orb.Point{-114.299887, 52.668383}}
	eq := newModel(options{w2: lngW2, w4: lngW4, layout: equalSixths})
	got, ok := eq.bound(nw36)
	if !ok || !boundsNear(got, want, 5e-7) {
		t.Errorf("equal sixths: bound(%v) = %v, %v, want %v", nw36, got, ok, want)
	}
	// The default layout moves the quarter's inner lines by under a chain
	// (20 m): its south edge 0.75 ch south, its east edge 0.5 ch east.
	got = plain.bound1(nw36)
	if d := max(pointDistanceM(got.Min, want.Min), pointDistanceM(got.Max, want.Max)); d > chain {
		t.Errorf("Bound(%v) = %v, corners %.1f m from %v, want within a chain", nw36, got, d, want)
	}
}

func boundsNear(a, b orb.Bound, tol float64) bool {
	return math.Abs(a.Min[0]-b.Min[0]) <= tol && math.Abs(a.Min[1]-b.Min[1]) <= tol &&
		math.Abs(a.Max[0]-b.Max[0]) <= tol && math.Abs(a.Max[1]-b.Max[1]) <= tol
}

func TestLines(t *testing.T) {
	t.Parallel()
	for _, l := range []layout{roadAllowances, equalSixths, roadAllowancesEast, roadAllowancesSouth} {
		xs, ys := lines(l)
		if xs[0] != 0 || ys[0] != 0 || xs[grid] != 1 || ys[grid] != 1 {
			t.Errorf("layout %d: lines do not span 0..1: %v %v", l, xs, ys)
		}
		for i := 1; i <= grid; i++ {
			if xs[i] <= xs[i-1] || ys[i] <= ys[i-1] {
				t.Errorf("layout %d: lines not increasing at %d", l, i)
			}
		}
		// No section line moves more than a chain from equal sixths.
		for i := 0; i <= grid; i++ {
			if dx, dy := math.Abs(xs[i]*486-486*float64(i)/grid), math.Abs(ys[i]*483-483*float64(i)/grid); dx > 1 || dy > 1 {
				t.Errorf("layout %d: line %d is %.2f, %.2f ch from equal sixths", l, i, dx, dy)
			}
		}
	}
	// Road allowances: LSDs are 20 ch; the allowance-bearing ones 21 ch.
	xs, ys := lines(roadAllowances)
	if got := (xs[2] - xs[1]) * 486; math.Abs(got-20) > 1e-9 {
		t.Errorf("LSD width = %v ch, want 20", got)
	}
	if got := (xs[1] - xs[0]) * 486; math.Abs(got-21) > 1e-9 {
		t.Errorf("west LSD column width = %v ch, want 21 (with the allowance)", got)
	}
	if got := (ys[8] - ys[7]) * 483; math.Abs(got-21) > 1e-9 {
		t.Errorf("top LSD row of sections 7–12 = %v ch, want 21 (with the allowance)", got)
	}
	if got := (ys[4] - ys[3]) * 483; math.Abs(got-20) > 1e-9 {
		t.Errorf("top LSD row of sections 1–6 = %v ch, want 20", got)
	}
}

func TestFractionalRange(t *testing.T) {
	t.Parallel()
	// W4 R30 at T1 reaches past 114°W: clipped there; its westernmost
	// sections are partly or wholly W5 ground.
	twp := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: lld.W4, Range: 30, Township: 1}
	b, ok := plain.bound(twp)
	if !ok || b.Min[0] != lngW5 {
		t.Errorf("bound(%v) = %v, %v, want west edge clipped at %v", twp, b, ok, lngW5)
	}
	r31 := twp
	r31.Range = 31
	if b, ok := plain.bound(r31); ok {
		t.Errorf("bound(%v) = %v, want none (east edge past W5)", r31, b)
	}
}

// plain is the package's model without its correction (correction.go):
// the first-principles model these tests check against the survey rules.
var plain = newModel(defaultOptions.uncorrected())

// bound1 is bound without the ok.
func (m *model) bound1(l lld.Location) orb.Bound {
	b, _ := m.bound(l)
	return b
}

// TestCorrectionLineJog: range lines jog at correction lines; townships
// north of one are measured from the next base line. (The correction then
// moves each township on its own: see TestCorrectionSlivers.)
func TestCorrectionLineJog(t *testing.T) {
	t.Parallel()
	twp := func(r, n uint8) lld.Location {
		return lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: lld.W4, Range: r, Township: n}
	}
	below, above := plain.bound1(twp(20, 2)), plain.bound1(twp(20, 3))
	if below.Max[1] != above.Min[1] {
		t.Fatalf("T2 and T3 do not share the correction line: %v, %v", below, above)
	}
	if below.Min[0] == above.Min[0] {
		t.Errorf("no jog at the T2/T3 correction line: west edges both %v", below.Min[0])
	}
	// Between base lines the range lines are continuous.
	t3, t4 := plain.bound1(twp(20, 3)), plain.bound1(twp(20, 4))
	if t3.Min[0] != t4.Min[0] || t3.Max[0] != t4.Max[0] {
		t.Errorf("range lines of T3 and T4 differ: %v, %v", t3, t4)
	}
}
