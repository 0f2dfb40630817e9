package agri_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"meridian/shared/agri"
	"meridian/shared/convert"
	"meridian/shared/ingest"
	src "meridian/shared/ingest/ag"
	"meridian/shared/kv"
)

func demoDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := src.WriteDemo(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func ingestDir(t testing.TB, store kv.Store, dir string) (agri.Summary, error) {
	t.Helper()
	files, err := agri.Classify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Unrecognised) != 0 || files.CropSummaries == "" || files.SLCPolygons == "" || len(files.Drought) != 3 {
		t.Fatalf("Classify: %+v", files)
	}
	return agri.Ingest(context.Background(), store, convert.New(), files, agri.Options{Demo: true})
}

func section(t testing.TB, ds kv.Dataset, quarter, sk string, v any) bool {
	t.Helper()
	it, ok, err := ds.Get(context.Background(), agri.QuarterKey(quarter), sk)
	if err != nil {
		t.Fatal(err)
	}
	if ok && v != nil {
		if err := json.Unmarshal(it.Data, v); err != nil {
			t.Fatal(err)
		}
	}
	return ok
}

// Every section is present somewhere and missing somewhere else, as the
// demo data is made; the values are the report's shapes.
func TestIngestDemo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := kv.NewMem()
	sum, err := ingestDir(t, store, demoDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("quarters %d, sections %v, items %d", sum.Quarters, sum.Sections, sum.Items)
	if sum.Quarters < 1000 {
		t.Fatalf("%d quarters: %+v", sum.Quarters, sum)
	}
	for _, s := range []string{agri.SKCropping, agri.SKLandUse, agri.SKLSRS, agri.SKCLI, agri.SKSoil, agri.SKDrought, agri.SKWetlands, agri.SKHydrology, agri.SKMunicipality, agri.SKProvincial} {
		if n := sum.Sections[s]; n == 0 || n == sum.Quarters && s != agri.SKHydrology && s != agri.SKWetlands {
			t.Errorf("section %s in %d of %d quarters: want some, not all", s, n, sum.Quarters)
		}
	}
	ds, ok, _ := kv.Open(ctx, store, agri.Dataset)
	if !ok || !ds.Info.Demo {
		t.Fatal("no demo ag dataset")
	}
	var c agri.Cropping
	if !section(t, ds, "NW-25-24-1-W5", agri.SKCropping, &c) || c.YearsCovered != 5 || c.Rotation == "" || c.Dominant.Name == "" || c.DiversityIndex < 0 {
		t.Errorf("cropping %+v", c)
	}
	var soil agri.Soil
	if !section(t, ds, "NW-25-24-1-W5", agri.SKSoil, &soil) || soil.Classification.Order == "" || soil.DrainageClass == "" {
		t.Errorf("soil %+v", soil)
	}
	// Gaps the demo is made with.
	if section(t, ds, "NE-10-50-20-W3", agri.SKLSRS, nil) {
		t.Error("LSRS for 50-20-W3, which the demo leaves unrated")
	}
	if section(t, ds, "NE-36-10-15-W4", agri.SKLSRS, nil) {
		t.Error("LSRS for NE-36-10-15-W4, not rated")
	}
	if section(t, ds, "NE-10-10-9-W1", agri.SKLandUse, nil) {
		t.Error("land use for 10-9-W1")
	}
	var lsrs agri.Productivity
	if !section(t, ds, "SE-1-10-14-W2", agri.SKLSRS, &lsrs) || lsrs.Score <= 0 || lsrs.Class == "" {
		t.Errorf("SK LSRS through the SLC polygon: %+v", lsrs)
	}
	var prov agri.Provincial
	if section(t, ds, "NW-25-24-1-W5", agri.SKProvincial, nil) {
		t.Error("provincial detail for Alberta")
	}
	found := false
	for _, q := range []string{"SE-1-10-14-W2", "NW-18-38-5-W3", "SW-7-6-25-W2", "NE-18-38-5-W3"} {
		if section(t, ds, q, agri.SKProvincial, &prov) && (len(prov.CrownLand) > 0 || len(prov.Soils) > 0) {
			found = true
		}
	}
	if !found {
		t.Error("no SK provincial detail")
	}
	srcs, _ := ds.Query(ctx, kv.Query{PK: agri.PKSources})
	if len(srcs.Items) < 8 {
		t.Errorf("%d sources", len(srcs.Items))
	}

	// Idempotent: the same files give the same items.
	sum2, err := ingestDir(t, store, demoDir(t))
	if err != nil || sum2.Items != sum.Items || sum2.Quarters != sum.Quarters {
		t.Errorf("re-ingest %+v %v", sum2, err)
	}
}

func TestIngestRejectsBadFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := kv.NewMem()
	dir := demoDir(t)
	first, err := ingestDir(t, store, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, src.DemoCropSummaries)
	data, _ := os.ReadFile(p)
	os.WriteFile(p, append(data, []byte("NW-25-24-1-W5,2025,notanumber,1,100\n")...), 0o644)
	_, err = ingestDir(t, store, dir)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != src.DemoCropSummaries || ie.Line == 0 {
		t.Fatalf("bad file: %v", err)
	}
	ds, _, _ := kv.Open(ctx, store, agri.Dataset)
	if ds.Version != first.Version {
		t.Errorf("served version %d, want %d", ds.Version, first.Version)
	}
}
