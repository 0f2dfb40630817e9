package nts_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/nts"
	"meridian/shared/teamdata"
)

// TestGroundTruthQuarterUnits: every BC Energy Regulator surface of both
// ground-truth files (point_kind well_surface_inside_quarter_unit, NAD83)
// lies strictly inside its quarter unit as Resolve draws it (the NAD27
// grid moved to NAD83), and Locate finds that quarter unit. It prints the
// count the grid computed directly on NAD83 coordinates gave before
// (nts.Bound, the unshifted box) beside today's.
func TestGroundTruthQuarterUnits(t *testing.T) {
	type count struct{ n, before, after, located int }
	perFile := map[string]*count{}
	var total count
	minMargin := math.Inf(1) // metres from a point to the nearest edge of its quarter unit
	for _, p := range teamdata.AllGroundTruth(t) {
		if p.Kind != "well_surface_inside_quarter_unit" {
			continue
		}
		want, err := lld.Parse(p.LLD)
		if err != nil || want.System != lld.NTS || want.Unit != lld.QuarterUnit {
			t.Fatalf("%s line %d: %q is not an NTS quarter unit (%v)", p.File, p.Line, p.LLD, err)
		}
		c := perFile[p.File]
		if c == nil {
			c = &count{}
			perFile[p.File] = c
		}
		c.n++
		if b := nts.Bound(want); p.Pt[0] > b.Min[0] && p.Pt[0] < b.Max[0] && p.Pt[1] > b.Min[1] && p.Pt[1] < b.Max[1] {
			c.before++
		}
		blk, ok := nts.Resolve(want)
		if !ok {
			t.Errorf("%s line %d: Resolve(%v) not ok", p.File, p.Line, want)
			continue
		}
		ring := blk.Geometry.(orb.Polygon)[0]
		if m := edgeDistance(ring, p.Pt); survey.RingContains(ring, p.Pt) && m > 0 {
			c.after++
			minMargin = min(minMargin, m)
		} else {
			t.Errorf("%s line %d: %s (%v) is not strictly inside its quarter unit %v", p.File, p.Line, p.LLD, p.Pt, ring)
		}
		if got, ok := nts.Locate(p.Pt, lld.QuarterUnit); ok && got == want {
			c.located++
		} else {
			t.Errorf("%s line %d: Locate(%v, QuarterUnit) = %v, %v, want %v", p.File, p.Line, p.Pt, got, ok, want)
		}
	}
	var tbl strings.Builder
	tbl.WriteString("\n| BC NTS quarter units (BCER surfaces) | n | inside, grid on NAD83 (before) | inside, NAD27 grid moved to NAD83 | Locate = LLD |\n|---|---|---|---|---|\n")
	for _, f := range teamdata.GroundTruthFiles {
		c := perFile[f]
		if c == nil {
			t.Errorf("%s: no NTS quarter units", f)
			continue
		}
		fmt.Fprintf(&tbl, "| %s | %d | %d (%.0f%%) | %d (%.0f%%) | %d |\n", f, c.n, c.before, pct(c.before, c.n), c.after, pct(c.after, c.n), c.located)
		total.n += c.n
		total.before += c.before
		total.after += c.after
		total.located += c.located
	}
	fmt.Fprintf(&tbl, "| all | %d | %d (%.0f%%) | %d (%.0f%%) | %d |\n", total.n, total.before, pct(total.before, total.n), total.after, pct(total.after, total.n), total.located)
	fmt.Fprintf(&tbl, "\nclosest point to an edge of its quarter unit: %.1f m\n", minMargin)
	t.Log(tbl.String())
	if total.n == 0 || total.after < total.n || total.located < total.n {
		t.Errorf("%d of %d inside, %d located: want all", total.after, total.n, total.located)
	}
}

func pct(a, n int) float64 { return 100 * float64(a) / float64(max(n, 1)) }

// edgeDistance returns the distance in metres from pt to the nearest edge
// of ring (on a local plane: the rings are a few hundred metres across).
func edgeDistance(ring orb.Ring, pt orb.Point) float64 {
	kx := geo.Distance(orb.Point{pt[0], pt[1]}, orb.Point{pt[0] + 1e-3, pt[1]}) / 1e-3
	ky := geo.Distance(orb.Point{pt[0], pt[1]}, orb.Point{pt[0], pt[1] + 1e-3}) / 1e-3
	best := math.Inf(1)
	for i := 1; i < len(ring); i++ {
		ax, ay := (ring[i-1][0]-pt[0])*kx, (ring[i-1][1]-pt[1])*ky
		bx, by := (ring[i][0]-pt[0])*kx, (ring[i][1]-pt[1])*ky
		dx, dy := bx-ax, by-ay
		s := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			s = min(max(-(ax*dx+ay*dy)/l, 0), 1)
		}
		best = min(best, math.Hypot(ax+s*dx, ay+s*dy))
	}
	return best
}

// TestCalibration: the ground truth's DLS points check InBC: Peace River
// Block surfaces are in BC; Alberta bottom holes and Manitoba centroids are
// not.
func TestCalibration(t *testing.T) {
	inBC := map[string][2]int{} // point_kind → (in BC, total)
	for _, p := range teamdata.AllGroundTruth(t) {
		c := inBC[p.Kind]
		c[1]++
		if nts.InBC(p.Pt) {
			c[0]++
		}
		inBC[p.Kind] = c
	}
	wantInBC := map[string]bool{
		"well_surface_inside_quarter_unit": true,  // BCER, NTS
		"well_surface_in_lsd":              true,  // BCER, Peace River Block
		"well_bottomhole_in_lsd":           false, // AER, Alberta
		"centroid":                         false, // Manitoba
		"well_location_las":                false, // Alberta
	}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "\n| point kind | n | InBC |\n|---|---|---|\n")
	for kind, c := range inBC {
		fmt.Fprintf(&tbl, "| %s | %d | %d |\n", kind, c[1], c[0])
		want, known := wantInBC[kind]
		switch {
		case !known:
			t.Errorf("unknown point_kind %q", kind)
		case want && c[0] != c[1]:
			t.Errorf("%s: %d of %d points InBC, want all", kind, c[0], c[1])
		case !want && c[0] != 0:
			t.Errorf("%s: %d of %d points InBC, want none", kind, c[0], c[1])
		}
	}
	t.Log(tbl.String())
}
