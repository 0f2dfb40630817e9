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
// Both are counted from 49°N; their township lines do not meet where the
// systems change. The areas below are rules, not survey records: no open
// dataset says which system a township was laid out under.
//
// The official quarter centroids of testdata/manitoba-quarters.csv (DataMB)
// fix the rules where they can and calibrate each system
// (manitoba_internal_test.go fits manitobaFit and measures it
// out of sample):
//
//	evidence                                          system
//	W1 T2–T11 R1–R19, E1 T8–T9 R1–R2 (8 centroids)   first: within 35–280 m
//	                                                 of the raw 489-chain grid,
//	                                                 0.3–2.1 km off the third
//	E1 T12 R12 (2), W1 T33–T35 R29 (3), E1 T34 R17    third: within 0.2–0.7 km
//	W1 T12–T14 R16–R18 ("The DLS System (First System) Near Moore Park",
//	mbair.brandonu.ca/book/chapter/7/7)              first
//	1872–75 surveys: Portage Plains to Riding Mountain, Shoal Lake, the
//	southern flanks of Riding Mountain (University of Manitoba digital
//	collections, uofm:2369278)                       first, to about T20
//
// Hence the rules: the first system covers W1 townships 1–20 (every range,
// so also south-east Saskatchewan) and E1 townships 1–20 ranges 1–7 (the
// Red River plain; E1 range 12 at township 12 is third system, and nothing
// places the change between ranges 3 and 11: range 7 is an assumption);
// everything else north or east of it is third system. E2 keeps the plain
// model.
const (
	firstSystemTownships = 20
	firstSystemE1Ranges  = 7
	// maxDriftTownship: the meridian drift of manitobaFit is measured up to
	// township 35 and held constant north of it, up to lastEastFitTownship.
	maxDriftTownship = 35
	// lastEastFitTownship: north of township 44 (the 12th base line, where
	// Province's Manitoba–Ontario rule starts from the nominal meridian, and
	// where official centroids are sparse and unmeasured) the east
	// corrections are not applied: ranges are nominal.
	lastEastFitTownship = 44
)

// system is the survey system of a 1st-meridian township.
type system uint8

const (
	sysThird system = iota
	sysFirst
)

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
// 1 chain taller than 489 chains); north of the third-system grid a
// constant; east, for both systems, e0 + e1·(T−½) + e2·X on range line X
// (X counts ranges from the 1st meridian, east positive): the meridian as
// surveyed drifts west going north, and ranges are slightly wider than
// nominal.
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
	e0:                -60.95,
	ePerTownship:      -14.17,
	ePerRange:         5.07,
}

// AccuracyM of 1st-meridian blocks in Manitoba, by system: the 95th
// percentile (nearest rank, rounded up to 10 m) of the leave-one-township-out
// distances between official and modelled quarter centroids
// (TestManitobaCentroids prints them and fails when they exceed these).
// The areas without official points (first system T12–T20, third system
// T13–T32 and north of T35) are assumed to behave like the measured ones;
// they may not.
const (
	accuracyMBFirst = 160
	accuracyMBThird = 180
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
			mb.south[s][t] = inverseMeridianArc(m0+float64(t-1)*(d.height+d.nPer)+d.n0) / degree
		}
		for t := 1; t <= maxTownship; t++ {
			phiB := mb.south[s][governingBaseTownship(t)] * degree
			mb.dlng[s][t] = d.width / parallelRadius(phiB) / degree
		}
		mb.xs[s], mb.ys[s] = lines(d.l)
	}
	return mb
}

// lineLng returns the longitude of range line x (ranges from the 1st
// meridian, east positive) in township t of system s.
func (mb *manitoba) lineLng(s system, t int, x float64) float64 {
	if t > lastEastFitTownship {
		return mb.base + x*mb.dlng[s][t]
	}
	phi := (mb.south[s][t] + mb.south[s][t+1]) / 2 * degree
	shift := mb.fit.e0 + mb.fit.ePerTownship*(float64(min(t, maxDriftTownship))-0.5) + mb.fit.ePerRange*x
	return mb.base + x*mb.dlng[s][t] + shift/parallelRadius(phi)/degree
}

// frame returns the edges of range r of mer (W1 or E1) in township t,
// unclipped at the 2nd meridian, and the LSD lines of its system.
//
// Where a third-system township meets first-system ones its lines stop at
// theirs: the south line of township 21 is the first system's north line of
// township 20, and the west line of E1 range 8 in townships 1–21 is the
// easternmost first-system east line of range 7 beside it. Where the
// first-system line jogs (at its correction lines) the strip between the
// two is covered by neither: Locate does not answer there.
func (mb *manitoba) frame(mer lld.Meridian, r, t int) (w, e, s, n float64, xs, ys *[grid + 1]float64) {
	sys := surveySystem(mer, r, t)
	xw, xe := float64(r-1), float64(r)
	if !mer.East() {
		xw, xe = -float64(r), -float64(r-1)
	}
	w, e = mb.lineLng(sys, t, xw), mb.lineLng(sys, t, xe)
	s, n = mb.south[sys][t], mb.south[sys][t+1]
	if sys == sysThird {
		if t == firstSystemTownships+1 && surveySystem(mer, r, t-1) == sysFirst {
			s = math.Max(s, mb.south[sysFirst][t])
		}
		if mer == lld.E1 && r == firstSystemE1Ranges+1 {
			for tf := 1; tf <= firstSystemTownships; tf++ {
				if mb.south[sysFirst][tf] < n && mb.south[sysFirst][tf+1] > s {
					w = math.Max(w, mb.lineLng(sysFirst, tf, firstSystemE1Ranges))
				}
			}
		}
	}
	return w, e, s, n, &mb.xs[sys], &mb.ys[sys]
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
					w, e, s, n, xs, ys := mb.frame(mer, r, t)
					if lng < w || lng > e || lat < s || lat > n {
						continue
					}
					cx := cellIndex(lng, w, e, xs[:])
					cy := cellIndex(lat, s, n, ys[:])
					l, c := locationAt(mer, r, t, cx, cy, unit)
					b, ok := m.cellBound(mer, r, t, c)
					if !ok {
						return lld.Location{}, false
					}
					if _, ok := m.province(l, b.Center()); !ok {
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

// accuracy returns the AccuracyM of a block of l in province p.
func (m *model) accuracy(p survey.Province, l lld.Location) float64 {
	if p != survey.MB || !m.firstMeridian(l.Meridian) {
		return Accuracy(p, l.Meridian)
	}
	if surveySystem(l.Meridian, int(l.Range), int(l.Township)) == sysFirst {
		return accuracyMBFirst
	}
	return accuracyMBThird
}
