package agingest_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
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

// TestReadDrought reads files in AAFC's layout: one GeoJSON file per
// month and class, CDM_{yy}{mm}_D{d}_LR.geojson, whose features need carry
// no attribute (evidence ids 45654400110, 46106383745).
func TestReadDrought(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(``, box),
		feature(`"OBJECTID":7`, `{"type":"MultiPolygon","coordinates":[[[[-112,49.8],[-111.9,49.8],[-111.9,49.9],[-112,49.8]]]]}`),
	)
	var layout ingest.Layout
	src := geoJSONSource("CDM_2407_D2_LR.geojson", in)
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadDrought, src)
	if len(got) != 2 || got[0].Month != "2024-07" || got[0].Class != agingest.D2 || got[1].Month != "2024-07" || got[1].Class != agingest.D2 {
		t.Fatalf("ReadDrought = %+v", got)
	}
	if layout != agingest.DroughtGeoJSONLayout || !layout.Verified {
		t.Errorf("layout = %+v, want DroughtGeoJSONLayout", layout)
	}
	if got[1].Class.String() != "D2" || got[1].Class.Label() != "Severe Drought" || agingest.D1.Label() != "Moderate Drought" || agingest.D3.Label() != "Extreme Drought" {
		t.Errorf("labels: %s %s", got[1].Class, got[1].Class.Label())
	}
	// A MultiPolygon of one polygon comes back as a Polygon, oriented
	// counter-clockwise.
	if p, ok := got[1].Geometry.(orb.Polygon); !ok || p[0].Orientation() != orb.CCW {
		t.Errorf("geometry = %#v, want a counter-clockwise polygon", got[1].Geometry)
	}
	// A class without drought that month: an empty collection.
	if got := collect(t, agingest.ReadDrought, geoJSONSource("CDM_2407_D4_LR.geojson", `{"type":"FeatureCollection","features":[]}`)); len(got) != 0 {
		t.Errorf("empty D4 file: %+v", got)
	}
	for _, tc := range []struct {
		name, file, in string
		line           int
		want           string
	}{
		{"name", "cdm_2025-07.geojson", fc(feature(`"DM":1`, box)), 0, `file name: value "cdm_2025-07.geojson" is not one of CDM_{yy}{mm}_D{0-4}_LR.geojson`},
		{"class", "CDM_2407_D5_LR.geojson", fc(feature(``, box)), 0, `value "CDM_2407_D5_LR.geojson" is not one of`},
		{"month 13", "CDM_2413_D1_LR.geojson", fc(feature(``, box)), 0, `value "CDM_2413_D1_LR.geojson"`},
		{"early", "CDM_0210_D1_LR.geojson", fc(feature(``, box)), 0, "2002-10 is before the Canadian Drought Monitor"},
		{"no geometry", "CDM_2407_D1_LR.geojson", fc(feature(``, `null`)), 3, "no geometry"},
		{"line", "CDM_2407_D1_LR.geojson", fc(feature(``, box), feature(``, `{"type":"LineString","coordinates":[[-112,49.8],[-111,49]]}`)), 4, "want a polygon"},
		{"csv", "CDM_2407_D1_LR.csv", "DM\n1\n", 1, "needs geometry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := geoJSONSource(tc.file, tc.in)
			if strings.HasSuffix(tc.file, ".csv") {
				src = csvSource(tc.file, tc.in)
			}
			err := agingest.ReadDrought(src, func(agingest.DroughtArea) error { return nil })
			wantError(t, err, tc.file, tc.line, tc.want)
		})
	}
}

func TestParseDroughtName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		month string
		class agingest.DroughtClass
		ok    bool
	}{
		{"CDM_2407_D2_LR.geojson", "2024-07", agingest.D2, true},
		{"cdm_0211_d0_lr.GEOJSON", "2002-11", agingest.D0, true},
		{"CDM_2512_D4.shp", "2025-12", agingest.D4, true},
		{"CDM_2507_D2_LR.json", "2025-07", agingest.D2, true},
		{"CDM_2500_D2_LR.geojson", "", 0, false},
		{"CDM_2507_D5_LR.geojson", "", 0, false},
		{"CDM_202507_D1_LR.geojson", "", 0, false},
		{"cdm_2025-07.geojson", "", 0, false},
		{"CDM_2507_D1_LR.csv", "", 0, false},
	} {
		m, c, ok := agingest.ParseDroughtName(tc.name)
		if m != tc.month || c != tc.class || ok != tc.ok {
			t.Errorf("ParseDroughtName(%q) = %q, %v, %v, want %q, %v, %v", tc.name, m, c, ok, tc.month, tc.class, tc.ok)
		}
	}
}

