package grid_test

import (
	"context"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/grid"
)

// In the Peace River Block's townships 120°W splits the blocks of range 13
// W6 between Alberta and British Columbia. A tile over the line draws both
// parts of every split block, each on its side; a reverse lookup answers the
// part on the point's side, in that part's province; search answers the
// larger part.
func TestSplitAt120(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := grid.New()
	box := orb.Bound{Min: orb.Point{-120.02, 55.90}, Max: orb.Point{-119.98, 55.98}} // T80 R13 W6
	parts := map[lld.Location][]survey.Block{}
	err := svc.Blocks(ctx, lld.DLS, lld.LSD, box, func(b survey.Block) error {
		parts[b.Location] = append(parts[b.Location], b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	split := 0
	for l, ps := range parts {
		full := dls.Bound(l)
		x120 := dls.ABBCLine120(full.Center()[1])
		straddles := full.Min[0] < x120 && full.Max[0] > x120
		if !straddles {
			if len(ps) != 1 {
				t.Errorf("%s drawn %d times", l, len(ps))
			}
			continue
		}
		split++
		if len(ps) != 2 {
			t.Errorf("%s straddles 120°W but is drawn %d times, want its two parts", l, len(ps))
			continue
		}
		a, b := ps[0].Geometry.Bound(), ps[1].Geometry.Bound()
		if ps[0].Province == ps[1].Province || a.Union(b) != full {
			t.Errorf("%s parts %v %v and %v %v, want Alberta's and the Block's, together %v", l, ps[0].Province, a, ps[1].Province, b, full)
		}
		for _, p := range ps {
			g := p.Geometry.Bound()
			if (p.Province == survey.AB && g.Min[0] != x120) || (p.Province == survey.BC && g.Max[0] != x120) {
				t.Errorf("%s: %v part %v does not stop at 120°W", l, p.Province, g)
			}
			// A point inside the part reverses to it.
			pt := g.Center()
			got, err := svc.Reverse(ctx, grid.ReverseQuery{Point: pt, System: lld.DLS, Unit: lld.LSD})
			if err != nil || len(got) != 1 || got[0].Location != l || got[0].Province != p.Province || !got[0].Geometry.Bound().Contains(pt) {
				t.Errorf("Reverse(%v) = %v, %v, want %s in %v", pt, got, err, l, p.Province)
			}
		}
		// Search answers the larger part.
		res, err := svc.Resolve(ctx, l, "")
		if err != nil {
			t.Fatal(err)
		}
		other, _ := dls.OtherPart(l)
		ra, oa := res.Geometry.Bound(), other.Geometry.Bound()
		if ra.Max[0]-ra.Min[0] < oa.Max[0]-oa.Min[0] {
			t.Errorf("Resolve(%s) = the smaller part %v (other %v)", l, ra, oa)
		}
	}
	if split == 0 {
		t.Fatal("no split block in the box: the test misses 120°W")
	}
	t.Logf("%d LSDs drawn, %d split by 120°W", len(parts), split)
}

// Either side of 120°W outside the Peace River Block a reverse lookup with
// no system answers DLS in Alberta east of the line and NTS in British
// Columbia west of it, even where one township or LSD straddles the line.
func TestReverseAcross120(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := grid.New()
	for _, lat := range []float64{54.3, 55.59, 57.7, 59.9} { // T60, T76 (issue 14's well), T100, T125
		x120 := dls.ABBCLine120(lat) // NAD27's 120°W, where the NTS grid ends
		for _, c := range []struct {
			lng  float64
			sys  lld.System
			prov survey.Province
		}{
			{x120 + 0.0001, lld.DLS, survey.AB},
			{x120 - 0.0001, lld.NTS, survey.BC},
			{-120.0001, lld.DLS, survey.AB}, // NAD83's 120°W is 90 m inside Alberta
		} {
			pt := orb.Point{c.lng, lat}
			got, err := svc.Reverse(ctx, grid.ReverseQuery{Point: pt})
			if err != nil || len(got) != 1 || got[0].Location.System != c.sys || got[0].Province != c.prov || !got[0].Geometry.Bound().Contains(pt) {
				t.Errorf("Reverse(%v) = %v, %v, want a %v block in %v holding it", pt, got, err, c.sys, c.prov)
			}
		}
	}
}

// Search at the edges: a block with a part in coverage answers with that
// part and its province; one wholly outside is refused with 404 not_found;
// township 127 is malformed (400).
func TestSearchAtEdges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := grid.New()
	tests := []struct {
		in   string
		prov survey.Province // ProvinceNone: refused
		kind apierr.Kind
		code string
	}{
		{"15-18-076-13W6", survey.AB, 0, ""},                // issue 14: Alberta's part west of its centroid
		{"NE-18-76-13-W6", survey.AB, 0, ""},                // the quarter holding it
		{"SE-18-76-14-W6", 0, apierr.NotFound, "not_found"}, // wholly west of 120°W outside the Block: BC uses NTS
		{"13-34-126-12-W6", survey.AB, 0, ""},               // township 126 north row, across 120°W
		{"1-6-80-26-W6", 0, apierr.NotFound, "not_found"},   // west of the Peace River Block's west edge
		{"16-1-80-26-W6", survey.BC, 0, ""},                 // east of it
		{"SE-1-127-1-W4", 0, apierr.Invalid, "invalid_legal_location"},
	}
	for _, tc := range tests {
		b, err := svc.Search(ctx, tc.in)
		if tc.prov == survey.ProvinceNone {
			e := apierr.As(err)
			if e == nil || e.Kind != tc.kind || (tc.code != "" && e.Code != tc.code) {
				t.Errorf("Search(%q) = %v, %v; want %v %s", tc.in, b.Province, err, tc.kind, tc.code)
			}
			continue
		}
		if err != nil || b.Province != tc.prov {
			t.Errorf("Search(%q) = %v, %v; want %v", tc.in, b.Province, err, tc.prov)
			continue
		}
		g := b.Geometry.Bound()
		if tc.prov == survey.AB && g.Min[0] < dls.ABBCLine120(g.Center()[1]) || g.Max[1] > 60 {
			t.Errorf("Search(%q) polygon %v crosses 120°W or 60°N", tc.in, g)
		}
	}
}
