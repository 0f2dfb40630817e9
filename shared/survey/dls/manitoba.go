package dls

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Townships of the 1st meridian (W1 and E1: Manitoba and south-east
// Saskatchewan) were laid out under two survey systems
// (survey-geometry.md §1.3, "Manitoba caveat"):
//
//   - the first system (1871–80): 1½-chain road allowances around every
//     section, so townships are 6 × 80 + 6 × 1.5 = 489 chains each way and
//     every section sits in the middle of its block (equal sixths);
//   - the third system (1881 on): the 483 × 486-chain township of the rest
//     of the model. "In Manitoba there is evidence of only the first and
//     third systems" (Manitoba from the Air, mbair.brandonu.ca, chapter 7).
//
// Both are counted from 49°N. Where they meet, the third system's lines
// stay where they would be and its blocks that the first system already
// covers were never laid out: "Township 26 was surveyed using the First
// System of the DLS, and for townships 27 and 28 the Third System was used.
// Township 27 ... is only four sections deep" and its south-easternmost
// section is 13 (ranges 20 and 21 W1 west of Sifton, Manitoba from the Air,
// figure 7.19).
//
// No open dataset says which system each township was laid out under; the
// areas below are rules drawn from this evidence (the official quarter
// centroids of testdata/manitoba-quarters.csv, from DataMB, against the
// uncorrected grids; manitoba_internal_test.go):
//
//	evidence                                         distance to the raw grid
//	W1 T2–T11 R1–R19, E1 T8–T9 R1–R2: 8 centroids    first 0.17–0.36 km,
//	                                                 third 0.32–2.1 km
//	E1 T12 R12: 2, W1 T33–T35 R29: 3, E1 T34 R17: 1  third 0.21–0.72 km,
//	                                                 first 1.7–4.4 km
//	W1 T12–T14 R16–R18: first ("The DLS System (First System) Near Moore
//	Park", figure 7.7); W1 T26 R20–R21: first, T27–T28 third (figure 7.19)
//	1872–75 surveys from the Red River plain and the Portage Plains to Riding
//	Mountain and Shoal Lake (University of Manitoba digital collections,
//	uofm:2369278): first
//
// Hence: the first system covers W1 townships 1–26 (every range, so also
// south-east Saskatchewan) and E1 townships 1–26 ranges 1–7 (the Red River
// plain; range 12 at township 12 is third system and nothing places the
// change between ranges 3 and 11: range 7 is an assumption); everything
// north or east of it is third system. Only townships 1–11 of the first
// system and 12–35 of the third are measured (see the AccuracyM constants).
// E2 keeps the plain model.
const (
	firstSystemTownships = 26
	firstSystemE1Ranges  = 7
	// lastDriftBase: the meridian drift of manitobaFit is measured up to
	// township 35, whose governing base line is the south line of township
	// 37; it is held constant north of it, up to lastEastFitTownship.
	lastDriftBase = 37
	// lastEastFitTownship: north of the T42/T43 correction line the east
	// corrections are not applied and ranges are nominal: Province's
	// Manitoba–Ontario rule north of township 44 starts from the nominal
	// meridian, and nothing is measured there. The cut is at a correction
	// line, where range lines jog anyway.
	lastEastFitTownship = 42
)

// system is the survey system of a 1st-meridian township.
type system uint8

const (
	sysThird system = iota
	sysFirst
)

func (s system) String() string {
	if s == sysFirst {
		return "first"
	}
	return "third"
}

// surveySystem returns the system of township t, range r of mer (W1 or E1).
func surveySystem(mer lld.Meridian, r, t int) system {
	switch {
	case t > firstSystemTownships:
		return sysThird
	case mer == lld.W1, mer == lld.E1 && r <= firstSystemE1Ranges:
		return sysFirst
	}
	return sysThird
}

// mbFit are the corrections fitted to Manitoba's official quarter
// centroids, in metres: north of the first-system grid a + b·(T−1) on the
// south line of township T (the first system's townships come out about
// 1 chain taller than 489 chains, as if measured 0.2% long; T−1 is held at
// 11, the last township measured); north of the
// third-system grid a constant; east, for both systems, e0 + e1·B + e2·X on
// range line X (ranges from the 1st meridian, east positive) in townships
// whose governing base line is the south line of township B+1: the range
// lines as surveyed drift west going north by about 14 m a township (56 m
// at each correction line, so they stay straight between them), and ranges
// are about 5 m wider than nominal.
type mbFit struct {
	firstN0, firstNPerTownship  float64
	thirdN                      float64
	e0, ePerTownship, ePerRange float64
}

// manitobaFit is the least-squares fit of mbFit to all of
// testdata/manitoba-quarters.csv (TestManitobaFit recomputes it and fails
// when these drift from the data).
var manitobaFit = mbFit{
	firstN0:           20.73,
	firstNPerTownship: 21.61,
	thirdN:            -136.98,
	e0:                -63.61,
	ePerTownship:      -14.07,
	ePerRange:         4.87,
}

// AccuracyM of 1st-meridian blocks in Manitoba. Where official centroids
// exist (first system townships 1–11, third system townships 12–35) it is
// the 95th percentile (nearest rank, rounded up to 10 m) of the
// leave-one-township-out distances between official and modelled quarter
// centroids, per system (TestManitobaCentroids prints them and fails when
// they exceed these). Elsewhere nothing was measured: the first system's
// townships 12–26 hold the stretch fitted in townships 2–11 (a chain a
// township) at its township-11 value: carried on, it would put the one
// documented junction, township 27 range 20 W1, 0.64 km off instead of the
// 0.31 km TestManitobaSystems reports (the model's township 26 ends north of
// where section 13 begins on the ground); north of township 35 the meridian
// drift is held. They get accuracyMBUnmeasured.
const (
	accuracyMBFirst      = 170
	accuracyMBThird      = 220
	accuracyMBUnmeasured = 1000
	lastMeasuredFirst    = 11
	lastMeasuredThird    = 35
)

// manitoba holds the tables of the 1st-meridian townships, per system.
type manitoba struct {
	south  [2][maxTownship + 2]float64 // as model.south
	dlng   [2][maxTownship + 1]float64 // as model.dlng
	xs, ys [2][grid + 1]float64        // LSD lines
	base   float64                     // the 1st meridian
	fit    mbFit
}

// newManitoba computes the tables for the 1st meridian at longitude base,
// third-system townships laid out as l, with corrections f.
func newManitoba(base float64, l layout, f mbFit) *manitoba {
	mb := &manitoba{base: base, fit: f}
	dims := [2]struct {
		height, width float64 // metres
		n0, nPer      float64 // correction north, metres
		l             layout
	}{
		sysThird: {townshipHeight, rangeWidth, f.thirdN, 0, l},
		sysFirst: {489 * chain, 489 * chain, f.firstN0, f.firstNPerTownship, equalSixths},
	}
	m0 := meridianArc(firstBaseLine * degree)
	for s, d := range dims {
		mb.south[s][1] = firstBaseLine // the boundary as monumented
		for t := 2; t <= maxTownship+1; t++ {
			stretch := float64(min(t-1, lastMeasuredFirst)) * d.nPer // held north of the measured townships
			mb.south[s][t] = inverseMeridianArc(m0+float64(t-1)*d.height+stretch+d.n0) / degree
		}
		mb.south[s][maxTownship+1] = lat60 // township 126 ends at the boundary, as in newModel
		for t := 1; t <= maxTownship; t++ {
			phiB := mb.south[s][governingBaseTownship(t)] * degree
			mb.dlng[s][t] = d.width / parallelRadius(phiB) / degree
		}
		mb.xs[s], mb.ys[s] = lines(d.l)
	}
	return mb
}

// driftTownship is the township count at which the meridian drift of
// township t is evaluated: its governing base line (so range lines stay
// straight between correction lines and jog only at them), measured up to
// township 35 (base line 37) and held north of it.
func driftTownship(t int) float64 {
	return float64(min(governingBaseTownship(t), lastDriftBase) - 1)
}

// lineLng returns the longitude of range line x (ranges from the 1st
// meridian, east positive) in township t of system s.
func (mb *manitoba) lineLng(s system, t int, x float64) float64 {
	if t > lastEastFitTownship {
		return mb.base + x*mb.dlng[s][t]
	}
	phi := mb.south[s][governingBaseTownship(t)] * degree // as dlng: lines stay straight between correction lines
	shift := mb.fit.e0 + mb.fit.ePerTownship*driftTownship(t) + mb.fit.ePerRange*x
	return mb.base + x*mb.dlng[s][t] + shift/parallelRadius(phi)/degree
}

// frame returns the edges of range r of mer (W1 or E1) in township t,
// unclipped, the LSD lines of its system, and clipS: the latitude below
// which the township's blocks do not exist (-Inf but for a third-system
// township 27 above first-system ones: its sections south of the first
// system's north line of township 26 were never laid out, as in township 27
// range 20 W1, "only four sections deep", whose first section is 13).
func (mb *manitoba) frame(mer lld.Meridian, r, t int) (w, e, s, n, clipS float64, xs, ys *[grid + 1]float64) {
	sys := surveySystem(mer, r, t)
	xw, xe := float64(r-1), float64(r)
	if !mer.East() {
		xw, xe = -float64(r), -float64(r-1)
	}
	w, e = mb.lineLng(sys, t, xw), mb.lineLng(sys, t, xe)
	s, n = mb.south[sys][t], mb.south[sys][t+1]
	clipS = math.Inf(-1)
	if sys == sysThird && t == firstSystemTownships+1 && surveySystem(mer, r, t-1) == sysFirst {
		clipS = mb.south[sysFirst][t]
	}
	return w, e, s, n, clipS, &mb.xs[sys], &mb.ys[sys]
}

// firstEastLimit returns the easternmost east line of E1 range 7 of the
// first-system townships that overlap latitudes s..n (-Inf when none): the
// west limit of E1 range 8 (third system) beside them. Where that line jogs
// (at the first system's correction lines) the strip between the two is
// covered by neither model: Locate does not answer there.
func (mb *manitoba) firstEastLimit(s, n float64) float64 {
	lim := math.Inf(-1)
	for t := 1; t <= firstSystemTownships; t++ {
		if mb.south[sysFirst][t] < n && mb.south[sysFirst][t+1] > s {
			lim = math.Max(lim, mb.lineLng(sysFirst, t, firstSystemE1Ranges))
		}
	}
	return lim
}

// cellBound is model.cellBound for W1 and E1; lim is the 2nd meridian,
// where W1 ranges end.
func (mb *manitoba) cellBound(mer lld.Meridian, r, t int, c cells, lim float64) (orb.Bound, bool) {
	w, e, s, n, clipS, xs, ys := mb.frame(mer, r, t)
	b := orb.Bound{
		Min: orb.Point{lerp(w, e, xs[:], c.x0), lerp(s, n, ys[:], c.y0)},
		Max: orb.Point{lerp(w, e, xs[:], c.x1), lerp(s, n, ys[:], c.y1)},
	}
	if !mer.East() {
		b.Min[0] = math.Max(b.Min[0], lim)
	}
	b.Min[1] = math.Max(b.Min[1], clipS)
	if mer == lld.E1 && r == firstSystemE1Ranges+1 {
		b.Min[0] = math.Max(b.Min[0], mb.firstEastLimit(b.Min[1], b.Max[1]))
	}
	if b.Min[0] >= b.Max[0] || b.Min[1] >= b.Max[1] {
		return orb.Bound{}, false
	}
	return b, true
}

// firstMeridian reports whether townships of mer are laid out by the
// manitoba tables.
func (m *model) firstMeridian(mer lld.Meridian) bool {
	return m.mb != nil && (mer == lld.W1 || mer == lld.E1)
}

// locateFirstMeridian is Locate for points between the 2nd meridian and
// the Ontario line: the first-system township that holds pt if any, else
// the third-system one.
func (m *model) locateFirstMeridian(pt orb.Point, unit lld.Unit) (lld.Location, bool) {
	lng, lat := pt[0], pt[1]
	mb := m.mb
	for _, sys := range [...]system{sysFirst, sysThird} {
		t0 := townshipAt(&mb.south[sys], lat)
		for t := max(1, t0-1); t <= min(maxTownship, t0+1); t++ {
			for _, mer := range [...]lld.Meridian{lld.W1, lld.E1} {
				x := (lng - mb.base) / mb.dlng[sys][t] // ranges east, roughly
				r0 := int(math.Floor(x)) + 1
				if !mer.East() {
					r0 = int(math.Floor(-x)) + 1
				}
				for r := max(1, r0-1); r <= min(maxRange, r0+1); r++ {
					if surveySystem(mer, r, t) != sys {
						continue
					}
					w, e, s, n, _, xs, ys := mb.frame(mer, r, t)
					if lng < w || lng > e || lat < s || lat > n {
						continue
					}
					cx := cellIndex(lng, w, e, xs[:])
					cy := cellIndex(lat, s, n, ys[:])
					l, c := locationAt(mer, r, t, cx, cy, unit)
					b, ok := m.cellBound(mer, r, t, c)
					if !ok || !b.Contains(pt) {
						continue // clipped away: the first system holds pt, or no one does
					}
					if _, ok := m.province(l, b); !ok {
						return lld.Location{}, false
					}
					return l, true
				}
			}
		}
	}
	return lld.Location{}, false
}

// townshipAt returns the township t with south[t] <= lat < south[t+1],
// clamped to 1..maxTownship.
func townshipAt(south *[maxTownship + 2]float64, lat float64) int {
	t := int((lat-firstBaseLine)/townshipDegrees) + 1
	t = max(1, min(t, maxTownship))
	for t > 1 && lat < south[t] {
		t--
	}
	for t < maxTownship && lat >= south[t+1] {
		t++
	}
	return t
}

// townshipsFirstMeridian is Townships for W1 and E1; it returns false when
// fn stopped it.
func (m *model) townshipsFirstMeridian(b orb.Bound, fn func(lld.Location) bool) bool {
	mb := m.mb
	for t := 1; t <= maxTownship; t++ {
		lo := math.Min(mb.south[sysFirst][t], mb.south[sysThird][t])
		hi := math.Max(mb.south[sysFirst][t+1], mb.south[sysThird][t+1])
		if hi <= b.Min[1] || lo >= b.Max[1] {
			continue
		}
		for _, mer := range [...]lld.Meridian{lld.W1, lld.E1} {
			for r := 1; r <= maxRange; r++ {
				l := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: mer, Range: uint8(r), Township: uint8(t)}
				tb, ok := m.bound(l)
				if !ok {
					break // wholly past the 2nd meridian, and so are the next ranges
				}
				if mer.East() && tb.Min[0] >= b.Max[0] || !mer.East() && tb.Max[0] <= b.Min[0] {
					break
				}
				if !tb.Intersects(b) || tb.Min[0] >= tb.Max[0] || tb.Min[1] >= tb.Max[1] {
					continue
				}
				if !fn(l) {
					return false
				}
			}
		}
	}
	return true
}

// manitobaAccuracy returns the AccuracyM of a block of l in province p
// (called for Manitoba by accuracy, resolve.go).
func (m *model) manitobaAccuracy(p survey.Province, l lld.Location) float64 {
	switch {
	case p != survey.MB || !(l.Meridian == lld.W1 || l.Meridian == lld.E1):
		return Accuracy(p, l.Meridian)
	case m.mb == nil:
		return accuracyManitoba // the plain model (a calibration variant): 0.2–2.1 km off
	}
	t := int(l.Township)
	switch surveySystem(l.Meridian, int(l.Range), t) {
	case sysFirst:
		if t <= lastMeasuredFirst {
			return accuracyMBFirst
		}
	case sysThird:
		if t <= lastMeasuredThird {
			return accuracyMBThird
		}
	}
	return accuracyMBUnmeasured
}
