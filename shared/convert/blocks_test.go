package convert_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/convert"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Every block Blocks yields is the block Resolve returns for its location,
// every yielded block meets the box, and every block Reverse finds at a point
// of the box is yielded: a tile draws what search answers.
func TestBlocksAgreeWithResolveAndReverse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := indexedService(t)
	cases := []struct {
		sys  lld.System
		unit lld.Unit
		b    orb.Bound
	}{
		{lld.DLS, lld.Section, orb.Bound{Min: orb.Point{-114.12, 51.02}, Max: orb.Point{-113.95, 51.10}}}, // 24-1-W5 (indexed) and the model east of W5
		{lld.DLS, lld.QuarterSection, orb.Bound{Min: orb.Point{-114.02, 51.05}, Max: orb.Point{-113.99, 51.08}}},
		{lld.DLS, lld.LSD, orb.Bound{Min: orb.Point{-110.05, 52.0}, Max: orb.Point{-109.97, 52.05}}},
		{lld.DLS, lld.Township, orb.Bound{Min: orb.Point{-102.5, 49.0}, Max: orb.Point{-97.0, 50.0}}},
		{lld.NTS, lld.NTSUnit, orb.Bound{Min: orb.Point{-121.3, 49.1}, Max: orb.Point{-121.25, 49.15}}},
		{lld.GeoTownship, lld.Lot, orb.Bound{Min: orb.Point{-79.95, 44.15}, Max: orb.Point{-79.89, 44.19}}},
	}
	for _, c := range cases {
		got := map[lld.Location]survey.Block{}
		err := svc.Blocks(ctx, c.sys, c.unit, c.b, func(blk survey.Block) error {
			if _, dup := got[blk.Location]; dup {
				t.Errorf("%v: %s twice", c.b, blk.Location)
			}
			got[blk.Location] = blk
			if blk.Location.Unit != c.unit || blk.Location.System != c.sys {
				t.Errorf("%v: yielded %s (%v %v)", c.b, blk.Location, blk.Location.System, blk.Location.Unit)
			}
			if !blk.Geometry.Bound().Intersects(c.b) {
				t.Errorf("%v: %s does not meet the box", c.b, blk.Location)
			}
			want, err := svc.Resolve(ctx, blk.Location, "")
			if err != nil {
				t.Fatalf("Resolve(%s): %v", blk.Location, err)
			}
			if diff := cmp.Diff(want, blk); diff != "" {
				t.Errorf("Blocks and Resolve differ on %s (-resolve +blocks):\n%s", blk.Location, diff)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("%v %v: nothing", c.sys, c.unit)
		}
		for i := range 400 {
			pt := orb.Point{c.b.Min[0] + (c.b.Max[0]-c.b.Min[0])*float64(i%20+1)/21, c.b.Min[1] + (c.b.Max[1]-c.b.Min[1])*float64(i/20+1)/21}
			blks, err := svc.Reverse(ctx, convertReverse(pt, c.sys, c.unit))
			if err != nil || len(blks) == 0 {
				continue
			}
			if _, ok := got[blks[0].Location]; !ok {
				t.Fatalf("%v %v: Reverse(%v) = %s, not yielded", c.sys, c.unit, pt, blks[0].Location)
			}
		}
	}
	stop := errors.New("stop")
	n := 0
	err := svc.Blocks(ctx, lld.DLS, lld.LSD, cases[0].b, func(survey.Block) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("fn's error: got %v after %d calls", err, n)
	}
}

func convertReverse(pt orb.Point, sys lld.System, u lld.Unit) convert.ReverseQuery {
	return convert.ReverseQuery{Point: pt, System: sys, Unit: u}
}
