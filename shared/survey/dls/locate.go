package dls

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Locate returns the DLS location of the given unit (Township, Section,
// QuarterSection or LSD) that holds pt (orb.Point{lng, lat}) and false when
// pt is outside DLS coverage: south of 49°N, north of township 126 (60°N),
// west of the 7th meridian, or in a block that Resolve rejects (east of the
// Manitoba–Ontario line, British Columbia outside the Peace River Block,
// ...). Coverage is decided per block, by the same rules as Province and
// on pt's side of the lines blocks are clipped at (120°W and the Peace River
// Block's west edge), so ResolveAt(Locate(pt, u), pt) always holds pt, and
// so does Resolve(Locate(pt, u)) except in the blocks of townships 77–88
// that 120°W splits between Alberta and the Peace River Block. Half
// sections are not located (a point is in two of them).
//
// The meridian is the nearest initial meridian at or east of pt (ranges are
// clipped at the next meridian); east of the 1st meridian it is E1. E2 is
// never returned: where E2 and W1 overlap in north-west Manitoba the model
// answers in W1.
func Locate(pt orb.Point, unit lld.Unit) (l lld.Location, ok bool) {
	return std.locate(pt, unit)
}

// townshipDegrees approximates the height of a township in degrees; it only
// seeds the search for the township.
const townshipDegrees = 0.08737

func (m *model) locate(pt orb.Point, unit lld.Unit) (lld.Location, bool) {
	switch unit {
	case lld.Township, lld.Section, lld.QuarterSection, lld.LSD:
	default:
		return lld.Location{}, false
	}
	lng, lat := pt[0], pt[1]
	// The negated comparisons also reject NaN.
	if !(lat >= firstBaseLine && lat < m.south[maxTownship+1]) || !(lng > lngW7 && lng < -85) {
		return lld.Location{}, false
	}

	// Township: south[t] <= lat < south[t+1].
	t := int((lat-firstBaseLine)/townshipDegrees) + 1
	t = max(1, min(t, maxTownship))
	for t > 1 && lat < m.south[t] {
		t--
	}
	for t < maxTownship && lat >= m.south[t+1] {
		t++
	}

	// Meridian: the nearest at or east of lng; E1 east of the 1st.
	mer := lld.E1
	if lng <= m.base[lld.W1] {
		mer = lld.W1
		for lng <= m.next[mer] {
			mer++
		}
	}

	if m.firstMeridian(mer) {
		return m.locateFirstMeridian(pt, unit)
	}

	// Range, from the township's governing base line.
	var r int
	if mer.East() {
		r = int((lng-m.base[mer])/m.dlng[t]) + 1
	} else {
		r = int((m.base[mer]-lng)/m.dlng[t]) + 1
	}
	r = max(1, r)
	w, e := m.rangeEdges(mer, r, t)
	for lng < w || lng > e { // rounding: step to the neighbour that holds lng
		if (lng < w) != mer.East() {
			r++
		} else {
			r--
		}
		if r < 1 {
			return lld.Location{}, false
		}
		w, e = m.rangeEdges(mer, r, t)
	}
	if r > maxRange {
		return lld.Location{}, false
	}

	// LSD cell of the township.
	x := cellIndex(lng, w, e, m.xs[:])
	y := cellIndex(lat, m.south[t], m.south[t+1], m.ys[:])

	l, c := locationAt(mer, r, t, x, y, unit)
	b, ok := m.cellBound(mer, r, t, c)
	if !ok {
		return lld.Location{}, false
	}
	// The part of the block on pt's side must be in coverage and hold pt:
	// west of 120°W outside the Peace River Block it is not.
	if pc, ok := m.place(l, b, &pt); !ok || !pc.box.Contains(pt) {
		return lld.Location{}, false
	}
	return l, true
}

// cellIndex returns the cell i (0..grid-1) with lerp(lo, hi, frac, i) <= v <=
// lerp(lo, hi, frac, i+1), for lo <= v <= hi.
func cellIndex(v, lo, hi float64, frac []float64) int {
	i := int((v - lo) / (hi - lo) * grid)
	i = max(0, min(i, grid-1))
	for i > 0 && v < lerp(lo, hi, frac, i) {
		i--
	}
	for i < grid-1 && v > lerp(lo, hi, frac, i+1) {
		i++
	}
	return i
}
