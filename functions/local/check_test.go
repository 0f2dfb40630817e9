package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/datadir"
	"meridian/shared/demo/agdemo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/demo/griddemo"
)

// copyFixture writes a fixture file out, as a user's download would be.
func copyFixture(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := fs.ReadFile(griddemo.Grid(), name)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(name))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckGridReportsEveryFile(t *testing.T) {
	t.Parallel()
	in := t.TempDir()
	corners := copyFixture(t, in, "mb/MB_QuarterSectionCorners_FIXTURE.csv")
	survey := copyFixture(t, in, "mb/Original_Survey_Legal_Descriptions_FIXTURE.csv")
	data := t.TempDir()

	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "grid", "-format", "mb", "-check", "-data", data, corners, survey}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"2 files: 2 read, 0 not read, 0 not recognised; nothing is published",
		"MB_QuarterSectionCorners_FIXTURE.csv\n  layout:   Manitoba township system corners",
		"layout verified",
		"crs:      NAD83 / UTM zone 14N (EPSG:26914)",
		"skipped (polygon: blank corners, centroid kept 3)",
		`would publish: index "mb-original-survey"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "grid")); !os.IsNotExist(err) {
		t.Errorf("-check installed something in the data directory (%v)", err)
	}

	// A bad row in one file: that file is rejected with its line, the other
	// is still read whole, and the exit status says the download fails.
	b, _ := os.ReadFile(corners)
	lines := strings.SplitAfter(string(b), "\n")
	lines[3] = "E11201201XX" + lines[3][len("E11201201NE"):]
	if err := os.WriteFile(corners, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"ingest", "grid", "-format", "mb", "-check", "-data", data, corners, survey}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d with a bad row, want 1:\n%s", code, out.String())
	}
	got = out.String()
	for _, want := range []string{
		"REJECTED: MB_QuarterSectionCorners_FIXTURE.csv:4:",
		"Original_Survey_Legal_Descriptions_FIXTURE.csv\n",
		"result:   read whole",
		"1 of 2 files rejected",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "would publish") {
		t.Errorf("a rejected download must not say what it would publish:\n%s", got)
	}
}

func TestCheckEnergyDemo(t *testing.T) {
	t.Parallel()
	in := t.TempDir()
	if err := energydemo.Write(in); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "energy", "-check", "-now", "2026-11-21", "-data", data, in}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	got := out.String()
	// Guessed layouts come first, each file says what it is, and the check
	// says what the ingest would publish.
	first := strings.Index(got, "\n  layout:")
	if first < 0 || !strings.HasPrefix(got[first:], "\n  layout:   WARNING") {
		t.Errorf("the first file's layout is not a guessed one:\n%s", got)
	}
	for _, want := range []string{"AER ST37 list of wells", "layout verified", "crs:      EPSG:4269", "would publish: the energy dataset, "} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(got, "not declared by its reader") {
		t.Errorf("an energy file has no declared layout:\n%s", got)
	}
	if _, err := os.Stat(filepath.Dir(datadir.Dir(data).Reports("energy").Path())); !os.IsNotExist(err) {
		t.Errorf("-check opened or wrote the report store (%v)", err)
	}

	// A broken volumetrics file is rejected with its line; the others read.
	vols, _ := filepath.Glob(filepath.Join(in, "Vol_*.csv"))
	if len(vols) == 0 {
		t.Fatal("no demo volumetrics")
	}
	if err := os.WriteFile(vols[0], []byte("not,a,volumetrics,file\n1,2,3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"ingest", "energy", "-check", "-now", "2026-11-21", "-data", data, in}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d with a broken file, want 1", code)
	}
	if got := out.String(); !strings.Contains(got, "REJECTED: "+filepath.Base(vols[0])) || !strings.Contains(got, "1 of ") {
		t.Errorf("the broken file is not reported:\n%s", got)
	}
}

func TestCheckAgDemo(t *testing.T) {
	t.Parallel()
	in := t.TempDir()
	if err := agdemo.Write(in); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"ingest", "ag", "-check", "-data", t.TempDir(), in}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	got := out.String()
	for _, want := range []string{"AAFC Annual Crop Inventory", "from the GeoKeys", "layout GUESSED", "would publish: the ag dataset, "} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(got, "not declared by its reader"); n > 2 {
		t.Errorf("%d ag files have no declared layout:\n%s", n, got)
	}
	// A file agingest does not know is listed, and refuses the folder.
	if err := os.WriteFile(filepath.Join(in, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"ingest", "ag", "-check", "-data", t.TempDir(), in}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d with an unknown file, want 1:\n%s", code, out.String())
	}
	if got := out.String(); !strings.Contains(got, "notes.txt\n  NOT RECOGNISED: not a file name the ag ingest knows") ||
		!strings.Contains(got, "1 not recognised") || !strings.Contains(got, "the ag ingest reads: aci_*.tif") {
		t.Errorf("the unknown file is not listed:\n%s", got)
	}
}
