package ag_test

import (
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/ag"
	"meridian/shared/ingest/shp"
)

// fc wraps features, one per line, in a FeatureCollection.
func fc(features ...string) string {
	return "{\"type\": \"FeatureCollection\",\n\"features\": [\n" + strings.Join(features, ",\n") + "\n]}\n"
}

const box = `{"type":"Polygon","coordinates":[[[-112,49.8],[-111.9,49.8],[-111.9,49.9],[-112,49.9],[-112,49.8]]]}`

func feature(props, geom string) string {
	return `{"type":"Feature","properties":{` + props + `},"geometry":` + geom + `}`
}

func TestReadDrought(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"DM":0`, box),
		feature(`"DM":"D3","MONTH":"2024-09-30"`, `{"type":"MultiPolygon","coordinates":[[[[-112,49.8],[-111.9,49.8],[-111.9,49.9],[-112,49.8]]]]}`),
	)
	got := collect(t, ag.ReadDrought, geoJSONSource("cdm_2025-07.geojson", in))
	if len(got) != 2 || got[0].Month != "2025-07" || got[0].Class != ag.D0 || got[1].Month != "2024-09" || got[1].Class != ag.D3 {
		t.Fatalf("ReadDrought = %+v", got)
	}
	if got[1].Class.String() != "D3" || got[1].Class.Label() != "Extreme Drought" || ag.D1.Label() != "Moderate Drought" {
		t.Errorf("labels: %s %s", got[1].Class, got[1].Class.Label())
	}
	// A MultiPolygon of one polygon comes back as a Polygon, oriented
	// counter-clockwise.
	if p, ok := got[1].Geometry.(orb.Polygon); !ok || p[0].Orientation() != orb.CCW {
		t.Errorf("geometry = %#v, want a counter-clockwise polygon", got[1].Geometry)
	}
	for _, tc := range []struct {
		name, file, in string
		line           int
		want           string
	}{
		{"class", "cdm_2025-07.geojson", fc(feature(`"DM":5`, box)), 3, "want a drought class"},
		{"no month", "cdm.geojson", fc(feature(`"DM":1`, box)), 3, "no month"},
		{"bad month", "cdm.geojson", fc(feature(`"DM":1,"MONTH":"July"`, box)), 3, "month"},
		{"early", "cdm_2001-07.geojson", fc(feature(`"DM":1`, box)), 3, "before the Canadian Drought Monitor"},
		{"no geometry", "cdm_2025-07.geojson", fc(feature(`"DM":1`, `null`)), 3, "no geometry"},
		{"line", "cdm_2025-07.geojson", fc(feature(`"DM":1`, box), feature(`"DM":1`, `{"type":"LineString","coordinates":[[-112,49.8],[-111,49]]}`)), 4, "want a polygon"},
		{"csv", "cdm_2025-07.csv", "DM\n1\n", 1, "needs geometry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := geoJSONSource(tc.file, tc.in)
			if strings.HasSuffix(tc.file, ".csv") {
				src = csvSource(tc.file, tc.in)
			}
			err := ag.ReadDrought(src, func(ag.DroughtArea) error { return nil })
			wantError(t, err, tc.file, tc.line, tc.want)
		})
	}
}

func TestReadWater(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"NID":"a1","DEFINITION":4,"PERMANENCY":2,"NAME_1":"Pine Lake"`, box),
		feature(`"feature_id":"b2","definition_en":"Wetland","permanency_en":"Permanent","name_en":null`, box),
	)
	got := collect(t, ag.ReadWaterBodies, geoJSONSource("wb.geojson", in))
	want := []ag.WaterFeature{
		{ID: "a1", Name: "Pine Lake", DefinitionCode: 4, Permanency: ag.Intermittent},
		{ID: "b2", Kind: "wetland", Permanency: ag.Permanent},
	}
	for i := range want {
		g := got[i]
		g.Geometry = nil
		if g.ID != want[i].ID || g.Name != want[i].Name || g.Kind != want[i].Kind || g.DefinitionCode != want[i].DefinitionCode || g.Permanency != want[i].Permanency {
			t.Errorf("water body %d = %+v, want %+v", i, g, want[i])
		}
	}
	if got[0].IsWetland() || !got[1].IsWetland() {
		t.Error("IsWetland")
	}
	lines := fc(feature(`"feature_id":"c3","definition_en":"Watercourse","permanency_en":"Intermittent","name_en":"Dry Creek"`,
		`{"type":"LineString","coordinates":[[-112,49.8],[-111.9,49.85,700],[-111.8,49.9]]}`))
	wc := collect(t, ag.ReadWatercourses, geoJSONSource("wc.geojson", lines))
	if len(wc) != 1 || wc[0].Name != "Dry Creek" || wc[0].Permanency != ag.Intermittent || len(wc[0].Geometry.(orb.LineString)) != 3 {
		t.Errorf("ReadWatercourses = %+v", wc)
	}
	err := ag.ReadWatercourses(geoJSONSource("wc.geojson", in), func(ag.WaterFeature) error { return nil })
	wantError(t, err, "wc.geojson", 3, "want a line")
	err = ag.ReadWaterBodies(geoJSONSource("wb.geojson", fc(feature(`"PERMANENCY":"often"`, box))), func(ag.WaterFeature) error { return nil })
	wantError(t, err, "wb.geojson", 3, "permanency")
}

