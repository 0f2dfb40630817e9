package dls

import (
	"math"
	"math/rand/v2"

	"github.com/paulmach/orb"

	"fmt"
	"slices"
	"strings"
	"testing"

	"meridian/shared/lld"
	"meridian/shared/teamdata"
)

// toleranceM: a point this close to its modelled block counts as inside
// (horizontal legs often end on a line; issue 14).
const toleranceM = 15

// readAllGroundTruth returns the DLS LSD points of every ground-truth file.
func readAllGroundTruth(t *testing.T) []groundPoint {
	t.Helper()
	var pts []groundPoint
	for _, p := range teamdata.AllGroundTruth(t) {
		l, err := lld.Parse(p.LLD)
		if err != nil {
			t.Fatalf("%s line %d: %v", p.File, p.Line, err)
		}
		if l.System != lld.DLS {
			continue
		}
		pts = append(pts, groundPoint{raw: p.LLD, loc: l, pt: p.Pt, kind: p.Kind, source: p.Source})
	}
	return pts
}

// wellGroup names the group of a ground-truth LSD point: "AB W4", "AB W5",
// "AB W6" or "BC PRB", from its source (BC Energy Regulator or AER) and
// meridian; "" for points of no group.
func wellGroup(p groundPoint) string {
	if p.loc.Unit != lld.LSD || p.kind == "well_location_las" {
		return ""
	}
	if strings.Contains(p.source, "BC Energy Regulator") {
		return "BC PRB"
	}
	if strings.HasPrefix(p.source, "AER") {
		return "AB " + p.loc.Meridian.String()
	}
	return ""
}

var wellGroups = []string{"AB W4", "AB W5", "AB W6", "BC PRB"}

// wellFigures are one group's figures.
type wellFigures struct {
	n, lsdIn, sectionIn, unresolved int
	sectionP99, sectionP95, lsdP95  float64
}

// measureWells measures m on pts (those with a group), by group.
func measureWells(m *model, pts []groundPoint) map[string]*wellFigures {
	out := map[string]*wellFigures{}
	sec := map[string][]float64{}
	lsd := map[string][]float64{}
	for _, p := range pts {
		g := wellGroup(p)
		if g == "" {
			continue
		}
		f := out[g]
		if f == nil {
			f = new(wellFigures)
			out[g] = f
		}
		f.n++
		if _, ok := m.resolve(p.loc); !ok {
			f.unresolved++
			continue
		}
		s := p.loc
		s.Unit, s.LSD = lld.Section, 0
		sb, _ := m.bound(s)
		lb, _ := m.bound(p.loc)
		ds, dl := distanceM(p.pt, sb), distanceM(p.pt, lb)
		if ds <= toleranceM {
			f.sectionIn++
		}
		if dl <= toleranceM {
			f.lsdIn++
		}
		sec[g] = append(sec[g], ds)
		lsd[g] = append(lsd[g], dl)
	}
	for g, f := range out {
		f.sectionP99 = percentile(sec[g], 0.99)
		f.sectionP95 = percentile(sec[g], 0.95)
		f.lsdP95 = percentile(lsd[g], 0.95)
	}
	return out
}

// percentile returns the q-quantile of v (nearest rank), 0 for no values.
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func formatWells(figs map[string]*wellFigures) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n| group | n | inside LSD | inside section | p99 section miss | p95 section miss | p95 LSD miss | unresolved |\n|---|---|---|---|---|---|---|---|\n")
	for _, g := range wellGroups {
		f := figs[g]
		if f == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f%% (%d) | %.1f%% (%d) | %.0f m | %.0f m | %.0f m | %d |\n", g, f.n,
			100*float64(f.lsdIn)/float64(f.n), f.lsdIn, 100*float64(f.sectionIn)/float64(f.n), f.sectionIn,
			f.sectionP99, f.sectionP95, f.lsdP95, f.unresolved)
	}
	return b.String()
}

