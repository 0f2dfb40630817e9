package dls

import (
	"math"

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
	if mer, ok := m.meridianAt(pt); ok && m.firstMeridian(mer) {
		return m.locateFirstMeridian(pt, unit) // Manitoba's survey systems
	}
	f, ok := m.frame(pt)
	if !ok {
		return lld.Location{}, false
	}
	// The correction moves townships (correction.go): answer the township
	// whose corrected box holds pt, i.e. whose uncorrected box holds pt
	// less its shift. Candidates are f and the townships around it; a
	// point in a sliver between corrected townships (held by a border
	// block's extension) is answered by the nearest, clamped.
	q := m.unshift(f, pt)
	if f.mer == lld.W4 && f.r == 1 && q[0] > f.e && pt[0] <= f.e {
		q[0] = f.e // range 1's east edge stays on the 4th meridian (shifted)
	}
	if m.corr != nil && !m.frameHolds(f, q) {
		f, q = m.correctedFrame(f, pt)
	}

	// LSD cell of the township.
	x := cellIndex(q[0], f.w, f.e, m.xs[:])
	y := cellIndex(q[1], m.south[f.t], m.south[f.t+1], m.ys[:])

	l, c := locationAt(f.mer, f.r, f.t, x, y, unit)
	b, ok := m.cellBound(f.mer, f.r, f.t, c)
	if !ok {
		return lld.Location{}, false
	}
	// The part of the block on pt's side must be in coverage and hold pt:
	// not past the grid's edge (outside every corrected block), nor west of
	// 120°W outside the Peace River Block.
	if pc, ok := m.place(l, b, &pt); !ok || !pc.box.Contains(pt) {
		return lld.Location{}, false
	}
	return l, true
}

// township is a township of the uncorrected model: meridian, range, number
// and its west and east longitudes.
type township struct {
	mer  lld.Meridian
	r, t int
	w, e float64
}

// unshift returns pt moved back by the correction of township f.
func (m *model) unshift(f township, pt orb.Point) orb.Point {
	dx, dy := m.shiftDegrees(f.mer, f.r, f.t)
	return orb.Point{pt[0] - dx, pt[1] - dy}
}

// locateProbes are the offsets, in degrees, at which correctedFrame looks
// for neighbouring townships: farther than any correction.
var locateProbes = [...]orb.Point{{0, 0}, {-0.006, 0}, {0.006, 0}, {0, -0.004}, {0, 0.004},
	{-0.006, -0.004}, {0.006, -0.004}, {-0.006, 0.004}, {0.006, 0.004}}

// correctedFrame returns the township whose corrected box holds pt, among
// f and the townships around pt, with pt less its shift; when none holds
// it (pt is in a sliver), the one whose corrected box is nearest.
func (m *model) correctedFrame(f township, pt orb.Point) (township, orb.Point) {
	best, bestQ, bestD := f, m.unshift(f, pt), math.Inf(1)
	for _, d := range locateProbes {
		g, ok := m.frame(orb.Point{pt[0] + d[0], pt[1] + d[1]})
		if !ok {
			continue
		}
		q := m.unshift(g, pt)
		if m.frameHolds(g, q) {
			return g, q
		}
		dx := math.Max(0, math.Max(m.westEdge(g)-q[0], q[0]-g.e))
		dy := math.Max(0, math.Max(m.south[g.t]-q[1], q[1]-m.south[g.t+1]))
		if dd := dx*dx + dy*dy; dd < bestD {
			best, bestQ, bestD = g, q, dd
		}
	}
	return best, bestQ
}

// frameHolds reports whether the uncorrected box of township f holds q.
func (m *model) frameHolds(f township, q orb.Point) bool {
	return q[0] >= m.westEdge(f) && q[0] <= f.e && q[1] >= m.south[f.t] && q[1] <= m.south[f.t+1]
}

// frame returns the township of the uncorrected model that holds pt and
// false outside the grid: south of 49°N, north of township 126, west of the
// 7th meridian or past range 99.
func (m *model) frame(pt orb.Point) (township, bool) {
	lng, lat := pt[0], pt[1]
	// The negated comparisons also reject NaN.
	if !(lat >= firstBaseLine && lat < m.south[maxTownship+1]) || !(lng > lngW7 && lng < -85) {
		return township{}, false
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

	mer, _ := m.meridianAt(pt)

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
			return township{}, false
		}
		w, e = m.rangeEdges(mer, r, t)
	}
	if r > maxRange {
		return township{}, false
	}
	return township{mer: mer, r: r, t: t, w: w, e: e}, true
}

// meridianAt returns the meridian of pt: the nearest at or east of its
// longitude, E1 east of the 1st; false west of the 7th.
func (m *model) meridianAt(pt orb.Point) (lld.Meridian, bool) {
	lng := pt[0]
	if !(lng > lngW7) {
		return 0, false
	}
	mer := lld.E1
	if lng <= m.base[lld.W1] {
		mer = lld.W1
		for lng <= m.next[mer] {
			mer++
		}
	}
	return mer, true
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
