package agingest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
)

// bcBox is a small polygon in the Fraser Valley, counter-clockwise.
const bcBox = `{"type":"Polygon","coordinates":[[[-122.4,49.0],[-122.3,49.0],[-122.3,49.1],[-122.4,49.1],[-122.4,49.0]]]}`

var (
	bcRing    = orb.Ring{{-122.4, 49.0}, {-122.3, 49.0}, {-122.3, 49.1}, {-122.4, 49.1}, {-122.4, 49.0}}
	bcPolygon = orb.Polygon{bcRing}
	bcPoint   = `{"type":"Point","coordinates":[-122.35,49.05]}`
)

// nad83PRJ is the .prj of NAD83 longitude and latitude, as the demo writes.
const nad83PRJ = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

// approx compares coordinates and areas converted through a .prj or from
// square metres.
var approx = cmpopts.EquateApprox(0, 1e-9)

// bcShapefile writes a shapefile in memory, every record with geometry g,
// and returns its .shp, .shx and .dbf.
func bcShapefile(tb testing.TB, typ shp.ShapeType, g orb.Geometry, fields []shp.Field, rows ...[]string) (s, x, d []byte) {
	tb.Helper()
	var sb, xb, db shp.Buffer
	w, err := shp.NewWriter(&sb, &xb, &db, typ, fields, shp.WriterOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(g, r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return sb.Bytes(), xb.Bytes(), db.Bytes()
}

// openShapefile writes name.shp with its .shx, .dbf and .prj (NAD83) to
// a temporary directory and opens it with agingest.Open.
func openShapefile(t *testing.T, name string, s, x, d []byte) agingest.Source {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Join(dir, strings.TrimSuffix(name, ".shp"))
	for ext, b := range map[string][]byte{".shp": s, ".shx": x, ".dbf": d, ".prj": []byte(nad83PRJ)} {
		if err := os.WriteFile(base+ext, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := agingest.Open(base + ".shp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if f.PRJ == "" {
		t.Fatal("Open did not read the .prj")
	}
	return f.Source
}

// shpSource is an in-memory shapefile Source without a .prj.
func shpSource(name string, s, d []byte) agingest.Source {
	return agingest.Source{Name: name, Format: agingest.Shapefile, R: strings.NewReader(string(s)), DBF: strings.NewReader(string(d))}
}

// alrFields are the 10-character names of a shapefile of the ALR.
var alrFields = []shp.Field{
	{Name: "ALR_POLY_I", Type: shp.Numeric, Length: 10},
	{Name: "ALR_STATUS", Type: shp.Character, Length: 12},
	{Name: "FEATURE_AR", Type: shp.Character, Length: 16},
}

// alrShapefile is a good ALR shapefile with the shapefile names.
func alrShapefile(tb testing.TB) (s, x, d []byte) {
	return bcShapefile(tb, shp.Polygon, bcPolygon, alrFields,
		[]string{"101", "ALR", "250000.0"},
		[]string{"102", "", ""})
}

// bcErrorTest is a file a BC reader rejects.
type bcErrorTest struct {
	name, file, in string
	line           int
	want           string
}

// src returns the test's file as CSV or GeoJSON by its extension.
func (tc bcErrorTest) src() agingest.Source {
	if strings.HasSuffix(tc.file, ".csv") {
		return csvSource(tc.file, tc.in)
	}
	return geoJSONSource(tc.file, tc.in)
}

var alrErrorTests = []bcErrorTest{
	{"no id", "alr.geojson", fc(feature(`"STATUS":"ALR","FEATURE_AREA_SQM":100`, bcBox)), 3, "the file has STATUS, FEATURE_AREA_SQM; the closest, ALC ALR Polygons (OATS_ALR_POLYS) (Warehouse names ALR_POLY_ID, STATUS, FEATURE_CODE, OBJECTID, FEATURE_AREA_SQM), also needs ALR_POLY_ID or ALR_POLY_I or POLY_ID or OBJECTID"},
	{"empty id", "alr.geojson", fc(feature(`"ALR_POLY_ID":1`, bcBox), feature(`"ALR_POLY_ID":null,"OBJECTID":7`, bcBox)), 4, "without an id"},
	{"negative area", "alr.geojson", fc(feature(`"ALR_POLY_ID":1,"FEATURE_AREA_SQM":-5`, bcBox)), 3, "FEATURE_AREA_SQM: -5 is negative"},
	{"negative hectares", "alr.geojson", fc(feature(`"ALR_POLY_ID":1,"AREA_HA":"-0.5"`, bcBox)), 3, "AREA_HA: -0.5 is negative"},
	{"text area", "alr.geojson", fc(feature(`"ALR_POLY_ID":1,"AREA_HA":"12 ha"`, bcBox)), 3, `AREA_HA: "12 ha" is not a number`},
	{"nan area", "alr.geojson", fc(feature(`"ALR_POLY_ID":1`, bcBox), feature(`"ALR_POLY_ID":2,"AREA_SQM":"NaN"`, bcBox)), 4, "is not a number"},
	{"point", "alr.geojson", fc(feature(`"ALR_POLY_ID":1`, bcBox), feature(`"ALR_POLY_ID":2`, bcPoint)), 4, "ALR polygon 2: geometry is a Point, want a polygon"},
	{"no geometry", "alr.geojson", fc(feature(`"ALR_POLY_ID":1`, `null`)), 3, "no geometry"},
	{"csv", "alr.csv", "ALR_POLY_ID,STATUS,FEATURE_AREA_SQM\n1,ALR,100\n", 1, "needs geometry: give the shapefile or GeoJSON, not CSV"},
}

func TestReadALR(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"ALR_POLY_ID":4021,"STATUS":"ALR","FEATURE_AREA_SQM":125000.5,"OBJECTID":7`, bcBox),
		feature(`"poly_id":"4022.0","Area_Ha":3.5`, `{"type":"MultiPolygon","coordinates":[`+
			`[[[-122.4,49.0],[-122.3,49.0],[-122.3,49.1],[-122.4,49.0]]],`+
			`[[[-122.2,49.0],[-122.1,49.0],[-122.1,49.1],[-122.2,49.0]]]]}`),
		feature(`"OBJECTID":9,"ALR_STATUS":"Exclusion","AREA_SQM":null`, bcBox),
	)
	got := collect(t, agingest.ReadALR, geoJSONSource("alr.geojson", in))
	want := []agingest.ALRPolygon{
		{ID: "4021", Status: "ALR", AreaHa: 12.50005, Geometry: bcPolygon},
		{ID: "4022", Status: "ALR", AreaHa: 3.5, Geometry: orb.MultiPolygon{
			{{{-122.4, 49.0}, {-122.3, 49.0}, {-122.3, 49.1}, {-122.4, 49.0}}},
			{{{-122.2, 49.0}, {-122.1, 49.0}, {-122.1, 49.1}, {-122.2, 49.0}}},
		}},
		{ID: "9", Status: "Exclusion", Geometry: bcPolygon},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ReadALR(GeoJSON) (-want +got):\n%s", diff)
	}

	// A shapefile with the 10-character names and a .prj, opened from disk.
	s, x, d := alrShapefile(t)
	got = collect(t, agingest.ReadALR, openShapefile(t, "alr.shp", s, x, d))
	want = []agingest.ALRPolygon{
		{ID: "101", Status: "ALR", AreaHa: 25, Geometry: bcPolygon},
		{ID: "102", Status: "ALR", Geometry: bcPolygon},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ReadALR(shapefile) (-want +got):\n%s", diff)
	}

	for _, tc := range alrErrorTests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, agingest.ReadALR(tc.src(), func(agingest.ALRPolygon) error { return nil }), tc.file, tc.line, tc.want)
		})
	}

	// Shapefiles: the line is the record number, 0 for the header.
	for _, tc := range []struct {
		name string
		typ  shp.ShapeType
		g    orb.Geometry
		rows [][]string
		line int
		want string
	}{
		{"text area", shp.Polygon, bcPolygon, [][]string{{"1", "ALR", "10"}, {"2", "ALR", "a lot"}}, 2, `ALR polygon 2: FEATURE_AR: "a lot" is not a number`},
		{"negative area", shp.Polygon, bcPolygon, [][]string{{"1", "ALR", "-10"}}, 1, "FEATURE_AR: -10 is negative"},
		{"no id", shp.Polygon, bcPolygon, [][]string{{"1", "ALR", "10"}, {"2", "ALR", "10"}, {"", "ALR", "10"}}, 3, "without an id"},
		{"points", shp.Point, orb.Point{-122.35, 49.05}, [][]string{{"1", "ALR", "10"}}, 1, "geometry is a Point, want a polygon"},
		{"null shape", shp.Polygon, nil, [][]string{{"1", "ALR", "10"}}, 1, "no geometry"},
	} {
		t.Run("shapefile "+tc.name, func(t *testing.T) {
			s, _, d := bcShapefile(t, tc.typ, tc.g, alrFields, tc.rows...)
			wantError(t, agingest.ReadALR(shpSource("alr.shp", s, d), func(agingest.ALRPolygon) error { return nil }), "alr.shp", tc.line, tc.want)
		})
	}
	// The .dbf alone has no geometry.
	dbf := agingest.Source{Name: "alr.dbf", Format: agingest.DBF, R: strings.NewReader(string(d))}
	wantError(t, agingest.ReadALR(dbf, func(agingest.ALRPolygon) error { return nil }), "alr.dbf", 0, "not DBF")
}

// wetlandFields are the 10-character names GDAL gives the FWA wetland
// columns in their published order.
var wetlandFields = []shp.Field{
	{Name: "WATERBODY_", Type: shp.Numeric, Length: 10},              // WATERBODY_POLY_ID
	{Name: "WATERSHED_", Type: shp.Numeric, Length: 5},               // WATERSHED_GROUP_ID
	{Name: "WATERBOD_1", Type: shp.Character, Length: 1},             // WATERBODY_TYPE
	{Name: "AREA_HA", Type: shp.Numeric, Length: 12, Decimals: 4},    // AREA_HA
	{Name: "GNIS_NAME_", Type: shp.Character, Length: 40},            // GNIS_NAME_1
	{Name: "WSGCODE", Type: shp.Character, Length: 4},                // WATERSHED_GROUP_CODE
	{Name: "FEATURE_AR", Type: shp.Numeric, Length: 16, Decimals: 2}, // FEATURE_AREA_SQM
}

// wetlandShapefile is a good FWA wetlands shapefile with the shapefile
// names.
func wetlandShapefile(tb testing.TB) (s, x, d []byte) {
	return bcShapefile(tb, shp.Polygon, bcPolygon, wetlandFields,
		[]string{"700012345", "88", "W", "1.2500", "Demo Marsh X", "PCEA", "12500.00"},
		[]string{"700012346", "88", "", "", "", "", "5000.00"})
}

var wetlandErrorTests = []bcErrorTest{
	{"lake", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":1,"WATERBODY_TYPE":"W"`, bcBox), feature(`"WATERBODY_POLY_ID":2,"WATERBODY_TYPE":"L"`, bcBox)), 4, "waterbody 2: type L (lake): this layer takes wetlands only (W)"},
	{"river", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":3,"WATERBODY_TYPE":"r"`, bcBox)), 3, "type R (river): this layer takes wetlands only (W)"},
	{"man-made", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":4,"WATERBODY_TYPE":"X"`, bcBox)), 3, "(man-made water body): this layer takes wetlands only"},
	{"unknown type", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":5,"WATERBODY_TYPE":"Marsh"`, bcBox)), 3, `column WATERBODY_TYPE: value "MARSH" is not one of W (wetland)`},
	{"no id", "wetlands.geojson", fc(feature(`"WATERBODY_TYPE":"W","AREA_HA":1`, bcBox)), 3, "also needs WATERBODY_POLY_ID or WATERBODY_ or WBODY_ID"},
	{"negative area", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":6,"AREA_HA":-1`, bcBox)), 3, "wetland 6: AREA_HA: -1 is negative"},
	{"text area", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":7,"AREA_HA":"big"`, bcBox)), 3, `AREA_HA: "big" is not a number`},
	{"point", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":8`, bcPoint)), 3, "wetland 8: geometry is a Point, want a polygon"},
	{"line", "wetlands.geojson", fc(feature(`"WATERBODY_POLY_ID":9`, bcBox), feature(`"WATERBODY_POLY_ID":10`, `{"type":"LineString","coordinates":[[-122.4,49],[-122.3,49.1]]}`)), 4, "want a polygon"},
	{"csv", "wetlands.csv", "WATERBODY_POLY_ID,WATERBODY_TYPE\n1,W\n", 1, "need geometry: give the shapefile or GeoJSON, not CSV"},
}

func TestReadFWAWetlands(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"WATERBODY_POLY_ID":700012345,"WATERSHED_GROUP_ID":88,"WATERBODY_TYPE":"W","AREA_HA":1.25,"GNIS_NAME_1":"Demo Marsh X","WATERSHED_GROUP_CODE":"PCEA","FEATURE_AREA_SQM":12499.8`, bcBox),
		feature(`"waterbody_poly_id":"700012346","gnis_name_1":null,"feature_area_sqm":5000,"WATERSHED_":"BULK"`, bcBox),
		feature(`"WBODY_ID":700012347,"WBODY_TYPE":"w","GNIS_NAME_":"Demo Marsh Y","WATERSHED_":88`, bcBox),
	)
	got := collect(t, agingest.ReadFWAWetlands, geoJSONSource("wetlands.geojson", in))
	want := []agingest.Wetland{
		{ID: "700012345", Type: "W", AreaHa: 1.25, Name: "Demo Marsh X", WatershedGroup: "PCEA", Geometry: bcPolygon},
		{ID: "700012346", Type: "W", AreaHa: 0.5, WatershedGroup: "BULK", Geometry: bcPolygon},
		// WATERSHED_ holding a number is WATERSHED_GROUP_ID, not the code.
		{ID: "700012347", Type: "W", Name: "Demo Marsh Y", Geometry: bcPolygon},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ReadFWAWetlands(GeoJSON) (-want +got):\n%s", diff)
	}

	// A shapefile with GDAL's 10-character names and a .prj, opened from
	// disk.
	s, x, d := wetlandShapefile(t)
	got = collect(t, agingest.ReadFWAWetlands, openShapefile(t, "wetlands.shp", s, x, d))
	want = []agingest.Wetland{
		{ID: "700012345", Type: "W", AreaHa: 1.25, Name: "Demo Marsh X", WatershedGroup: "PCEA", Geometry: bcPolygon},
		{ID: "700012346", Type: "W", AreaHa: 0.5, Geometry: bcPolygon},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ReadFWAWetlands(shapefile) (-want +got):\n%s", diff)
	}

	for _, tc := range wetlandErrorTests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, agingest.ReadFWAWetlands(tc.src(), func(agingest.Wetland) error { return nil }), tc.file, tc.line, tc.want)
		})
	}

	row := func(id, typ, area string) []string { return []string{id, "88", typ, area, "", "PCEA", ""} }
	for _, tc := range []struct {
		name string
		typ  shp.ShapeType
		g    orb.Geometry
		rows [][]string
		line int
		want string
	}{
		{"lake", shp.Polygon, bcPolygon, [][]string{row("1", "W", "1"), row("2", "L", "1")}, 2, "waterbody 2: type L (lake): this layer takes wetlands only (W)"},
		{"no id", shp.Polygon, bcPolygon, [][]string{row("", "W", "1")}, 1, "wetland without an id"},
		{"negative area", shp.Polygon, bcPolygon, [][]string{row("1", "W", "1"), row("2", "W", "1"), row("3", "W", "-2.5")}, 3, "AREA_HA: -2.5 is negative"},
		{"points", shp.Point, orb.Point{-122.35, 49.05}, [][]string{row("1", "W", "1")}, 1, "geometry is a Point, want a polygon"},
	} {
		t.Run("shapefile "+tc.name, func(t *testing.T) {
			s, _, d := bcShapefile(t, tc.typ, tc.g, wetlandFields, tc.rows...)
			wantError(t, agingest.ReadFWAWetlands(shpSource("wetlands.shp", s, d), func(agingest.Wetland) error { return nil }), "wetlands.shp", tc.line, tc.want)
		})
	}
	dbf := agingest.Source{Name: "wetlands.dbf", Format: agingest.DBF, R: strings.NewReader(string(d))}
	wantError(t, agingest.ReadFWAWetlands(dbf, func(agingest.Wetland) error { return nil }), "wetlands.dbf", 0, "not DBF")
}

// TestBCStopsAtFn checks that the BC readers stream: an error from fn
// stops them after the record that returned it and comes back unchanged.
func TestBCStopsAtFn(t *testing.T) {
	t.Parallel()
	stop := os.ErrClosed
	s, _, d := alrShapefile(t)
	n := 0
	if err := agingest.ReadALR(shpSource("alr.shp", s, d), func(agingest.ALRPolygon) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("ReadALR: fn called %d times, error %v; want 1, %v", n, err, stop)
	}
	s, _, d = wetlandShapefile(t)
	n = 0
	if err := agingest.ReadFWAWetlands(shpSource("wetlands.shp", s, d), func(agingest.Wetland) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("ReadFWAWetlands: fn called %d times, error %v; want 1, %v", n, err, stop)
	}
}

// TestReadALRDataBCShapefile reads DataBC's shapefile download,
// OATS_ALR_POLYS/TSLRPLS_polygon.shp, with its own short names STATUS,
// FTRCD, OBJECTID, AREA_SQM (evidence id 28240129689): the id is OBJECTID.
func TestReadALRDataBCShapefile(t *testing.T) {
	t.Parallel()
	fields := []shp.Field{
		{Name: "STATUS", Type: shp.Character, Length: 10},
		{Name: "FTRCD", Type: shp.Character, Length: 10},
		{Name: "OBJECTID", Type: shp.Numeric, Length: 10},
		{Name: "AREA_SQM", Type: shp.Numeric, Length: 19, Decimals: 4},
		{Name: "FEAT_LEN", Type: shp.Numeric, Length: 19, Decimals: 4},
	}
	s, x, d := bcShapefile(t, shp.Polygon, bcPolygon, fields, []string{"ALR", "DEMO1", "31", "250000.0000", "2000.0000"}, []string{"", "", "32", "", ""})
	src := openShapefile(t, "TSLRPLS_polygon.shp", s, x, d)
	var layout ingest.Layout
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadALR, src)
	want := []agingest.ALRPolygon{
		{ID: "31", Status: "ALR", FeatureCode: "DEMO1", AreaHa: 25, Geometry: bcPolygon},
		{ID: "32", Status: "ALR", Geometry: bcPolygon},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ReadALR(DataBC shapefile) (-want +got):\n%s", diff)
	}
	if layout != agingest.ALRShapefileLayout || !layout.Verified {
		t.Errorf("layout = %+v, want ALRShapefileLayout", layout)
	}
	// The Warehouse names are the other verified form.
	src = geoJSONSource("alr.geojson", fc(feature(`"ALR_POLY_ID":5,"STATUS":"ALR","FEATURE_CODE":"X1","OBJECTID":9,"FEATURE_AREA_SQM":10000`, bcBox)))
	src.Recognised = func(l ingest.Layout) { layout = l }
	if got := collect(t, agingest.ReadALR, src); len(got) != 1 || got[0].ID != "5" || got[0].FeatureCode != "X1" || got[0].AreaHa != 1 || layout != agingest.ALRWarehouseLayout {
		t.Errorf("ReadALR(Warehouse) = %+v, layout %s", got, layout.Form)
	}
}

// TestReadFWAWarehouse reads the wetlands with the Warehouse's columns as
// a loader of WHSE_BASEMAPPING.FWA_WETLANDS_POLY lists them (evidence id
// 508355847), in lower case.
func TestReadFWAWarehouse(t *testing.T) {
	t.Parallel()
	props := `"waterbody_poly_id":700000901,"watershed_group_id":88,"waterbody_type":"W","gnis_name_1":null,` +
		`"fwa_watershed_code":"100-000000","local_watershed_code":"100-000000","watershed_group_code":"DEMO",` +
		`"left_right_tributary":null,"feature_area_sqm":25000.0,"feature_length_m":640.5`
	var layout ingest.Layout
	src := geoJSONSource("FWA_WETLANDS_POLY.geojson", fc(feature(props, bcBox)))
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadFWAWetlands, src)
	want := []agingest.Wetland{{ID: "700000901", Type: "W", AreaHa: 2.5, WatershedGroup: "DEMO", Geometry: bcPolygon}}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ReadFWAWetlands (-want +got):\n%s", diff)
	}
	if layout != agingest.FWAWarehouseLayout || !layout.Verified {
		t.Errorf("layout = %+v, want FWAWarehouseLayout", layout)
	}
}
