package dls_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/datum"
	"meridian/shared/survey/dls"
	"meridian/shared/teamdata"
)

// Edges of the DLS coverage (survey-geometry.md "Province boundaries in DLS
// terms" a–f): every block that exists on the covered side of a boundary
// resolves, to the right province, and stops at the boundary; none on the
// uncovered side resolves. Real places near each edge are checked in
// TestEdgePlaces, every block of the bordering ranges in TestEdgeBlocks.

// Facts the edges are checked against (not the model's own constants).
const (
	// The 120th meridian, the Alberta–British Columbia boundary north of
	// Intersection Mountain (Order in Council 1913; survey-geometry.md d),
	// taken on NAD27, where the BC grid that meets Alberta's is defined
	// (line120).
	lng120 = -120.0
	// The 4th meridian as surveyed, 110°00′18.4″W (survey-geometry.md §1.1;
	// Alberta's marker at 49.955537, −110.005022, ifamilyhistory.blogspot.com
	// 2017/10, is 6 m east of it).
	lngW4 = -(110 + 18.4/3600)
	// The 2nd meridian, the Manitoba–Saskatchewan boundary north of
	// township 78 (the switch corner at 55°48′40″N 102°00′06″W,
	// wikimapia.org/5649092, is 120 m west of it: within the model's error).
	lngW2 = -102.0
	// The Peace River Block's west edge runs between these longitudes
	// (75.7 miles west of 120°W along great circles; survey-geometry.md e).
	prbWestEast, prbWestWest = -121.94, -121.99
	// Alberta's, Saskatchewan's and Manitoba's north boundary.
	lat60 = 60.0
	// eps is how far inside a side the test points of a line are: 1 cm.
	eps = 1e-7
)

func lsdAt(n, s uint8, mer lld.Meridian, r, t uint8) lld.Location {
	return lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: mer, Range: r, Township: t, Section: s, LSD: n}
}

