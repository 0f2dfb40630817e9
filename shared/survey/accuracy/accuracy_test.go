package accuracy_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/nts"
	"meridian/shared/teamdata"
)

// toleranceM: a point this close to its block counts as inside (issue 14:
// horizontal legs often end on a line).
const toleranceM = 15

// wellFloor is what a group of wells reached when the floor was recorded:
// the test fails when the model does worse. Counts rather than shares, so
// a floor is exact.
type wellFloor struct {
	n, lsdIn, sectionIn int
	p99SectionM         float64 // the 99th percentile of the section miss, at most
}

// Floors of the DLS groups on the held-out townships (dls.HeldOut): the
// figures the model reached on 2026-11-25 (go test ./shared/survey/accuracy
// -run TestAccuracyReport -v prints them). Before the correction of issue
// 14 (uncorrected model, same points): AB W4 94/131 in LSD, 128 in section,
// p99 37 m; AB W5 55/76, 67, 71 m; AB W6 11/12, 12, 0 m; BC PRB 25/30, 28,
// 87 m.
var heldOutFloor = map[string]wellFloor{
	"AB W4":  {n: 131, lsdIn: 114, sectionIn: 129, p99SectionM: 57},
	"AB W5":  {n: 76, lsdIn: 72, sectionIn: 76, p99SectionM: 0},
	"AB W6":  {n: 12, lsdIn: 12, sectionIn: 12, p99SectionM: 0},
	"BC PRB": {n: 30, lsdIn: 29, sectionIn: 30, p99SectionM: 0},
}

// ntsFloor is the number of BC Energy Regulator quarter-unit wells inside
// their NTS quarter unit, of ntsN: all 118 with the grid computed on NAD27
// and moved to NAD83 (89 when it was computed on NAD83 coordinates).
const ntsFloor, ntsN = 118, 118

// Manitoba: the official quarter centroids of the team sample against the
// model's, in metres: the median and largest distance reached, at most (60
// m and 97 m over 6 centroids with Manitoba's survey systems; 512 m and
// 2,077 m with one third-system formula). dls's manitoba_internal_test.go
// measures all 14 official centroids found, out of sample too.
const mbMedianM, mbMaxM, mbN = 60.5, 97.5, 6

// tcMaxM: the one published Township Canada answer, NW-25-24-1-W5 centred
// at 51.077932, -114.01924, is at most this far from the model's centroid
// (135 m before the correction of issue 14, 57 m after).
const tcMaxM = 57.5

var wellGroups = []string{"AB W4", "AB W5", "AB W6", "BC PRB"}

// wellGroup names the group of a ground-truth row: AER bottom holes by
// meridian, BC Energy Regulator surfaces in DLS (the Peace River Block),
// or "" for rows of no group.
func wellGroup(p teamdata.Point, l lld.Location) string {
	if l.System != lld.DLS || l.Unit != lld.LSD {
		return ""
	}
	switch {
	case strings.Contains(p.Source, "BC Energy Regulator"):
		return "BC PRB"
	case strings.HasPrefix(p.Source, "AER"):
		return "AB " + l.Meridian.String()
	}
	return ""
}

// figures are one group's results.
type figures struct {
	n, lsdIn, sectionIn, unresolved int
	sectionMiss, lsdMiss            []float64
}

func (f *figures) p99Section() float64 { return percentile(f.sectionMiss, 0.99) }

