package nts_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/nts"
)

// Every block Locate finds at a point of the box is enumerated once, and
// every enumerated block (in NAD83, as Resolve draws it) meets the box.
func TestCellsCoverBound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		b    orb.Bound
		unit lld.Unit
	}{
		{orb.Bound{Min: orb.Point{-121.3, 49.1}, Max: orb.Point{-121.2, 49.2}}, lld.QuarterUnit},
		{orb.Bound{Min: orb.Point{-121.3, 49.1}, Max: orb.Point{-121.0, 49.3}}, lld.NTSUnit},
		{orb.Bound{Min: orb.Point{-123.0, 50.0}, Max: orb.Point{-122.0, 50.5}}, lld.Block},
		{orb.Bound{Min: orb.Point{-130.0, 50.0}, Max: orb.Point{-120.0, 55.0}}, lld.MapSheet},
		{orb.Bound{Min: orb.Point{-140.0, 47.0}, Max: orb.Point{-113.0, 61.0}}, lld.Series},
		// 40 m around a quarter-unit corner moved to NAD83: the NAD27 box
		// with the same numbers lies ~90 m away and holds none of the four
		// quarter units that meet there.
		{tinyBox(onNAD83(orb.Point{-120.2625, 55 + 1.0/3}), 20), lld.QuarterUnit},
		{tinyBox(onNAD83(orb.Point{-123.1125, 49.15}), 20), lld.QuarterUnit},
	}
	for _, c := range cases {
		got := map[lld.Location]bool{}
		nts.Cells(c.b, c.unit, func(l lld.Location) bool {
			if got[l] {
				t.Errorf("%v %v: %s twice", c.b, c.unit, l)
			}
			got[l] = true
			if blk, ok := nts.Resolve(l); !ok || !blk.Geometry.Bound().Intersects(c.b) {
				t.Errorf("%v: %s does not meet it", c.b, l)
			}
			return true
		})
		if len(got) == 0 {
			t.Errorf("%v %v: nothing", c.b, c.unit)
		}
		if c.b.Max[0]-c.b.Min[0] < 0.001 && len(got) != 4 {
			t.Errorf("%v: %d quarter units around a corner, want 4: %v", c.b, len(got), got)
		}
		for range 2000 {
			pt := orb.Point{c.b.Min[0] + rng.Float64()*(c.b.Max[0]-c.b.Min[0]), c.b.Min[1] + rng.Float64()*(c.b.Max[1]-c.b.Min[1])}
			l, ok := nts.Locate(pt, c.unit)
			if !ok {
				continue
			}
			if !got[l] && nts.InBC(nts.Bound(l).Center()) {
				t.Fatalf("%v: %s holds %v but was not enumerated", c.b, l, pt)
			}
		}
	}
}

// tinyBox returns the box of half-width m metres around p.
func tinyBox(p orb.Point, m float64) orb.Bound {
	dLat := m / 111_200
	dLng := dLat / math.Cos(p[1]*math.Pi/180)
	return orb.Bound{Min: orb.Point{p[0] - dLng, p[1] - dLat}, Max: orb.Point{p[0] + dLng, p[1] + dLat}}
}
