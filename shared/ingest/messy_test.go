package ingest_test

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
)

// readAll reads every row of src as "line:A|B|…" (the values by index) and
// returns them with the notices' lines.
func readAll(t *testing.T, src ingest.Source) ([]string, []string, error) {
	t.Helper()
	var ns ingest.Notices
	src.Notices = &ns
	tab, err := src.Open()
	if err != nil {
		return nil, nil, err
	}
	var rows []string
	err = tab.Each(func(r *ingest.Row) error {
		var vals []string
		for i := 0; i < r.Width(); i++ {
			vals = append(vals, r.At(i))
		}
		rows = append(rows, strings.Join(append([]string{itoa(r.Line)}, vals...), "|"))
		return nil
	})
	return rows, ns.Lines(), err
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestCSVAsDownloaded reads CSV files shaped as real downloads are: each
// rule of the report datasets' reading, and what Strict keeps.
func TestCSVAsDownloaded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		rows    []string
		notices []string
	}{
		{"empty row after the header", "a,b,c\n,,\n1,2,3\n", []string{"3|1|2|3"},
			[]string{"x.csv:2: skipped empty row: no value in any field (1 rows)"}},
		{"title and empty rows before the header", "Land ratings 2024,,\n,,\na,b,c\n1,2,3\n", []string{"4|1|2|3"},
			[]string{"x.csv:2: skipped empty row: no value in any field (1 rows)", "x.csv:1: skipped row before the header: a title or note, not the header (one value) (1 rows)"}},
		{"trailer: notices, contacts, totals", "a,b,c\n1,2,3\n,,\nNOTICE TO RECIPIENT,,\n,Phone: 403-297-8311,\nTotal,,3\n4,5,6\n", []string{"2|1|2|3", "7|4|5|6"},
			[]string{"x.csv:3: skipped empty row: no value in any field (1 rows)", "x.csv:4: skipped row of one value: a note, title or contact line, not a record (2 rows)", "x.csv:6: skipped totals row: a total, not a record (1 rows)"}},
		{"BOM, CRLF, Windows-1252", "\xef\xbb\xbfa,b,c\r\n1,Rivi\xe8re,3\r\n", []string{"2|1|Rivière|3"}, nil},
		{"trailing delimiter", "a,b,c,\n1,2,3,\n4,5,6\n7,8,,,\n", []string{"2|1|2|3", "3|4|5|6", "4|7|8|"}, nil},
		{"one column", "name\nx\ny\n", []string{"2|x", "3|y"}, nil},
		{"numbers as text", "a,b,c\n3,3.0,3.00000000000\n", []string{"2|3|3.0|3.00000000000"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows, notices, err := readAll(t, ingest.Source{Name: "x.csv", Format: ingest.CSV, R: strings.NewReader(tc.in)})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, tc.rows) || !slices.Equal(notices, tc.notices) {
				t.Errorf("rows %q, notices %q\nwant %q, %q", rows, notices, tc.rows, tc.notices)
			}
		})
	}
	// Column names in any case read alike.
	tab, err := ingest.Source{Name: "x.csv", Format: ingest.CSV, R: strings.NewReader("Definit_EN,perm_en\nLake,Permanent\n")}.Open()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := tab.Next(); err != nil || r.Get("DEFINIT_EN") != "Lake" || r.Get("PERM_EN") != "Permanent" {
		t.Errorf("mixed-case names: %v", err)
	}
	// Strict: the first row is the header, whatever it holds.
	rows, _, err := readAll(t, ingest.Source{Name: "x.csv", Format: ingest.CSV, R: strings.NewReader("Title\n1\n"), Strict: true})
	if err != nil || !slices.Equal(rows, []string{"2|1"}) {
		t.Errorf("strict: %q, %v", rows, err)
	}
}

