package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	srcag "meridian/shared/ag/agingest"
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
		paths, _ := filepath.Glob(filepath.Join(dir, tilesDir, region, "*.pmtiles"))
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
		!strings.Contains(out, srcag.DemoALR+": ALC ALR Polygons (OATS_ALR_POLYS) (Agricultural Land Commission / DataBC), DataBC shapefile") ||
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
		os.Chtimes(filepath.Join(dir, tilesDir, "ag", name), old, old)
	}
	for _, f := range []string{srcag.DemoALR, srcag.DemoFWAWetlands, srcag.DemoBCCapability} {
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
		os.Chtimes(filepath.Join(dir, tilesDir, "ag", name), old, old)
	}
	bad := filepath.Join(demo, "ag", srcag.DemoCropRasters()[0])
	os.WriteFile(bad, []byte("II*\x00 not a GeoTIFF after all"), 0o644)
	if out := ingestCmd(1, "ag", "-data", dir, filepath.Join(demo, "ag")); !strings.Contains(out, "rejected") {
		t.Errorf("bad file: %s", out)
	}
	if after := archives("ag"); len(after) != 14 || !after["soils.pmtiles"].Equal(old) {
		t.Errorf("a rejected ingest touched the archives: %v", after)
	}
}
