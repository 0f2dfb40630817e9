package gridingest_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/blob"
	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

// atsLayer returns an ATS polygon fixture layer's .shp, .dbf and .prj.
func atsLayer(t testing.TB, layer string) (shpB, dbfB []byte, prj string) {
	t.Helper()
	return fixtureFile(t, layer+".shp"), fixtureFile(t, layer+".dbf"), string(fixtureFile(t, layer+".prj"))
}

const atsRAReason = "road allowance (RA set)"

func TestReadATSPolygonsFixture(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		layer   string
		unit    lld.Unit
		records int
		ra      int
	}{
		{griddemo.ATSTownshipLayer, lld.Township, 1, 0},
		{griddemo.ATSSectionLayer, lld.Section, 36, 36},
		{griddemo.ATSQuarterLayer, lld.QuarterSection, 144, 0},
		{griddemo.ATSLSDLayer, lld.LSD, 576, 36},
	} {
		t.Run(tc.layer, func(t *testing.T) {
			t.Parallel()
			s, d, prj := atsLayer(t, tc.layer)
			var recs []gridindex.Record
			var ns ingest.Notices
			st, err := gridingest.ReadATSPolygons(bytes.NewReader(s), bytes.NewReader(d), prj, tc.layer+".shp", collect(&recs), gridingest.ATSOptions{Notices: &ns})
			if err != nil {
				t.Fatal(err)
			}
			if st.Rows != tc.records+tc.ra || st.Records != tc.records || len(recs) != tc.records || st.Skipped[atsRAReason] != tc.ra || st.SkippedTotal() != tc.ra {
				t.Errorf("stats %v, %d records; want %d records and %d road allowances", st, len(recs), tc.records, tc.ra)
			}
			if ns.Total() != tc.ra {
				t.Errorf("%d notices, want %d (one per road allowance): %q", ns.Total(), tc.ra, ns.Lines())
			}
			if tc.ra > 0 && (len(ns.Lines()) != 1 || !strings.Contains(ns.Lines()[0], `column RA: new value "RW"`)) {
				t.Errorf("notices %q, want one line for RA \"RW\"", ns.Lines())
			}
			for _, r := range recs {
				checkRecord(t, r, survey.AB)
				if r.Location.Unit != tc.unit {
					t.Fatalf("%s in the %s layer", r.Location, tc.unit)
				}
				if r.Location.Township != 24 || r.Location.Range != 1 || r.Location.Meridian != lld.W5 {
					t.Fatalf("%s is not in the fixture's township 24-1-W5", r.Location)
				}
				want := 5.0
				if tc.unit == lld.QuarterSection || tc.unit == lld.LSD {
					want = 20
				}
				if r.AccuracyM != want {
					t.Errorf("%s: AccuracyM %v, want %v", r.Location, r.AccuracyM, want)
				}
			}
			byLocation(t, recs) // no duplicates
		})
	}
}

// TestReadATSPolygonsMatchCoordinates: the polygon fixture is built from
// the coordinate fixture's points, so the two forms must agree where the
// road allowance does not intervene: every section's east side (SE, E4,
// NE) and every LSD 1 (the south-east sixteenth, away from the west road
// allowance) are the same in both within rounding, and the sections
// without their west strip are smaller by about a chain's width.
func TestReadATSPolygonsMatchCoordinates(t *testing.T) {
	t.Parallel()
	seq := byLocation(t, readATSFixture(t))
	read := func(layer string) map[string]gridindex.Record {
		s, d, prj := atsLayer(t, layer)
		var recs []gridindex.Record
		if _, err := gridingest.ReadATSPolygons(bytes.NewReader(s), bytes.NewReader(d), prj, layer+".shp", collect(&recs), gridingest.ATSOptions{}); err != nil {
			t.Fatal(err)
		}
		return byLocation(t, recs)
	}
	secs := read(griddemo.ATSSectionLayer)
	lsds := read(griddemo.ATSLSDLayer)
	hasVertex := func(r orb.Ring, p orb.Point) bool {
		for _, v := range r {
			if near(v, p, 2e-8) {
				return true
			}
		}
		return false
	}
	for s := 1; s <= 36; s++ {
		key := fmt.Sprintf("%d-24-1-W5", s)
		want := seq[key].Geometry.(orb.Polygon)[0]
		got, ok := secs[key]
		if !ok {
			t.Fatalf("no section %s in the polygon layer", key)
		}
		ring := got.Geometry.(orb.Polygon)[0]
		for _, i := range []int{2, 3, 4} { // SE, E4, NE of the coordinate file's ring
			if !hasVertex(ring, want[i]) {
				t.Errorf("%s: polygon layer lacks vertex %v of the coordinate file", key, want[i])
			}
		}
		if hasVertex(ring, want[0]) || hasVertex(ring, want[6]) {
			t.Errorf("%s: polygon layer keeps the SW or NW corner: no road allowance cut off", key)
		}
		// The cut-off strip is one chain wide along a side of about
		// 1609 m: 32,000-33,000 m².
		cut := (planar.Area(orb.Polygon{want}) - planar.Area(orb.Polygon{ring})) * 111320 * 111320 * 0.63
		if cut < 25000 || cut > 40000 {
			t.Errorf("%s: road allowance of about %.0f m², want about 32,400", key, cut)
		}
		lsd := fmt.Sprintf("1-%d-24-1-W5", s)
		a, b := seq[lsd].Geometry.(orb.Polygon)[0], lsds[lsd].Geometry.(orb.Polygon)[0]
		if !hasVertex(b, a[1]) { // the section's SE corner
			t.Errorf("%s: SE corner %v missing from the polygon layer: %v", lsd, a[1], b)
		}
	}
	// Township corners: the coordinate file's.
	twp := read(griddemo.ATSTownshipLayer)["24-1-W5"].Geometry.(orb.Polygon)[0]
	for _, c := range []struct {
		s    int
		code string
	}{{1, "SE"}, {6, "SW"}, {31, "NW"}, {36, "NE"}} {
		p, _ := griddemo.ATSPoint(lld.W5, 1, 24, c.s, c.code)
		if !hasVertex(twp, p) {
			t.Errorf("township lacks the %s corner of section %d %v", c.code, c.s, p)
		}
	}
	if len(twp) != 49 {
		t.Errorf("township has %d vertices, want 49", len(twp))
	}
}