func TestAccuracyReport(t *testing.T) {
	pts := teamdata.AllGroundTruth(t)
	sets := map[string]map[string]*figures{"held out": {}, "calibration": {}}
	var ntsIn, ntsTotal int
	var ntsMiss, mb []float64
	for _, p := range pts {
		l, err := lld.Parse(p.LLD)
		if err != nil {
			t.Fatalf("%s line %d: %v", p.File, p.Line, err)
		}
		if g := wellGroup(p, l); g != "" {
			set := "calibration"
			if dls.HeldOut(l) {
				set = "held out"
			}
			f := sets[set][g]
			if f == nil {
				f = new(figures)
				sets[set][g] = f
			}
			f.n++
			blk, ok := dls.Resolve(l)
			sl := l
			sl.Unit, sl.LSD = lld.Section, 0
			sec, ok2 := dls.Resolve(sl)
			if !ok || !ok2 {
				f.unresolved++
				t.Logf("%s line %d: %s does not resolve", p.File, p.Line, p.LLD)
				continue
			}
			dl, ds := distanceM(p.Pt, blk.Geometry), distanceM(p.Pt, sec.Geometry)
			f.lsdMiss = append(f.lsdMiss, dl)
			f.sectionMiss = append(f.sectionMiss, ds)
			if dl <= toleranceM {
				f.lsdIn++
			}
			if ds <= toleranceM {
				f.sectionIn++
			}
			continue
		}
		switch {
		case l.System == lld.NTS && l.Unit == lld.QuarterUnit && strings.Contains(p.Kind, "quarter_unit"):
			ntsTotal++
			blk, ok := nts.Resolve(l)
			if !ok {
				t.Logf("%s line %d: %s does not resolve", p.File, p.Line, p.LLD)
				continue
			}
			d := distanceM(p.Pt, blk.Geometry)
			ntsMiss = append(ntsMiss, d)
			if d <= toleranceM {
				ntsIn++
			}
		case l.System == lld.DLS && l.Unit == lld.QuarterSection && p.Kind == "centroid":
			blk, ok := dls.Resolve(l)
			if !ok {
				t.Errorf("%s line %d: %s does not resolve", p.File, p.Line, p.LLD)
				continue
			}
			mb = append(mb, pointDistanceM(p.Pt, blk.Centroid))
		}
	}

	var b strings.Builder
	for _, set := range []string{"held out", "calibration"} {
		fmt.Fprintf(&b, "\nDLS wells, %s townships (a point within %d m of its block counts as inside):\n\n", set, toleranceM)
		fmt.Fprintf(&b, "| group | n | inside LSD | inside section | p99 section miss | p95 LSD miss | unresolved |\n|---|---|---|---|---|---|---|\n")
		for _, g := range wellGroups {
			f := sets[set][g]
			if f == nil {
				t.Errorf("%s: no %s wells", g, set)
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %.0f m | %.0f m | %d |\n", g, f.n, share(f.lsdIn, f.n), share(f.sectionIn, f.n),
				f.p99Section(), percentile(f.lsdMiss, 0.95), f.unresolved)
			if set != "held out" {
				continue
			}
			fl := heldOutFloor[g]
			if f.n < fl.n {
				t.Errorf("%s: %d held-out wells, want at least %d (ground truth changed?)", g, f.n, fl.n)
			}
			if f.lsdIn < fl.lsdIn || f.sectionIn < fl.sectionIn || f.unresolved > 0 {
				t.Errorf("%s: %d in LSD, %d in section, %d unresolved of %d; the floor is %d, %d, 0", g, f.lsdIn, f.sectionIn, f.unresolved, f.n, fl.lsdIn, fl.sectionIn)
			}
			if p := f.p99Section(); p > fl.p99SectionM+0.5 {
				t.Errorf("%s: p99 section miss %.1f m, the floor is %.0f m", g, p, fl.p99SectionM)
			}
		}
	}

	fmt.Fprintf(&b, "\nNTS quarter units (BC Energy Regulator surfaces): %d of %d inside (%s), p99 miss %.0f m\n",
		ntsIn, ntsTotal, share(ntsIn, ntsTotal), percentile(ntsMiss, 0.99))
	if ntsTotal < ntsN || ntsIn < ntsFloor {
		t.Errorf("NTS: %d of %d inside, the floor is %d of %d", ntsIn, ntsTotal, ntsFloor, ntsN)
	}

	med, worst := percentile(mb, 0.5), percentile(mb, 1)
	fmt.Fprintf(&b, "Manitoba official quarter centroids: %d, model centroid median %.0f m, max %.0f m away\n", len(mb), med, worst)
	if len(mb) < mbN || med > mbMedianM+0.5 || worst > mbMaxM+0.5 {
		t.Errorf("Manitoba: %d centroids, median %.0f m, max %.0f m; the floor is %d, %.0f m, %.0f m", len(mb), med, worst, mbN, mbMedianM, mbMaxM)
	}

	tc, _ := lld.Parse("NW-25-24-1-W5")
	blk, ok := dls.Resolve(tc)
	d := pointDistanceM(orb.Point{-114.01924, 51.077932}, blk.Centroid)
	fmt.Fprintf(&b, "Township Canada's published NW-25-24-1-W5 centre: %.0f m from the model's\n", d)
	if !ok || d > tcMaxM+0.5 {
		t.Errorf("NW-25-24-1-W5: %.0f m from Township Canada's centre, the floor is %.0f m", d, tcMaxM)
	}
	t.Log(b.String())
}

func share(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%% (%d)", 100*float64(k)/float64(n), k)
}

// percentile returns the q-quantile of v by nearest rank, 0 for none.
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// distanceM returns the distance in metres from p to the polygon g (0
// inside), in a local equirectangular frame: good to a few centimetres at
// these distances.
func distanceM(p orb.Point, g orb.Geometry) float64 {
	var polys orb.MultiPolygon
	switch g := g.(type) {
	case orb.Polygon:
		polys = orb.MultiPolygon{g}
	case orb.MultiPolygon:
		polys = g
	default:
		return math.Inf(1)
	}
	best := math.Inf(1)
	for _, poly := range polys {
		if len(poly) == 0 {
			continue
		}
		if survey.RingContains(poly[0], p) {
			return 0
		}
		r := poly[0]
		for i := 0; i+1 < len(r); i++ {
			best = math.Min(best, segmentDistanceM(p, r[i], r[i+1]))
		}
	}
	return best
}

const earthRadiusM = 6371008.8

func segmentDistanceM(p, a, b orb.Point) float64 {
	k := math.Cos(p[1] * math.Pi / 180)
	ax, ay := (a[0]-p[0])*k, a[1]-p[1]
	bx, by := (b[0]-p[0])*k, b[1]-p[1]
	dx, dy := bx-ax, by-ay
	t := 0.0
	if l2 := dx*dx + dy*dy; l2 > 0 {
		t = math.Max(0, math.Min(1, -(ax*dx+ay*dy)/l2))
	}
	return math.Hypot(ax+t*dx, ay+t*dy) * math.Pi / 180 * earthRadiusM
}

func pointDistanceM(p, q orb.Point) float64 { return segmentDistanceM(p, q, q) }
