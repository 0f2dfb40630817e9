package agingest_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"

	"meridian/shared/ag/agingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

// demoPath is a demo dataset written once for the tests.
var demoPath string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "agdemo")
	if err == nil {
		err = agdemo.Write(d)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "write demo:", err)
		os.Exit(1)
	}
	demoPath = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

func openDemo(t *testing.T, name string) agingest.Source {
	t.Helper()
	f, err := agingest.Open(filepath.Join(demoPath, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f.Source
}

func TestWriteDemoDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := agdemo.Write(a); err != nil {
		t.Fatal(err)
	}
	if err := agdemo.Write(b); err != nil {
		t.Fatal(err)
	}
	ea, _ := os.ReadDir(a)
	eb, _ := os.ReadDir(b)
	if len(ea) != len(eb) || len(ea) != 120 { // 52 vector and table files, 50 ACI and 18 Land Use clips
		t.Fatalf("files: %d and %d, want 120", len(ea), len(eb))
	}
	for i, e := range ea {
		if e.Name() != eb[i].Name() {
			t.Fatalf("file %d: %s vs %s", i, e.Name(), eb[i].Name())
		}
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, _ := os.ReadFile(filepath.Join(b, e.Name()))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", e.Name())
		}
	}
}

func TestDemoCounts(t *testing.T) {
	t.Parallel()
	// ACI legend: the whole legend, the same as the real one.
	if got := collect(t, agingest.ReadCropLegend, openDemo(t, agdemo.CropLegend)); len(got) != 72 {
		t.Errorf("legend classes = %d, want 72", len(got))
	}
	// Crops: 11 townships × 144 quarters, less 24 quarters (50-20-W3
	// sections 19-24), × 5 years (7,800), plus quarters of neighbouring
	// townships that get a few border pixels where the DLS model's
	// corrected townships overlap (survey/dls correction.go; a few percent,
	// depending on the fitted table).
	crops := demoRasters(t, agingest.ReadCropRaster, agdemo.CropRasters())
	if base := (11*144 - 24) * 5; len(crops) < base || len(crops) > base*11/10 {
		t.Errorf("crop quarter-years = %d, want %d and at most 10%% more (neighbours' border quarters)", len(crops), base)
	}
	if n := countShares(crops); n < len(crops) || n > 4*len(crops) {
		t.Errorf("crop rows = %d for %d quarter-years, want 1 to 4 crops a quarter", n, len(crops))
	}
	// Land use: 10 townships (not 10-9-W1), 2 vintages (2,880), plus
	// neighbours' border quarters as above.
	lu := demoRasters(t, agingest.ReadLandUseRaster, agdemo.LandUseRasters())
	if base := 10 * 144 * 2; len(lu) < base || len(lu) > base*11/10 {
		t.Errorf("land use quarter-years = %d, want %d and at most 10%% more", len(lu), base)
	}
	if n := countShares(lu); n < len(lu) || n > 4*len(lu) {
		t.Errorf("land use rows = %d for %d quarter-years, want 1 to 4 classes a quarter", n, len(lu))
	}
	slc := collect(t, agingest.ReadSLCPolygons, openDemo(t, agdemo.SLCPolygons))
	polys := collect(t, agingest.ReadPolygonComponents, openDemo(t, agdemo.SLCComponents))
	names := collect(t, agingest.ReadSoilNames, openDemo(t, agdemo.SoilNames))
	layers := collect(t, agingest.ReadSoilLayers, openDemo(t, agdemo.SoilLayers))
	agrasid := collect(t, agingest.ReadAGRASIDLSRS, openDemo(t, agdemo.AGRASIDLSRS))
	slcLSRS := collect(t, agingest.ReadSLCLSRS, openDemo(t, agdemo.SLCLSRS))
	cli := collect(t, agingest.ReadCLI, openDemo(t, agdemo.CLI))
	water := collect(t, agingest.ReadWaterBodies, openDemo(t, agdemo.WaterBodies))
	streams := collect(t, agingest.ReadWatercourses, openDemo(t, agdemo.Watercourses))
	munis := collect(t, agingest.ReadMunicipalities, openDemo(t, agdemo.Municipalities))
	mbMunis := collect(t, agingest.ReadMunicipalities, openDemo(t, agdemo.MBMunicipalities))
	for _, m := range mbMunis {
		if m.Province != "MB" || !strings.HasPrefix(m.Name, "Demo ") {
			t.Errorf("MB municipality %+v", m)
		}
	}
	crown := collect(t, agingest.ReadCrownLand, openDemo(t, agdemo.CrownLand))
	pastures := collect(t, agingest.ReadPastures, openDemo(t, agdemo.Pastures))
	bcCapability := collect(t, agingest.ReadCLI, openDemo(t, agdemo.BCCapability))
	alr := collect(t, agingest.ReadALR, openDemo(t, agdemo.ALR))
	fwa := collect(t, agingest.ReadFWAWetlands, openDemo(t, agdemo.FWAWetlands))
	drought := map[string][]agingest.DroughtArea{} // by month
	for _, f := range agdemo.Drought() {
		month, class, ok := agingest.ParseDroughtName(f)
		if !ok {
			t.Fatalf("demo drought file %s: not named as AAFC names a release", f)
		}
		for _, a := range collect(t, agingest.ReadDrought, openDemo(t, f)) {
			if a.Month != month || a.Class != class {
				t.Errorf("%s: area %s %s", f, a.Month, a.Class)
			}
			drought[month] = append(drought[month], a)
		}
	}
	components := 0
	for _, p := range polys {
		components += len(p.Components)
	}
	wetlands := 0
	for _, w := range water {
		if w.IsWetland() {
			wetlands++
		}
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"SLC polygons", len(slc), 12},
		{"SLC polygons with components", len(polys), 12},
		{"SLC components", components, 31},
		{"soil names", len(names), 21},
		{"soil layers", len(layers), 63},
		{"AGRASID quarters", len(agrasid), 5*144 - 24},
		{"SLC LSRS rows", len(slcLSRS), 5},
		{"CLI polygons", len(cli), 10},
		{"water bodies", len(water), 16},
		{"wetlands", wetlands, 8},
		{"watercourses", len(streams), 7},
		{"municipalities", len(munis) + len(mbMunis), 9},
		{"Crown land quarters", len(crown), 39},
		{"pastures", len(pastures), 2},
		{"BC capability polygons", len(bcCapability), 8},
		{"ALR polygons", len(alr), 4},
		{"FWA wetlands", len(fwa), 12},
		{"drought files", len(agdemo.Drought()), 6},
		{"drought 2025-06", len(drought["2025-06"]), 1},
		{"drought 2025-07", len(drought["2025-07"]), 2},
		{"drought 2025-08", len(drought["2025-08"]), 5},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
		}
	}
}