// atsPolygonFields is the published attribute list.
var atsPolygonFields = gridingest.ATSPolygonFields()

// atsRow is one feature of a test layer: M, RGE, TWP, SEC, QS, LS,
// DESCRIPTOR, RA (PID, FILE_NAME and TRM are filled in), and the block
// whose model box is its shape (nil: a Null shape).
type atsRow struct {
	m, rge, twp, sec, qs, ls, desc, ra string
	box                                *lld.Location
}

const geographicNAD83 = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

// atsShapefile writes rows as a geographic NAD83 layer with fields.
func atsShapefile(t testing.TB, fields []shp.Field, rows []atsRow) (shpB, dbfB []byte) {
	t.Helper()
	var s, x, d shp.Buffer
	w, err := shp.NewWriter(&s, &x, &d, shp.Polygon, fields, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		var g orb.Geometry
		if r.box != nil {
			b := dls.Bound(*r.box)
			g = orb.Polygon{{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}, b.Min}}
		}
		all := map[string]string{"PID": "5010241500", "FILE_NAME": "V4-1_SEC", "TRM": "024-01-5", "M": r.m, "RGE": r.rge, "TWP": r.twp,
			"SEC": r.sec, "QS": r.qs, "LS": r.ls, "DESCRIPTOR": r.desc, "RA": r.ra}
		attrs := make([]string, len(fields))
		for i, f := range fields {
			attrs[i] = all[strings.ToUpper(f.Name)]
		}
		if err := w.Write(g, attrs); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Bytes(), d.Bytes()
}

