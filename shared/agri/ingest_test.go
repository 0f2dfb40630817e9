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
	if len(files.Unrecognised) != 0 || files.CropSummaries == "" || files.SLCPolygons == "" || len(files.Drought) != 6 {
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

// The BC map layers are stored polygon by polygon with their properties,
// and a bad BC file rejects the ingest whole like any other.
func TestIngestBCLayers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := kv.NewMem()
	dir := demoDir(t)
	sum, err := ingestDir(t, store, dir)
	if err != nil {
		t.Fatal(err)
	}
	ds, _, _ := kv.Open(ctx, store, agri.Dataset)
	for _, c := range []struct {
		pk, read string
		want     int
		check    func(agri.Area) bool
	}{
		{agri.PKBCCapability, "bc_capability_polygons", 8, func(a agri.Area) bool {
			return a.Properties["class"] != "" && a.Properties["capability"] != "" && a.Properties["class_description"] != ""
		}},
		{agri.PKBCALR, "bc_alr_polygons", 4, func(a agri.Area) bool { return a.Properties["status"] == "ALR" && a.Numbers["area_ha"] > 1000 }},
		{agri.PKBCWetland, "bc_fwa_wetlands", 12, func(a agri.Area) bool { return a.Properties["watershed_group"] != "" && a.Numbers["area_ha"] > 0 }},
	} {
		page, err := ds.Query(ctx, kv.Query{PK: c.pk})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Read[c.read] != c.want || len(page.Items) != c.want {
			t.Errorf("%s: read %d, stored %d, want %d", c.pk, sum.Read[c.read], len(page.Items), c.want)
		}
		for _, it := range page.Items {
			var a agri.Area
			if err := json.Unmarshal(it.Data, &a); err != nil || len(a.Polygons) == 0 || !c.check(a) {
				t.Errorf("%s %s: %+v %v", c.pk, it.SK, a.Properties, err)
			}
			if b := a.Polygons.Bound(); b.Min[0] < -121.5 || b.Max[0] > -120 || b.Min[1] < 56 || b.Max[1] > 56.6 {
				t.Errorf("%s %s: bound %v, want near Fort St. John (BC Albers read back)", c.pk, it.SK, b)
			}
		}
	}

	// A lake in the wetlands file: rejected at its line, nothing changes.
	matches, _ := filepath.Glob(filepath.Join(dir, "FWA_WETLANDS_POLY.*"))
	for _, m := range matches {
		os.Remove(m)
	}
	bad := `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"WATERBODY_POLY_ID":1,"WATERBODY_TYPE":"W"},"geometry":{"type":"Polygon","coordinates":[[[-120.8,56.2],[-120.79,56.2],[-120.79,56.21],[-120.8,56.2]]]}},
{"type":"Feature","properties":{"WATERBODY_POLY_ID":2,"WATERBODY_TYPE":"L"},"geometry":{"type":"Polygon","coordinates":[[[-120.8,56.2],[-120.79,56.2],[-120.79,56.21],[-120.8,56.2]]]}}
]}`
	if err := os.WriteFile(filepath.Join(dir, "fwa_wetlands.geojson"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ingestDir(t, store, dir)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != "fwa_wetlands.geojson" || ie.Line != 3 {
		t.Fatalf("lake in the wetlands: %v", err)
	}
	if after, _, _ := kv.Open(ctx, store, agri.Dataset); after.Version != sum.Version {
		t.Errorf("served version %d, want %d", after.Version, sum.Version)
	}
}
