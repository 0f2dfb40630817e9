package nts_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/datum"
	"meridian/shared/survey/nts"
)

var units = []lld.Unit{lld.Series, lld.MapArea, lld.MapSheet, lld.Block, lld.NTSUnit, lld.QuarterUnit}

func TestLocate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pt   orb.Point
		unit lld.Unit
		want lld.Location
		ok   bool
	}{
		{"ROYAL CITY NO. 1 (§4)", orb.Point{-123.11478, 49.14809}, lld.QuarterUnit, quarterUnit('D', 80, 'H', 92, 'G', 3), true},
		{"COP DAIBER A NO. 1 (§4)", orb.Point{-122.43026, 56.78629}, lld.QuarterUnit, quarterUnit('A', 45, 'D', 94, 'B', 16), true},
		{"centre of A-2-F/93-P-8", orb.Point{-120.265625, 55.335417}, lld.QuarterUnit, quarterUnit('A', 2, 'F', 93, 'P', 8), true},
		{"unit", orb.Point{-120.265625, 55.335417}, lld.NTSUnit,
			lld.Location{System: lld.NTS, Unit: lld.NTSUnit, Series: 93, Area: 'P', Sheet: 8, Block: 'F', UnitNo: 2}, true},
		{"series", orb.Point{-120.265625, 55.335417}, lld.Series, lld.Location{System: lld.NTS, Unit: lld.Series, Series: 93}, true},
		{"on a line: the block north-west of it", onNAD83(orb.Point{-120.25, 55 + 1.0/3}), lld.Block,
			lld.Location{System: lld.NTS, Unit: lld.Block, Series: 93, Area: 'P', Sheet: 8, Block: 'F'}, true},

		{"Alberta", orb.Point{-114, 51}, lld.QuarterUnit, lld.Location{}, false},
		{"Alberta, east of 120°W", orb.Point{-119.9, 57}, lld.QuarterUnit, lld.Location{}, false},
		// The BC line at 120°W is a grid line in NAD27; in NAD83 it lies
		// about 90 m west of -120 (at 57°N, -120.00147).
		{"40 m west of 120°W in NAD27 terms", onNAD83(orb.Point{-120.00066, 57}), lld.Series, lld.Location{System: lld.NTS, Unit: lld.Series, Series: 94}, true},
		{"40 m east of 120°W in NAD27 terms (west of -120 in NAD83)", onNAD83(orb.Point{-119.99934, 57}), lld.Series, lld.Location{}, false},
		{"Washington", orb.Point{-122.3, 47.6}, lld.QuarterUnit, lld.Location{}, false},
		{"Point Roberts", orb.Point{-123.06, 48.98}, lld.QuarterUnit, lld.Location{}, false},
		{"Alaska panhandle, Juneau", orb.Point{-134.42, 58.30}, lld.QuarterUnit, lld.Location{}, false},
		{"Yukon", orb.Point{-130, 60.5}, lld.Series, lld.Location{}, false},
		{"NaN", orb.Point{math.NaN(), 50}, lld.Series, lld.Location{}, false},
		{"DLS unit", orb.Point{-120.265625, 55.335417}, lld.LSD, lld.Location{}, false},
	}
	for _, tc := range tests {
		got, ok := nts.Locate(tc.pt, tc.unit)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Locate(%v, %v) = %v, %v, want %v, %v", tc.name, tc.pt, tc.unit, got, ok, tc.want, tc.ok)
		}
	}
}

// TestLocateResolveContains: for random points in and around BC, and for
// points on grid lines, Resolve(Locate(pt, u)) holds pt for every unit.
func TestLocateResolveContains(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	check := func(pt orb.Point) int {
		n := 0
		for _, u := range units {
			l, ok := nts.Locate(pt, u)
			if !ok {
				continue
			}
			n++
			b, ok := nts.Resolve(l)
			if !ok {
				t.Fatalf("Locate(%v, %v) = %v, but Resolve rejects it", pt, u, l)
			}
			if !b.Geometry.Bound().Contains(pt) {
				t.Fatalf("Locate(%v, %v) = %v, whose block %v does not hold the point", pt, u, l, b.Geometry.Bound())
			}
			if b.Location != l {
				t.Fatalf("Resolve(%v).Location = %v", l, b.Location)
			}
		}
		return n
	}
	located := 0
	const n = 100000
	for range n {
		located += check(orb.Point{-140 + rng.Float64()*27, 48 + rng.Float64()*12.5})
	}
	if share := float64(located) / (6 * n); share < 0.4 {
		t.Errorf("only %.0f%% of random points located", 100*share)
	}
	for range 20000 {
		l := randomLocation(rng)
		b := nts.Bound(l)
		for _, pt := range []orb.Point{b.Min, b.Max, {b.Min[0], b.Max[1]}, {b.Max[0], b.Min[1]}} {
			check(pt)
		}
	}
}

// TestLocateCentroidRoundTrip: Locate(Resolve(l).Centroid, l.Unit) == l for
// random valid locations whose centroid is in BC.
func TestLocateCentroidRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 7))
	tried := 0
	for range 100000 {
		l := randomLocation(rng)
		b, ok := nts.Resolve(l)
		// Coverage is decided in NAD27, where the grid is defined.
		if !ok || !nts.InBC(nts.Bound(l).Center()) {
			continue
		}
		tried++
		if got, ok := nts.Locate(b.Centroid, l.Unit); !ok || got != l {
			t.Fatalf("Locate(Resolve(%v).Centroid, %v) = %v, %v", l, l.Unit, got, ok)
		}
	}
	if tried < 20000 {
		t.Errorf("only %d locations with a centroid in BC", tried)
	}
}

// onNAD83 moves a NAD27 grid position to NAD83, where Locate reads it.
func onNAD83(p orb.Point) orb.Point {
	q, err := datum.NAD27ToNAD83(p)
	if err != nil {
		panic(err)
	}
	return q
}

func BenchmarkLocate(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	pts := make([]orb.Point, 1024)
	for i := range pts {
		pts[i] = orb.Point{-128 + rng.Float64()*8, 49.2 + rng.Float64()*10}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		nts.Locate(pts[i%len(pts)], lld.QuarterUnit)
	}
}
