package gridingest_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

func readONLots(t testing.TB, layer string) ([]gridindex.Record, gridingest.Stats) {
	t.Helper()
	s, d, prj := shapefileParts(t, layer)
	var recs []gridindex.Record
	st, err := gridingest.ReadOntarioLots(bytes.NewReader(s), bytes.NewReader(d), prj, layer+".shp", collect(&recs))
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

func TestReadOntarioLotsFixture(t *testing.T) {
	t.Parallel()
	recs, st := readONLots(t, griddemo.ONLotLayer)
	perTownship := map[string]int{}
	for _, r := range recs {
		checkRecord(t, r, survey.ON)
		if r.Location.Unit != lld.Lot || r.AccuracyM != 100 {
			t.Errorf("%s: unit %v, AccuracyM %v", r.Location, r.Location.Unit, r.AccuracyM)
		}
		perTownship[r.Location.Place]++
	}
	want := map[string]int{"Adjala": 1, "Demovale": 13, "Demohurst": 12}
	for k, v := range want {
		if perTownship[k] != v {
			t.Errorf("%d lots in %s, want %d", perTownship[k], k, v)
		}
	}
	if len(perTownship) != len(want) {
		t.Errorf("townships %v, want %v", perTownship, want)
	}
	if st.Rows != 28 || st.Records != 26 {
		t.Errorf("stats %v, want 28 rows, 26 records", st)
	}
	if st.Skipped["road allowance"] != 1 || st.Skipped["lot or concession label lld cannot parse"] != 1 {
		t.Errorf("skipped %v, want the road allowance and PT 5&6", st.Skipped)
	}
	m := byLocation(t, recs)
	for _, k := range []string{"Lot GORE Con 1 Demovale", "Lot 1 Con BF Demohurst", "Lot 4 Con 2 Demohurst", "Lot 10 Con 1 Adjala"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
}

// TestAdjalaLot10Con1 checks the one published position: Lot 10 Con 1
// Adjala near 44.17 N, 79.93 W.
func TestAdjalaLot10Con1(t *testing.T) {
	t.Parallel()
	recs, _ := readONLots(t, griddemo.ONLotLayer)
	l, err := lld.Parse("Lot 10 Con 1 Adjala")
	if err != nil {
		t.Fatal(err)
	}
	m := byLocation(t, recs)
	r, ok := m[l.String()]
	if !ok {
		t.Fatal("no Lot 10 Con 1 Adjala")
	}
	pt := orb.Point{-79.93, 44.17}
	if !planar.PolygonContains(r.Geometry.(orb.Polygon), pt) {
		t.Errorf("Lot 10 Con 1 Adjala %v does not contain %v", r.Geometry, pt)
	}
	c, _ := planar.CentroidArea(r.Geometry)
	if d := metres(c, pt); d > 300 {
		t.Errorf("Lot 10 Con 1 Adjala centroid %v is %.0f m from %v", c, d, pt)
	}
	want, _ := griddemo.ONLotPolygon("ADJALA", "10", "1")
	got := r.Geometry.(orb.Polygon)[0]
	for i, w := range want[0] {
		if !near(got[i], w, 1e-7) {
			t.Errorf("vertex %d = %v, want %v", i, got[i], w)
		}
	}
}

// TestOntarioLambertShapefileAndGeoJSON reads Demoford from its shapefile
// and its GeoJSON in Ontario MNR Lambert (EPSG:3161: a .prj, a legacy crs
// member), as LIO ships many downloads: Roman concessions become arabic,
// both give the same polygons, and those are the lots the fixture placed in
// lng/lat before projecting them (so the Lambert inverse is right).
func TestOntarioLambertShapefileAndGeoJSON(t *testing.T) {
	t.Parallel()
	if prj := string(fixtureFile(t, griddemo.ONLotLayerLambert+".prj")); !strings.Contains(prj, "Ontario_MNR_Lambert") {
		t.Fatalf("the fixture's .prj is not Ontario MNR Lambert: %s", prj)
	}
	s, d, prj := shapefileParts(t, griddemo.ONLotLayerLambert)
	var fromShp, fromJSON []gridindex.Record
	var rd gridingest.OntarioReader
	if _, err := rd.Lots(bytes.NewReader(s), bytes.NewReader(d), prj, "lambert.shp", collect(&fromShp)); err != nil {
		t.Fatal(err)
	}
	if rd.Layout != gridingest.OntarioLotFabricShapefileLayout {
		t.Errorf("shapefile layout %q, want %q", rd.Layout.Form, gridingest.OntarioLotFabricShapefileLayout.Form)
	}
	in := fixtureFile(t, griddemo.ONLotGeoJSON)
	if !bytes.Contains(in, []byte("EPSG::3161")) {
		t.Fatal("the fixture's GeoJSON does not name EPSG:3161")
	}
	st, err := rd.LotsGeoJSON(bytes.NewReader(in), "lambert.geojson", collect(&fromJSON))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Layout != gridingest.OntarioLotFabricGeoJSONLayout {
		t.Errorf("GeoJSON layout %q, want %q", rd.Layout.Form, gridingest.OntarioLotFabricGeoJSONLayout.Form)
	}
	if len(fromShp) != 12 || len(fromJSON) != 12 || st.Records != 12 {
		t.Fatalf("%d lots from the shapefile, %d from GeoJSON, want 12", len(fromShp), len(fromJSON))
	}
	for i := range fromShp {
		a, b := fromShp[i], fromJSON[i]
		if a.Location != b.Location {
			t.Errorf("record %d: %s vs %s", i, a.Location, b.Location)
		}
		ra, rb := a.Geometry.(orb.Polygon)[0], b.Geometry.(orb.Polygon)[0]
		for j := range ra {
			if !near(ra[j], rb[j], 1e-9) {
				t.Errorf("%s vertex %d: %v vs %v", a.Location, j, ra[j], rb[j])
			}
		}
	}
	m := byLocation(t, fromShp)
	r, ok := m["Lot 3 Con 2 Demoford"]
	if !ok {
		t.Fatalf("no Lot 3 Con 2 Demoford (from Con II)")
	}
	want, _ := griddemo.ONLotPolygon("DEMOFORD", "3", "II")
	got := r.Geometry.(orb.Polygon)[0]
	for i, w := range want[0] {
		// 1e-8° is under a millimetre: the file rounds to the millimetre.
		if !near(got[i], w, 1e-8) {
			t.Errorf("Lot 3 Con 2 Demoford vertex %d = %v, want %v", i, got[i], w)
		}
	}
}

func TestReadOntarioTownshipsGeoJSON(t *testing.T) {
	t.Parallel()
	var recs []gridindex.Record
	var ns ingest.Notices
	rd := gridingest.OntarioReader{Notices: &ns}
	if _, err := rd.TownshipsGeoJSON(bytes.NewReader(fixtureFile(t, griddemo.ONTownshipGeoJSON)), "twp.geojson", collect(&recs)); err != nil {
		t.Fatal(err)
	}
	if rd.Layout != gridingest.OntarioTownshipGeoJSONLayout || ns.Total() != 0 {
		t.Errorf("layout %q, %d notices %v", rd.Layout.Form, ns.Total(), ns.Lines())
	}
	var got []string
	for _, r := range recs {
		checkRecord(t, r, survey.ON)
		got = append(got, r.Location.String())
	}
	if strings.Join(got, "|") != "Demovale Township|Demohurst Township|Demoford Township" {
		t.Errorf("townships %q", got)
	}
	if _, ok := recs[1].Geometry.(orb.MultiPolygon); !ok {
		t.Errorf("Demohurst geometry %T, want the MultiPolygon of the file", recs[1].Geometry)
	}
	lot, _ := griddemo.ONLotPolygon("DEMOVALE", "2", "2")
	if c, _ := planar.CentroidArea(lot); !planar.PolygonContains(recs[0].Geometry.(orb.Polygon), c) {
		t.Errorf("Demovale Township does not contain Lot 2 Con 2")
	}
}

// TestReadOntarioTownshipsShapefile reads Geographic Township Improved as
// a Shapefile in Ontario MNR Lambert, with the truncated field names
// OFFICIAL_N, TOWNSHIP_S and ANNULMENT_, and notes the flag words it did
// not know without refusing the townships.
func TestReadOntarioTownshipsShapefile(t *testing.T) {
	t.Parallel()
	var s, x, d shp.Buffer
	fields := []shp.Field{
		{Name: "OGF_ID", Type: shp.Numeric, Length: 10},
		{Name: "OFFICIAL_N", Type: shp.Character, Length: 40},
		{Name: "TOWNSHIP_S", Type: shp.Character, Length: 40},
		{Name: "ANNULMENT_", Type: shp.Character, Length: 20},
	}
	w, err := shp.NewWriter(&s, &x, &d, shp.Polygon, fields, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lambert, err := proj.FromEPSG(proj.EPSGOntarioLambert)
	if err != nil {
		t.Fatal(err)
	}
	// Squares of 0.1° south-west of (lng, lat), in EPSG:3161.
	corners := []orb.Point{{-80.2, 44.3}, {-79.9, 44.3}, {-79.6, 44.3}}
	attrs := [][]string{
		{"1", "DEMOVALE", "SINGLE FRONT", "N"},
		{"2", "DEMOFORD TOWNSHIP", "CHECKERBOARD", "PARTLY"},
		{"3", "", "", ""},
	}
	for i, c := range corners {
		var ring orb.Ring
		for _, p := range []orb.Point{{c[0] - 0.1, c[1] - 0.1}, {c[0], c[1] - 0.1}, c, {c[0] - 0.1, c[1]}, {c[0] - 0.1, c[1] - 0.1}} {
			x, y, err := lambert.FromLngLat(p)
			if err != nil {
				t.Fatal(err)
			}
			ring = append(ring, orb.Point{x, y})
		}
		if err := w.Write(orb.Polygon{ring}, attrs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	prj := string(fixtureFile(t, griddemo.ONLotLayerLambert+".prj"))
	var recs []gridindex.Record
	var ns ingest.Notices
	rd := gridingest.OntarioReader{Notices: &ns}
	st, err := rd.Townships(bytes.NewReader(s.Bytes()), bytes.NewReader(d.Bytes()), prj, "t.shp", collect(&recs))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Layout != gridingest.OntarioTownshipShapefileLayout {
		t.Errorf("layout %q", rd.Layout.Form)
	}
	if len(recs) != 2 || recs[0].Location.String() != "Demovale Township" || recs[1].Location.String() != "Demoford Township" {
		t.Errorf("records %v", recs)
	}
	if st.Skipped["township without a name"] != 1 {
		t.Errorf("skipped %v, want the feature without a name", st.Skipped)
	}
	for i, r := range recs {
		checkRecord(t, r, survey.ON)
		b := r.Geometry.Bound()
		want := orb.Bound{Min: orb.Point{corners[i][0] - 0.1, corners[i][1] - 0.1}, Max: corners[i]}
		if !near(b.Min, want.Min, 1e-9) || !near(b.Max, want.Max, 1e-9) {
			t.Errorf("%s bound %v, want %v", r.Location, b, want)
		}
	}
	lines := strings.Join(ns.Lines(), "\n")
	if ns.Total() != 2 || !strings.Contains(lines, `t.shp:2: column TOWNSHIP_S: new value "CHECKERBOARD"`) || !strings.Contains(lines, `t.shp:2: column ANNULMENT_: new value "PARTLY"`) {
		t.Errorf("notices %d:\n%s", ns.Total(), lines)
	}
}

// lioLots is a Lot Fabric GeoJSON in lng/lat with LIO's full field names,
// one feature per props (a JSON object's members), each a 0.01° square.
func lioLots(props ...string) string {
	var b strings.Builder
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		x := -80.4 + float64(i)*0.01
		fmt.Fprintf(&b, `{"type":"Feature","properties":{%s},"geometry":{"type":"Polygon","coordinates":[[[%g,44.3],[%g,44.3],[%g,44.31],[%g,44.31],[%g,44.3]]]}}`, p, x, x+0.01, x+0.01, x, x)
	}
	b.WriteString("]}")
	return b.String()
}

// lioLot is the properties of one lot in LIO's fields.
func lioLot(subtype, lot, con, road, verified string) string {
	return fmt.Sprintf(`"OGF_ID":1,"CLASS_SUBTYPE":%q,"LOT_IDENT":%q,"CONCESSION_IDENT":%q,"GEOGRAPHIC_TOWNSHIP_NAME":"DEMOVALE","ROAD_ALLOWANCE_STATUS_FLG":%q,"VERIFICATION_STATUS_FLG":%q,"VERIFICATION_STATUS_DATE":null,"LOCATION_ACCURACY":"unknown"`,
		subtype, lot, con, road, verified)
}

// TestOntarioRoadAllowanceAndFlags reads LIO's flags: a road allowance
// (by ROAD_ALLOWANCE_STATUS_FLG or by CLASS_SUBTYPE) is skipped, a lot is
// placed, and new CLASS_SUBTYPE and VERIFICATION_STATUS_FLG words are
// notices, counted, that do not stop the lot.
func TestOntarioRoadAllowanceAndFlags(t *testing.T) {
	t.Parallel()
	in := lioLots(
		lioLot("LOT", "1", "1", "N", "Y"),
		lioLot("LOT", "", "", "Y", "N"),                 // road allowance by the flag
		lioLot("ROAD ALLOWANCE", "", "", "", ""),        // by the subtype, no flag word
		lioLot("BROKEN LOT", "2", "1", "no", "PENDING"), // new words: notices
		lioLot("BROKEN LOT", "3", "1", "0", "VERIFIED"), // the same new subtype again
		lioLot("Gore", "GORE", "1", "false", "unverified"),
	)
	var recs []gridindex.Record
	var ns ingest.Notices
	rd := gridingest.OntarioReader{Notices: &ns}
	st, err := rd.LotsGeoJSON(strings.NewReader(in), "lots.geojson", collect(&recs))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Location.String())
	}
	if strings.Join(got, "|") != "Lot 1 Con 1 Demovale|Lot 2 Con 1 Demovale|Lot 3 Con 1 Demovale|Lot GORE Con 1 Demovale" {
		t.Errorf("lots %q", got)
	}
	if st.Rows != 6 || st.Skipped["road allowance"] != 2 {
		t.Errorf("stats %v, want 6 rows, 2 road allowances skipped", st)
	}
	lines := ns.Lines()
	want := []string{
		`lots.geojson:4: column CLASS_SUBTYPE: new value "BROKEN LOT": placed by its lot and concession labels (2 rows)`,
		`lots.geojson:4: column VERIFICATION_STATUS_FLG: new value "PENDING": not used: the lot is placed by its labels (1 rows)`,
	}
	if ns.Total() != 3 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d notices:\n%s\nwant 3:\n%s", ns.Total(), strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestOntarioBadRoadAllowanceFlag: a ROAD_ALLOWANCE_STATUS_FLG word the
// reader does not know rejects the file, naming file, feature, column,
// value and the words accepted, in GeoJSON and in a Shapefile (ROAD_ALLOW).
func TestOntarioBadRoadAllowanceFlag(t *testing.T) {
	t.Parallel()
	in := lioLots(lioLot("LOT", "1", "1", "N", "N"), lioLot("LOT", "2", "1", "MAYBE", "N"))
	_, err := gridingest.ReadOntarioLotsGeoJSON(strings.NewReader(in), "lots.geojson", func(gridindex.Record) error { return nil })
	wantError(t, err, "lots.geojson", 2, `column ROAD_ALLOWANCE_STATUS_FLG: value "MAYBE" is not one of Y, YES, TRUE, T, 1, N, NO, FALSE, F, 0`)

	var s, x, d shp.Buffer
	fields := []shp.Field{
		{Name: "LOT_IDENT", Type: shp.Character, Length: 10},
		{Name: "CONCESSION", Type: shp.Character, Length: 10},
		{Name: "GEOGRAPHIC", Type: shp.Character, Length: 40},
		{Name: "ROAD_ALLOW", Type: shp.Character, Length: 10},
	}
	w, err := shp.NewWriter(&s, &x, &d, shp.Polygon, fields, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ring := orb.Ring{{-80.4, 44.3}, {-80.39, 44.3}, {-80.39, 44.31}, {-80.4, 44.31}, {-80.4, 44.3}}
	for _, flag := range []string{"Y", "N", "OPEN"} {
		if err := w.Write(orb.Polygon{ring}, []string{"1", "1", "DEMOVALE", flag}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	nad83 := `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`
	_, err = gridingest.ReadOntarioLots(bytes.NewReader(s.Bytes()), bytes.NewReader(d.Bytes()), nad83, "lots.shp", func(gridindex.Record) error { return nil })
	wantError(t, err, "lots.shp", 3, `column ROAD_ALLOW: value "OPEN" is not one of`)
}

// TestOntarioLayouts: every layout is declared verified, cites the
// evidence id of docs/real-layouts.md and says what the evidence lacks.
func TestOntarioLayouts(t *testing.T) {
	t.Parallel()
	if len(gridingest.OntarioLayouts) != 4 {
		t.Fatalf("%d layouts, want 4", len(gridingest.OntarioLayouts))
	}
	for _, l := range gridingest.OntarioLayouts {
		if !l.Verified || !strings.Contains(l.Evidence, "71584105982") || !strings.Contains(l.Evidence, "ROAD_ALLOWANCE_STATUS_FLG") || l.Publisher != "Land Information Ontario" {
			t.Errorf("layout %+v", l)
		}
		if !strings.Contains(l.Form, "EPSG:3161") {
			t.Errorf("%s: form %q does not say it reads EPSG:3161", l.Dataset, l.Form)
		}
	}
}

func TestDeriveOntario(t *testing.T) {
	t.Parallel()
	recs, _ := readONLots(t, griddemo.ONLotLayer)
	var group []gridindex.Record
	for _, r := range recs {
		if r.Location.Place == "Demovale" {
			group = append(group, r)
		}
	}
	out, err := gridingest.DeriveOntario(group)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out {
		checkRecord(t, r, survey.ON)
		got = append(got, r.Location.String())
	}
	if strings.Join(got, "|") != "Con 1 Demovale|Con 2 Demovale|Con 3 Demovale|Demovale Township" {
		t.Fatalf("derived %q", got)
	}
	// Con 1 has 4 lots and the gore: 2 × 6 lattice points and the closing
	// one. The township is 4 lots by 3 concessions with the gore beside
	// Con 1: 16 lattice points round it and the closing one.
	if n := len(out[0].Geometry.(orb.Polygon)[0]); n != 13 {
		t.Errorf("Con 1 Demovale has %d points, want 13", n)
	}
	if n := len(out[3].Geometry.(orb.Polygon)[0]); n != 17 {
		t.Errorf("Demovale Township has %d points, want 17", n)
	}
	var area float64
	for _, r := range group {
		area += planar.Area(r.Geometry)
	}
	if a := planar.Area(out[3].Geometry); a < area*0.999999 || a > area*1.000001 {
		t.Errorf("township area %g, lots %g", a, area)
	}
	// With the township in the group, only concessions are derived.
	out2, err := gridingest.DeriveOntario(append(group, gridindex.Record{Location: lld.Location{System: lld.GeoTownship, Unit: lld.Township, Place: "Demovale"}}))
	if err != nil || len(out2) != 3 {
		t.Errorf("with a township record: %d records, %v; want the 3 concessions", len(out2), err)
	}
	// Records of two townships are an error.
	if _, err := gridingest.DeriveOntario(recs); err == nil {
		t.Errorf("DeriveOntario of several townships succeeded")
	}
}

// TestDeriveOntarioNodes dissolves lots whose shared edges are split
// differently on each side (a T-junction DeriveOntario must node).
func TestDeriveOntarioNodes(t *testing.T) {
	t.Parallel()
	lot := func(n, con string, g orb.Polygon) gridindex.Record {
		l, err := lld.Parse("Lot " + n + " Con " + con + " Demovale")
		if err != nil {
			t.Fatal(err)
		}
		return gridindex.Record{Location: l, Province: survey.ON, Geometry: g, AccuracyM: 100}
	}
	square := func(x, y float64) orb.Polygon { // the unit square with south-west corner (x, y)
		return orb.Polygon{{{x, y}, {x + 1, y}, {x + 1, y + 1}, {x, y + 1}, {x, y}}}
	}
	//	+-----+--+
	//	|  1  |2 |   lot 1 spans two lots of the next row;
	//	+--+--+--+   its south edge has no vertex at x=1
	//	|3 |4 | 5|
	//	+--+--+--+
	group := []gridindex.Record{
		lot("1", "2", orb.Polygon{{{0, 1}, {2, 1}, {2, 2}, {0, 2}, {0, 1}}}),
		lot("2", "2", square(2, 1)),
		lot("3", "1", square(0, 0)),
		lot("4", "1", square(1, 0)),
		lot("5", "1", square(2, 0)),
	}
	out, err := gridingest.DeriveOntario(group)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || out[2].Location.String() != "Demovale Township" {
		t.Fatalf("derived %v", out)
	}
	if a := planar.Area(out[2].Geometry); a != 6 {
		t.Errorf("township area %v, want 6", a)
	}
}

func TestReadOntarioErrors(t *testing.T) {
	t.Parallel()
	lots := string(fixtureFile(t, griddemo.ONLotGeoJSON))
	tests := []struct {
		name   string
		in     string
		line   int
		reason string
	}{
		{"not JSON", "{\"type\": FeatureCollection}", 0, "not JSON"},
		{"not a collection", `{"type":"Feature","properties":{},"geometry":null}`, 0, "FeatureCollection"},
		{"truncated", lots[:len(lots)/2], 0, "truncated"},
		{"unsupported crs", strings.Replace(lots, "EPSG::3161", "EPSG::2154", 1), 0, "unsupported"},
		{"crs after features", `{"type":"FeatureCollection","features":[],"crs":{"type":"name","properties":{"name":"EPSG:3857"}}}`, 0, "crs member"},
		{"point geometry", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"LOT_IDENT":"1","CONCESSION_IDENT":"1","GEOGRAPHIC_TOWNSHIP_NAME":"ADJALA"},"geometry":{"type":"Point","coordinates":[-79.9,44.1]}}]}`, 1, "Polygon"},
		{"no lot field", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"CONCESSION_IDENT":"1","GEOGRAPHIC_TOWNSHIP_NAME":"ADJALA"},"geometry":null}]}`, 1, "LOT_IDENT"},
		{"lng/lat out of range", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"LOT_IDENT":"1","CONCESSION_IDENT":"1","GEOGRAPHIC_TOWNSHIP_NAME":"ADJALA"},"geometry":{"type":"Polygon","coordinates":[[[600000,4890000],[601000,4890000],[601000,4891000],[600000,4890000]]]}}]}`, 1, "longitude/latitude"},
		{"trailing data", `{"type":"FeatureCollection","features":[]} {}`, 0, "after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gridingest.ReadOntarioLotsGeoJSON(strings.NewReader(tc.in), "l.geojson", func(gridindex.Record) error { return nil })
			if err == nil {
				t.Fatal("succeeded")
			}
			wantError(t, err, "l.geojson", tc.line, tc.reason)
		})
	}
	// A shapefile in an unsupported projection, and one without lot fields.
	s, d, _ := shapefileParts(t, griddemo.ONLotLayer)
	_, err := gridingest.ReadOntarioLots(bytes.NewReader(s), bytes.NewReader(d), `GEOGCS["GCS_North_American_1927",DATUM["D_North_American_1927",SPHEROID["Clarke_1866",6378206.4,294.9786982]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, "l.shp", func(gridindex.Record) error { return nil })
	wantError(t, err, "l.shp", 0, "unsupported")
	ts, td, prj := shapefileParts(t, griddemo.SKTownshipLayer)
	_, err = gridingest.ReadOntarioLots(bytes.NewReader(ts), bytes.NewReader(td), prj, "l.shp", func(gridindex.Record) error { return nil })
	wantError(t, err, "l.shp", 0, "LOT_IDENT")
}

func FuzzReadOntarioLotsGeoJSON(f *testing.F) {
	f.Add(string(fixtureFile(f, griddemo.ONLotGeoJSON)))
	f.Add(string(fixtureFile(f, griddemo.ONTownshipGeoJSON)))
	f.Add(lioLots(lioLot("LOT", "1", "1", "N", "Y"), lioLot("ROAD ALLOWANCE", "", "", "Y", ""), lioLot("NEW", "2", "IV", "MAYBE", "?")))
	f.Add(`{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"EPSG:3857"}},"features":[{"type":"Feature","properties":{"LOT_IDENT":1,"CONCESSION_IDENT":"IV","GEOGRAPHIC_TOWNSHIP_NAME":"ADJALA"},"geometry":{"type":"MultiPolygon","coordinates":[[[[-8897000,5493000],[-8896000,5493000],[-8896000,5494000],[-8897000,5493000]]]]}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		check := func(r gridindex.Record) error {
			if r.Province != survey.ON || r.Geometry == nil {
				t.Fatalf("%s: province %v, geometry %v", r.Location, r.Province, r.Geometry)
			}
			if l, err := lld.Parse(r.Location.String()); err != nil || l != r.Location {
				t.Fatalf("%s does not parse back: %v", r.Location, err)
			}
			return nil
		}
		_, err := gridingest.ReadOntarioLotsGeoJSON(strings.NewReader(in), "f.geojson", check)
		if !isIngestError(err) {
			t.Fatalf("lots: error %v (%T) is not an *ingest.Error", err, err)
		}
		_, err = gridingest.ReadOntarioTownshipsGeoJSON(strings.NewReader(in), "f.geojson", check)
		if !isIngestError(err) {
			t.Fatalf("townships: error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}

func FuzzReadOntarioLots(f *testing.F) {
	s, d, prj := shapefileParts(f, griddemo.ONLotLayerLambert)
	f.Add(s, d)
	s2, d2, _ := shapefileParts(f, griddemo.ONLotLayer)
	f.Add(s2[:1200], d2[:900])
	f.Fuzz(func(t *testing.T, shpB, dbfB []byte) {
		_, err := gridingest.ReadOntarioLots(bytes.NewReader(shpB), bytes.NewReader(dbfB), prj, "f.shp", func(r gridindex.Record) error {
			if r.Geometry == nil {
				t.Fatalf("%s without geometry", r.Location)
			}
			return nil
		})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}

// BenchmarkReadOntarioLotsGeoJSON reads the EPSG:3161 fixture (Ontario MNR
// Lambert named by a legacy crs member) repeated to 12,000 lots.
func BenchmarkReadOntarioLotsGeoJSON(b *testing.B) {
	in := repeatFeatures(fixtureFile(b, griddemo.ONLotGeoJSON), 1000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gridingest.ReadOntarioLotsGeoJSON(bytes.NewReader(in), "l.geojson", func(gridindex.Record) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// repeatFeatures returns a FeatureCollection, "features" its last member,
// with its features repeated n times: a large file of real shape.
func repeatFeatures(file []byte, n int) []byte {
	s := strings.TrimSpace(string(file))
	i, j := strings.Index(s, "[")+1, strings.LastIndex(s, "]")
	body := strings.TrimSpace(s[i:j])
	return []byte(s[:i] + strings.Repeat(body+",\n", n-1) + body + s[j:])
}
