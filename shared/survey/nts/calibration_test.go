package nts_test

import (
	"fmt"
	"strings"
	"testing"

	"meridian/shared/lld"
	"meridian/shared/survey/nts"
	"meridian/shared/teamdata"
)

// TestCalibration: every BC Energy Regulator surface in the sample lies
// strictly inside its exactly computed quarter unit, and Locate finds that
// quarter unit. The sample's DLS points check InBC: Peace River Block
// surfaces are in BC; Alberta bottom holes and Manitoba centroids are not.
func TestCalibration(t *testing.T) {
	var n, inside, located int
	inBC := map[string][2]int{} // point_kind → (in BC, total)
	for _, p := range teamdata.GroundTruth(t) {
		pt := p.Pt
		c := inBC[p.Kind]
		c[1]++
		if nts.InBC(pt) {
			c[0]++
		}
		inBC[p.Kind] = c
		want, err := lld.Parse(p.LLD)
		if err != nil {
			t.Fatalf("%s line %d: %v", teamdata.GroundTruthFile, p.Line, err)
		}
		if want.System != lld.NTS {
			continue
		}
		n++
		b := nts.Bound(want)
		if pt[0] > b.Min[0] && pt[0] < b.Max[0] && pt[1] > b.Min[1] && pt[1] < b.Max[1] {
			inside++
		} else {
			t.Errorf("%s (%v) is not strictly inside its quarter unit %v", p.LLD, pt, b)
		}
		if got, ok := nts.Locate(pt, lld.QuarterUnit); ok && got == want {
			located++
		} else {
			t.Errorf("Locate(%v, QuarterUnit) = %v, %v, want %v", pt, got, ok, want)
		}
		if _, ok := nts.Resolve(want); !ok {
			t.Errorf("Resolve(%v) not ok", want)
		}
	}
	if n == 0 {
		t.Fatal("no NTS points in the sample")
	}
	wantInBC := map[string]bool{
		"well_surface_inside_quarter_unit": true,  // BCER, NTS
		"well_surface_in_lsd":              true,  // BCER, Peace River Block
		"well_bottomhole_in_lsd":           false, // AER, Alberta
		"centroid":                         false, // Manitoba
		"well_location_las":                false, // Alberta
	}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "\n| BC NTS quarter units | n | inside (strict) | Locate = LLD |\n|---|---|---|---|\n| BCER surfaces | %d | %d (%.0f%%) | %d |\n",
		n, inside, 100*float64(inside)/float64(n), located)
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
