package agingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/ag"
	"meridian/shared/ag/agingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

// Layouts says which layout each file of the demo was taken to be,
// guessed layouts first; only the latest drought month's files are
// listed.
func TestLayouts(t *testing.T) {
	t.Parallel()
	files, err := agingest.FilesIn(demoDir(t))
	if err != nil {
		t.Fatal(err)
	}
	got := agingest.Layouts(files)
	byFile := map[string]ingest.Layout{}
	seenVerified := false
	for _, l := range got {
		byFile[filepath.Base(l.Path)] = l.Layout
		if l.Layout.Verified {
			seenVerified = true
		} else if seenVerified {
			t.Errorf("%s: a guessed layout after a verified one", l.Path)
		}
		if !strings.HasPrefix(l.Banner(), filepath.Base(l.Path)+": ") {
			t.Errorf("banner %q does not name the file", l.Banner())
		}
	}
	for file, want := range map[string]ingest.Layout{
		agdemo.CLI:               agingest.CLIServiceLayout,
		agdemo.AGRASIDLSRS:       agingest.AGRASIDLSRSLayout,
		agdemo.SLCLSRS:           agingest.SLCLSRSLayout,
		"CDM_2508_D0_LR.geojson": agingest.DroughtGeoJSONLayout,
		"CDM_2508_D2_LR.geojson": agingest.DroughtGeoJSONLayout,
		agdemo.WaterBodies:       agingest.CanVecHydroLayout,
		agdemo.Municipalities:    agingest.CSDLayout,
		agdemo.MBMunicipalities:  agingest.MBMunicipalLayout,
		agdemo.Watercourses:      agingest.NHNLayout,
		agdemo.CrownLand:         agingest.SKCrownLandLayout,
		agdemo.Pastures:          agingest.SKPastureLayout,
		agdemo.ALR:               agingest.ALRShapefileLayout,
		agdemo.FWAWetlands:       agingest.FWAWarehouseLayout,
	} {
		if l, ok := byFile[file]; !ok || l != want {
			t.Errorf("%s: layout %q, want %q", file, l.Form, want.Form)
		}
	}
	if _, ok := byFile["CDM_2507_D0_LR.geojson"]; ok {
		t.Error("an older drought month is listed")
	}
	if !strings.HasPrefix(got[0].Banner(), got[0].Path[len(filepath.Dir(got[0].Path))+1:]+": WARNING ") {
		t.Errorf("first banner %q: want a guessed layout's warning", got[0].Banner())
	}
}

// The drought section comes from the latest month's per-class files, the
// highest class containing the quarter, as of the month in their names;
// a month's files in AAFC's folder cdm_{yy}{mm}_drought_areas are found
// too.
func TestIngestDroughtMonth(t *testing.T) {
	t.Parallel()
	dir := demoDir(t)
	// A later month, in AAFC's folder: D1 over 10-15-W4, nothing else.
	sub := filepath.Join(dir, "cdm_2509_drought_areas")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	d1, err := os.ReadFile(filepath.Join(dir, "CDM_2508_D1_LR.geojson"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sub, "CDM_2509_D1_LR.geojson"), d1, 0o644)
	os.WriteFile(filepath.Join(sub, "CDM_2509_D3_LR.geojson"), []byte(`{"type":"FeatureCollection","features":[]}`), 0o644)
	files, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Drought) != 8 {
		t.Fatalf("drought files %q", files.Drought)
	}
	store := kv.NewMem()
	if _, err := agingest.Ingest(context.Background(), store, grid.New(), files, agingest.Options{Demo: true}); err != nil {
		t.Fatal(err)
	}
	ds, _, _ := kv.Open(context.Background(), store, ag.Dataset)
	var d ag.Drought
	if !section(t, ds, "SW-1-10-15-W4", ag.SKDrought, &d) || d.Class != "D1" || d.AsOf != "2025-09" || d.SeverityLabel != "Moderate Drought" {
		t.Errorf("drought SW-1-10-15-W4 = %+v, want D1 as of 2025-09", d)
	}
	if section(t, ds, "NW-25-24-1-W5", ag.SKDrought, nil) {
		t.Error("drought in 24-1-W5, which 2025-09 leaves out")
	}
}

// A drought file whose name is not a release's rejects the ingest, naming
// it and the names accepted.
func TestIngestRejectsDroughtName(t *testing.T) {
	t.Parallel()
	dir := demoDir(t)
	b, _ := os.ReadFile(filepath.Join(dir, "CDM_2508_D0_LR.geojson"))
	os.WriteFile(filepath.Join(dir, "cdm_2025-09.geojson"), b, 0o644)
	files, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = agingest.Ingest(context.Background(), kv.NewMem(), grid.New(), files, agingest.Options{Demo: true})
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != "cdm_2025-09.geojson" || !strings.Contains(ie.Reason, "CDM_{yy}{mm}_D{0-4}_LR.geojson") {
		t.Fatalf("err = %v", err)
	}
}

// New words are counted in Options.Notices and do not stop the ingest.
func TestIngestNotices(t *testing.T) {
	t.Parallel()
	dir := demoDir(t)
	p := filepath.Join(dir, agdemo.WaterBodies)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), `"definit_en":"Pond"`, `"definit_en":"Dugout"`, 1)), 0o644)
	files, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	var notices ingest.Notices
	if _, err := agingest.Ingest(context.Background(), kv.NewMem(), grid.New(), files, agingest.Options{Demo: true, Notices: &notices}); err != nil {
		t.Fatal(err)
	}
	if l := notices.Lines(); len(l) != 1 || !strings.Contains(l[0], `column DEFINIT_EN: new value "Dugout": kept as given (1 rows)`) {
		t.Errorf("notices = %q", l)
	}
}
