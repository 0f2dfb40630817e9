package dls

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Province returns the province that holds the DLS location l, applying the
// boundary rules of survey-geometry.md ("Province boundaries in DLS terms"
// a–f), and false when l names no block in the model's coverage:
//
//   - W4 → Alberta (the AB–SK boundary is the 4th meridian as surveyed);
//     W2, W3 → Saskatchewan.
//   - W1: townships 1–78, ranges 1–29 → Manitoba, 30 and up → Saskatchewan
//     (the boundary is the road allowance between ranges 29 and 30);
//     townships 79 and up → Manitoba (the boundary is the 2nd meridian).
//   - E1 → Manitoba: townships 1–42 ranges 1–17, townships 43–44 ranges
//     1–16; north of township 44 the block's centroid must lie west of the
//     Manitoba–Ontario line and the Hudson Bay coast.
//   - E2 → Manitoba in townships 79 and up, west of the 1st meridian (the
//     extent of E2 is not documented; this is the area where it can exist).
//   - W5, W6 → Alberta east of the divide (townships 1–55) or of 120°W
//     (townships 56–126). In townships 1–55 ranges east of the straddling
//     span of the township table are Alberta, ranges west of it are British
//     Columbia outside the Peace River Block (false), and straddling ranges
//     are decided by the block's centroid against the interpolated divide
//     (ABBCBoundary, ±1 range). In townships 56–126 the centroid decides
//     against 120°W; W6 blocks west of it are British Columbia's Peace River
//     Block in townships 77–88 east of its west edge (≈121.94–121.99°W),
//     and false elsewhere (BC uses NTS there; the Railway Belt is not
//     supported).
//   - Ranges wholly west of the next meridian do not exist (false);
//     townships run 1–126 (60°N).
func Province(l lld.Location) (survey.Province, bool) {
	b, ok := std.bound(l)
	if !ok {
		return survey.ProvinceNone, false
	}
	return std.province(l, b.Center())
}

// province applies the rules of Province to l, whose block has centroid c.
// l must have a valid frame (validFrame).
func (m *model) province(l lld.Location, c orb.Point) (survey.Province, bool) {
	t, r := int(l.Township), int(l.Range)
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
		return m.albertaOrBC(l, c)
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

// albertaOrBC applies the AB–BC rules to a W5 or W6 block with centroid c.
func (m *model) albertaOrBC(l lld.Location, c orb.Point) (survey.Province, bool) {
	t := int(l.Township)
	if t <= lastDivideTownship {
		k, s := rangeKey{l.Meridian, l.Range}, straddle[t]
		switch {
		case k.less(s[0]):
			return survey.AB, true
		case s[1].less(k):
			return survey.ProvinceNone, false // BC, not the Peace River Block
		case c[0] >= m.divide.lng(c[1]):
			return survey.AB, true
		}
		return survey.ProvinceNone, false
	}
	if l.Meridian == lld.W5 || c[0] >= -120 {
		return survey.AB, true
	}
	if t >= prbFirstTownship && t <= prbLastTownship && l.Range <= prbMaxRange &&
		c[0] >= m.prbWestLng(c[1]) {
		return survey.BC, true
	}
	return survey.ProvinceNone, false
}