func mustParse(t testing.TB, s string) *lld.Location {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

// TestReadATSPolygonsLayout reads a small layer written in the published
// attribute layout, every unit and the spellings the reader accepts, and
// checks what it yields.
func TestReadATSPolygonsLayout(t *testing.T) {
	t.Parallel()
	rows := []atsRow{
		{"5", "01", "024", "", "", "", "TWP-024 RGE-01 MER-5", "", mustParse(t, "24-1-W5")},
		{"5", "01", "024", "15", "", "", "SEC-15 TWP-024 RGE-01 MER-5", "", mustParse(t, "15-24-1-W5")},
		{"5", "1", "24", "15", "NE", "", "QS-NE SEC-15 TWP-024 RGE-01 MER-5", "", mustParse(t, "NE-15-24-1-W5")},
		{"4", "29", "027", "01", "", "07", "LSD-07 SEC-01 TWP-027 RGE-29 MER-4", "", mustParse(t, "7-1-27-29-W4")},
		{"4", "29", "027", "01", "", "0", "SEC-01 TWP-027 RGE-29 MER-4", "", mustParse(t, "1-27-29-W4")},
		{"5", "01", "024", "15", "", "", "SEC-15 TWP-024 RGE-01 MER-5", "RW", mustParse(t, "15-24-1-W5")},
		{"5", "01", "024", "16", "", "", "16-24-1-W5", "", mustParse(t, "16-24-1-W5")},
		{"5", "01", "024", "17", "", "", "", "", nil},
		{"5", "01", "024", "18", "", "", "", "RN", mustParse(t, "18-24-1-W5")},
	}
	s, d := atsShapefile(t, atsPolygonFields, rows)
	var recs []gridindex.Record
	var ns ingest.Notices
	st, err := gridingest.ReadATSPolygons(bytes.NewReader(s), bytes.NewReader(d), geographicNAD83, "V4-1_SEC.shp", collect(&recs), gridingest.ATSOptions{Notices: &ns})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Location.String())
		if !near(r.Geometry.Bound().Min, dls.Bound(r.Location).Min, 1e-9) {
			t.Errorf("%s: geometry %v, want the model box", r.Location, r.Geometry.Bound())
		}
	}
	want := []string{"24-1-W5", "15-24-1-W5", "NE-15-24-1-W5", "7-1-27-29-W4", "1-27-29-W4", "16-24-1-W5"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("records %v, want %v", got, want)
	}
	if st.Rows != 9 || st.Skipped[atsRAReason] != 2 || st.Skipped["feature without geometry"] != 1 {
		t.Errorf("stats %s, want 9 rows, 2 road allowances and 1 feature without geometry", st)
	}
	wantNotices := []string{
		`V4-1_SEC.shp:6: column RA: new value "RW"`,
		`V4-1_SEC.shp:7: column DESCRIPTOR: new value "16-24-1-W5"`,
		`V4-1_SEC.shp:9: column RA: new value "RN"`,
	}
	lines := ns.Lines()
	if len(lines) != len(wantNotices) {
		t.Fatalf("notices %q, want %d", lines, len(wantNotices))
	}
	for i, w := range wantNotices {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("notice %d = %q, want it to start %q", i, lines[i], w)
		}
	}
}

// TestReadATSPolygonsFieldCase: field names in another case read the same.
func TestReadATSPolygonsFieldCase(t *testing.T) {
	t.Parallel()
	fields := make([]shp.Field, len(atsPolygonFields))
	for i, f := range atsPolygonFields {
		fields[i] = f
		fields[i].Name = strings.ToLower(f.Name)
	}
	s, d := atsShapefile(t, fields, []atsRow{{"5", "01", "024", "15", "", "", "SEC-15 TWP-024 RGE-01 MER-5", "", mustParse(t, "15-24-1-W5")}})
	var recs []gridindex.Record
	if _, err := gridingest.ReadATSPolygons(bytes.NewReader(s), bytes.NewReader(d), geographicNAD83, "x.shp", collect(&recs), gridingest.ATSOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Location.String() != "15-24-1-W5" {
		t.Errorf("records %v, want 15-24-1-W5", recs)
	}
}

func TestReadATSPolygonsErrors(t *testing.T) {
	t.Parallel()
	sec := mustParse(t, "15-24-1-W5")
	good := atsRow{"5", "01", "024", "15", "", "", "SEC-15 TWP-024 RGE-01 MER-5", "", sec}
	with := func(f func(*atsRow)) []atsRow {
		r := good
		f(&r)
		return []atsRow{good, r}
	}
	noM := make([]shp.Field, 0, len(atsPolygonFields))
	for _, f := range atsPolygonFields {
		if f.Name != "M" {
			noM = append(noM, f)
		}
	}
	tests := []struct {
		name   string
		fields []shp.Field
		rows   []atsRow
		line   int
		reason string
	}{
		{"meridian 3", nil, with(func(r *atsRow) { r.m = "3" }), 2, `column M: value "3" is not one of 4-6`},
		{"range 35", nil, with(func(r *atsRow) { r.rge = "35" }), 2, `column RGE: value "35" is not one of 1-34`},
		{"township blank", nil, with(func(r *atsRow) { r.twp = "" }), 2, `column TWP: value "" is not one of 1-126`},
		{"section 37", nil, with(func(r *atsRow) { r.sec = "37" }), 2, `column SEC: value "37" is not one of 1-36 (or blank)`},
		{"section text", nil, with(func(r *atsRow) { r.sec = "1A" }), 2, `column SEC: value "1A"`},
		{"quarter XX", nil, with(func(r *atsRow) { r.qs = "XX" }), 2, `column QS: value "XX" is not one of NE, NW, SW, SE, (blank)`},
		{"LSD 17", nil, with(func(r *atsRow) { r.ls = "17" }), 2, `column LS: value "17" is not one of 1-16 (or blank)`},
		{"LSD without section", nil, with(func(r *atsRow) { r.ls, r.sec = "7", "" }), 2, "SEC is blank"},
		{"descriptor disagrees", nil, with(func(r *atsRow) { r.desc = "SEC-16 TWP-024 RGE-01 MER-5" }), 2, "names 16-24-1-W5, but M, RGE, TWP, SEC, QS, LS name 15-24-1-W5"},
		{"descriptor of another unit", nil, with(func(r *atsRow) { r.desc = "LSD-01 SEC-15 TWP-024 RGE-01 MER-5" }), 2, "names 1-15-24-1-W5"},
		{"outside Alberta", nil, with(func(r *atsRow) { r.box = mustParse(t, "15-24-1-W3") }), 2, "not in Alberta"},
		{"no M field", noM, []atsRow{good}, 0, "column field list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fields := tc.fields
			if fields == nil {
				fields = atsPolygonFields
			}
			s, d := atsShapefile(t, fields, tc.rows)
			_, err := gridingest.ReadATSPolygons(bytes.NewReader(s), bytes.NewReader(d), geographicNAD83, "V4-1_SEC.shp", func(gridindex.Record) error { return nil }, gridingest.ATSOptions{})
			wantError(t, err, "V4-1_SEC.shp", tc.line, tc.reason)
		})
	}
}

