package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest/ingesttest"
	"meridian/shared/teamdata"
)

// realSLC returns the real SLC v3.2 component and soil name excerpts and
// how many records each holds (rows after the header).
func realSLC(t *testing.T) (cmp, names string, cmpRows, nameRows int) {
	t.Helper()
	read := func(rel string) (string, int) {
		b, err := os.ReadFile(teamdata.Path(t, "samples/slc-v3.2/"+rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b), bytes.Count(bytes.TrimSpace(b), []byte("\n"))
	}
	cmp, cmpRows = read("ca_all_slc_v3r2_cmp_excerpt.csv")
	names, nameRows = read("soil_name_ab_sk_mb_excerpt.csv")
	return cmp, names, cmpRows, nameRows
}

// The ag -check lists every file: those read with their own records (the
// 1,085 component rows, not the 180 polygons the reader groups them
// into), those recognised and read by no report, and the one it does
// not know, which refuses the folder until -allow-unknown; the ingest
// refuses it too.
func TestCheckAgEveryFile(t *testing.T) {
	t.Parallel()
	cmp, names, cmpRows, nameRows := realSLC(t)
	in := t.TempDir()
	for n, body := range map[string]string{
		"ca_all_slc_v3r2_cmp.csv": cmp, "soil_name_ab_v2r20250213.csv": names,
		"aci_class_legend.csv": "value,hex_colour,label\n1,#ffffff,Cloud\n", "README.txt": "AAFC", "notes.txt": "mine",
	} {
		if err := os.WriteFile(filepath.Join(in, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "ag", "-check", "-data", data, in}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d with an unknown file, want 1:\n%s%s", code, out.String(), errb.String())
	}
	wantOutput(t, out.String(),
		"5 files: 2 read, 2 not read, 1 not recognised; nothing is published",
		"notes.txt\n  NOT RECOGNISED: not a file name the ag ingest knows",
		"aci_class_legend.csv\n  not read: recognised, read by no ag report",
		"README.txt\n  not read: recognised, read by no ag report",
		"ca_all_slc_v3r2_cmp.csv\n  layout:   Soil Landscapes of Canada v3.2",
		"soil_name_ab_v2r20250213.csv\n  layout:   Soil Landscapes of Canada v3.2",
		"the ag ingest reads: aci_*.tif",
		"With -allow-unknown:\nwould publish: the ag dataset",
	)
	wantRows(t, out.String(), "ca_all_slc_v3r2_cmp.csv", cmpRows)
	wantRows(t, out.String(), "soil_name_ab_v2r20250213.csv", nameRows)

	out.Reset()
	if code := run([]string{"ingest", "ag", "-check", "-allow-unknown", "-data", data, in}, nil, &out, &errb); code != 0 {
		t.Fatalf("-allow-unknown: exit %d, want 0:\n%s", code, out.String())
	}
	wantOutput(t, out.String(), "notes.txt\n  NOT RECOGNISED", "would publish: the ag dataset")

	out.Reset()
	errb.Reset()
	if code := run([]string{"ingest", "ag", "-tiles=false", "-data", data, in}, nil, &out, &errb); code != 1 {
		t.Fatalf("ingest with an unknown file: exit %d, want 1:\n%s%s", code, out.String(), errb.String())
	}
	wantOutput(t, errb.String(), "not recognised: notes.txt", "-allow-unknown")
	if _, err := os.Stat(filepath.Join(data, "reports")); !os.IsNotExist(err) {
		t.Errorf("a refused ingest made the report store (%v)", err)
	}
}

// wantRows checks that the file's entry in a -check report says rows
// records read.
func wantRows(t *testing.T, got, name string, rows int) {
	t.Helper()
	i := strings.Index(got, "\n"+name+"\n")
	want := "rows:     " + itoa(rows) + " read"
	entry := ""
	if i >= 0 {
		entry, _, _ = strings.Cut(got[i+1:], "\n\n") // the file's own lines
	}
	if !strings.Contains(entry, want) {
		t.Errorf("%s: want %q (its own records):\n%s", name, want, got)
	}
}

// An ag download as published: the SLC tables in a zip, the soil names in
// a zip inside a zip, read as if they were in the folder and named after
// their archives.
func TestCheckAgZips(t *testing.T) {
	t.Parallel()
	cmp, names, cmpRows, nameRows := realSLC(t)
	in := t.TempDir()
	ingesttest.WriteZip(t, filepath.Join(in, "slc_v3r2.zip"), map[string]string{"slc/ca_all_slc_v3r2_cmp.csv": cmp, "slc/SLC_documentation.pdf": "%PDF"})
	inner := ingesttest.ZipMap(t, map[string]string{"soil_name_ab_v2r20250213.csv": names})
	ingesttest.WriteZip(t, filepath.Join(in, "soil_names.zip"), map[string]string{"ab.zip": string(inner)})
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "ag", "-check", "-data", t.TempDir(), in}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	wantOutput(t, out.String(),
		"3 files: 2 read, 1 not read, 0 not recognised",
		"slc_v3r2.zip!ca_all_slc_v3r2_cmp.csv\n  layout:   Soil Landscapes of Canada v3.2",
		"slc_v3r2.zip!SLC_documentation.pdf\n  not read: recognised",
		"soil_names.zip!ab.zip!soil_name_ab_v2r20250213.csv\n  layout:   Soil Landscapes of Canada v3.2",
		"would publish: the ag dataset",
	)
	wantRows(t, out.String(), "slc_v3r2.zip!ca_all_slc_v3r2_cmp.csv", cmpRows)
	wantRows(t, out.String(), "soil_names.zip!ab.zip!soil_name_ab_v2r20250213.csv", nameRows)
}

// Manitoba's downloads as published, zipped: the township system corners
// (mb_township_system_corners.zip holds MB_QuarterSectionCorners.csv) and
// the Original Survey CSV, both in their real layouts. A member the
// format does not read is listed and refuses the dataset until
// -allow-unknown; a PDF is listed as not read.
func TestCheckGridZip(t *testing.T) {
	t.Parallel()
	fixture := func(name string) string {
		b, err := fs.ReadFile(griddemo.Grid(), "mb/"+name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	in := t.TempDir()
	corners := filepath.Join(in, "mb_township_system_corners.zip")
	survey := filepath.Join(in, "Original_Survey_Legal_Descriptions.zip")
	ingesttest.WriteZip(t, corners, map[string]string{"MB_QuarterSectionCorners.csv": fixture("MB_QuarterSectionCorners_FIXTURE.csv")})
	ingesttest.WriteZip(t, survey, map[string]string{
		"Original_Survey_Legal_Descriptions.csv": fixture("Original_Survey_Legal_Descriptions_FIXTURE.csv"),
		"metadata.pdf":                           "%PDF", "Original_Survey_Legal_Descriptions.kml": "<kml/>",
	})
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "grid", "-format", "mb", "-check", "-data", data, corners, survey}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d with an unknown member, want 1:\n%s%s", code, out.String(), errb.String())
	}
	wantOutput(t, out.String(),
		"4 files: 2 read, 1 not read, 1 not recognised; nothing is published",
		"Original_Survey_Legal_Descriptions.zip!Original_Survey_Legal_Descriptions.kml\n  NOT RECOGNISED: not a file the -format mb reader reads",
		"Original_Survey_Legal_Descriptions.zip!metadata.pdf\n  not read: recognised, read by no grid reader",
		"mb_township_system_corners.zip!MB_QuarterSectionCorners.csv\n  layout:   Manitoba township system corners",
		"crs:      NAD83 / UTM zone 14N (EPSG:26914)",
		"Original_Survey_Legal_Descriptions.zip!Original_Survey_Legal_Descriptions.csv\n  layout:   ",
		"the grid ingest reads: the Original Survey Legal Descriptions .csv and MB_QuarterSectionCorners.csv",
		"With -allow-unknown:\nwould publish: index \"mb-original-survey\"",
	)
	out.Reset()
	if code := run([]string{"ingest", "grid", "-format", "mb", "-check", "-allow-unknown", "-data", data, corners, survey}, nil, &out, &errb); code != 0 {
		t.Fatalf("-allow-unknown: exit %d, want 0:\n%s", code, out.String())
	}
	// The ingest refuses the dataset, installing nothing, unless told.
	out.Reset()
	errb.Reset()
	if code := run([]string{"ingest", "grid", "-format", "mb", "-data", data, corners, survey}, nil, &out, &errb); code != 1 {
		t.Fatalf("ingest with an unknown member: exit %d, want 1:\n%s%s", code, out.String(), errb.String())
	}
	wantOutput(t, errb.String(), "not recognised: Original_Survey_Legal_Descriptions.zip!Original_Survey_Legal_Descriptions.kml", "-allow-unknown")
	if _, err := os.Stat(filepath.Join(data, "grid")); !os.IsNotExist(err) {
		t.Errorf("a refused ingest installed something (%v)", err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"ingest", "grid", "-format", "mb", "-allow-unknown", "-data", data, corners, survey}, nil, &out, &errb); code != 0 {
		t.Fatalf("ingest -allow-unknown: exit %d, want 0:\n%s%s", code, out.String(), errb.String())
	}
	wantOutput(t, errb.String(), "skipped: Original_Survey_Legal_Descriptions.zip!Original_Survey_Legal_Descriptions.kml")
	if _, err := os.Stat(filepath.Join(data, "grid", "mb-original-survey.mgix")); err != nil {
		t.Errorf("the index was not installed: %v", err)
	}
}

// The real Manitoba municipal boundaries (testdata/real/mb-municipal, 5
// records each) by the names they ship under: the geoportal's
// MG_MUNICIPALITY_POLY zipped with its metadata MUNICIPALITY.xml, and
// MLI's MB_Municipal_Boundaries beside it, read with no -allow-unknown.
func TestCheckAgRealMunicipal(t *testing.T) {
	t.Parallel()
	const real = "../../testdata/real/mb-municipal/"
	in := t.TempDir()
	members := map[string]string{"MUNICIPALITY.xml": "<metadata/>"}
	for _, ext := range []string{".shp", ".shx", ".dbf", ".prj", ".cpg"} {
		b, err := os.ReadFile(real + "MG_MUNICIPALITY_POLY" + ext)
		if err != nil {
			t.Fatal(err)
		}
		members["MG_MUNICIPALITY_POLY"+ext] = string(b)
		copyAs(t, real+"MB_Municipal_Boundaries"+ext, filepath.Join(in, "MB_Municipal_Boundaries"+ext))
	}
	ingesttest.WriteZip(t, filepath.Join(in, "MG_MUNICIPALITY_POLY.zip"), members)
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "ag", "-check", "-data", t.TempDir(), in}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	wantOutput(t, out.String(),
		"11 files: 2 read (with 8 beside them: .dbf, .prj …), 1 not read, 0 not recognised",
		"MG_MUNICIPALITY_POLY.zip!MUNICIPALITY.xml\n  not read: recognised, read by no ag report",
		"MG_MUNICIPALITY_POLY.zip!MG_MUNICIPALITY_POLY.shp\n  with:     MG_MUNICIPALITY_POLY.zip!MG_MUNICIPALITY_POLY.cpg, MG_MUNICIPALITY_POLY.zip!MG_MUNICIPALITY_POLY.dbf, MG_MUNICIPALITY_POLY.zip!MG_MUNICIPALITY_POLY.prj, MG_MUNICIPALITY_POLY.zip!MG_MUNICIPALITY_POLY.shx\n",
	)
	if strings.Contains(out.String(), "MG_MUNICIPALITY_POLY.zip!MG_MUNICIPALITY_POLY.dbf\n  not read") {
		t.Errorf("a companion of a file read is listed on its own:\n%s", out.String())
	}
	wantRows(t, out.String(), "MG_MUNICIPALITY_POLY.zip!MG_MUNICIPALITY_POLY.shp", 5)
	wantRows(t, out.String(), "MB_Municipal_Boundaries.shp", 5)
}
