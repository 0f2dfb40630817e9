package dls

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Survey dimensions of the third system (survey-geometry.md §1.3).
const (
	townshipHeight = 483 * chain // N–S: 6 × 80 ch sections + 3 × 1 ch road allowances
	rangeWidth     = 486 * chain // E–W on the governing base line: 6 × 80 ch + 6 × 1 ch
	firstBaseLine  = 49.0        // degrees north: south edge of township 1

	maxTownship = 126 // township 126 reaches 60°N (stretched there from 59.9984°N, newModel)
	maxRange    = 34  // what a description can name (lld.Parse: ranges 1-34); the meridians and the province rules limit further
	grid        = 24  // LSD cells along each side of a township (6 sections × 4 LSDs)
)

// Initial meridians, degrees of longitude (negative = west), survey-geometry.md §1.1.
const (
	lngW1 = -97.4578917 // 97°27′28.41″
	// lngW2 is the nominal 102°. alephcom/dls uses −102.0067659 [unverified];
	// the one surveyed point found on W2, the MB–SK switch corner at
	// 55°48′40″N 102°00′06″W (−102.0017), is closer to 102.0000 than to
	// 102.0068, and with 102.0000 the model's W1 R29/30 line at T79–82
	// (−102.0004) falls on W2 as the boundary description says. No ground
	// truth exists for W2 townships.
	lngW2 = -102.0
	lngW3 = -106.0
	// lngW4 is the surveyed 4th meridian (110°00′18.4″W). With exactly 110°
	// W4 townships come out ~340 m east of the ground (§1.1, and the
	// calibration test reports both).
	lngW4 = -110.0051061
	lngW5 = -114.0
	lngW6 = -118.0
	lngW7 = -122.0 // only the western limit of W6 ranges
)

// layout is how a township's width and height are shared among its sections
// and LSDs.
type layout uint8

const (
	// roadAllowances places 80-chain sections with 1-chain road allowances
	// as the third system lays them out (§1.3): a N–S allowance beside every
	// section column, on its west side within the township, and an E–W
	// allowance on the north side of sections 7–12, 19–24 and 31–36. Each
	// allowance is counted in the block beside it, so blocks still tile the
	// township; lines inside the township move by at most 1 chain from
	// equal sixths.
	//
	// The side of the N–S allowance follows an 1880s description of the
	// new (third) system, quoting C. W. Allen's Land Prospector's Manual:
	// corner posts "are invariably planted along the western limit of the
	// road allowance on all lines running north and south, and in the
	// southern limit of the road allowance on all lines running east and
	// west", so "such corner posts always stand on the northeast corner of
	// the township, section" (books.google, id ioACAAAAMAAJ / VzgTAAAAYAAJ).
	// With range lines on the posts, the allowance between a township's
	// west range line and its first section column is inside it. Against
	// the sample this layout puts 54 of 80 LSD points inside their LSD,
	// the east-side variant 52 and equal sixths 53; section figures are
	// the same for all three (calibration_internal_test.go).
	roadAllowances layout = iota
	// equalSixths divides the township into 6 × 6 equal sections and each
	// section into 4 × 4 equal LSDs (survey-geometry.md §1.6).
	equalSixths
	// roadAllowancesEast is roadAllowances with the N–S allowance on the
	// east side of every section column (calibration variant).
	roadAllowancesEast
	// roadAllowancesSouth is roadAllowances with every E–W allowance one
	// row lower: south of sections 1–6, 13–18 and 25–30, as if the
	// township's north line were the south limit of the allowance north of
	// sections 31–36 (calibration variant).
	roadAllowancesSouth
)

// options are the calibration constants of a model.
type options struct {
	w2, w4 float64 // longitudes of the 2nd and 4th meridians
	layout layout
	// firstSystem uses the 1871–80 dimensions everywhere: 489-chain
	// townships each way with 1½-chain allowances around every section
	// (equal sixths). Calibration variant for Manitoba only.
	firstSystem bool
	// Manitoba (manitoba.go): plainManitoba lays out W1 and E1 townships
	// like all others (calibration variant); otherwise each by its survey
	// system, corrected by mb.
	plainManitoba bool
	mb            mbFit
	// corr is the fitted correction (correction.go); nil for none.
	corr *correction
}

