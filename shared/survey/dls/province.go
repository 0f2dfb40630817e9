package dls

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Province returns the province that holds the DLS location l, applying the
// boundary rules of survey-geometry.md ("Province boundaries in DLS terms"
// a–f), and false when l names no block in the model's coverage:
//
//   - W4 → Alberta (the AB–SK boundary is the 4th meridian as surveyed);
//     W2, W3 → Saskatchewan. The last W3 range is fractional, clipped at the
//     4th meridian, and W4 range 1 starts on it.
//   - W1: townships 1–78, ranges 1–29 → Manitoba, 30 and up → Saskatchewan
//     (the boundary is the road allowance between ranges 29 and 30; range 30
//     is fractional at townships 75–78); townships 79 and up → Manitoba (the
//     boundary is the 2nd meridian, where W1 ranges are clipped).
//   - E1 → Manitoba: townships 1–42 ranges 1–17, townships 43–44 ranges
//     1–16; north of township 44 the block's centroid must lie west of the
//     Manitoba–Ontario line and the Hudson Bay coast.
//   - E2 → Manitoba in townships 79 and up, west of the 1st meridian (the
//     extent of E2 is not documented; this is the area where it can exist).
//   - W5, W6 in townships 1–55 → Alberta where any part of the block is
//     east of the divide (ABBCBoundary, a public outline good to
//     abbcToleranceM = 2 km) or within 2 km of it; a block wholly west
//     of it by more is British Columbia outside the Peace River Block
//     (false).
//   - W5, W6 in townships 56–126: the boundary is the 120th meridian as
//     surveyed, and blocks stop at it (see Resolve). A block with any part
//     east of 120°W is Alberta's. In townships 77–88 the part west of 120°W
//     is British Columbia's Peace River Block, as far west as its west edge
//     (≈121.94–121.99°W); a block with parts on both sides of 120°W names
//     two parcels, and Province answers the one holding the block's
//     centroid. Elsewhere west of 120°W British Columbia uses NTS (false;
//     the Railway Belt is not supported).
//   - Ranges wholly west of the next meridian do not exist (false);
//     townships run 1–126, the last one ending at 60°N.
func Province(l lld.Location) (survey.Province, bool) {
	b, ok := std.bound(l)
	if !ok {
		return survey.ProvinceNone, false
	}
	pc, ok := std.place(l, b, nil)
	return pc.prov, ok
}

// part is the piece of a block that answers for it: the block's box, or the
// share of it on one side of a boundary the model clips at, and the province
// that holds it. The boundaries clipped at are meridians (120°W, the Peace
// River Block's west edge per township), so parts are boxes too.
type part struct {
	prov survey.Province
	box  orb.Bound
}

// place returns the part of the block of l (box b, valid frame) that
// answers for l, and false when no part of it is in coverage. Where the
// block is split between two provinces (at 120°W in the Peace River
// Block's townships), at chooses the part on its side of the line; with at
// nil the part holding the block's centroid answers.
func (m *model) place(l lld.Location, b orb.Bound, at *orb.Point) (part, bool) {
	if l.Meridian == lld.W6 && int(l.Township) > lastDivideTownship {
		return m.place120(int(l.Township), b, at)
	}
	p, ok := m.province(l, b)
	// A point west of the divide beyond its tolerance is British Columbia's
	// even where its block reaches Alberta; a township is named for any
	// point in it, as Province names it Alberta's.
	if ok && at != nil && p == survey.AB && l.Unit != lld.Township && dividesAt(l) &&
		!abbc.inAlberta(*at) && !abbc.near(orb.Bound{Min: *at, Max: *at}) {
		return part{}, false
	}
	return part{prov: p, box: b}, ok
}

// province applies the rules of Province to l, whose block is b. l must
// have a valid frame (validFrame).
func (m *model) province(l lld.Location, b orb.Bound) (survey.Province, bool) {
	t, r, c := int(l.Township), int(l.Range), b.Center()
	switch l.Meridian {
	case lld.W1:
		if t <= 78 && r >= 30 {
			return survey.SK, true
		}
		return survey.MB, true
	case lld.W2, lld.W3:
		return survey.SK, true
	case lld.W4:
		return survey.AB, true
	case lld.W5, lld.W6:
		return albertaOrBC(l, b)
	case lld.E1:
		switch {
		case t <= 42:
			return only(survey.MB, r <= 17)
		case t <= 44:
			return only(survey.MB, r <= 16)
		}
		return only(survey.MB, survey.RingContains(mbEast, c))
	case lld.E2:
		return only(survey.MB, t >= 79 && c[0] < m.base[lld.W1])
	}
	return survey.ProvinceNone, false
}