func TestATSLayout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want ingest.Layout
	}{
		{"ATS_V4_1.SEQ", gridingest.ATSCoordinateLayout},
		{"/data/ats/V4-1_SEC.shp", gridingest.ATSPolygonLayout},
		{"V4-1_LSD.SHP", gridingest.ATSPolygonLayout},
		{"BF_ATS_SEC_RA_POLYGON_V41.shp", gridingest.ATSBaseFeaturesLayout},
	} {
		if got := gridingest.ATSLayout(tc.file); got != tc.want {
			t.Errorf("ATSLayout(%q) = %s, want %s", tc.file, got.Form, tc.want.Form)
		}
	}
	if !gridingest.ATSCoordinateLayout.Verified || !gridingest.ATSPolygonLayout.Verified || gridingest.ATSBaseFeaturesLayout.Verified {
		t.Errorf("verified: coordinates %v, polygons %v, base features %v; want true, true, false",
			gridingest.ATSCoordinateLayout.Verified, gridingest.ATSPolygonLayout.Verified, gridingest.ATSBaseFeaturesLayout.Verified)
	}
}

// TestATSPolygonFixtureBuild builds an index from the polygon fixture as
// `meridian ingest grid -format ats` would, and looks blocks up in it.
func TestATSPolygonFixtureBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	meta, _ := gridingest.DefaultMeta(gridingest.FormatATS)
	meta.Fixture = true
	var out bytes.Buffer
	var ns ingest.Notices
	st, ist, err := gridingest.BuildGrid(ctx, gridingest.GridSource{Format: gridingest.FormatATS, FS: griddemo.Grid(), Files: griddemo.ATSPolygonLayers(), Meta: meta, TempDir: t.TempDir(), Notices: &ns}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 757 || st.Skipped[atsRAReason] != 72 || ist.Records != 757 {
		t.Errorf("stats %s, index %d records; want 757 records and 72 road allowances", st, ist.Records)
	}
	if ns.Total() != 72 {
		t.Errorf("%d notices, want 72 (the road allowances)", ns.Total())
	}
	store := blob.NewMem()
	if err := store.Put(ctx, "ats.mgix", &out); err != nil {
		t.Fatal(err)
	}
	ix, err := gridindex.Open(ctx, store, "ats.mgix", gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"24-1-W5", "15-24-1-W5", "NE-15-24-1-W5", "10-15-24-1-W5", "1-36-24-1-W5"} {
		r, ok, err := ix.Lookup(ctx, *mustParse(t, s))
		if err != nil || !ok || r.Geometry == nil {
			t.Errorf("Lookup(%s) = %v, %v, %v", s, ok, r.Geometry != nil, err)
		}
	}
}

func FuzzReadATSPolygons(f *testing.F) {
	s, d, prj := atsLayer(f, griddemo.ATSSectionLayer)
	f.Add(s[:2000], d[:1200])
	s2, d2, _ := atsLayer(f, griddemo.ATSTownshipLayer)
	f.Add(s2, d2)
	s3, d3 := atsShapefile(f, atsPolygonFields, []atsRow{
		{"5", "01", "024", "15", "NE", "", "QS-NE SEC-15 TWP-024 RGE-01 MER-5", "", &lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W5, Range: 1, Township: 24, Section: 15, Aliquot: lld.NE}},
		{"5", "01", "024", "15", "", "", "", "RW", nil},
	})
	f.Add(s3, d3)
	f.Fuzz(func(t *testing.T, shpB, dbfB []byte) {
		_, err := gridingest.ReadATSPolygons(bytes.NewReader(shpB), bytes.NewReader(dbfB), prj, "f.shp", func(r gridindex.Record) error {
			if r.Province != survey.AB || r.Geometry == nil {
				t.Fatalf("%s: province %v, geometry %v", r.Location, r.Province, r.Geometry)
			}
			return nil
		}, gridingest.ATSOptions{Notices: &ingest.Notices{}})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}
