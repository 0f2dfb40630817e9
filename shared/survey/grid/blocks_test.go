package grid_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
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

func convertReverse(pt orb.Point, sys lld.System, u lld.Unit) grid.ReverseQuery {
	return grid.ReverseQuery{Point: pt, System: sys, Unit: u}
}

// Over an official township (moved 40 m off the model, as published data
// is), Blocks skips the sections whose official box misses the bound and
// still finds every LSD and quarter whose polygon's box meets it: the
// same set as resolving all 576 LSDs (144 quarters) and filtering them.
func TestBlocksSkipsOfficialSectionsExactly(t *testing.T) {
	t.Parallel()
	const dx, dy = 0.0005, -0.0003 // ~35 m east, ~33 m south
	twp := parse(t, "24-1-W5")
	var recs []gridindex.Record
	recs = append(recs, modelRecord(t, twp.String(), dx, dy))
	for s := uint8(1); s <= 36; s++ {
		sec := twp
		sec.Unit, sec.Section = lld.Section, s
		recs = append(recs, modelRecord(t, sec.String(), dx, dy))
		for q := range 4 {
			recs = append(recs, modelRecord(t, unitOf(twp, lld.QuarterSection, int(s-1)*4+q).String(), dx, dy))
		}
		for i := range 16 {
			recs = append(recs, modelRecord(t, unitOf(twp, lld.LSD, int(s-1)*16+i).String(), dx, dy))
		}
	}
	ix, _ := openIndex(t, "ats-test", recs)
	svc := grid.New()
	svc.SetIndexes([]*gridindex.Index{ix})
	ctx := context.Background()
	tb, _, _ := ix.RecordBound(ctx, twp)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		// A small box (a pipeline segment's) somewhere over the township
		// and its edges.
		x := tb.Min[0] - 0.01 + rng.Float64()*(tb.Max[0]-tb.Min[0]+0.02)
		y := tb.Min[1] - 0.01 + rng.Float64()*(tb.Max[1]-tb.Min[1]+0.02)
		b := orb.Bound{Min: orb.Point{x, y}, Max: orb.Point{x + rng.Float64()*0.02, y + rng.Float64()*0.01}}
		for _, u := range []lld.Unit{lld.LSD, lld.QuarterSection} {
			var got []string
			err := svc.Blocks(ctx, lld.DLS, u, b, func(blk survey.Block) error {
				if blk.Location.Township == 24 && blk.Location.Range == 1 && blk.Location.Meridian == lld.W5 {
					got = append(got, blk.Location.String())
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			per := map[lld.Unit]int{lld.LSD: 576, lld.QuarterSection: 144}[u]
			for i := range per {
				r, ok, err := ix.Lookup(ctx, unitOf(twp, u, i))
				if err != nil || !ok {
					t.Fatalf("Lookup(%s) = %v, %v", unitOf(twp, u, i), ok, err)
				}
				if r.Geometry.Bound().Intersects(b) {
					want = append(want, r.Location.String())
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("Blocks(%v, %v) = %v, want %v", u, b, got, want)
			}
		}
	}
	// RecordBound is the decoded geometry's box.
	for _, r := range recs[:40] {
		dec, _, err := ix.Lookup(ctx, r.Location)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := ix.RecordBound(ctx, r.Location)
		if err != nil || !ok || got != dec.Geometry.Bound() {
			t.Errorf("RecordBound(%s) = %v, %v, %v; want %v", r.Location, got, ok, err, dec.Geometry.Bound())
		}
	}
}

// unitOf returns block i (0-based) of unit u in township twp: quarters SE,
// SW, NW, NE of each section, LSDs 1-16 of each.
func unitOf(twp lld.Location, u lld.Unit, i int) lld.Location {
	l := twp
	l.Unit = u
	switch u {
	case lld.QuarterSection:
		l.Section = uint8(i/4 + 1)
		l.Aliquot = []lld.Aliquot{lld.SE, lld.SW, lld.NW, lld.NE}[i%4]
	case lld.LSD:
		l.Section = uint8(i/16 + 1)
		l.LSD = uint8(i%16 + 1)
	}
	return l
}
