package dataingest_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/demo/energydemo"
	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/survey/gridingest"
)

// energyFolder writes the demo energy files to a new folder and replaces
// its well list with one that is not a well list.
func energyFolder(t *testing.T, brokenWells bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := energydemo.Write(dir); err != nil {
		t.Fatal(err)
	}
	if brokenWells {
		if err := os.WriteFile(filepath.Join(dir, "WellList.txt"), []byte("not\ta\twell\tlist\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func current(t *testing.T, data datadir.Dir, domain string) string {
	t.Helper()
	cur, err := data.Reports(domain).Current()
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// A file the ingest cannot read rejects the folder with its
// *ingest.Error, from the check and from the ingest, and nothing is
// published; the check's report names it.
func TestReportsRejection(t *testing.T) {
	ctx := context.Background()
	data := datadir.Dir(t.TempDir())
	r := dataingest.Reports{Domain: "energy", Dir: energyFolder(t, true), AllowUnknown: true}
	var report strings.Builder
	err := dataingest.CheckReports(ctx, data, r, &report)
	var rej *dataingest.Rejected
	var ie *ingest.Error
	if !errors.As(err, &rej) || !errors.As(err, &ie) || ie.File != "WellList.txt" || ie.Line != 1 {
		t.Fatalf("CheckReports = %v (%T); want a *Rejected holding WellList.txt:1's *ingest.Error", err, err)
	}
	if !strings.Contains(report.String(), "REJECTED: WellList.txt:1:") {
		t.Errorf("the check's report does not name the rejection:\n%s", report.String())
	}
	// The well list alone: the whole demo set reads the wells of
	// Petrinex's file too.
	alone := t.TempDir()
	os.WriteFile(filepath.Join(alone, "WellList.txt"), []byte("not\ta\twell\tlist\n"), 0o644)
	r.Dir = alone
	_, err = dataingest.IngestReports(ctx, data, r)
	if !errors.As(err, &ie) || ie.File != "WellList.txt" {
		t.Fatalf("IngestReports = %v; want WellList.txt's *ingest.Error", err)
	}
	if cur := current(t, data, "energy"); cur != "" {
		t.Errorf("a rejected ingest published %s", cur)
	}
}

// A file whose name the domain does not know refuses the folder, nothing
// read, unless AllowUnknown; with it the folder is published.
func TestReportsUnknownFile(t *testing.T) {
	ctx := context.Background()
	data := datadir.Dir(t.TempDir())
	dir := energyFolder(t, false)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := dataingest.IngestReports(ctx, data, dataingest.Reports{Domain: "energy", Dir: dir})
	var rej *dataingest.Rejected
	var ie *ingest.Error
	if !errors.As(err, &rej) || rej.Reason == "" || !errors.As(err, &ie) || ie.File != "notes.txt" {
		t.Fatalf("IngestReports = %v; want a refusal naming notes.txt", err)
	}
	if _, err := os.Stat(filepath.Join(string(data), "reports")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused ingest made the report store (%v)", err)
	}
	res, err := dataingest.IngestReports(ctx, data, dataingest.Reports{Domain: "energy", Dir: dir, AllowUnknown: true, Invented: true})
	if err != nil || res.Version == "" || current(t, data, "energy") == "" || res.Tiles != nil {
		t.Fatalf("with AllowUnknown: %+v, %v; want a version published, no tiles asked for", res, err)
	}
	if _, err := dataingest.IngestReports(ctx, data, dataingest.Reports{Domain: "wells", Dir: dir}); err == nil {
		t.Error("an unknown domain: no error")
	}
}

// A canceled context stops the ingest: it returns the cancellation and
// publishes nothing.
func TestReportsHonourContext(t *testing.T) {
	data := datadir.Dir(t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := dataingest.IngestReports(ctx, data, dataingest.Reports{Domain: "energy", Dir: energyFolder(t, false), Invented: true, Tiles: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("IngestReports with a canceled context = %v, want context.Canceled", err)
	}
	if cur := current(t, data, "energy"); cur != "" {
		t.Errorf("a canceled ingest published %s", cur)
	}
}

// A grid file with a bad row is rejected with its line and installs
// nothing; the good files install an index a server would load.
func TestGridRejectionAndInstall(t *testing.T) {
	ctx := context.Background()
	data := datadir.Dir(t.TempDir())
	in := t.TempDir()
	var files []string
	for _, name := range []string{"mb/MB_QuarterSectionCorners_FIXTURE.csv", "mb/Original_Survey_Legal_Descriptions_FIXTURE.csv"} {
		b, err := fs.ReadFile(griddemo.Grid(), name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(in, filepath.Base(name))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	good, _ := os.ReadFile(files[0])
	lines := strings.SplitAfter(string(good), "\n")
	lines[3] = "E11201201XX" + lines[3][len("E11201201NE"):]
	os.WriteFile(files[0], []byte(strings.Join(lines, "")), 0o644)

	g := dataingest.Grid{Format: gridingest.FormatManitoba, Files: files}
	_, err := dataingest.IngestGrid(ctx, data, g)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != filepath.Base(files[0]) || ie.Line != 4 {
		t.Fatalf("IngestGrid over a bad row = %v; want its *ingest.Error at line 4", err)
	}
	if names, _ := dataingest.GridNames(data); len(names) != 0 {
		t.Errorf("a rejected grid installed %v", names)
	}
	os.WriteFile(files[0], good, 0o644)
	res, err := dataingest.IngestGrid(ctx, data, g)
	if err != nil || res.Index.Records == 0 {
		t.Fatalf("IngestGrid = %+v, %v", res, err)
	}
	if names, _ := dataingest.GridNames(data); len(names) != 1 || filepath.Join(data.Grid(), names[0]) != res.Path {
		t.Errorf("installed %v, result says %s", names, res.Path)
	}
}