func TestReadMunicipalities(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"CSDUID":"4808039","CSDNAME":"Red Deer County","CSDTYPE":"MD","PRUID":"48"`, box),
		feature(`"MUNI_NAME":"Oakdale","TYPE":"Rural Municipality","PROVINCE":"sk"`, box),
	)
	got := collect(t, ag.ReadMunicipalities, geoJSONSource("m.geojson", in))
	if len(got) != 2 || got[0].Name != "Red Deer County" || got[0].Type != "Municipal District" || got[0].Province != "AB" || got[0].Code != "4808039" ||
		got[1].Name != "Oakdale" || got[1].Type != "Rural Municipality" || got[1].Province != "SK" {
		t.Errorf("ReadMunicipalities = %+v", got)
	}
	for _, tc := range []struct{ props, want string }{
		{`"CSDTYPE":"MD"`, "without a name"},
		{`"CSDNAME":"X","PRUID":"35"`, "PRUID"},
		{`"CSDNAME":"X","PROVINCE":"ON"`, "PROVINCE"},
	} {
		err := ag.ReadMunicipalities(geoJSONSource("m.geojson", fc(feature(tc.props, box))), func(ag.Municipality) error { return nil })
		wantError(t, err, "m.geojson", 3, tc.want)
	}
}

func TestReadCrownLandAndPastures(t *testing.T) {
	t.Parallel()
	in := fc(feature(`"LLD":"NE-12-38-5-W3","LEASE_TYPE":"Grazing","STATUS":"Leased","DISP_NO":"GL123"`, box))
	got := collect(t, ag.ReadCrownLand, geoJSONSource("crown.geojson", in))
	if len(got) != 1 || got[0].Location.String() != "NE-12-38-5-W3" || got[0].LeaseType != "Grazing" || got[0].Disposition != "GL123" {
		t.Errorf("ReadCrownLand = %+v", got)
	}
	for _, tc := range []struct{ props, want string }{
		{`"LLD":"12-38-5-W3","LEASE_TYPE":"Grazing"`, "want a quarter section"},
		{`"LLD":"NE-12-38-5-W4","LEASE_TYPE":"Grazing"`, "second or third meridian"},
		{`"LLD":"NE-12-38-5-W3"`, "no LEASE_TYPE"},
	} {
		err := ag.ReadCrownLand(geoJSONSource("crown.geojson", fc(feature(tc.props, box))), func(ag.CrownLand) error { return nil })
		wantError(t, err, "crown.geojson", 3, tc.want)
	}
	p := collect(t, ag.ReadPastures, geoJSONSource("p.geojson", fc(feature(`"PASTURE":"Wolverine","PROGRAM":"Former PFRA"`, box))))
	if len(p) != 1 || p[0].Name != "Wolverine" || p[0].Program != "Former PFRA" {
		t.Errorf("ReadPastures = %+v", p)
	}
	err := ag.ReadPastures(geoJSONSource("p.geojson", fc(feature(`"PROGRAM":"x"`, box))), func(ag.Pasture) error { return nil })
	wantError(t, err, "p.geojson", 3, "without a name")
}

// TestGeoJSON covers the GeoJSON reader shared by every spatial reader.
func TestGeoJSON(t *testing.T) {
	t.Parallel()
	// A legacy crs member: UTM zone 12N coordinates become lng/lat.
	utm := `{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::26912"}},"features":[` +
		feature(`"DM":2,"MONTH":"202507"`, `{"type":"Polygon","coordinates":[[[500000,5500000],[501000,5500000],[501000,5501000],[500000,5500000]]]}`) + `]}`
	got := collect(t, ag.ReadDrought, geoJSONSource("u.geojson", utm))
	p := got[0].Geometry.(orb.Polygon)
	if c := p[0][0]; math.Abs(c[0]+111) > 1e-6 || math.Abs(c[1]-49.65) > 0.01 {
		t.Errorf("UTM point = %v, want near (-111, 49.65)", c)
	}
	// A polygon with a hole keeps it, clockwise.
	hole := feature(`"DM":0`, `{"type":"Polygon","coordinates":[[[-112,49],[-111,49],[-111,50],[-112,50],[-112,49]],[[-111.6,49.4],[-111.6,49.6],[-111.4,49.6],[-111.4,49.4],[-111.6,49.4]]]}`)
	got = collect(t, ag.ReadDrought, geoJSONSource("c_2025-01.geojson", fc(hole)))
	if p := got[0].Geometry.(orb.Polygon); len(p) != 2 || p[0].Orientation() != orb.CCW || p[1].Orientation() != orb.CW {
		t.Errorf("polygon with a hole = %v", p)
	}
	read := func(in string) error {
		return ag.ReadDrought(geoJSONSource("c_2025-01.geojson", in), func(ag.DroughtArea) error { return nil })
	}
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"empty", "", 1, "unexpected end of file"},
		{"array", "[]", 1, "not a GeoJSON object"},
		{"feature", `{"type":"Feature","properties":{}}`, 1, "want a FeatureCollection"},
		{"no features", `{"type":"FeatureCollection"}`, 1, "no features member"},
		{"no type", `{"features":[]}`, 1, `no "type"`},
		{"syntax", "{\"type\":\"FeatureCollection\",\n\"features\":[\n{\"type\":\"Feature\",\n\"properties\":{\"DM\":1,}}]}", 4, "not JSON"},
		{"truncated", fc(feature(`"DM":1`, box))[:80], 3, "truncated"},
		{"trailing", fc(feature(`"DM":1`, box)) + "{}", 5, "data after"},
		{"open ring", fc(feature(`"DM":1`, `{"type":"Polygon","coordinates":[[[-112,49],[-111,49],[-111,50],[-112,50]]]}`)), 3, "not closed"},
		{"latitude", fc(feature(`"DM":1`, `{"type":"Polygon","coordinates":[[[-112,91],[-111,49],[-111,50],[-112,91]]]}`)), 3, "not a longitude and latitude"},
		{"collection", fc(feature(`"DM":1`, `{"type":"GeometryCollection","geometries":[]}`)), 3, "geometry"},
		{"position", fc(feature(`"DM":1`, `{"type":"Point","coordinates":[1]}`)), 3, "position"},
		{"duplicate", fc(feature(`"DM":1,"dm":2`, box)), 3, "appears twice"},
		{"crs after", `{"type":"FeatureCollection","features":[],"crs":{"type":"name","properties":{"name":"EPSG:3857"}}}`, 1, "crs member after"},
		{"crs", `{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"EPSG:2956x"}},"features":[]}`, 1, "want an EPSG code"},
		{"not feature", fc(`{"type":"Point","coordinates":[1,2]}`), 3, `want "type": "Feature"`},
		{"features object", `{"type":"FeatureCollection","features":{}}`, 1, "not an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, read(tc.in), "c_2025-01.geojson", tc.line, tc.want)
		})
	}
	// Later features report their own lines.
	in := fc(feature(`"DM":1`, box), feature(`"DM":1`, box), feature(`"DM":9`, box))
	wantError(t, read(in), "c_2025-01.geojson", 5, "drought class")
}