func TestWellsMeasure(t *testing.T) {
	pts := readAllGroundTruth(t)
	cal, val := splitPoints(pts)
	base := newModel(defaultOptions.uncorrected())
	t.Log("uncorrected, all points", formatWells(measureWells(base, pts)))
	t.Log("uncorrected, validation", formatWells(measureWells(base, val)))
	after := measureWells(std, val)
	t.Log("corrected, validation", formatWells(after))
	for g, f := range after {
		if f.unresolved > 0 {
			t.Errorf("%s: %d held-out wells do not resolve", g, f.unresolved)
		}
	}
	t.Log("corrected, calibration (in-sample)", formatWells(measureWells(std, cal)))
	l, _ := lld.Parse("NW-25-24-1-W5")
	b, _ := std.resolve(l)
	t.Logf("NW-25-24-1-W5 centroid %v, %.0f m from Township Canada's 51.077932,-114.01924", b.Centroid,
		pointDistanceM(b.Centroid, [2]float64{-114.01924, 51.077932}))
}

// TestWellsLocate: every well of the ground truth inside its modelled LSD
// (no tolerance) is located back to that LSD, or, where corrected
// townships overlap (correction.go), to a block that holds it too.
func TestWellsLocate(t *testing.T) {
	pts := readAllGroundTruth(t)
	var inside, same, overlap int
	for _, p := range pts {
		if wellGroup(p) == "" {
			continue
		}
		if b, ok := std.bound(p.loc); !ok || !b.Contains(p.pt) {
			continue
		}
		inside++
		got, ok := std.locate(p.pt, lld.LSD)
		switch {
		case ok && got == p.loc:
			same++
		case ok:
			if b, _ := std.bound(got); b.Contains(p.pt) {
				overlap++
				t.Logf("%s: located in %v, whose corrected block overlaps its own", p.raw, got)
				continue
			}
			fallthrough
		default:
			t.Errorf("Locate(%v, LSD) = %v, %v, want %v (%s)", p.pt, got, ok, p.loc, p.raw)
		}
	}
	t.Logf("%d wells inside their LSD: %d located back to it, %d to an overlapping block", inside, same, overlap)
	if inside < 800 {
		t.Errorf("only %d wells inside their LSD: the test is not exercising the model", inside)
	}
}

// TestCorrectionSlivers: across Alberta and the Peace River Block, a point
// the uncorrected model locates is located by the corrected one too, but
// for a few near the province boundaries (a block's corrected centroid may
// cross one) and the corners of slivers no extension reaches.
func TestCorrectionSlivers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 200000
	lost := 0
	for range n {
		pt := orb.Point{-121 + rng.Float64()*11, 49.05 + rng.Float64()*10.9}
		_, ok0 := plain.locate(pt, lld.LSD)
		if _, ok := std.locate(pt, lld.LSD); ok0 && !ok {
			lost++
		}
	}
	t.Logf("%d of %d points located only without the correction", lost, n)
	if lost > n/10000 {
		t.Errorf("%d of %d points lost by the correction, want at most %d", lost, n, n/10000)
	}
}

// TestWellsBeside120: the real wells of W6 within 20 km of 120°W, Alberta's
// (AER) east of it and the Peace River Block's (BC Energy Regulator) west
// of it, lie in the part of their section on their side of the line
// (ResolveAt): blocks cut by 120°W sit where each side's survey put them.
func TestWellsBeside120(t *testing.T) {
	t.Parallel()
	n := 0
	for _, p := range readAllGroundTruth(t) {
		if wellGroup(p) == "" || p.loc.Meridian != lld.W6 || math.Abs(p.pt[0]+120) > 0.32 {
			continue
		}
		n++
		s := p.loc
		s.Unit, s.LSD = lld.Section, 0
		b, ok := std.resolveAt(s, &p.pt)
		if !ok {
			t.Errorf("%s (%v): section %v does not resolve", p.raw, p.pt, s)
			continue
		}
		if d := distanceM(p.pt, b.Geometry.Bound()); d > toleranceM {
			t.Errorf("%s (%v, %s): %.0f m outside its section's %v part", p.raw, p.pt, wellGroup(p), d, b.Province)
		}
	}
	if n < 10 {
		t.Errorf("only %d wells within 20 km of 120°W", n)
	}
	t.Logf("%d wells within 20 km of 120°W", n)
}