// defaultOptions are the constants the package uses. The calibration test
// (calibration_internal_test.go) reports the alternatives it tried.
var defaultOptions = options{w2: lngW2, w4: lngW4, layout: roadAllowances, mb: manitobaFit, corr: &fitted}

// uncorrected returns o without its correction: the model the correction
// is fitted to.
func (o options) uncorrected() options {
	o.corr = nil
	return o
}

// model holds the precomputed tables of one calibration of the DLS model.
// It is immutable after newModel.
type model struct {
	// south[T] is the latitude of the south edge of township T, T = 1..127
	// (south[127] is the north edge of township 126: 60°N).
	south [maxTownship + 2]float64
	// dlng[T] is the width in degrees of longitude of a range in township T,
	// from the township's governing base line.
	dlng [maxTownship + 1]float64
	// base[m] is the longitude of meridian m; next[m] is, for W meridians,
	// the next meridian to the west, where the last (fractional) range ends.
	base, next [lld.E2 + 1]float64
	// xs and ys are the LSD lines of a township as fractions of its width
	// (west to east) and height (south to north); xs[0] = ys[0] = 0 and
	// xs[grid] = ys[grid] = 1.
	xs, ys [grid + 1]float64
	// mb lays out the townships of W1 and E1 by survey system
	// (manitoba.go); nil for the plain model.
	mb *manitoba
	// corr is the correction applied to every block (correction.go), nil
	// for none; lngPerM[T] and latPerM[T] convert its metres to degrees
	// in township T (at the township's south edge).
	corr             *correction
	dense            *denseShifts
	lngPerM, latPerM [maxTownship + 1]float64
}

// std is the package's model.
var std = newModel(defaultOptions)

// newModel computes the tables of the model with calibration o.
func newModel(o options) *model {
	m := new(model)
	height, width := townshipHeight, rangeWidth
	if o.firstSystem {
		height, width = 489*chain, 489*chain
		o.layout = equalSixths
	}
	m0 := meridianArc(firstBaseLine * degree)
	for t := 1; t <= maxTownship+1; t++ {
		m.south[t] = inverseMeridianArc(m0+float64(t-1)*height) / degree
	}
	m.south[1] = firstBaseLine // exact, not M⁻¹(M(49°))
	// Township 126 ends at 60°N, the boundary, not at 59.9984°N where 126
	// townships of 483 chains end: its rows share the 180 m (divide.go).
	m.south[maxTownship+1] = lat60
	for t := 1; t <= maxTownship; t++ {
		phiB := m.south[governingBaseTownship(t)] * degree
		m.dlng[t] = width / parallelRadius(phiB) / degree
		phi := m.south[t] * degree
		m.lngPerM[t] = 1 / parallelRadius(phi) / degree
		m.latPerM[t] = 1 / meridianRadius(phi) / degree
	}
	m.corr = o.corr
	lng := [...]float64{lngW1, o.w2, lngW3, o.w4, lngW5, lngW6, lngW7}
	for mer := lld.W1; mer <= lld.W6; mer++ {
		m.base[mer] = lng[mer-lld.W1]
		m.next[mer] = lng[mer-lld.W1+1]
	}
	m.base[lld.E1] = lngW1
	m.base[lld.E2] = o.w2
	m.xs, m.ys = lines(o.layout)
	if !o.firstSystem && !o.plainManitoba {
		m.mb = newManitoba(lngW1, o.layout, o.mb)
	}
	if m.corr != nil {
		m.dense = m.corr.spread(m)
	}
	return m
}

// governingBaseTownship returns the township whose south edge is the base
// line township t's range lines are measured from: t = 1, 2 → 1; 3..6 → 5;
// 7..10 → 9; ...
func governingBaseTownship(t int) int { return 4*((t+1)/4) + 1 }

