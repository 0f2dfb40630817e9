package agingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ag"
	"meridian/shared/ag/agingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/grid"
)

func demoDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := agdemo.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func ingestDir(t testing.TB, store kv.Store, dir string) (agingest.Summary, error) {
	t.Helper()
	files, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Unrecognised) != 0 || len(files.CropRasters) != 50 || len(files.LandUseRasters) != 18 || files.SLCPolygons == "" || len(files.Drought) != 6 {
		t.Fatalf("Classify: %+v", files)
	}
	return agingest.Ingest(context.Background(), store, grid.New(), files, agingest.Options{Demo: true})
}

func section(t testing.TB, ds kv.Dataset, quarter, sk string, v any) bool {
	t.Helper()
	it, ok, err := ds.Get(context.Background(), ag.QuarterKey(quarter), sk)
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
	for _, s := range []string{ag.SKCropping, ag.SKLandUse, ag.SKLSRS, ag.SKCLI, ag.SKSoil, ag.SKDrought, ag.SKWetlands, ag.SKHydrology, ag.SKMunicipality, ag.SKProvincial} {
		if n := sum.Sections[s]; n == 0 || n == sum.Quarters && s != ag.SKHydrology && s != ag.SKWetlands {
			t.Errorf("section %s in %d of %d quarters: want some, not all", s, n, sum.Quarters)
		}
	}
	ds, ok, _ := kv.Open(ctx, store, ag.Dataset)
	if !ok || !ds.Info.Demo {
		t.Fatal("no demo ag dataset")
	}
	var c ag.Cropping
	if !section(t, ds, "NW-25-24-1-W5", ag.SKCropping, &c) || c.YearsCovered != 5 || c.Rotation == "" || c.Dominant.Name == "" || c.DiversityIndex < 0 {
		t.Errorf("cropping %+v", c)
	}
	var soil ag.Soil
	if !section(t, ds, "NW-25-24-1-W5", ag.SKSoil, &soil) || soil.Classification.Order == "" || soil.DrainageClass == "" {
		t.Errorf("soil %+v", soil)
	}
	// Gaps the demo is made with.
	if section(t, ds, "NE-10-50-20-W3", ag.SKLSRS, nil) {
		t.Error("LSRS for 50-20-W3, which the demo leaves unrated")
	}
	if section(t, ds, "NE-36-10-15-W4", ag.SKLSRS, nil) {
		t.Error("LSRS for NE-36-10-15-W4, not rated")
	}
	if section(t, ds, "NE-10-10-9-W1", ag.SKLandUse, nil) {
		t.Error("land use for 10-9-W1")
	}
	var lsrs ag.Productivity
	if !section(t, ds, "SE-1-10-14-W2", ag.SKLSRS, &lsrs) || lsrs.Score <= 0 || lsrs.Class == "" {
		t.Errorf("SK LSRS through the SLC polygon: %+v", lsrs)
	}
	var prov ag.Provincial
	if section(t, ds, "NW-25-24-1-W5", ag.SKProvincial, nil) {
		t.Error("provincial detail for Alberta")
	}
	found := false
	for _, q := range []string{"SE-1-10-14-W2", "NW-18-38-5-W3", "SW-7-6-25-W2", "NE-18-38-5-W3"} {
		if section(t, ds, q, ag.SKProvincial, &prov) && (len(prov.CrownLand) > 0 || len(prov.Soils) > 0) {
			found = true
		}
	}
	if !found {
		t.Error("no SK provincial detail")
	}
	srcs, _ := ds.Query(ctx, kv.Query{PK: ag.PKSources})
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
	// A crop inventory clip with a value outside the legend.
	bad := agdemo.CropRasters()[0]
	writeRaster(t, filepath.Join(dir, bad), 26912, dls.Bound(parseLoc(t, "24-1-W5")), 99)
	_, err = ingestDir(t, store, dir)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != bad || ie.Line == 0 {
		t.Fatalf("bad file: %v", err)
	}
	ds, _, _ := kv.Open(ctx, store, ag.Dataset)
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
	ds, _, _ := kv.Open(ctx, store, ag.Dataset)
	for _, c := range []struct {
		pk, read string
		want     int
		check    func(ag.Area) bool
	}{
		{ag.PKBCCapability, "bc_capability_polygons", 8, func(a ag.Area) bool {
			return a.Properties["class"] != "" && a.Properties["capability"] != "" && a.Properties["class_description"] != ""
		}},
		{ag.PKBCALR, "bc_alr_polygons", 4, func(a ag.Area) bool { return a.Properties["status"] == "ALR" && a.Numbers["area_ha"] > 1000 }},
		{ag.PKBCWetland, "bc_fwa_wetlands", 12, func(a ag.Area) bool { return a.Properties["watershed_group"] != "" && a.Numbers["area_ha"] > 0 }},
	} {
		page, err := ds.Query(ctx, kv.Query{PK: c.pk})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Read[c.read] != c.want || len(page.Items) != c.want {
			t.Errorf("%s: read %d, stored %d, want %d", c.pk, sum.Read[c.read], len(page.Items), c.want)
		}
		for _, it := range page.Items {
			var a ag.Area
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
	if after, _, _ := kv.Open(ctx, store, ag.Dataset); after.Version != sum.Version {
		t.Errorf("served version %d, want %d", after.Version, sum.Version)
	}
}

// writeRaster writes a GeoTIFF in EPSG code epsg, 30 m pixels, covering
// bound b (lng/lat) with every pixel value v.
func writeRaster(t *testing.T, path string, epsg int, b orb.Bound, v int) {
	t.Helper()
	writeRasterFunc(t, path, epsg, b, func(float64, float64) int { return v })
}

// writeRasterFunc is writeRaster with the value of the pixel centred at
// map x, y from v.
func writeRasterFunc(t *testing.T, path string, epsg int, b orb.Bound, v func(x, y float64) int) {
	t.Helper()
	p, err := proj.FromEPSG(epsg)
	if err != nil {
		t.Fatal(err)
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range []orb.Point{b.Min, b.Max, {b.Min[0], b.Max[1]}, {b.Max[0], b.Min[1]}} {
		x, y, err := p.FromLngLat(c)
		if err != nil {
			t.Fatal(err)
		}
		minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
	}
	x0, y0 := math.Floor(minX/30)*30-300, math.Ceil(maxY/30)*30+300
	w, h := int((maxX-x0)/30)+10, int((y0-minY)/30)+10
	var buf bytes.Buffer
	err = geotiff.Write(&buf, geotiff.WriteOptions{Width: w, Height: h, Tiled: true, BlockWidth: 256, BlockHeight: 256,
		Compression: geotiff.CompressionDeflate, EPSG: epsg, Origin: [2]float64{x0, y0}, PixelSize: [2]float64{30, 30}},
		func(bx, by int, px []uint16) error {
			for i := range px {
				px[i] = uint16(v(x0+30*(float64(bx+i%256)+0.5), y0-30*(float64(by+i/256)+0.5)))
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIngestRasters: the published GeoTIFFs are classified by name and
// summarised per quarter over the grid's quarter polygons.
func TestIngestRasters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	twp := dls.Bound(parseLoc(t, "24-1-W5"))
	writeRaster(t, filepath.Join(dir, "aci_2023_ab.tif"), 26912, twp, 153)
	writeRaster(t, filepath.Join(dir, "aci_2024_ab.tif"), 26912, twp, 146)
	writeRaster(t, filepath.Join(dir, "IMG_AAFC_LANDUSE_Z11_2020.tif"), 3978, twp, 52)
	files, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.CropRasters) != 2 || len(files.LandUseRasters) != 1 || len(files.Unrecognised) != 0 {
		t.Fatalf("Classify = %+v", files)
	}
	store := kv.NewMem()
	var progress bytes.Buffer
	sum, err := agingest.Ingest(context.Background(), store, grid.New(), files, agingest.Options{Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	// The rasters overhang the township: its 144 quarters and neighbours' edges.
	if sum.Sections[ag.SKCropping] < 144 || sum.Sections[ag.SKLandUse] < 144 || sum.Sections[ag.SKCropping] > 400 {
		t.Errorf("sections = %v, want 144 to 400 quarters with cropping and land use", sum.Sections)
	}
	if !strings.Contains(progress.String(), "layout GUESSED") || !strings.Contains(progress.String(), "EPSG:3978") {
		t.Errorf("progress does not show the layouts and forms:\n%s", progress.String())
	}
	ds, _, _ := kv.Open(context.Background(), store, ag.Dataset)
	var c ag.Cropping
	if !section(t, ds, "NW-25-24-1-W5", ag.SKCropping, &c) {
		t.Fatal("no cropping for NW-25-24-1-W5")
	}
	// One year each: the larger summed share ties, the lower code wins.
	if c.Dominant.Code != "146" || c.Rotation != "Canola and Rapeseed-Spring Wheat" || c.YearsCovered != 2 {
		t.Errorf("cropping = %+v", c)
	}
	var lu ag.LandUse
	if !section(t, ds, "NW-25-24-1-W5", ag.SKLandUse, &lu) || lu.Dominant.Code != "52" || lu.Year != 2020 {
		t.Errorf("land use = %+v", lu)
	}
}

func parseLoc(t *testing.T, s string) lld.Location {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestIngestRasterSplit: a township cut between two files of one year
// (two provinces' ACI, two UTM zones' Land Use) gives each quarter the
// pixels of both.
func TestIngestRasterSplit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	twp := dls.Bound(parseLoc(t, "24-1-W5"))
	// The cut runs through the west quarters of section 3 (sections 6, 5,
	// 4 | 3, 2, 1 from west to east along the south row; a quarter is a
	// twelfth of the width): SW-3 gets pixels from both files.
	mid := twp.Min[0] + (twp.Max[0]-twp.Min[0])*(0.5+1.0/24)
	west, east := twp, twp
	west.Max[0], east.Min[0] = mid, mid
	// Each file reaches 300 m past its half: cut them at the middle by
	// nodata outside the half, as two provinces' files meet at a border.
	writeHalf := func(name string, half orb.Bound, v int) {
		p, _ := proj.FromEPSG(26912)
		xm, _, _ := p.FromLngLat(orb.Point{mid, (twp.Min[1] + twp.Max[1]) / 2})
		writeRasterFunc(t, filepath.Join(dir, name), 26912, twp, func(x, _ float64) int {
			if (x < xm) == (half == west) {
				return v
			}
			return 0
		})
	}
	writeHalf("aci_2023_ab.tif", west, 153)
	writeHalf("aci_2023_sk.tif", east, 146)
	files, err := agingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	store := kv.NewMem()
	if _, err := agingest.Ingest(context.Background(), store, grid.New(), files, agingest.Options{}); err != nil {
		t.Fatal(err)
	}
	ds, _, _ := kv.Open(context.Background(), store, ag.Dataset)
	// Without merging, SW-3's year 2023 would arrive twice and be refused.
	var c ag.Cropping
	for _, q := range []string{"SE-1-24-1-W5", "SW-6-24-1-W5", "SW-3-24-1-W5"} {
		if !section(t, ds, q, ag.SKCropping, &c) || c.YearsCovered != 1 {
			t.Errorf("%s: cropping %+v, want one year", q, c)
		}
	}
	if section(t, ds, "SE-1-24-1-W5", ag.SKCropping, &c); c.Dominant.Code != "146" {
		t.Errorf("SE-1-24-1-W5 (east): dominant %s, want 146", c.Dominant.Code)
	}
	if section(t, ds, "SW-6-24-1-W5", ag.SKCropping, &c); c.Dominant.Code != "153" {
		t.Errorf("SW-6-24-1-W5 (west): dominant %s, want 153", c.Dominant.Code)
	}
}