// only returns p, true when ok and no province otherwise.
func only(p survey.Province, ok bool) (survey.Province, bool) {
	if !ok {
		return survey.ProvinceNone, false
	}
	return p, true
}

// dividesAt reports whether the AB–BC boundary of l's township is the
// divide: W5 and W6 townships 1–55.
func dividesAt(l lld.Location) bool {
	return (l.Meridian == lld.W5 || l.Meridian == lld.W6) && int(l.Township) <= lastDivideTownship
}

// albertaOrBC applies the AB–BC rules to a W5 or W6 block b. Along the
// divide a block is Alberta's when any part of it is: its centroid is east
// of the line, or the line passes through it or within abbcToleranceM of it
// (the accuracy of the line, so that its error never throws out a real
// Alberta parcel). A block wholly west of the line beyond that is British
// Columbia outside the Peace River Block (false).
func albertaOrBC(l lld.Location, b orb.Bound) (survey.Province, bool) {
	if dividesAt(l) {
		return only(survey.AB, abbc.inAlberta(b.Center()) || abbc.near(b))
	}
	// Townships 56–126: W5 lies wholly east of 120°W. W6 blocks there are
	// placed by place120, which place calls instead of province.
	return only(survey.AB, l.Meridian == lld.W5)
}

// place120 places a W6 block of township t (56–126), box b, against the
// 120th meridian and the Peace River Block (see Province). Its Alberta part
// is the share of b east of 120°W; its Peace River Block part, in townships
// 77–88, the share between the Block's west edge and 120°W. A block with
// both answers with the part on at's side of 120°W, or, with at nil, the
// part holding b's centroid: the larger share.
func (m *model) place120(t int, b orb.Bound, at *orb.Point) (part, bool) {
	x120 := ABBCLine120(b.Center()[1])
	ab := part{prov: survey.AB, box: b}
	ab.box.Min[0] = math.Max(b.Min[0], x120)
	hasAB := b.Max[0] > x120

	bc := part{prov: survey.BC, box: b}
	hasBC := false
	if t >= prbFirstTownship && t <= prbLastTownship && b.Min[0] < x120 {
		w := m.prbWestLng(t)
		bc.box.Min[0] = math.Max(b.Min[0], w)
		bc.box.Max[0] = math.Min(b.Max[0], x120)
		hasBC = b.Max[0] > w
	}

	switch {
	case hasAB && hasBC:
		x := b.Center()[0]
		if at != nil {
			x = at[0]
		}
		if x >= x120 {
			return ab, true
		}
		return bc, true
	case hasAB:
		return ab, true
	case hasBC:
		return bc, true
	}
	return part{}, false
}

// OtherPart returns, for a block that 120°W splits between Alberta and the
// Peace River Block (W6, townships 77–88), the part Resolve does not
// answer: the smaller one, with its own province. ok is false for every
// other location. A map draws both parts; a reverse lookup picks one with
// ResolveAt.
func OtherPart(l lld.Location) (b survey.Block, ok bool) { return std.otherPart(l) }

func (m *model) otherPart(l lld.Location) (survey.Block, bool) {
	first, ok := m.resolve(l)
	if !ok || l.Meridian != lld.W6 || l.Township < prbFirstTownship || l.Township > prbLastTownship {
		return survey.Block{}, false
	}
	bd, _ := m.bound(l)
	x120 := ABBCLine120(bd.Center()[1])
	if !(bd.Min[0] < x120 && bd.Max[0] > x120) {
		return survey.Block{}, false
	}
	at := orb.Point{math.Nextafter(x120, -180), bd.Center()[1]} // just west of 120°W
	if first.Province == survey.BC {
		at[0] = x120
	}
	other, ok := m.resolveAt(l, &at)
	if !ok || other.Province == first.Province {
		return survey.Block{}, false
	}
	return other, true
}