// lines returns the LSD lines of a township for a layout (see xs, ys).
func lines(l layout) (xs, ys [grid + 1]float64) {
	if l == equalSixths {
		for i := range xs {
			xs[i] = float64(i) / grid
			ys[i] = xs[i]
		}
		return xs, ys
	}
	// In chains. N–S: rowStart is where each row's 80-chain sections start
	// (allowances north of the 2nd, 4th and 6th rows), tile where its blocks
	// start (each with the allowance beside it). E–W: columns start every
	// 81 chains, the allowance on the west (or east) side of the section.
	rowStart := [6]float64{0, 80, 161, 241, 322, 402}
	tile := rowStart
	if l == roadAllowancesSouth {
		rowStart = [6]float64{1, 81, 162, 242, 323, 403}
		tile = [6]float64{0, 81, 161, 242, 322, 403}
	}
	for r := range 6 {
		ys[4*r] = tile[r]
		for k := 1; k < 4; k++ {
			ys[4*r+k] = rowStart[r] + 20*float64(k)
		}
	}
	ys[grid] = 483
	off := 1.0 // allowance on the west side: the section proper starts 1 ch in
	if l == roadAllowancesEast {
		off = 0
	}
	for c := range 6 {
		xs[4*c] = 81 * float64(c)
		for k := 1; k < 4; k++ {
			xs[4*c+k] = 81*float64(c) + off + 20*float64(k)
		}
	}
	xs[grid] = 486
	for i := range xs {
		xs[i] /= 486
		ys[i] /= 483
	}
	return xs, ys
}

// rangeEdges returns the west and east longitudes of range r of meridian mer
// in township t, unclipped.
func (m *model) rangeEdges(mer lld.Meridian, r, t int) (west, east float64) {
	d, b := m.dlng[t], m.base[mer]
	if mer.East() {
		return b + float64(r-1)*d, b + float64(r)*d
	}
	return b - float64(r)*d, b - float64(r-1)*d
}

// cells is a block as a box of LSD cells of its township: columns x0..x1-1
// from the west and rows y0..y1-1 from the south.
type cells struct{ x0, x1, y0, y1 int }

// cellBound returns the lng/lat box of c in township t, range r of mer,
// clipped at the next meridian for W ranges and then moved by the
// township's correction (correction.go); ok is false when nothing of it is
// left east of that meridian.
func (m *model) cellBound(mer lld.Meridian, r, t int, c cells) (orb.Bound, bool) {
	if m.firstMeridian(mer) {
		return m.mb.cellBound(mer, r, t, c, m.next[mer]) // Manitoba's survey systems
	}
	w, e := m.rangeEdges(mer, r, t)
	s, n := m.south[t], m.south[t+1]
	b := orb.Bound{
		Min: orb.Point{lerp(w, e, m.xs[:], c.x0), lerp(s, n, m.ys[:], c.y0)},
		Max: orb.Point{lerp(w, e, m.xs[:], c.x1), lerp(s, n, m.ys[:], c.y1)},
	}
	if !mer.East() {
		lim := m.nextMeridian(mer, r, t)
		if b.Max[0] <= lim {
			return orb.Bound{}, false
		}
		b.Min[0] = math.Max(b.Min[0], lim)
	}
	return m.extend(mer, r, t, c, m.shifted(mer, r, t, b)), true
}

// lerp returns line i of frac between lo and hi, exact at both ends so that
// neighbouring townships and ranges share their edges bit for bit.
func lerp(lo, hi float64, frac []float64, i int) float64 {
	switch i {
	case 0:
		return lo
	case grid:
		return hi
	}
	return lo + frac[i]*(hi-lo)
}

// validFrame reports whether l is a DLS location with a meridian, township
// and range the model can place.
func validFrame(l lld.Location) bool {
	return l.System == lld.DLS &&
		l.Meridian >= lld.W1 && l.Meridian <= lld.E2 &&
		l.Township >= 1 && l.Township <= maxTownship &&
		l.Range >= 1 && l.Range <= maxRange
}

// bound returns the model's box of l and false when l is not a valid DLS
// location or lies wholly past the next meridian.
func (m *model) bound(l lld.Location) (orb.Bound, bool) {
	if !validFrame(l) {
		return orb.Bound{}, false
	}
	c, ok := cellsOf(l)
	if !ok {
		return orb.Bound{}, false
	}
	return m.cellBound(l.Meridian, int(l.Range), int(l.Township), c)
}
