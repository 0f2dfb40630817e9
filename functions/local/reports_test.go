package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// `meridian ingest ag|energy` publishes the dataset and rebuilds that
// domain's tile archives from it (not the other domain's), removes the
// archive of a layer left without data, and leaves them all with
// -tiles=false; a rejected file changes neither data nor archives.
func TestIngestReportsRebuildsArchives(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	demo := filepath.Join(dir, "demo")
	ingestCmd := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := run(append([]string{"ingest"}, args...), nil, &stdout, &stderr); code != want {
			t.Fatalf("ingest %v: exit %d, want %d\n%s%s", args, code, want, stdout.String(), stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	archives := func(region string) map[string]time.Time {
		out := map[string]time.Time{}
		paths, _ := filepath.Glob(filepath.Join(datadir.Dir(dir).Tiles(), region, "*.pmtiles"))
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(p)] = fi.ModTime()
		}
		return out
	}

	out := ingestCmd(0, "energy", "-data", dir, "-demo", filepath.Join(demo, "energy"))
	// The first lines say which layouts are guessed (Petrinex wells, the
	// dispositions); the verified ones (the OWA inventory, ST37) follow.
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "WARNING ") || !strings.Contains(first, "GUESSED") ||
		!strings.Contains(out, "GUESSED, no real file seen; check: no real Saskatchewan or Manitoba disposition download has been seen") ||
		!strings.Contains(out, "[Crown_Dispositions_AB.geojson]") || !strings.Contains(out, "layout verified") ||
		strings.Index(out, "layout verified") < strings.LastIndex(out, "layout GUESSED") {
		t.Errorf("ingest energy does not start with the layout banners:\n%s", out)
	}
	if n := len(archives("energy")); n != 12 || !strings.Contains(out, "energy tile archives: 12 rebuilt") {
		t.Fatalf("after ingest energy: %d energy archives\n%s", n, out)
	}
	if n := len(archives("ag")); n != 0 {
		t.Errorf("ingest energy built %d ag archives", n)
	}
	out = ingestCmd(0, "ag", "-data", dir, "-demo", filepath.Join(demo, "ag"))
	// Each file's layout first, guessed ones first.
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], ": WARNING ") || !strings.Contains(lines[0], "layout GUESSED") ||
		!strings.Contains(out, agdemo.ALR+": ALC ALR Polygons (OATS_ALR_POLYS) (Agricultural Land Commission / DataBC), DataBC shapefile") ||
		!strings.Contains(out, "CDM_2508_D2_LR.geojson: Canadian Drought Monitor") {
		t.Errorf("ingest ag: want the layout banners first, guessed first:\n%s", out)
	}
	ag := archives("ag")
	if len(ag) != 18 {
		t.Fatalf("after ingest ag: %d ag archives, want 18", len(ag))
	}

	// Without the BC files the BC archives go; with -tiles=false nothing moves.
	old := time.Now().Add(-time.Hour)
	for name := range ag {
		os.Chtimes(filepath.Join(datadir.Dir(dir).Tiles(), "ag", name), old, old)
	}
	for _, f := range []string{agdemo.ALR, agdemo.FWAWetlands, agdemo.BCCapability} {
		os.Remove(filepath.Join(demo, "ag", f)) // a .shp or a .geojson
		base := strings.TrimSuffix(f, ".shp")
		for _, ext := range []string{".shx", ".dbf", ".prj", ".cpg"} {
			os.Remove(filepath.Join(demo, "ag", base+ext))
		}
	}
	ingestCmd(0, "ag", "-data", dir, "-tiles=false", filepath.Join(demo, "ag"))
	if got := archives("ag"); len(got) != 18 || !got["bc_alr.pmtiles"].Equal(old) {
		t.Errorf("-tiles=false changed the archives: %v", got)
	}
	ingestCmd(0, "ag", "-data", dir, filepath.Join(demo, "ag"))
	got := archives("ag")
	if len(got) != 14 || !got["bc_alr.pmtiles"].IsZero() || got["soils.pmtiles"].Equal(old) {
		t.Errorf("without the BC files: %d ag archives %v, want 14 rebuilt, no bc_*", len(got), got)
	}

	// A rejected file: the archives stay as they are.
	for name := range got {
		os.Chtimes(filepath.Join(datadir.Dir(dir).Tiles(), "ag", name), old, old)
	}
	bad := filepath.Join(demo, "ag", agdemo.CropRasters()[0])
	os.WriteFile(bad, []byte("II*\x00 not a GeoTIFF after all"), 0o644)
	if out := ingestCmd(1, "ag", "-data", dir, filepath.Join(demo, "ag")); !strings.Contains(out, "rejected") {
		t.Errorf("bad file: %s", out)
	}
	if after := archives("ag"); len(after) != 14 || !after["soils.pmtiles"].Equal(old) {
		t.Errorf("a rejected ingest touched the archives: %v", after)
	}
}