// The BC layers are written in BC Albers and read back, through their
// .prj, onto the longitude and latitude they were drawn at: the ALR
// polygons on their sections' corners, their published area (square
// metres on the Albers plane, an equal-area projection) on the ellipsoid's.
func TestDemoBCLayers(t *testing.T) {
	t.Parallel()
	alr := collect(t, agingest.ReadALR, openDemo(t, agdemo.ALR))
	want := []string{"6-83-18-W6", "36-83-18-W6", "6-84-19-W6", "36-84-19-W6"} // SW and NE corners
	for i, a := range alr {
		if a.Status != "ALR" || a.ID == "" {
			t.Errorf("ALR polygon %d: %+v", i, a)
		}
		corner, err := lld.Parse(want[i])
		if err != nil {
			t.Fatal(err)
		}
		c := dls.Bound(corner)
		b := a.Geometry.Bound()
		pt := b.Min
		if i%2 == 1 {
			pt = b.Max
		}
		cp := c.Min
		if i%2 == 1 {
			cp = c.Max
		}
		if math.Abs(pt[0]-cp[0]) > 1e-7 || math.Abs(pt[1]-cp[1]) > 1e-7 {
			t.Errorf("ALR %s: corner %v, want section %s's %v", a.ID, pt, want[i], cp)
		}
		// The area the file gives against the polygon's area on the
		// ellipsoid (GRS 80; orb's geo.Area is spherical, good to 0.5 %).
		if got := geo.Area(a.Geometry) / 1e4; math.Abs(got-a.AreaHa) > 0.005*a.AreaHa {
			t.Errorf("ALR %s: %.1f ha on the sphere, file says %.1f ha", a.ID, got, a.AreaHa)
		}
	}
	for _, w := range collect(t, agingest.ReadFWAWetlands, openDemo(t, agdemo.FWAWetlands)) {
		b := w.Geometry.Bound()
		if w.Type != "W" || w.WatershedGroup == "" || b.Min[0] < -121.5 || b.Max[0] > -119.5 || b.Min[1] < 56 || b.Max[1] > 56.6 {
			t.Errorf("wetland %s: type %q group %q bound %v, want a W near Fort St. John", w.ID, w.Type, w.WatershedGroup, b)
		}
	}
}

