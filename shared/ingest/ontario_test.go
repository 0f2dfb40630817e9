package ingest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/fixture"
	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

func readONLots(t testing.TB, layer string) ([]gridindex.Record, ingest.Stats) {
	t.Helper()
	s, d, prj := shapefileParts(t, layer)
	var recs []gridindex.Record
	st, err := ingest.ReadOntarioLots(bytes.NewReader(s), bytes.NewReader(d), prj, layer+".shp", collect(&recs))
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

func TestReadOntarioLotsFixture(t *testing.T) {
	t.Parallel()
	recs, st := readONLots(t, fixture.ONLotLayer)
	perTownship := map[string]int{}
	for _, r := range recs {
		checkRecord(t, r, survey.ON)
		if r.Location.Unit != lld.Lot || r.AccuracyM != 100 {
			t.Errorf("%s: unit %v, AccuracyM %v", r.Location, r.Location.Unit, r.AccuracyM)
		}
		perTownship[r.Location.Place]++
	}
	want := map[string]int{"Adjala": 36, "Osprey": 13, "Nipissing": 12}
	for k, v := range want {
		if perTownship[k] != v {
			t.Errorf("%d lots in %s, want %d", perTownship[k], k, v)
		}
	}
	if st.Rows != 63 || st.Records != 61 {
		t.Errorf("stats %v, want 63 rows, 61 records", st)
	}
	if st.Skipped["lot without lot, concession or township label"] != 1 || st.Skipped["lot or concession label lld cannot parse"] != 1 {
		t.Errorf("skipped %v, want the road allowance and PT 5&6", st.Skipped)
	}
	m := byLocation(t, recs)
	for _, k := range []string{"Lot GORE Con 1 Osprey", "Lot 1 Con BF Nipissing", "Lot 4 Con 2 Nipissing"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
}

// TestAdjalaLot10Con1 checks the one published position: Lot 10 Con 1
// Adjala near 44.17 N, 79.93 W.
func TestAdjalaLot10Con1(t *testing.T) {
	t.Parallel()
	recs, _ := readONLots(t, fixture.ONLotLayer)
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
	want, _ := fixture.ONLotPolygon("ADJALA", "10", "1")
	got := r.Geometry.(orb.Polygon)[0]
	for i, w := range want[0] {
		if !near(got[i], w, 1e-7) {
			t.Errorf("vertex %d = %v, want %v", i, got[i], w)
		}
	}
}

// TestAdmastonShapefileAndGeoJSON reads Admaston from its UTM 18N
// shapefile and from its GeoJSON (UTM 18N named by a legacy crs member):
// Roman concessions become arabic, and both give the same polygons.
func TestAdmastonShapefileAndGeoJSON(t *testing.T) {
	t.Parallel()
	fromShp, _ := readONLots(t, fixture.ONLotLayerZone18)
	var fromJSON []gridindex.Record
	st, err := ingest.ReadOntarioLotsGeoJSON(bytes.NewReader(fixtureFile(t, fixture.ONLotGeoJSON)), "admaston.geojson", collect(&fromJSON))
	if err != nil {
		t.Fatal(err)
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
	if m := byLocation(t, fromShp); m["Lot 3 Con 2 Admaston"].Geometry == nil {
		t.Errorf("no Lot 3 Con 2 Admaston (from Con II)")
	}
}

func TestReadOntarioTownshipsGeoJSON(t *testing.T) {
	t.Parallel()
	var recs []gridindex.Record
	if _, err := ingest.ReadOntarioTownshipsGeoJSON(bytes.NewReader(fixtureFile(t, fixture.ONTownshipGeoJSON)), "twp.geojson", collect(&recs)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		checkRecord(t, r, survey.ON)
		got = append(got, r.Location.String())
	}
	if strings.Join(got, "|") != "Adjala Township|Osprey Township|Nipissing Township|Admaston Township" {
		t.Errorf("townships %q", got)
	}
	if _, ok := recs[2].Geometry.(orb.MultiPolygon); !ok {
		t.Errorf("Nipissing geometry %T, want the MultiPolygon of the file", recs[2].Geometry)
	}
	if !planar.PolygonContains(recs[0].Geometry.(orb.Polygon), orb.Point{-79.93, 44.17}) {
		t.Errorf("Adjala Township does not contain Lot 10 Con 1")
	}
}

func TestReadOntarioTownshipsShapefile(t *testing.T) {
	t.Parallel()
	var s, x, d shp.Buffer
	w, err := shp.NewWriter(&s, &x, &d, shp.Polygon, []shp.Field{{Name: "OGF_ID", Type: shp.Numeric, Length: 10}, {Name: "OFFICIAL_N", Type: shp.Character, Length: 40}}, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"ADJALA", "TOSORONTIO TOWNSHIP", ""} {
		x0 := 575000.0 + float64(i)*12000
		ring := orb.Ring{{x0, 4880000}, {x0 + 11000, 4880000}, {x0 + 11000, 4895000}, {x0, 4895000}, {x0, 4880000}}
		if err := w.Write(orb.Polygon{ring}, []string{"1", name}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, prj := shapefileParts(t, fixture.ONLotLayer)
	var recs []gridindex.Record
	st, err := ingest.ReadOntarioTownships(bytes.NewReader(s.Bytes()), bytes.NewReader(d.Bytes()), prj, "t.shp", collect(&recs))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Location.String() != "Adjala Township" || recs[1].Location.String() != "Tosorontio Township" {
		t.Errorf("records %v", recs)
	}
	if st.Skipped["township without a name"] != 1 {
		t.Errorf("skipped %v, want the feature without a name", st.Skipped)
	}
	for _, r := range recs {
		checkRecord(t, r, survey.ON)
		if c := r.Geometry.Bound().Center(); c[1] < 44 || c[1] > 44.3 || c[0] < -80.1 || c[0] > -79.7 {
			t.Errorf("%s centred on %v, want near Adjala", r.Location, c)
		}
	}
}

func TestDeriveOntario(t *testing.T) {
	t.Parallel()
	recs, _ := readONLots(t, fixture.ONLotLayer)
	var adjala []gridindex.Record
	for _, r := range recs {
		if r.Location.Place == "Adjala" {
			adjala = append(adjala, r)
		}
	}
	out, err := ingest.DeriveOntario(adjala)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out {
		checkRecord(t, r, survey.ON)
		got = append(got, r.Location.String())
	}
	if strings.Join(got, "|") != "Con 1 Adjala|Con 2 Adjala|Con 3 Adjala|Adjala Township" {
		t.Fatalf("derived %q", got)
	}
	// A concession of 12 lots: 2 × 13 lattice points; the township 2 ×
	// (12 + 3) points round its grid.
	if n := len(out[0].Geometry.(orb.Polygon)[0]); n != 27 {
		t.Errorf("Con 1 Adjala has %d points, want 27", n)
	}
	if n := len(out[3].Geometry.(orb.Polygon)[0]); n != 31 {
		t.Errorf("Adjala Township has %d points, want 31", n)
	}
	var area float64
	for _, r := range adjala {
		area += planar.Area(r.Geometry)
	}
	if a := planar.Area(out[3].Geometry); a < area*0.999999 || a > area*1.000001 {
		t.Errorf("township area %g, lots %g", a, area)
	}
	// With the township in the group, only concessions are derived.
	out2, err := ingest.DeriveOntario(append(adjala, gridindex.Record{Location: lld.Location{System: lld.GeoTownship, Unit: lld.Township, Place: "Adjala"}}))
	if err != nil || len(out2) != 3 {
		t.Errorf("with a township record: %d records, %v; want the 3 concessions", len(out2), err)
	}
	// Records of two townships are an error.
	if _, err := ingest.DeriveOntario(recs); err == nil {
		t.Errorf("DeriveOntario of several townships succeeded")
	}
}

// TestDeriveOntarioNodes dissolves lots whose shared edges are split
// differently on each side (a T-junction DeriveOntario must node).
func TestDeriveOntarioNodes(t *testing.T) {
	t.Parallel()
	lot := func(n, con string, g orb.Polygon) gridindex.Record {
		l, err := lld.Parse("Lot " + n + " Con " + con + " Osprey")
		if err != nil {
			t.Fatal(err)
		}
		return gridindex.Record{Location: l, Province: survey.ON, Geometry: g, AccuracyM: 100}
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
	out, err := ingest.DeriveOntario(group)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || out[2].Location.String() != "Osprey Township" {
		t.Fatalf("derived %v", out)
	}
	if a := planar.Area(out[2].Geometry); a != 6 {
		t.Errorf("township area %v, want 6", a)
	}
}

func TestReadOntarioErrors(t *testing.T) {
	t.Parallel()
	lots := string(fixtureFile(t, fixture.ONLotGeoJSON))
	tests := []struct {
		name   string
		in     string
		line   int
		reason string
	}{
		{"not JSON", "{\"type\": FeatureCollection}", 0, "not JSON"},
		{"not a collection", `{"type":"Feature","properties":{},"geometry":null}`, 0, "FeatureCollection"},
		{"truncated", lots[:len(lots)/2], 0, "truncated"},
		{"unsupported crs", strings.Replace(lots, "EPSG::26918", "EPSG::2154", 1), 0, "unsupported"},
		{"crs after features", `{"type":"FeatureCollection","features":[],"crs":{"type":"name","properties":{"name":"EPSG:3857"}}}`, 0, "crs member"},
		{"point geometry", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"LOT_IDENT":"1","CONCESSION_IDENT":"1","GEOGRAPHIC_TOWNSHIP_NAME":"ADJALA"},"geometry":{"type":"Point","coordinates":[-79.9,44.1]}}]}`, 1, "Polygon"},
		{"no lot field", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"CONCESSION_IDENT":"1","GEOGRAPHIC_TOWNSHIP_NAME":"ADJALA"},"geometry":null}]}`, 1, "LOT_IDENT"},
		{"lng/lat out of range", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"LOT_IDENT":"1","CONCESSION_IDENT":"1","GEOGRAPHIC_TOWNSHIP_NAME":"ADJALA"},"geometry":{"type":"Polygon","coordinates":[[[600000,4890000],[601000,4890000],[601000,4891000],[600000,4890000]]]}}]}`, 1, "longitude/latitude"},
		{"trailing data", `{"type":"FeatureCollection","features":[]} {}`, 0, "after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ingest.ReadOntarioLotsGeoJSON(strings.NewReader(tc.in), "l.geojson", func(gridindex.Record) error { return nil })
			if err == nil {
				t.Fatal("succeeded")
			}
			wantError(t, err, "l.geojson", tc.line, tc.reason)
		})
	}
	// A shapefile in an unsupported projection, and one without lot fields.
	s, d, _ := shapefileParts(t, fixture.ONLotLayer)
	_, err := ingest.ReadOntarioLots(bytes.NewReader(s), bytes.NewReader(d), `GEOGCS["GCS_North_American_1927",DATUM["D_North_American_1927",SPHEROID["Clarke_1866",6378206.4,294.9786982]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, "l.shp", func(gridindex.Record) error { return nil })
	wantError(t, err, "l.shp", 0, "unsupported")
	ts, td, prj := shapefileParts(t, fixture.SKTownshipLayer)
	_, err = ingest.ReadOntarioLots(bytes.NewReader(ts), bytes.NewReader(td), prj, "l.shp", func(gridindex.Record) error { return nil })
	wantError(t, err, "l.shp", 0, "LOT_IDENT")
}

func FuzzReadOntarioLotsGeoJSON(f *testing.F) {
	f.Add(string(fixtureFile(f, fixture.ONLotGeoJSON)))
	f.Add(string(fixtureFile(f, fixture.ONTownshipGeoJSON)))
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
		_, err := ingest.ReadOntarioLotsGeoJSON(strings.NewReader(in), "f.geojson", check)
		if !isIngestError(err) {
			t.Fatalf("lots: error %v (%T) is not an *ingest.Error", err, err)
		}
		_, err = ingest.ReadOntarioTownshipsGeoJSON(strings.NewReader(in), "f.geojson", check)
		if !isIngestError(err) {
			t.Fatalf("townships: error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}

func FuzzReadOntarioLots(f *testing.F) {
	s, d, prj := shapefileParts(f, fixture.ONLotLayerZone18)
	f.Add(s, d)
	s2, d2, _ := shapefileParts(f, fixture.ONLotLayer)
	f.Add(s2[:1200], d2[:900])
	f.Fuzz(func(t *testing.T, shpB, dbfB []byte) {
		_, err := ingest.ReadOntarioLots(bytes.NewReader(shpB), bytes.NewReader(dbfB), prj, "f.shp", func(r gridindex.Record) error {
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

// BenchmarkReadOntarioLotsGeoJSON reads the Admaston fixture (UTM 18N named
// by a legacy crs member) repeated to 12,000 lots.
func BenchmarkReadOntarioLotsGeoJSON(b *testing.B) {
	in := repeatFeatures(fixtureFile(b, fixture.ONLotGeoJSON), 1000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ingest.ReadOntarioLotsGeoJSON(bytes.NewReader(in), "l.geojson", func(gridindex.Record) error { return nil }); err != nil {
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
