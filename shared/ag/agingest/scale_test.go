package agingest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/ag"
	"meridian/shared/ag/agingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/kv"
	"meridian/shared/scale"
	"meridian/shared/survey/grid"
)

// digest hashes every file of dir, by name.
func digest(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeScale(t *testing.T, dir string, o scale.Options) scale.Report {
	t.Helper()
	rep, err := agdemo.WriteScale(context.Background(), dir, o)
	if err != nil {
		t.Fatalf("WriteScale(%+v): %v", o, err)
	}
	return rep
}

// TestWriteScale: the same seed and fraction write the same bytes, another
// seed other bytes; the report lists what is on disk; every file is one
// the ingest recognises and reads; the quarters ingested are within 5% of
// the fraction of 2.5 million; invented names say "Demo".
func TestWriteScale(t *testing.T) {
	if testing.Short() {
		t.Skip("writes province-wide rasters three times")
	}
	o := scale.Options{Seed: 7, Fraction: 0.002}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	rep := writeScale(t, a, o)
	writeScale(t, b, o)
	writeScale(t, c, scale.Options{Seed: 8, Fraction: o.Fraction})
	da, db, dc := digest(t, a), digest(t, b), digest(t, c)
	if len(da) != len(db) {
		t.Fatalf("%d files, then %d", len(da), len(db))
	}
	differ := 0
	for name, h := range da {
		if db[name] != h {
			t.Errorf("%s: different bytes from the same seed and fraction", name)
		}
		if dc[name] != h {
			differ++
		}
	}
	// Only the legend, the soil tables' shapes and the BC layers (the
	// demo's) may be the same under another seed.
	if differ < len(da)/2 {
		t.Errorf("seed 8: %d of %d files differ from seed 7's, want most", differ, len(da))
	}

	// The report is what is on disk.
	if len(rep.Files) != len(da) {
		t.Errorf("report lists %d files, %d on disk", len(rep.Files), len(da))
	}
	for _, f := range rep.Files {
		st, err := os.Stat(filepath.Join(a, f.Name))
		if err != nil || st.Size() != f.Bytes {
			t.Errorf("report: %s %d bytes; on disk: %v %v", f.Name, f.Bytes, st, err)
		}
	}
	readme, err := os.ReadFile(filepath.Join(a, "README.md"))
	if err != nil || !bytes.Contains(readme, []byte("INVENTED")) || !bytes.Contains(readme, []byte("meridian demo -scale province")) || !bytes.Contains(readme, []byte("seed 7")) {
		t.Errorf("README.md does not say the data is invented, by whom and from which seed: %v\n%s", err, readme)
	}

	files, err := agingest.FilesIn(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Unrecognised) > 0 {
		t.Errorf("files the ingest does not know: %v", files.Unrecognised)
	}
	if len(files.CropRasters) != 15 || len(files.LandUseRasters) != 10 || files.SLCPolygons == "" || files.AGRASIDLSRS == "" || files.CLI == "" ||
		len(files.Drought) != 6 || len(files.WaterBodies) != 1 || len(files.Watercourses) != 1 || len(files.Municipalities) != 2 || files.CrownLand == "" || files.Pastures == "" {
		t.Errorf("files: %+v", files)
	}
	for _, p := range files.Municipalities {
		src, err := agingest.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range collect(t, agingest.ReadMunicipalities, src.Source) {
			if !strings.Contains(m.Name, "Demo") {
				t.Errorf("%s: municipality %q: an invented name must say Demo", filepath.Base(p), m.Name)
			}
		}
		src.Close()
	}

	store := kv.NewMem()
	sum, err := agingest.Ingest(context.Background(), store, grid.New(), files, agingest.Options{Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	want := o.N(agdemo.ScaleQuarters)
	if math.Abs(float64(sum.Quarters-want)) > 0.05*float64(want) {
		t.Errorf("ingested %d quarters, want %d ± 5%%", sum.Quarters, want)
	}
	for _, k := range []string{"crop_quarter_years", "land_use_quarter_years", "lsrs_quarters", "sk_crown_land", "slc_polygons", "cli_polygons", "drought_areas", "water_bodies", "watercourses", "municipalities"} {
		if sum.Read[k] == 0 {
			t.Errorf("read no %s: %v", k, sum.Read)
		}
	}
	// Most quarters get each section the generator feeds.
	for _, s := range []string{ag.SKCropping, ag.SKLandUse, ag.SKSoil, ag.SKCLI, ag.SKLSRS, ag.SKMunicipality, ag.SKHydrology} {
		if n := sum.Sections[s]; n < sum.Quarters*7/10 {
			t.Errorf("section %s in %d of %d quarters", s, n, sum.Quarters)
		}
	}
	t.Logf("fraction %g: %d files, %d rows, %d bytes; %d quarters, %d items; sections %v", o.Fraction, len(rep.Files), rep.Rows(), rep.Bytes(), sum.Quarters, sum.Items, sum.Sections)
}

func TestWriteScaleOptions(t *testing.T) {
	for _, f := range []float64{0, -0.1, 1.5, math.NaN()} {
		if _, err := agdemo.WriteScale(context.Background(), t.TempDir(), scale.Options{Fraction: f}); err == nil {
			t.Errorf("fraction %v: no error", f)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := agdemo.WriteScale(ctx, t.TempDir(), scale.Options{Fraction: 0.001}); err == nil {
		t.Error("a cancelled context: no error")
	}
}

// TestSweepRastersMatchesSingleFiles: the years of a province's crop
// inventory swept together give each quarter exactly the summaries the
// rasters give read one by one, and every file's RasterInfo.Quarters
// (agingest.CheckSweepRasters, on a small province-size dataset).
func TestSweepRastersMatchesSingleFiles(t *testing.T) {
	dir := t.TempDir()
	writeScale(t, dir, scale.Options{Seed: 5, Fraction: 0.002})
	agingest.CheckSweepRasters(t, dir)
}