func TestReadWater(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"NID":"a1","DEFINITION":4,"PERMANENCY":2,"NAME_1":"Demo Lake P"`, box),
	)
	got := collect(t, agingest.ReadWaterBodies, geoJSONSource("wb.geojson", in))
	got = append(got, collect(t, agingest.ReadWaterBodies, geoJSONSource("wb.geojson", fc(
		feature(`"feature_id":"b2","definit_en":"Wetland","perm_en":"Permanent","name_en":null`, box))))...)
	want := []agingest.WaterFeature{
		{ID: "a1", Name: "Demo Lake P", Kind: "lake", DefinitionCode: 4, Permanency: agingest.Intermittent},
		{ID: "b2", Kind: "wetland", Permanency: agingest.Permanent},
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
	lines := fc(feature(`"feature_id":"c3","definit_en":"Watercourse","perm_en":"Intermittent","name_en":"Demo Creek D"`,
		`{"type":"LineString","coordinates":[[-112,49.8],[-111.9,49.85,700],[-111.8,49.9]]}`))
	wc := collect(t, agingest.ReadWatercourses, geoJSONSource("wc.geojson", lines))
	if len(wc) != 1 || wc[0].Name != "Demo Creek D" || wc[0].Permanency != agingest.Intermittent || len(wc[0].Geometry.(orb.LineString)) != 3 {
		t.Errorf("ReadWatercourses = %+v", wc)
	}
	err := agingest.ReadWatercourses(geoJSONSource("wc.geojson", fc(feature(`"NID":"a1","DEFINITION":4`, box))), func(agingest.WaterFeature) error { return nil })
	wantError(t, err, "wc.geojson", 3, "want a line")
}

// TestReadWaterNHN reads the NHN's numeric DEFINITION (evidence id
// 67186078951: 1 Canal … 9 Watercourse) and the words; an unknown code is
// fatal, an unknown word or permanency a notice.
func TestReadWaterNHN(t *testing.T) {
	t.Parallel()
	var defs []string
	for code := 1; code <= 9; code++ {
		defs = append(defs, feature(fmt.Sprintf(`"NID":"n%d","DEFINITION":%d,"PERMANENCY":1,"NAMEEN":null`, code, code), box))
	}
	defs = append(defs, feature(`"NID":"n10","DEFINITION":"6.0","PERMANENCY":"2"`, box), feature(`"NID":"n11","DEFINITION":"Reservoir"`, box))
	var layout ingest.Layout
	src := geoJSONSource("NHN_HN_WATERBODY_2.geojson", fc(defs...))
	var notices ingest.Notices
	src.Notices, src.Recognised = &notices, func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadWaterBodies, src)
	want := []string{"canal", "conduit", "ditch", "lake", "liquid waste", "reservoir", "river", "tidal river", "watercourse", "reservoir", "reservoir"}
	for i, w := range got {
		if w.Kind != want[i] {
			t.Errorf("%s: kind %q, want %q", w.ID, w.Kind, want[i])
		}
	}
	if got[0].DefinitionCode != 1 || got[9].DefinitionCode != 6 || got[9].Permanency != agingest.Intermittent || got[0].Permanency != agingest.Permanent {
		t.Errorf("codes: %+v %+v", got[0], got[9])
	}
	if layout != agingest.NHNLayout || notices.Total() != 0 {
		t.Errorf("layout %+v, %d notices", layout, notices.Total())
	}

	// A new word or permanency: kept, counted.
	src = geoJSONSource("wb.geojson", fc(feature(`"NID":"x","DEFINITION":"Lagoon","PERMANENCY":"Seasonal"`, box), feature(`"NID":"y","DEFINITION":"Lagoon","PERMANENCY":"Permanent"`, box)))
	src.Notices, src.Recognised = &notices, func(l ingest.Layout) { layout = l }
	got = collect(t, agingest.ReadWaterBodies, src)
	if len(got) != 2 || got[0].Kind != "lagoon" || got[0].Permanency != agingest.PermanencyUnknown || notices.Total() != 3 || layout != agingest.NHNLayout {
		t.Errorf("new words: %+v, %d notices %v, layout %s", got, notices.Total(), notices.Lines(), layout.Form)
	}
	if l := notices.Lines(); len(l) != 2 || !strings.Contains(l[0], `wb.geojson:3: column DEFINITION: new value "Lagoon": kept as given (2 rows)`) {
		t.Errorf("notices = %q", l)
	}

	// An unknown code is fatal.
	for _, code := range []string{`0`, `10`, `"4.5"`} {
		err := agingest.ReadWaterBodies(geoJSONSource("wb.geojson", fc(feature(`"NID":"z","DEFINITION":`+code, box))), func(agingest.WaterFeature) error { return nil })
		wantError(t, err, "wb.geojson", 3, "column DEFINITION: value")
		if err != nil && !strings.Contains(err.Error(), "9 (watercourse)") {
			t.Errorf("error %v does not list the codes", err)
		}
	}
}

func TestReadMunicipalities(t *testing.T) {
	t.Parallel()
	in := fc(
		feature(`"CSDUID":"4808999","CSDNAME":"Demo County X","CSDTYPE":"MD","PRUID":"48"`, box),
		feature(`"MUNI_NAME":"Demo Plains","TYPE":"Rural Municipality","PROVINCE":"sk"`, box),
	)
	var layout ingest.Layout
	src := geoJSONSource("m.geojson", in)
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadMunicipalities, src)
	if len(got) != 2 || got[0].Name != "Demo County X" || got[0].Type != "Municipal District" || got[0].Province != "AB" || got[0].Code != "4808999" ||
		got[1].Name != "Demo Plains" || got[1].Type != "Rural Municipality" || got[1].Province != "SK" {
		t.Errorf("ReadMunicipalities = %+v", got)
	}
	if layout != agingest.CSDLayout || !layout.Verified {
		t.Errorf("layout = %+v, want CSDLayout", layout)
	}
	for _, tc := range []struct{ props, want string }{
		{`"CSDTYPE":"MD"`, "the file has CSDTYPE; the closest, Municipal boundaries (SK and others)"},
		{`"CSDNAME":"X","PRUID":"35"`, `column PRUID: value "35" is not one of 46 (MB), 47 (SK), 48 (AB)`},
		{`"CSDNAME":"X","PROVINCE":"ON"`, `column PROVINCE: value "ON" is not one of AB, SK, MB`},
	} {
		err := agingest.ReadMunicipalities(geoJSONSource("m.geojson", fc(feature(tc.props, box))), func(agingest.Municipality) error { return nil })
		wantError(t, err, "m.geojson", 3, tc.want)
	}
}

// TestReadMunicipalitiesMB reads Manitoba's layout (MUNI_NAME, MUNI_TYPE,
// MUNI_LIST_NAME_WITH_TYPE; docs/real-layouts.md) and counts a new CSD
// type as a notice.
func TestReadMunicipalitiesMB(t *testing.T) {
	t.Parallel()
	var layout ingest.Layout
	var notices ingest.Notices
	src := geoJSONSource("mb.geojson", fc(feature(`"MUNI_NAME":"Demo Valley","MUNI_TYPE":"RM","MUNI_LIST_NAME_WITH_TYPE":"DEMO VALLEY (RM)"`, box)))
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadMunicipalities, src)
	if len(got) != 1 || got[0].Name != "Demo Valley" || got[0].Type != "RM" || got[0].Province != "MB" {
		t.Errorf("ReadMunicipalities = %+v", got)
	}
	if layout != agingest.MBMunicipalLayout || !layout.Verified {
		t.Errorf("layout = %+v, want MBMunicipalLayout", layout)
	}
	src = geoJSONSource("csd.geojson", fc(feature(`"CSDNAME":"Demo Place","CSDTYPE":"XYZ","PRUID":"47"`, box)))
	src.Notices = &notices
	got = collect(t, agingest.ReadMunicipalities, src)
	if len(got) != 1 || got[0].Type != "XYZ" || notices.Total() != 1 || !strings.Contains(notices.Lines()[0], `csd.geojson:3: column CSDTYPE: new value "XYZ"`) {
		t.Errorf("new CSD type: %+v, notices %q", got, notices.Lines())
	}
}

// TestReadMunicipalitiesSKRM reads the columns of a real Saskatchewan
// rural municipality file (ISC's PPID, FEATURECD, RMNO, RMNM; seen in a
// public repository, not kept: testdata/real/README.md), with a
// hand-made polygon.
func TestReadMunicipalitiesSKRM(t *testing.T) {
	t.Parallel()
	var layout ingest.Layout
	src := geoJSONSource("rm.geojson", fc(feature(`"PPID":"RMPPID","FEATURECD":"RM","RMNO":"095","RMNM":"GOLDEN WEST"`, box)))
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadMunicipalities, src)
	if len(got) != 1 || got[0].Code != "095" || got[0].Name != "GOLDEN WEST" {
		t.Errorf("ReadMunicipalities = %+v, want RM 095 GOLDEN WEST", got)
	}
	if layout != agingest.ProvincialMunicipalLayout {
		t.Errorf("layout = %+v, want ProvincialMunicipalLayout", layout)
	}
}

func TestReadCrownLandAndPastures(t *testing.T) {
	t.Parallel()
	in := fc(feature(`"LLD":"NE-12-38-5-W3","LEASE_TYPE":"Grazing","STATUS":"Leased","DISP_NO":"GL123"`, box))
	got := collect(t, agingest.ReadCrownLand, geoJSONSource("crown.geojson", in))
	if len(got) != 1 || got[0].Location.String() != "NE-12-38-5-W3" || got[0].LeaseType != "Grazing" || got[0].Disposition != "GL123" {
		t.Errorf("ReadCrownLand = %+v", got)
	}
	for _, tc := range []struct{ props, want string }{
		{`"LLD":"12-38-5-W3","LEASE_TYPE":"Grazing"`, "want a quarter section"},
		{`"LLD":"NE-12-38-5-W4","LEASE_TYPE":"Grazing"`, "second or third meridian"},
		{`"LLD":"NE-12-38-5-W3"`, "no LEASE_TYPE"},
	} {
		err := agingest.ReadCrownLand(geoJSONSource("crown.geojson", fc(feature(tc.props, box))), func(agingest.CrownLand) error { return nil })
		wantError(t, err, "crown.geojson", 3, tc.want)
	}
	p := collect(t, agingest.ReadPastures, geoJSONSource("p.geojson", fc(feature(`"PASTURE":"Demo Pasture W","PROGRAM":"Former PFRA"`, box))))
	if len(p) != 1 || p[0].Name != "Demo Pasture W" || p[0].Program != "Former PFRA" {
		t.Errorf("ReadPastures = %+v", p)
	}
	err := agingest.ReadPastures(geoJSONSource("p.geojson", fc(feature(`"PROGRAM":"x"`, box))), func(agingest.Pasture) error { return nil })
	wantError(t, err, "p.geojson", 3, "without a name")
}

// TestGeoJSON covers the GeoJSON reader shared by every spatial reader.
func TestGeoJSON(t *testing.T) {
	t.Parallel()
	// A legacy crs member: UTM zone 12N coordinates become lng/lat.
	utm := `{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::26912"}},"features":[` +
		feature(`"DM":2,"MONTH":"202507"`, `{"type":"Polygon","coordinates":[[[500000,5500000],[501000,5500000],[501000,5501000],[500000,5500000]]]}`) + `]}`
	got := collect(t, agingest.ReadDrought, geoJSONSource("CDM_2507_D2_LR.geojson", utm))
	p := got[0].Geometry.(orb.Polygon)
	if c := p[0][0]; math.Abs(c[0]+111) > 1e-6 || math.Abs(c[1]-49.65) > 0.01 {
		t.Errorf("UTM point = %v, want near (-111, 49.65)", c)
	}
	// A polygon with a hole keeps it, clockwise.
	hole := feature(`"DM":0`, `{"type":"Polygon","coordinates":[[[-112,49],[-111,49],[-111,50],[-112,50],[-112,49]],[[-111.6,49.4],[-111.6,49.6],[-111.4,49.6],[-111.4,49.4],[-111.6,49.4]]]}`)
	got = collect(t, agingest.ReadDrought, geoJSONSource("CDM_2501_D0_LR.geojson", fc(hole)))
	if p := got[0].Geometry.(orb.Polygon); len(p) != 2 || p[0].Orientation() != orb.CCW || p[1].Orientation() != orb.CW {
		t.Errorf("polygon with a hole = %v", p)
	}
	// An open ring is closed; a feature whose ring cannot be closed into
	// one, or far outside longitude and latitude, is skipped with a notice
	// naming it; a vertex within 1e-6° outside is float noise, clamped.
	src := geoJSONSource("CDM_2501_D0_LR.geojson", fc(
		feature(`"DM":0`, `{"type":"Polygon","coordinates":[[[-112,49],[-111,49],[-111,50],[-112,50]]]}`),
		feature(`"DM":0`, `{"type":"Polygon","coordinates":[[[-112,91],[-111,49],[-111,50],[-112,91]]]}`),
		feature(`"DM":0`, `{"type":"Polygon","coordinates":[[[-180.00000000099996,49],[-179,49],[-179,50],[-180.00000000099996,49]]]}`)))
	var notices ingest.Notices
	src.Notices = &notices
	got = collect(t, agingest.ReadDrought, src)
	if len(got) != 2 || len(got[0].Geometry.(orb.Polygon)[0]) != 5 || got[1].Geometry.(orb.Polygon)[0][0][0] != -180 {
		t.Errorf("open ring, noise: %+v", got)
	}
	if l := notices.Lines(); len(l) != 1 || l[0] != "CDM_2501_D0_LR.geojson:4: skipped feature 2: invalid geometry: feature: point (-112, 91) is not a longitude and latitude (1 rows)" {
		t.Errorf("notices = %q", l)
	}
	read := func(in string) error {
		return agingest.ReadDrought(geoJSONSource("CDM_2501_D0_LR.geojson", in), func(agingest.DroughtArea) error { return nil })
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
		{"open ring", fc(feature(`"DM":1`, `{"type":"Polygon","coordinates":[[[-112,49],[-111,49]]]}`)), 3, "fewer than 4"},
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
			wantError(t, read(tc.in), "CDM_2501_D0_LR.geojson", tc.line, tc.want)
		})
	}
	// Later features report their own lines.
	in := fc(feature(`"DM":1`, box), feature(`"DM":1`, box), feature(`"DM":9`, `null`))
	wantError(t, read(in), "CDM_2501_D0_LR.geojson", 5, "no geometry")
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
	src := func(prj string, dbf []byte) agingest.Source {
		return agingest.Source{Name: "CDM_2507_D2_LR.shp", Format: agingest.Shapefile, R: strings.NewReader(string(s)), DBF: strings.NewReader(string(dbf)), PRJ: prj}
	}
	prj := `PROJCS["NAD_1983_UTM_Zone_12N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-111.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`
	got := collect(t, agingest.ReadDrought, src(prj, d))
	if len(got) != 1 || got[0].Class != agingest.D2 || got[0].Month != "2025-07" {
		t.Fatalf("ReadDrought = %+v", got)
	}
	if c := got[0].Geometry.(orb.Polygon)[0][0]; math.Abs(c[0]+111) > 1e-6 {
		t.Errorf("first point %v, want longitude -111", c)
	}
	wantError(t, agingest.ReadDrought(src("", d), func(agingest.DroughtArea) error { return nil }), "CDM_2507_D2_LR.shp", 1, "without a .prj")
	wantError(t, agingest.ReadDrought(agingest.Source{Name: "x.shp", Format: agingest.Shapefile, R: strings.NewReader(string(s))}, func(agingest.DroughtArea) error { return nil }), "x.shp", 0, "no .dbf")
	wantError(t, agingest.ReadDrought(src(prj, d[:40]), func(agingest.DroughtArea) error { return nil }), "CDM_2507_D2_LR.shp", 0, ".dbf")
	wantError(t, agingest.ReadDrought(src(`GEOGCS["x",DATUM["D_North_American_1927",SPHEROID["Clarke_1866",6378206.4,294.9786982]]]`, d), func(agingest.DroughtArea) error { return nil }), "CDM_2507_D2_LR.shp", 0, ".prj")
}

func TestOpen(t *testing.T) {
	t.Parallel()
	if _, err := agingest.Open("x.xlsx"); err == nil {
		t.Error("Open(x.xlsx): no error")
	}
	if _, err := agingest.Open("/nonexistent/x.csv"); err == nil {
		t.Error("Open of a missing file: no error")
	}
	if agingest.Shapefile.String() != "Shapefile" || agingest.Format(9).String() != "Format(9)" {
		t.Error("Format.String")
	}
}