// demoRasters summarises the demo's rasters over the grid model's quarters.
func demoRasters(t *testing.T, read func(string, agingest.RasterOptions, func(agingest.QuarterYear) error) (agingest.RasterInfo, error), names []string) []agingest.QuarterYear {
	t.Helper()
	var out []agingest.QuarterYear
	for _, n := range names {
		_, err := read(filepath.Join(demoPath, n), agingest.RasterOptions{Quarters: agingest.ModelQuarters}, func(q agingest.QuarterYear) error {
			out = append(out, q)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func countShares(qs []agingest.QuarterYear) int {
	n := 0
	for _, q := range qs {
		n += len(q.Classes)
	}
	return n
}

// TestDemoCoverage checks what the demo README promises: each report
// section is present for some quarters and absent for others.
func TestDemoCoverage(t *testing.T) {
	t.Parallel()
	loc := func(s string) lld.Location {
		l, err := lld.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	center := func(s string) orb.Point { return dls.Bound(loc(s)).Center() }
	inAny := func(p orb.Point, gs ...orb.Geometry) bool {
		for _, g := range gs {
			switch g := g.(type) {
			case orb.Polygon:
				if planar.PolygonContains(g, p) {
					return true
				}
			case orb.MultiPolygon:
				if planar.MultiPolygonContains(g, p) {
					return true
				}
			}
		}
		return false
	}

	// Soil: north of section 18 in 14-26-W1 has no SLC polygon.
	var slcGeoms []orb.Geometry
	for _, p := range collect(t, agingest.ReadSLCPolygons, openDemo(t, agdemo.SLCPolygons)) {
		slcGeoms = append(slcGeoms, p.Geometry)
	}
	if !inAny(center("SW-1-14-26-W1"), slcGeoms...) || inAny(center("NE-36-14-26-W1"), slcGeoms...) {
		t.Error("SLC: want SW-1-14-26-W1 covered and NE-36-14-26-W1 not")
	}
	for _, twp := range agdemo.Townships() {
		if twp != "14-26-W1" && !inAny(center("NE-36-"+twp), slcGeoms...) {
			t.Errorf("SLC: NE-36-%s is not covered", twp)
		}
	}

	// Drought, current month: a hole at NE-18-38-5-W3.
	var dGeoms []orb.Geometry
	for _, f := range agdemo.Drought() {
		if strings.HasPrefix(f, "CDM_2508_") {
			for _, a := range collect(t, agingest.ReadDrought, openDemo(t, f)) {
				dGeoms = append(dGeoms, a.Geometry)
			}
		}
	}
	if inAny(center("NE-18-38-5-W3"), dGeoms...) || !inAny(center("NW-18-38-5-W3"), dGeoms...) || inAny(center("NE-1-10-9-W1"), dGeoms...) {
		t.Error("drought 2025-08: want NE-18-38-5-W3 and 10-9-W1 outside, NW-18-38-5-W3 inside")
	}

	// LSRS: no SLC row for 50-20-W3's polygon 990009, an unrated quarter.
	var lsrsPolys []int
	for _, p := range collect(t, agingest.ReadSLCLSRS, openDemo(t, agdemo.SLCLSRS)) {
		lsrsPolys = append(lsrsPolys, p.PolyID)
	}
	if slices.Contains(lsrsPolys, 990009) || !slices.Contains(lsrsPolys, 990008) {
		t.Errorf("SLC LSRS polygons = %v: want 990008 and not 990009", lsrsPolys)
	}
	unrated := 0
	for _, q := range collect(t, agingest.ReadAGRASIDLSRS, openDemo(t, agdemo.AGRASIDLSRS)) {
		if !q.Rating.Rated() {
			unrated++
			if q.Location.String() != "NE-36-10-15-W4" {
				t.Errorf("unrated quarter %s", q.Location)
			}
		}
		if !planar.PolygonContains(q.Geometry.(orb.Polygon), dls.Bound(q.Location).Center()) {
			t.Errorf("%s: polygon does not hold the quarter", q.Location)
		}
	}
	if unrated != 1 {
		t.Errorf("unrated AGRASID quarters = %d, want 1", unrated)
	}

	// Cropping: five years with a rotation for a cropped quarter; none for
	// 50-20-W3 sections 19-24.
	byQuarter := map[lld.Location][]agingest.QuarterYear{}
	for _, q := range demoRasters(t, agingest.ReadCropRaster, agdemo.CropRasters()) {
		byQuarter[q.Location] = append(byQuarter[q.Location], q)
	}
	if _, ok := byQuarter[loc("NE-20-50-20-W3")]; ok {
		t.Error("crops: NE-20-50-20-W3 should have no data")
	}
	crop := 0
	for l, ys := range byQuarter {
		c, err := agingest.Summarize(ys)
		if err != nil {
			t.Fatal(err)
		}
		if c.YearsCovered() != 5 {
			t.Errorf("%s: %d years", l, c.YearsCovered())
		}
		if c.Dominant.Category.IsCrop() && c.Dominant.Category != agingest.Forage {
			crop++
		}
	}
	if crop < 1000 {
		t.Errorf("quarters with an annual crop dominant = %d, want most of them", crop)
	}
	// Municipalities: none over 50-20-W3.
	var mGeoms []orb.Geometry
	for _, m := range collect(t, agingest.ReadMunicipalities, openDemo(t, agdemo.Municipalities)) {
		mGeoms = append(mGeoms, m.Geometry)
		if m.Province == "" || m.Type == "" {
			t.Errorf("municipality %+v", m)
		}
	}
	if inAny(center("NE-1-50-20-W3"), mGeoms...) || !inAny(center("NE-1-24-1-W5"), mGeoms...) {
		t.Error("municipalities: want 50-20-W3 uncovered, 24-1-W5 covered")
	}
}

// TestDemoLegendIsReal checks the demo legend (written from the Go table)
// against the real legend in the shared samples.
func TestDemoLegendIsReal(t *testing.T) {
	t.Parallel()
	real := collect(t, agingest.ReadCropLegend, sample(t, "aafc-aci/aci_class_legend.csv"))
	demo := collect(t, agingest.ReadCropLegend, openDemo(t, agdemo.CropLegend))
	if diff := cmp.Diff(real, demo); diff != "" {
		t.Errorf("demo legend differs from the real one (-real +demo):\n%s", diff)
	}
}
