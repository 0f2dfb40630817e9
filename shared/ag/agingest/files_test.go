package agingest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
	"meridian/shared/teamdata"
)

// FilesOf sorts a download's files by the publishers' names, a zip
// member's by its own: data files to their kinds, the legend, soil layers,
// README, PDF, a publisher's .xml metadata and the SCALE.json of
// `meridian demo -scale province` to Unused, a shapefile beside the GeoJSON of its name to
// Unused, the first of two CLI files to Unused, companions nowhere, and
// anything else to Unrecognised.
func TestFilesOf(t *testing.T) {
	t.Parallel()
	d := "/dl"
	p := func(n string) string { return filepath.Join(d, n) }
	in := []string{
		p("aci_2023_ab.zip!aci_2023_ab.tif"), p("aci_2023_ab.zip!aci_2023_ab.tif.aux.xml"), p("aci_2023_ab.zip!aci_class_legend.csv"),
		p("slc.zip!ca_all_slc_v3r2.shp"), p("slc.zip!ca_all_slc_v3r2.dbf"), p("slc.zip!ca_all_slc_v3r2.prj"),
		p("slc.zip!ca_all_slc_v3r2_cmp.dbf"), p("slc.zip!soil_name_ab_v2r20250213.dbf"), p("slc.zip!soil_layer_ab_v2r20250213.dbf"),
		p("slc.zip!README.txt"), p("slc.zip!SLC_v3r2_documentation.pdf"),
		p("cli_ab.shp"), p("cli_ab.dbf"), p("cli_sk.shp"), p("cli_sk.dbf"),
		p("cdm.zip!CDM_2407_D2_LR.geojson"), p("cdm.zip!CDM_2407_D2_LR.shp"), p("cdm.zip!CDM_2407_D2_LR.dbf"),
		p("notes.txt"), p("mystery.shp"), p("SCALE.json"),
		p("mb.zip!MG_MUNICIPALITY_POLY.shp"), p("mb.zip!MG_MUNICIPALITY_POLY.dbf"), p("mb.zip!MG_MUNICIPALITY_POLY.shp.xml"), p("mb.zip!MUNICIPALITY.xml"),
	}
	f := agingest.FilesOf(in)
	check := func(what string, got, want []string) {
		t.Helper()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	check("CropRasters", f.CropRasters, []string{p("aci_2023_ab.zip!aci_2023_ab.tif")})
	check("SLC", []string{f.SLCPolygons, f.SLCComponents, f.SoilNames},
		[]string{p("slc.zip!ca_all_slc_v3r2.shp"), p("slc.zip!ca_all_slc_v3r2_cmp.dbf"), p("slc.zip!soil_name_ab_v2r20250213.dbf")})
	check("CLI", []string{f.CLI}, []string{p("cli_sk.shp")})
	check("Drought", f.Drought, []string{p("cdm.zip!CDM_2407_D2_LR.geojson")})
	check("Municipalities", f.Municipalities, []string{p("mb.zip!MG_MUNICIPALITY_POLY.shp")})
	check("Unused", f.Unused, []string{p("aci_2023_ab.zip!aci_class_legend.csv"), p("slc.zip!soil_layer_ab_v2r20250213.dbf"),
		p("slc.zip!README.txt"), p("slc.zip!SLC_v3r2_documentation.pdf"), p("cli_ab.shp"), p("cdm.zip!CDM_2407_D2_LR.shp"), p("mb.zip!MUNICIPALITY.xml"), p("SCALE.json")})
	check("Unrecognised", f.Unrecognised, []string{p("notes.txt"), p("mystery.shp")})
}

// A drought monitor month's folder, as AAFC ships it, is read beside the
// folder's own files; other subfolders are not.
func TestFilesInDroughtFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	month := filepath.Join(dir, "cdm_2407_drought_areas")
	other := filepath.Join(dir, "old")
	for _, d := range []string{month, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(month, "CDM_2407_D1_LR.geojson"), filepath.Join(other, "CDM_2406_D1_LR.geojson"), filepath.Join(dir, "CDM_2407_D0_LR.geojson")} {
		if err := os.WriteFile(p, []byte(`{"type":"FeatureCollection","features":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "CDM_2407_D0_LR.geojson"), filepath.Join(month, "CDM_2407_D1_LR.geojson")}
	if got := slices.Sorted(slices.Values(f.Drought)); !slices.Equal(got, want) || len(f.Unrecognised) > 0 {
		t.Errorf("Drought = %q, Unrecognised %q; want %q", got, f.Unrecognised, want)
	}
}

// Summary.Rows is each file's own records: the 1,085 component rows of
// the real SLC excerpt (grouped into 180 polygons by the reader), the
// 510 soil names, and the features of a drought file named as a zip's
// member (ingest.Unpack's name), whose month is read from the member's
// name.
func TestIngestRowsPerFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmp := filepath.Join(dir, "ca_all_slc_v3r2_cmp.csv")
	names := filepath.Join(dir, "soil_name_ab_sk_mb.csv")
	drought := filepath.Join(dir, "cdm_2407.zip"+ingest.ArchiveSep+"CDM_2407_D2_LR.geojson")
	records := map[string]int{}
	for src, dst := range map[string]string{"samples/slc-v3.2/ca_all_slc_v3r2_cmp_excerpt.csv": cmp, "samples/slc-v3.2/soil_name_ab_sk_mb_excerpt.csv": names} {
		b, err := os.ReadFile(teamdata.Path(t, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		records[dst] = bytes.Count(bytes.TrimSpace(b), []byte("\n")) // lines after the header
	}
	square := func(x, y float64) string {
		return `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[` +
			strings.Join([]string{ftoa(x) + "," + ftoa(y), ftoa(x+0.1) + "," + ftoa(y), ftoa(x+0.1) + "," + ftoa(y+0.1), ftoa(x) + "," + ftoa(y+0.1), ftoa(x) + "," + ftoa(y)}, "],[") + `]]]}}`
	}
	fc := `{"type":"FeatureCollection","features":[` + square(-110, 50) + "," + square(-105, 51) + "," + square(-100, 52) + `]}`
	if err := os.WriteFile(drought, []byte(fc), 0o644); err != nil {
		t.Fatal(err)
	}
	records[drought] = 3
	files, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	if files.SLCComponents != cmp || files.SoilNames != names || len(files.Drought) != 1 || len(files.Unrecognised) > 0 {
		t.Fatalf("FilesIn: %+v", files)
	}
	sum, err := agingest.Ingest(context.Background(), kv.NewMem(), grid.New(), files, agingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for p, n := range records {
		if sum.Rows[p] != n {
			t.Errorf("%s: %d rows read, want its %d records", filepath.Base(p), sum.Rows[p], n)
		}
	}
	if records[cmp] != 1085 || sum.Read["drought_areas"] != 3 {
		t.Errorf("components %d (want the excerpt's 1085), drought areas %d (want 3)", records[cmp], sum.Read["drought_areas"])
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