// TestEdgePlaces: real wells of the ground truth and named places beside
// each edge answer the right block and province; a point just across an
// edge where no DLS block exists is refused.
func TestEdgePlaces(t *testing.T) {
	t.Parallel()
	none := lld.Location{}
	tests := []struct {
		name string
		pt   orb.Point // lng, lat (NAD83)
		unit lld.Unit
		want lld.Location
		prov survey.Province
	}{
		// 120°W south of the Peace River Block. The Alberta well of issue
		// 14, in township 76 range 13 W6 at −119.9995 (its latitude is not
		// given; 55.59°N is mid-township): the model's LSD there straddles
		// 120°W with its centroid west of it, and answered 404 before
		// Alberta's part of straddling blocks existed. The line is NAD27's
		// 120°W (line120), about 90 m west of NAD83's.
		{"issue 14 well, T76 R13 W6 at -119.9995", orb.Point{-119.9995, 55.59}, lld.LSD, lsdAt(15, 18, lld.W6, 13, 76), survey.AB},
		{"1 m west of 120°W in T76 is BC (NTS)", orb.Point{line120(55.59) - 1e-5, 55.59}, lld.LSD, none, 0},
		{"1 m west of 120°W in T100 is BC (NTS)", orb.Point{line120(57.7) - 1e-5, 57.7}, lld.Section, none, 0},
		{"1 m east of 120°W in T100 is Alberta", orb.Point{line120(57.7) + 1e-5, 57.7}, lld.Section, sec(23, lld.W6, 13, 100), survey.AB},

		// Peace River Block, east edge (120°W inside R13 W6). AER bottom
		// holes on the Alberta side, BCER surfaces on the BC side
		// (lld-points-wells-2026-11.csv lines 71, 36, 773; sections, as a
		// quarter of wells sit in a neighbouring LSD), and Pouce Coupe
		// (55°42′57″N 120°08′02″W, Wikipedia "Pouce Coupe"), BC, 8 km west
		// of the line.
		{"AER 13-22-078-13W6", orb.Point{-119.93834, 55.77881}, lld.LSD, lsdAt(13, 22, lld.W6, 13, 78), survey.AB},
		{"AER 10-11-081-13W6", orb.Point{-119.9123, 56.00753}, lld.LSD, lsdAt(10, 11, lld.W6, 13, 81), survey.AB},
		{"BCER 12-01-078-14W6", orb.Point{-120.04189, 55.73063}, lld.Section, sec(1, lld.W6, 14, 78), survey.BC},
		{"Pouce Coupe", orb.Point{-120.13389, 55.71583}, lld.Township, twp(lld.W6, 14, 77), survey.BC},
		{"1 m east of 120°W in T80: Alberta's part", orb.Point{line120(55.95) + 1e-5, 55.95}, lld.Section, sec(20, lld.W6, 13, 80), survey.AB},
		{"1 m west of 120°W in T80: the Block's part", orb.Point{line120(55.95) - 1e-5, 55.95}, lld.Section, sec(20, lld.W6, 13, 80), survey.BC},

		// Peace River Block, west edge (≈121.94–121.99°W, inside R26 W6):
		// BCER surfaces (lld-points-wells-2026-11.csv).
		{"BCER 05-01-087-25W6", orb.Point{-121.85177, 56.51565}, lld.LSD, lsdAt(5, 1, lld.W6, 25, 87), survey.BC},
		{"east of the west edge in R26 T80", orb.Point{-121.93, 55.95}, lld.Section, sec(24, lld.W6, 26, 80), survey.BC},
		{"west of the west edge in R26 T80", orb.Point{-122.0, 55.95}, lld.Section, none, 0},

		// Peace River Block, south edge (south of T77) and north edge (north
		// of T88): BCER surfaces in T77 and T88, and points a few km across.
		{"BCER 05-07-077-24W6", orb.Point{-121.72084, 55.65439}, lld.Section, sec(7, lld.W6, 24, 77), survey.BC},
		{"T76 below it is BC (NTS)", orb.Point{-121.72084, 55.62}, lld.LSD, none, 0},
		{"BCER 06-07-088-14W6", orb.Point{-120.22681, 56.61531}, lld.Section, sec(7, lld.W6, 14, 88), survey.BC},
		{"T89 above it is BC (NTS)", orb.Point{-120.22681, 56.70}, lld.LSD, none, 0},

		// Manitoba–Saskatchewan: Flin Flon (54°46′00″N 101°52′40″W,
		// Wikipedia "Flin Flon") is "built on a correction line in the
		// Manitoba-Saskatchewan border ... most of Greater Flin Flon is
		// located in Manitoba, but the southernmost parts of the city are in
		// Saskatchewan" (The Reminder, 2016): north of the T66/T67
		// correction line it is east of the R29/R30 road allowance, south of
		// it, where the range line jogs east, west of it.
		{"Flin Flon", orb.Point{-101.87778, 54.76667}, lld.Township, twp(lld.W1, 29, 67), survey.MB},
		{"southern Flin Flon", orb.Point{-101.87778, 54.762}, lld.Township, twp(lld.W1, 30, 66), survey.SK},
		// North of township 78 the boundary is the 2nd meridian.
		{"1 m east of W2 in T79", orb.Point{lngW2 + 1e-5, 55.85}, lld.Township, twp(lld.W1, 29, 79), survey.MB},
		{"1 m west of W2 in T79", orb.Point{lngW2 - 1e-5, 55.85}, lld.Township, twp(lld.W2, 1, 79), survey.SK},

		// Alberta–Saskatchewan, the 4th meridian through Lloydminster
		// (53°16.7′N, Wikipedia "Lloydminster"): W3 R28 is the last,
		// fractional, Saskatchewan range; W4 R1 starts on the meridian. An
		// AER bottom hole 1 km west of it (lld-points-wells-2026-11.csv).
		{"Lloydminster, 1 m east of W4", orb.Point{lngW4 + 1e-5, 53.2783}, lld.Township, twp(lld.W3, 28, 49), survey.SK},
		{"Lloydminster, 1 m west of W4", orb.Point{lngW4 - 1e-5, 53.2783}, lld.Township, twp(lld.W4, 1, 49), survey.AB},
		{"AER 06-24-037-01W4", orb.Point{-110.0198, 52.19163}, lld.Section, sec(24, lld.W4, 1, 37), survey.AB},

		// 60°N: the 60°N 117°W confluence on the Alberta–Northwest
		// Territories line, 15 km north of Indian Cabins (confluence.org,
		// 60°N 117°W; the 2003 visitor stood 33 m south of it, in Alberta).
		{"33 m south of 60°N 117°W", orb.Point{-117, 59.9997}, lld.LSD, lsdAt(16, 35, lld.W5, 18, 126), survey.AB}, // 15 before the correction moved W5 85 m west
		{"60°N 117°W itself", orb.Point{-117, lat60}, lld.LSD, none, 0},
		{"1 m south of 60°N on W1", orb.Point{-98, lat60 - 1e-5}, lld.Section, sec(36, lld.W1, 4, 126), survey.MB},
	}
	for _, tc := range tests {
		got, ok := dls.Locate(tc.pt, tc.unit)
		if tc.want == none {
			if ok {
				t.Errorf("%s: Locate(%v, %v) = %v, want no DLS block", tc.name, tc.pt, tc.unit, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%s: Locate(%v, %v) = %v, %v, want %v", tc.name, tc.pt, tc.unit, got, ok, tc.want)
			continue
		}
		b, ok := dls.ResolveAt(got, tc.pt)
		if !ok || b.Province != tc.prov || !b.Geometry.Bound().Contains(tc.pt) {
			t.Errorf("%s: ResolveAt(%v, %v) = %v %v, %v, want %v holding the point", tc.name, got, tc.pt, b.Province, b.Geometry.Bound(), ok, tc.prov)
		}
	}
}

// rangeBand is ranges lo..hi of a meridian in townships t0..t1.
type rangeBand struct {
	mer    lld.Meridian
	lo, hi uint8
	t0, t1 uint8
}

// blocks returns every township, section, quarter and LSD of the band.
func (rb rangeBand) blocks() []lld.Location {
	var out []lld.Location
	for t := rb.t0; t <= rb.t1; t++ {
		for r := rb.lo; r <= rb.hi; r++ {
			tw := twp(rb.mer, r, t)
			out = append(out, tw)
			for s := uint8(1); s <= 36; s++ {
				out = append(out, sec(s, rb.mer, r, t))
				for _, q := range []lld.Aliquot{lld.NE, lld.NW, lld.SW, lld.SE} {
					l := sec(s, rb.mer, r, t)
					l.Unit, l.Aliquot = lld.QuarterSection, q
					out = append(out, l)
				}
				for n := uint8(1); n <= 16; n++ {
					out = append(out, lsdAt(n, s, rb.mer, r, t))
				}
			}
		}
	}
	return out
}

// side is one side of an edge: the blocks of the model (unclipped box b,
// dls.Bound) that have a part on it, the province they answer there, and
// where the side's part of such a block lies.
type side struct {
	name string
	prov survey.Province // ProvinceNone: no DLS block exists on this side
	// part returns the share of b on this side and whether there is one.
	part func(l lld.Location, b orb.Bound) (orb.Bound, bool)
}

// eastOf and westOf split blocks at a meridian.
// line120 is NAD27's 120th meridian in NAD83 at latitude lat (about 90 m
// west of NAD83's).
func line120(lat float64) float64 {
	p, err := datum.NAD27ToNAD83(orb.Point{lng120, lat})
	if err != nil {
		panic(err)
	}
	return p[0]
}

// eastOf120 and westOf120 are eastOf and westOf NAD27's 120th meridian at
// the block's latitude.
func eastOf120(l lld.Location, b orb.Bound) (orb.Bound, bool) {
	return eastOf(line120(b.Center()[1]))(l, b)
}

func westOf120(l lld.Location, b orb.Bound) (orb.Bound, bool) {
	return westOf(line120(b.Center()[1]))(l, b)
}

func eastOf(lng float64) func(lld.Location, orb.Bound) (orb.Bound, bool) {
	return func(_ lld.Location, b orb.Bound) (orb.Bound, bool) {
		b.Min[0] = max(b.Min[0], lng)
		return b, b.Max[0] > lng
	}
}

func westOf(lng float64) func(lld.Location, orb.Bound) (orb.Bound, bool) {
	return func(_ lld.Location, b orb.Bound) (orb.Bound, bool) {
		b.Max[0] = min(b.Max[0], lng)
		return b, b.Min[0] < lng
	}
}

// inTownships restricts a side to townships t0..t1.
func inTownships(t0, t1 uint8, part func(lld.Location, orb.Bound) (orb.Bound, bool)) func(lld.Location, orb.Bound) (orb.Bound, bool) {
	return func(l lld.Location, b orb.Bound) (orb.Bound, bool) {
		if l.Township < t0 || l.Township > t1 {
			return orb.Bound{}, false
		}
		return part(l, b)
	}
}

// whole is the side that holds every block of its band.
func whole(_ lld.Location, b orb.Bound) (orb.Bound, bool) { return b, true }

// edgeResult counts what one edge's enumeration found.
type edgeResult struct {
	blocks, lsds, split      int // blocks enumerated (LSDs among them), blocks with parts on two sides
	resolved, refused        int
	holes, wrongSide, across int // violations
}

// TestEdgeBlocks enumerates every township, section, quarter and LSD of the
// ranges bordering each edge in bands of townships. For each block and each
// side of the edge it has a part on: where the side is covered, the block
// resolves (ResolveAt a point of that part) to the side's province with a
// polygon that does not cross the edge, and Locate of a point 1 cm inside
// the part answers the block; where it is not covered, no answer lies on
// it. Resolve (no point) answers a part that exists. Run with -v for the
// counts per edge.
func TestEdgeBlocks(t *testing.T) {
	t.Parallel()
	prbWest := prbWestEdges(t)
	westOfPRB := func(l lld.Location, b orb.Bound) (orb.Bound, bool) {
		return westOf(prbWest[l.Township])(l, b)
	}
	prbPart := func(l lld.Location, b orb.Bound) (orb.Bound, bool) {
		b.Min[0] = max(b.Min[0], prbWest[l.Township])
		b.Max[0] = min(b.Max[0], line120(b.Center()[1]))
		return b, b.Max[0] > b.Min[0]
	}
	tests := []struct {
		name  string
		bands []rangeBand
		sides []side
	}{
		{
			"120°W south of the Peace River Block (T56–76)",
			[]rangeBand{{lld.W6, 10, 16, 56, 62}, {lld.W6, 10, 15, 70, 76}},
			[]side{{"Alberta", survey.AB, eastOf120}, {"BC (NTS)", survey.ProvinceNone, westOf120}},
		},
		{
			"120°W north of the Peace River Block (T89–126)",
			[]rangeBand{{lld.W6, 10, 15, 89, 94}, {lld.W6, 10, 14, 120, 126}},
			[]side{{"Alberta", survey.AB, eastOf120}, {"BC (NTS)", survey.ProvinceNone, westOf120}},
		},
		{
			"Peace River Block east edge, 120°W (T77–88)",
			[]rangeBand{{lld.W6, 11, 15, 77, 88}},
			[]side{{"Alberta", survey.AB, eastOf120}, {"Peace River Block", survey.BC, westOf120}},
		},
		{
			"Peace River Block west edge (T77–88)",
			[]rangeBand{{lld.W6, 24, 27, 77, 88}},
			[]side{{"Peace River Block", survey.BC, prbPart}, {"BC (NTS)", survey.ProvinceNone, westOfPRB}},
		},
		{
			"Peace River Block south edge (T76/T77)",
			[]rangeBand{{lld.W6, 14, 26, 75, 78}},
			[]side{{"Peace River Block", survey.BC, inTownships(77, 88, prbPart)}, {"BC (NTS)", survey.ProvinceNone, inTownships(1, 76, whole)}},
		},
		{
			"Peace River Block north edge (T88/T89)",
			[]rangeBand{{lld.W6, 14, 26, 87, 90}},
			[]side{{"Peace River Block", survey.BC, inTownships(77, 88, prbPart)}, {"BC (NTS)", survey.ProvinceNone, inTownships(89, 126, whole)}},
		},
		{
			"Manitoba–Saskatchewan, W1 R29/R30 (T1–78)",
			[]rangeBand{{lld.W1, 28, 29, 1, 4}, {lld.W1, 28, 29, 63, 70}, {lld.W1, 28, 29, 73, 78}},
			[]side{{"Manitoba", survey.MB, whole}},
		},
		{
			"Manitoba–Saskatchewan, W1 R30+ (T1–78, fractional R30 at T75–78)",
			[]rangeBand{{lld.W1, 30, 35, 1, 4}, {lld.W1, 30, 31, 63, 70}, {lld.W1, 30, 31, 73, 78}},
			[]side{{"Saskatchewan", survey.SK, eastOf(lngW2)}, {"past W2", survey.ProvinceNone, westOf(lngW2)}},
		},
		{
			"Manitoba–Saskatchewan, the 2nd meridian (T79–84), W1 side",
			[]rangeBand{{lld.W1, 27, 31, 79, 84}},
			[]side{{"Manitoba", survey.MB, eastOf(lngW2)}, {"past W2", survey.ProvinceNone, westOf(lngW2)}},
		},
		{
			"Manitoba–Saskatchewan, the 2nd meridian (T75–84), W2 side",
			[]rangeBand{{lld.W2, 1, 2, 75, 84}},
			[]side{{"Saskatchewan", survey.SK, whole}},
		},
		{
			"Alberta–Saskatchewan, the last W3 ranges",
			[]rangeBand{{lld.W3, 27, 31, 1, 4}, {lld.W3, 26, 30, 47, 52}, {lld.W3, 20, 26, 121, 126}},
			[]side{{"Saskatchewan", survey.SK, eastOf(lngW4)}, {"past W4", survey.ProvinceNone, westOf(lngW4)}},
		},
		{
			"Alberta–Saskatchewan, W4 R1–2",
			[]rangeBand{{lld.W4, 1, 2, 1, 4}, {lld.W4, 1, 2, 47, 52}, {lld.W4, 1, 2, 121, 126}},
			[]side{{"Alberta", survey.AB, whole}},
		},
		{
			"60°N, township 126, Manitoba",
			[]rangeBand{{lld.W1, 1, 3, 125, 126}},
			[]side{{"Manitoba", survey.MB, whole}},
		},
		{
			"60°N, township 126, Saskatchewan",
			[]rangeBand{{lld.W2, 1, 3, 125, 126}},
			[]side{{"Saskatchewan", survey.SK, whole}},
		},
		{
			"60°N, township 126, Alberta",
			[]rangeBand{{lld.W4, 1, 3, 125, 126}, {lld.W5, 20, 23, 125, 126}},
			[]side{{"Alberta", survey.AB, whole}},
		},
	}
	for _, tc := range tests {
		var res edgeResult
		for _, rb := range tc.bands {
			for _, l := range rb.blocks() {
				checkEdgeBlock(t, tc.name, l, tc.sides, &res)
			}
		}
		t.Logf("%-66s blocks %6d (LSDs %6d)  resolved %6d  refused %5d  split %4d  holes %d  wrong side %d  across %d",
			tc.name, res.blocks, res.lsds, res.resolved, res.refused, res.split, res.holes, res.wrongSide, res.across)
		if res.holes+res.wrongSide+res.across > 0 {
			t.Errorf("%s: %d holes, %d blocks on the wrong side, %d polygons across the edge", tc.name, res.holes, res.wrongSide, res.across)
		}
		if res.resolved == 0 {
			t.Errorf("%s: no block resolved: the band misses the edge", tc.name)
		}
	}
}

// checkEdgeBlock checks one block against the sides of its edge and counts
// into res; the first few violations are reported in full.
func checkEdgeBlock(t *testing.T, edge string, l lld.Location, sides []side, res *edgeResult) {
	t.Helper()
	res.blocks++
	if l.Unit == lld.LSD {
		res.lsds++
	}
	report := func(kind string, format string, args ...any) {
		if res.holes+res.wrongSide+res.across <= 5 {
			t.Errorf("%s: %s %v: %s", edge, kind, l, fmt.Sprintf(format, args...))
		}
	}
	b := dls.Bound(l)
	blk, ok := dls.Resolve(l)
	if ok {
		res.resolved++
	} else {
		res.refused++
	}
	if b == (orb.Bound{}) {
		if ok {
			res.wrongSide++
			report("wrong side", "resolves but has no model box")
		}
		return
	}
	covered := 0
	parts := 0
	for _, sd := range sides {
		pb, has := sd.part(l, b)
		if !has || pb.Max[0]-pb.Min[0] <= 2*eps {
			continue
		}
		parts++
		pt := orb.Point{(pb.Min[0] + pb.Max[0]) / 2, (pb.Min[1] + pb.Max[1]) / 2}
		inside := []orb.Point{pt, {pb.Min[0] + eps, pt[1]}, {pb.Max[0] - eps, pt[1]}}
		if sd.prov == survey.ProvinceNone {
			for _, p := range inside {
				if got, ok := dls.Locate(p, l.Unit); ok && got == l {
					if r, ok := dls.ResolveAt(l, p); ok && r.Geometry.Bound().Contains(p) {
						res.wrongSide++
						report("wrong side", "Locate(%v) answers it on the %s side", p, sd.name)
						break
					}
				}
			}
			continue
		}
		covered++
		r, ok := dls.ResolveAt(l, pt)
		if !ok || r.Province != sd.prov {
			res.holes++
			report("hole", "ResolveAt(%v) = %v, %v on the %s side (part %v)", pt, r.Province, ok, sd.name, pb)
			continue
		}
		if g := r.Geometry.Bound(); g.Min[0] < pb.Min[0]-1e-12 || g.Max[0] > pb.Max[0]+1e-12 ||
			g.Min[1] < pb.Min[1] || g.Max[1] > pb.Max[1] {
			res.across++
			report("across", "ResolveAt(%v) polygon %v leaves its %s part %v", pt, g, sd.name, pb)
		}
		// Locate answers a block holding each point: l, or, where the
		// correction makes neighbouring townships overlap by a few metres
		// (correction.go), the neighbour that also holds it.
		for _, p := range inside {
			got, ok := dls.Locate(p, l.Unit)
			if ok && got != l {
				if g, gok := dls.ResolveAt(got, p); gok && g.Geometry.Bound().Contains(p) {
					continue
				}
			}
			if !ok || got != l {
				res.holes++
				report("hole", "Locate(%v, %v) = %v, %v inside its %s part", p, l.Unit, got, ok, sd.name)
				break
			}
		}
	}
	if parts > 1 && covered > 1 {
		res.split++
	}
	if covered > 0 && !ok {
		res.holes++
		report("hole", "Resolve refuses it, with a part on a covered side")
	}
	if covered == 0 && ok {
		res.wrongSide++
		report("wrong side", "resolves to %v %v with no part on a covered side", blk.Province, blk.Geometry.Bound())
	}
	if ok && blk.Geometry.Bound().Max[1] > lat60 {
		res.across++
		report("across", "reaches north of 60°N: %v", blk.Geometry.Bound())
	}
}

// prbWestEdges returns, per township 77–88, the Peace River Block's west
// edge as the model draws it: the west side of the westmost township of
// ranges 24–27 that resolves (the one the edge clips). The edge must lie
// inside the range survey-geometry.md computes.
func prbWestEdges(t *testing.T) map[uint8]float64 {
	t.Helper()
	edges := map[uint8]float64{}
	for tw := uint8(77); tw <= 88; tw++ {
		w := 0.0
		for r := uint8(24); r <= 27; r++ {
			if b, ok := dls.Resolve(twp(lld.W6, r, tw)); ok {
				w = min(w, b.Geometry.Bound().Min[0])
			}
		}
		if w < prbWestWest || w > prbWestEast {
			t.Errorf("Peace River Block west edge in T%d at %.4f, want %.2f..%.2f", tw, w, prbWestWest, prbWestEast)
		}
		edges[tw] = w
	}
	return edges
}

// TestTownship126 checks the north edge: every block of township 126 stays
// south of 60°N, its north row reaches it exactly, and township 127 does
// not exist.
func TestTownship126(t *testing.T) {
	t.Parallel()
	for _, mer := range []lld.Meridian{lld.W1, lld.W2, lld.W3, lld.W4, lld.W5, lld.W6} {
		tw, ok := dls.Resolve(twp(mer, 1, 126))
		if !ok {
			t.Errorf("Resolve(126-1-%v) not ok", mer)
			continue
		}
		if n := tw.Geometry.Bound().Max[1]; n != lat60 {
			t.Errorf("Resolve(126-1-%v) north edge %v, want 60", mer, n)
		}
		for s := uint8(31); s <= 36; s++ {
			for _, n := range []uint8{13, 14, 15, 16} {
				b, ok := dls.Resolve(lsdAt(n, s, mer, 1, 126))
				if !ok || b.Geometry.Bound().Max[1] != lat60 {
					t.Errorf("Resolve(%d-%d-126-1-%v) = %v, %v, want it to reach 60°N", n, s, mer, b.Geometry, ok)
				}
			}
		}
		if _, ok := dls.Resolve(twp(mer, 1, 127)); ok {
			t.Errorf("Resolve(127-1-%v) ok, want township 127 refused", mer)
		}
		if _, ok := dls.Resolve(lsdAt(1, 1, mer, 1, 127)); ok {
			t.Errorf("Resolve(1-1-127-1-%v) ok, want township 127 refused", mer)
		}
	}
	// The LSDs of township 126 tile it up to 60°N: row heights stay within
	// 1% of each other.
	lo, hi := 1.0, 0.0
	for n := uint8(1); n <= 16; n++ {
		b := dls.Bound(lsdAt(n, 1, lld.W4, 1, 126))
		if n%4 == 1 || n%4 == 0 { // LSDs 1, 4 (row 1), 5, 8 (row 2), ...
			h := b.Max[1] - b.Min[1]
			lo, hi = min(lo, h), max(hi, h)
		}
	}
	for s := uint8(31); s <= 36; s++ {
		b := dls.Bound(lsdAt(16, s, lld.W4, 1, 126))
		lo, hi = min(lo, b.Max[1]-b.Min[1]), max(hi, b.Max[1]-b.Min[1])
	}
	// Road allowances make rows 80 or 81 chains (1.25%), the stretch to
	// 60°N adds 0.4%, and the correction (correction.go) moves the rows
	// below the north row by the township's north shift, which the north
	// row absorbs: up to 100 m, 27% of a row.
	if hi > 1.3*lo {
		t.Errorf("LSD row heights in township 126 range %.6f..%.6f°", lo, hi)
	}
}

// TestGroundTruthResolves: every DLS point of the ground truth (both files)
// resolves, to the province of its source (AER → Alberta, BC Energy
// Regulator → British Columbia, Manitoba rows → Manitoba), and the part
// ResolveAt answers for its point is that province's.
func TestGroundTruthResolves(t *testing.T) {
	t.Parallel()
	n, bad := 0, 0
	for _, p := range teamdata.AllGroundTruth(t) {
		l, err := lld.Parse(p.LLD)
		if err != nil {
			t.Errorf("%s line %d: %v", p.File, p.Line, err)
			continue
		}
		if l.System != lld.DLS {
			continue
		}
		n++
		want := survey.AB
		switch {
		case strings.Contains(p.Source, "BC Energy Regulator"):
			want = survey.BC
		case l.Meridian == lld.W1 || l.Meridian == lld.E1 || l.Meridian == lld.E2:
			want = survey.MB
		}
		b, ok := dls.Resolve(l)
		a, aok := dls.ResolveAt(l, p.Pt)
		if !ok || b.Province != want || !aok || a.Province != want {
			bad++
			t.Errorf("%s line %d: %s: Resolve = %v, %v; ResolveAt its point = %v, %v; want %v",
				p.File, p.Line, p.LLD, b.Province, ok, a.Province, aok, want)
		}
	}
	t.Logf("%d DLS ground-truth points, %d not resolved or in the wrong province", n, bad)
	if n < 800 {
		t.Errorf("only %d DLS ground-truth points read", n)
	}
}

// TestOtherPart: a block 120°W splits in the Peace River Block's townships
// has two parts, Resolve's (the larger) and OtherPart's, in the two
// provinces, meeting at 120°W and together its model box; no other block
// has a second part.
func TestOtherPart(t *testing.T) {
	t.Parallel()
	split := 0
	for _, l := range (rangeBand{lld.W6, 12, 14, 75, 90}).blocks() {
		full := dls.Bound(l)
		x120 := line120(full.Center()[1])
		want := l.Township >= 77 && l.Township <= 88 && full.Min[0] < x120 && full.Max[0] > x120
		o, ok := dls.OtherPart(l)
		if ok != want {
			t.Errorf("OtherPart(%v) ok = %v, want %v (box %v)", l, ok, want, full)
			continue
		}
		if !ok {
			continue
		}
		split++
		r, _ := dls.Resolve(l)
		rb, ob := r.Geometry.Bound(), o.Geometry.Bound()
		if r.Province == o.Province || rb.Union(ob) != full || (rb.Max[0] != x120 && rb.Min[0] != x120) {
			t.Errorf("%v: parts %v %v and %v %v, want two provinces meeting at 120°W and making %v", l, r.Province, rb, o.Province, ob, full)
		}
		if rb.Max[0]-rb.Min[0] < ob.Max[0]-ob.Min[0] {
			t.Errorf("%v: Resolve answers the smaller part %v (other %v)", l, rb, ob)
		}
		if o.Location != r.Location || o.Centroid != ob.Center() || o.Source != survey.SourceModel {
			t.Errorf("%v: OtherPart = %+v", l, o)
		}
	}
	t.Logf("%d blocks split by 120°W in ranges 12–14, townships 75–90", split)
	if split == 0 {
		t.Error("no block split")
	}
}
