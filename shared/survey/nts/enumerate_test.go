package nts_test

import (
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