// TestShapefileSource covers shapefiles: a .prj in UTM, a missing .prj
// with projected coordinates, a missing .dbf.
func TestShapefileSource(t *testing.T) {
	t.Parallel()
	write := func(pts orb.Ring) (s, d []byte) {
		var sb, xb, db shp.Buffer
		w, err := shp.NewWriter(&sb, &xb, &db, shp.Polygon, []shp.Field{{Name: "DM", Type: shp.Numeric, Length: 1}}, shp.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(orb.Polygon{pts}, []string{"2"}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return sb.Bytes(), db.Bytes()
	}
	s, d := write(orb.Ring{{500000, 5500000}, {500000, 5501000}, {501000, 5501000}, {500000, 5500000}})
	src := func(prj string, dbf []byte) ag.Source {
		return ag.Source{Name: "cdm_2025-07.shp", Format: ag.Shapefile, R: strings.NewReader(string(s)), DBF: strings.NewReader(string(dbf)), PRJ: prj}
	}
	prj := `PROJCS["NAD_1983_UTM_Zone_12N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-111.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`
	got := collect(t, ag.ReadDrought, src(prj, d))
	if len(got) != 1 || got[0].Class != ag.D2 || got[0].Month != "2025-07" {
		t.Fatalf("ReadDrought = %+v", got)
	}
	if c := got[0].Geometry.(orb.Polygon)[0][0]; math.Abs(c[0]+111) > 1e-6 {
		t.Errorf("first point %v, want longitude -111", c)
	}
	wantError(t, ag.ReadDrought(src("", d), func(ag.DroughtArea) error { return nil }), "cdm_2025-07.shp", 1, "without a .prj")
	wantError(t, ag.ReadDrought(ag.Source{Name: "x.shp", Format: ag.Shapefile, R: strings.NewReader(string(s))}, func(ag.DroughtArea) error { return nil }), "x.shp", 0, "no .dbf")
	wantError(t, ag.ReadDrought(src(prj, d[:40]), func(ag.DroughtArea) error { return nil }), "cdm_2025-07.shp", 0, ".dbf")
	wantError(t, ag.ReadDrought(src(`GEOGCS["x",DATUM["D_North_American_1927",SPHEROID["Clarke_1866",6378206.4,294.9786982]]]`, d), func(ag.DroughtArea) error { return nil }), "cdm_2025-07.shp", 0, ".prj")
}

func TestOpen(t *testing.T) {
	t.Parallel()
	if _, err := ag.Open("x.xlsx"); err == nil {
		t.Error("Open(x.xlsx): no error")
	}
	if _, err := ag.Open("/nonexistent/x.csv"); err == nil {
		t.Error("Open of a missing file: no error")
	}
	if ag.Shapefile.String() != "Shapefile" || ag.Format(9).String() != "Format(9)" {
		t.Error("Format.String")
	}
}