// servedReports opens domain's served report version read-only (beside
// any server), closed when the test ends.
func servedReports(t *testing.T, data, domain string) kv.Store {
	t.Helper()
	store, ok, err := dataingest.OpenServed(datadir.Dir(data), domain)
	if err != nil || !ok {
		t.Fatalf("report store %s: ok %v, %v", domain, ok, err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// `meridian ingest energy|ag` runs while a server serves the same data
// directory (bbolt's lock refused it when the store was one shared file);
// the server switches to the new version on its next look, and a rejected
// ingest leaves the served version as it was.
func TestIngestWhileServing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, key := newTestServerIn(t, dir)
	report := func(path string) int {
		t.Helper()
		return get(t, srv, path, "X-API-Key", key).Code
	}
	const energyPath, agPath = "/energy/report?legal_location=9-10-60-22-W5", "/ag/report?legal_location=NE-25-10-14-W2"
	if c1, c2 := report(energyPath), report(agPath); c1 != 200 || c2 != 200 {
		t.Fatalf("before: energy %d, ag %d", c1, c2)
	}
	first := map[string]string{}
	for _, d := range reportDomains {
		first[d] = srv.reports[d].Name()
	}

	demo := t.TempDir()
	for _, domain := range reportDomains {
		var stdout, stderr strings.Builder
		if code := run([]string{"ingest", domain, "-data", dir, "-tiles=false", "-demo", filepath.Join(demo, domain)}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("ingest %s while serving: exit %d\n%s%s", domain, code, stdout.String(), stderr.String())
		}
		// Until the server looks again, it serves the version it had.
		if got := srv.reports[domain].Name(); got != first[domain] {
			t.Fatalf("%s switched before a reload: %s", domain, got)
		}
	}
	srv.reloadReports()
	for _, domain := range reportDomains {
		name := srv.reports[domain].Name()
		if name == first[domain] || name == "" {
			t.Errorf("%s: serving %q after the ingest and a reload, was %q", domain, name, first[domain])
		}
		if d, ok, err := kv.Open(t.Context(), servedReports(t, dir, domain), domain); err != nil || !ok || d.Version != 2 {
			t.Errorf("%s: served dataset %+v, %v, %v; want version 2", domain, d, ok, err)
		}
	}
	if c1, c2 := report(energyPath), report(agPath); c1 != 200 || c2 != 200 {
		t.Fatalf("after the switch: energy %d, ag %d", c1, c2)
	}
	// build-tiles reads the served version beside the server, too.
	var out, errOut strings.Builder
	if code := run([]string{"build-tiles", "-data", dir, "energy/og_activity_lsd", "ag/lsrs_productivity"}, nil, &out, &errOut); code != 0 ||
		strings.Count(out.String(), "\n") != 2 {
		t.Fatalf("build-tiles while serving: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	// A rejected ingest: nothing switches.
	served := srv.reports[energy.Dataset].Name()
	vols, _ := filepath.Glob(filepath.Join(demo, energy.Dataset, "Vol_*.csv"))
	if len(vols) == 0 {
		t.Fatal("no volumetrics file in the energy demo")
	}
	os.WriteFile(vols[0], []byte("not,a,volumetrics\nfile\n"), 0o644)
	var stdout, stderr strings.Builder
	if code := run([]string{"ingest", "energy", "-data", dir, "-tiles=false", filepath.Join(demo, energy.Dataset)}, nil, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "the energy data served before is unchanged") {
		t.Fatalf("bad file: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	srv.reloadReports()
	if got := srv.reports[energy.Dataset].Name(); got != served {
		t.Errorf("a rejected ingest switched the server to %s (was %s)", got, served)
	}
	if c := report(energyPath); c != 200 {
		t.Errorf("after a rejected ingest: energy %d", c)
	}
}

// A data directory of an earlier release, with its one reports.db, is
// adopted: each domain's first version is a copy of it, and the file is
// renamed aside.
func TestLegacyReportsAdopted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	legacy := datadir.Dir(dir).LegacyReports()
	store, err := kv.OpenBolt(legacy, kv.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, domain := range reportDomains {
		if _, err := kv.Publish(t.Context(), store, kv.DatasetInfo{Name: domain, Source: "earlier release"}, func(w *kv.Writer) error { return w.Put("P", "s", domain) }); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	if err := dataingest.MigrateReports(datadir.Dir(dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("reports.db still in place after adoption (%v)", err)
	}
	if _, err := os.Stat(legacy + ".adopted"); err != nil {
		t.Errorf("reports.db.adopted: %v", err)
	}
	for _, domain := range reportDomains {
		d, ok, err := kv.Open(t.Context(), servedReports(t, dir, domain), domain)
		if err != nil || !ok || d.Info.Source != "earlier release" {
			t.Errorf("%s after adoption: %+v, %v, %v", domain, d, ok, err)
		}
	}
	if err := dataingest.MigrateReports(datadir.Dir(dir)); err != nil {
		t.Errorf("second migration: %v", err)
	}
}