// writeShapefile writes polylines with one text attribute.
func writeShapefile(t *testing.T, lines []orb.LineString) (s, d []byte) {
	t.Helper()
	var sb, xb, db shp.Buffer
	w, err := shp.NewWriter(&sb, &xb, &db, shp.PolyLine, []shp.Field{{Name: "name_en", Type: shp.Character, Length: 10}}, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if err := w.Write(l, []string{"line " + itoa(i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return sb.Bytes(), db.Bytes()
}

// TestShapefileFeatures: a vertex of float noise past the antimeridian is
// clamped; a feature far out of range is skipped with a
// notice naming it, the file read on; Strict keeps it an error; a file of
// which no feature can be read is an error.
func TestShapefileFeatures(t *testing.T) {
	t.Parallel()
	const prj = `GEOGCS["GCS_North_American_1983_CSRS98",DATUM["D_North_American_1983_CSRS98",SPHEROID["GRS_1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["Degree",0.0174532925199432955]]`
	s, d := writeShapefile(t, []orb.LineString{
		{{-179.5, 66.9}, {-180.00000000099996, 66.91597786200003}},
		{{-181, 60}, {-179, 60}},
		{{-100, 95}, {-100, 60}},
		{{-110, 50}, {-110, 50.0000001}, {-109, 90.0000005}},
	})
	src := func(prj string) ingest.Source {
		return ingest.Source{Name: "watercourse_1.shp", Format: ingest.Shapefile, R: strings.NewReader(string(s)), DBF: strings.NewReader(string(d)), PRJ: prj}
	}
	for _, p := range []string{prj, ""} {
		var ns ingest.Notices
		sc := src(p)
		sc.Notices = &ns
		tab, err := sc.Open()
		if err != nil {
			t.Fatal(err)
		}
		var got []orb.Geometry
		if err := tab.Each(func(r *ingest.Row) error { got = append(got, r.Geom); return nil }); err != nil {
			t.Fatalf("prj %q: %v", p, err)
		}
		if len(got) != 2 || got[0].(orb.LineString)[1][0] != -180 || got[1].(orb.LineString)[2][1] != 90 {
			t.Errorf("prj %q: read %v", p, got)
		}
		l := ns.Lines()
		if len(l) != 2 || !strings.HasPrefix(l[0], "watercourse_1.shp:2: skipped feature 2: invalid geometry: ") || !strings.Contains(l[0], "-181") ||
			!strings.HasPrefix(l[1], "watercourse_1.shp:3: skipped feature 3: invalid geometry: ") {
			t.Errorf("prj %q: notices %q", p, l)
		}
	}
	sc := src(prj)
	sc.Strict = true
	_, _, err := readAll(t, sc)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(ie.Reason, "-181") {
		t.Errorf("strict: %v", err)
	}
	s, d = writeShapefile(t, []orb.LineString{{{500000, 5500000}, {501000, 5500000}}})
	_, _, err = readAll(t, src(""))
	if !errors.As(err, &ie) || ie.Line != 1 || !strings.Contains(ie.Reason, "without a .prj") {
		t.Errorf("no feature readable: %v", err)
	}
}

// TestChooseLayout: the first layout whose columns the file has; none, an
// error naming the file's columns and the closest layout's missing ones.
func TestChooseLayout(t *testing.T) {
	t.Parallel()
	nhn := ingest.Candidate{Layout: ingest.Layout{Dataset: "NHN", Form: "NID, DEFINITION"}, Required: [][]string{{"NID"}, {"DEFINITION"}}}
	canvec := ingest.Candidate{Layout: ingest.Layout{Dataset: "CanVec", Form: "feature_id, definit_en, perm_en"},
		Required: [][]string{{"FEATURE_ID"}, {"DEFINIT_EN", "DEFINIT"}, {"PERM_EN", "PERM"}}}
	cands := []ingest.Candidate{nhn, canvec}
	if i, err := ingest.ChooseLayout("f", 1, []string{"FEATURE_ID", "DEFINIT", "PERM", "NAME_EN"}, cands); i != 1 || err != nil {
		t.Errorf("CanVec by its codes: %d, %v", i, err)
	}
	_, err := ingest.ChooseLayout("waterbody_2.shp", 0, []string{"FEATURE_ID", "DEFINITION_EN", "NAME_EN"}, cands)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.Mismatch == nil {
		t.Fatalf("no layout: %v", err)
	}
	if m := ie.Mismatch; m.Closest.Dataset != "CanVec" || !slices.Equal(m.Missing, []string{"DEFINIT_EN or DEFINIT", "PERM_EN or PERM"}) ||
		!slices.Equal(m.Have, []string{"FEATURE_ID", "DEFINITION_EN", "NAME_EN"}) {
		t.Errorf("mismatch %+v", m)
	}
	want := "waterbody_2.shp: columns match no known layout: the file has FEATURE_ID, DEFINITION_EN, NAME_EN; the closest, CanVec (feature_id, definit_en, perm_en), also needs DEFINIT_EN or DEFINIT, PERM_EN or PERM"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
}

// TestDBFEmptyRecords: a DBF table on its own skips records of no value,
// counted; Strict keeps them.
func TestDBFEmptyRecords(t *testing.T) {
	t.Parallel()
	var sb, xb, db shp.Buffer
	w, err := shp.NewWriter(&sb, &xb, &db, shp.Null, []shp.Field{{Name: "poly_id", Type: shp.Character, Length: 8}, {Name: "rating", Type: shp.Character, Length: 8}}, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range [][]string{{"1", "2H"}, {"", ""}, {"3", "4W"}} {
		if err := w.Write(nil, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		rows, notices, err := readAll(t, ingest.Source{Name: "lsrs.dbf", Format: ingest.DBF, R: strings.NewReader(string(db.Bytes())), Strict: strict})
		want, wantNotices := []string{"1|1|2H", "3|3|4W"}, []string{"lsrs.dbf:2: skipped empty row: no value in any field (1 rows)"}
		if strict {
			want, wantNotices = []string{"1|1|2H", "2||", "3|3|4W"}, nil
		}
		if err != nil || !slices.Equal(rows, want) || !slices.Equal(notices, wantNotices) {
			t.Errorf("strict %v: rows %q, notices %q, %v", strict, rows, notices, err)
		}
	}
}

// TestGeoJSONBOM: a GeoJSON file with a UTF-8 byte order mark reads.
func TestGeoJSONBOM(t *testing.T) {
	t.Parallel()
	in := "\xef\xbb\xbf{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"a\":1},\"geometry\":null}]}"
	rows, _, err := readAll(t, ingest.Source{Name: "b.geojson", Format: ingest.GeoJSON, R: strings.NewReader(in)})
	if err != nil || !slices.Equal(rows, []string{"1|1"}) {
		t.Errorf("rows %q, %v", rows, err)
	}
}

// TestShapefileBadShapes: a polygon ring that is not closed is closed; a
// record whose shape cannot be read (a point not a number) is skipped with
// a notice, the file read on; Strict keeps both errors. The files are
// written by package shp and their bytes then damaged, as no writer makes
// them.
func TestShapefileBadShapes(t *testing.T) {
	t.Parallel()
	var sb, xb, db shp.Buffer
	w, err := shp.NewWriter(&sb, &xb, &db, shp.Polygon, []shp.Field{{Name: "id", Type: shp.Character, Length: 4}}, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ring := orb.Ring{{-110, 50}, {-109, 50}, {-109, 51}, {-110, 51}, {-110, 50}}
	for _, id := range []string{"a", "b", "c"} {
		if err := w.Write(orb.Polygon{ring}, []string{id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := sb.Bytes()
	// Each record: 8-byte header, type 4, box 32, 1 part, 5 points: 136
	// bytes; its points start 56 bytes in (after the part index).
	const recLen, pts = 8 + 44 + 4 + 5*16, 8 + 44 + 4
	le := func(off int, v float64) { binary.LittleEndian.PutUint64(s[off:], math.Float64bits(v)) }
	le(100+pts+4*16, -110.5)            // record 1: last point moved, the ring left open
	le(100+recLen+pts+2*16, math.NaN()) // record 2: a point not a number
	src := func(strict bool) ingest.Source {
		return ingest.Source{Name: "wetlands.shp", Format: ingest.Shapefile, R: strings.NewReader(string(s)), DBF: strings.NewReader(string(db.Bytes())), Strict: strict}
	}
	var ns ingest.Notices
	sc := src(false)
	sc.Notices = &ns
	tab, err := sc.Open()
	if err != nil {
		t.Fatal(err)
	}
	var got []orb.Ring
	if err := tab.Each(func(r *ingest.Row) error { got = append(got, r.Geom.(orb.Polygon)[0]); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]) != 6 || got[0][5] != got[0][0] || len(got[1]) != 5 {
		t.Errorf("read %v", got)
	}
	if l := ns.Lines(); len(l) != 1 || !strings.HasPrefix(l[0], "wetlands.shp:2: skipped feature 2: invalid geometry: .shp: point 2 [NaN 51] is not finite") {
		t.Errorf("notices %q", l)
	}
	_, _, err = readAll(t, src(true))
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.Line != 1 || !strings.Contains(ie.Reason, "not closed") {
		t.Errorf("strict: %v", err)
	}
}
