package shp_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the Writer")

// TestWriterLayout checks a small Point file byte by byte against the
// Technical Description (tables 1–3, the .shx layout, the Point record)
// and the dBASE III header.
func TestWriterLayout(t *testing.T) {
	t.Parallel()
	fields := []shp.Field{{Name: "NAME", Type: shp.Character, Length: 4}, {Name: "N", Type: shp.Numeric, Length: 3}}
	f := build(t, shp.Point, fields, shp.WriterOptions{Date: time.Date(2024, 5, 17, 0, 0, 0, 0, time.UTC)}, []record{
		{orb.Point{1, 2}, []string{"ab", "7"}},
		{nil, []string{"", ""}},
		{orb.Point{-3, 4.5}, []string{"wxyz", "-12"}},
	})
	be := func(b []byte, off int) int32 { return int32(binary.BigEndian.Uint32(b[off:])) }
	le := func(b []byte, off int) int32 { return int32(binary.LittleEndian.Uint32(b[off:])) }
	f64 := func(b []byte, off int) float64 { return float64At(b, off) }
	type check struct {
		what      string
		got, want any
	}
	checks := []check{
		{".shp size", len(f.shp), 168},
		{".shp file code", be(f.shp, 0), int32(9994)},
		{".shp unused", f.shp[4:24], make([]byte, 20)},
		{".shp file length (words)", be(f.shp, 24), int32(84)},
		{".shp version", le(f.shp, 28), int32(1000)},
		{".shp shape type", le(f.shp, 32), int32(1)},
		{".shp Xmin", f64(f.shp, 36), -3.0},
		{".shp Ymin", f64(f.shp, 44), 2.0},
		{".shp Xmax", f64(f.shp, 52), 1.0},
		{".shp Ymax", f64(f.shp, 60), 4.5},
		{".shp Z and M ranges", f.shp[68:100], make([]byte, 32)},
		{"record 1 number", be(f.shp, 100), int32(1)},
		{"record 1 content length (words)", be(f.shp, 104), int32(10)},
		{"record 1 shape type", le(f.shp, 108), int32(1)},
		{"record 1 X", f64(f.shp, 112), 1.0},
		{"record 1 Y", f64(f.shp, 120), 2.0},
		{"record 2 number", be(f.shp, 128), int32(2)},
		{"record 2 content length", be(f.shp, 132), int32(2)},
		{"record 2 Null shape", le(f.shp, 136), int32(0)},
		{"record 3 number", be(f.shp, 140), int32(3)},
		{"record 3 X", f64(f.shp, 152), -3.0},
		{".shx size", len(f.shx), 124},
		{".shx header but length", f.shx[:24], f.shp[:24]},
		{".shx file length (words)", be(f.shx, 24), int32(62)},
		{".shx header after length", f.shx[28:100], f.shp[28:100]},
		{".shx record 1 offset, length", [2]int32{be(f.shx, 100), be(f.shx, 104)}, [2]int32{50, 10}},
		{".shx record 2 offset, length", [2]int32{be(f.shx, 108), be(f.shx, 112)}, [2]int32{64, 2}},
		{".shx record 3 offset, length", [2]int32{be(f.shx, 116), be(f.shx, 120)}, [2]int32{70, 10}},
		{".dbf size", len(f.dbf), 97 + 3*8 + 1},
		{".dbf version", f.dbf[0], byte(0x03)},
		{".dbf date", f.dbf[1:4], []byte{124, 5, 17}},
		{".dbf record count", le(f.dbf, 4), int32(3)},
		{".dbf header length", binary.LittleEndian.Uint16(f.dbf[8:]), uint16(97)},
		{".dbf record length", binary.LittleEndian.Uint16(f.dbf[10:]), uint16(8)},
		{".dbf language driver", f.dbf[29], byte(0)},
		{".dbf field 1 name", f.dbf[32:43], []byte("NAME\x00\x00\x00\x00\x00\x00\x00")},
		{".dbf field 1 type, length, decimals", [3]byte{f.dbf[43], f.dbf[48], f.dbf[49]}, [3]byte{'C', 4, 0}},
		{".dbf field 2 type, length", [2]byte{f.dbf[75], f.dbf[80]}, [2]byte{'N', 3}},
		{".dbf terminator", f.dbf[96], byte(0x0D)},
		{".dbf records", string(f.dbf[97:121]), " ab    7         wxyz-12"},
		{".dbf end mark", f.dbf[121], byte(0x1A)},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
}

// fixture is a shapefile the Writer produces for the golden test and the
// fuzz seeds.
type fixture struct {
	name      string
	shapeType shp.ShapeType
	fields    []shp.Field
	opts      shp.WriterOptions
	recs      []record
}

func fixtures() []fixture {
	grid := []shp.Field{
		{Name: "LLD", Type: shp.Character, Length: 20},
		{Name: "TWP", Type: shp.Numeric, Length: 3},
		{Name: "AREA_HA", Type: shp.Float, Length: 10, Decimals: 2},
		{Name: "SURVEYED", Type: shp.Date, Length: 8},
		{Name: "OFFICIAL", Type: shp.Logical, Length: 1},
	}
	quarter := func(x, y float64) orb.Ring { return sq(x, y, 804.672) }
	var out []fixture
	for _, st := range []shp.ShapeType{shp.Polygon, shp.PolygonZ, shp.PolygonM} {
		out = append(out, fixture{
			name: strings.ToLower(st.String()), shapeType: st, fields: grid,
			recs: []record{
				{orb.Polygon{quarter(400000, 5430000)}, []string{"SE-1-1-1-W2", "1", "64.75", "19110630", "T"}},
				{orb.Polygon{quarter(400804.672, 5430000), cw(sq(401000, 5430100, 50))}, []string{"SW-1-1-1-W2", "1", "64.50", "", "F"}},
				{nil, []string{"no geometry", "", "", "", ""}},
				{orb.MultiPolygon{{quarter(410000, 5440000), cw(sq(410100, 5440100, 10)), cw(sq(410300, 5440300, 10))}, {quarter(420000, 5440000)}}, []string{"split", "2", "1.00", "20010102", "?"}},
			},
		})
	}
	for _, st := range []shp.ShapeType{shp.Point, shp.PointZ, shp.PointM} {
		out = append(out, fixture{
			name: strings.ToLower(st.String()), shapeType: st, fields: oneField,
			recs: []record{{orb.Point{382104.25, 5435210.5}, []string{"well 1"}}, {nil, []string{""}}, {orb.Point{-1, 1e7}, []string{"well 3"}}},
		})
	}
	for _, st := range []shp.ShapeType{shp.MultiPoint, shp.MultiPointZ, shp.MultiPointM} {
		out = append(out, fixture{
			name: strings.ToLower(st.String()), shapeType: st, fields: oneField,
			recs: []record{{orb.MultiPoint{{1, 2}, {3, 4}, {5, 6}}, []string{"three"}}, {orb.MultiPoint{{7, 8}}, []string{"one"}}},
		})
	}
	for _, st := range []shp.ShapeType{shp.PolyLine, shp.PolyLineZ, shp.PolyLineM} {
		out = append(out, fixture{
			name: strings.ToLower(st.String()), shapeType: st, fields: oneField,
			recs: []record{{orb.LineString{{0, 0}, {10, 5}}, []string{"one part"}}, {orb.MultiLineString{{{0, 0}, {1, 1}}, {{5, 5}, {6, 7}, {8, 9}}}, []string{"two parts"}}},
		})
	}
	out = append(out, fixture{
		name: "latin1", shapeType: shp.Point, opts: shp.WriterOptions{Encoding: shp.Windows1252},
		fields: []shp.Field{{Name: "PLACE", Type: shp.Character, Length: 24}},
		recs: []record{
			{orb.Point{1, 1}, []string{"Saint-Léon"}},
			{orb.Point{2, 2}, []string{"Rivière-Qui-Barre"}},
			{orb.Point{3, 3}, []string{"Île-à-la-Crosse € Œ"}},
		},
	})
	return out
}

// TestGolden compares the Writer's output with testdata/golden, which
// GDAL 3.6.2's ogrinfo reads without warnings. Rewrite with
//
//	go test ./shared/ingest/shp -run TestGolden -update
func TestGolden(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "golden")
	for _, fx := range fixtures() {
		f := build(t, fx.shapeType, fx.fields, fx.opts, fx.recs)
		got := map[string][]byte{".shp": f.shp, ".shx": f.shx, ".dbf": f.dbf}
		if fx.opts.Encoding != shp.EncodingAuto {
			got[".cpg"] = []byte(fx.opts.Encoding.CPG())
		}
		for ext, b := range got {
			name := filepath.Join(dir, fx.name+ext)
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, b, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, b) {
				t.Errorf("%s differs from the Writer's output; rerun with -update if the change is intended", name)
			}
		}
	}
}

func TestWriterErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		st      shp.ShapeType
		fields  []shp.Field
		opts    shp.WriterOptions
		geom    orb.Geometry
		attrs   []string
		wantErr string
	}{
		{name: "MultiPatch", st: shp.MultiPatch, fields: oneField, wantErr: "cannot write shape type MultiPatch"},
		{name: "no fields", st: shp.Point, wantErr: "at least one field"},
		{name: "long field name", st: shp.Point, fields: []shp.Field{{Name: "ELEVENCHARS", Type: shp.Character, Length: 1}}, wantErr: "1 to 10 bytes"},
		{name: "field name with a space", st: shp.Point, fields: []shp.Field{{Name: "A B", Type: shp.Character, Length: 1}}, wantErr: "only ASCII letters"},
		{name: "duplicate field", st: shp.Point, fields: []shp.Field{{Name: "a", Type: shp.Character, Length: 1}, {Name: "A", Type: shp.Numeric, Length: 1}}, wantErr: "appears twice"},
		{name: "memo field", st: shp.Point, fields: []shp.Field{{Name: "M", Type: shp.Memo, Length: 10}}, wantErr: "cannot write type 'M'"},
		{name: "long text field", st: shp.Point, fields: []shp.Field{{Name: "C", Type: shp.Character, Length: 255}}, wantErr: "want 1 to 254"},
		{name: "date length", st: shp.Point, fields: []shp.Field{{Name: "D", Type: shp.Date, Length: 10}}, wantErr: "want 8"},
		{name: "decimals", st: shp.Point, fields: []shp.Field{{Name: "N", Type: shp.Numeric, Length: 3, Decimals: 3}}, wantErr: "3 decimals"},

		{name: "attribute count", st: shp.Point, fields: oneField, geom: orb.Point{}, attrs: nil, wantErr: "0 attributes for 1 fields"},
		{name: "text too long", st: shp.Point, fields: oneField, geom: orb.Point{}, attrs: []string{strings.Repeat("x", 17)}, wantErr: "17 bytes do not fit in 16"},
		{name: "not a number", st: shp.Point, fields: []shp.Field{{Name: "N", Type: shp.Numeric, Length: 5}}, geom: orb.Point{}, attrs: []string{"1,5"}, wantErr: `"1,5" is not a number`},
		{name: "number too long", st: shp.Point, fields: []shp.Field{{Name: "N", Type: shp.Numeric, Length: 3}}, geom: orb.Point{}, attrs: []string{"1234"}, wantErr: "does not fit in 3"},
		{name: "bad date", st: shp.Point, fields: []shp.Field{{Name: "D", Type: shp.Date, Length: 8}}, geom: orb.Point{}, attrs: []string{"2024-1-1"}, wantErr: "is not YYYYMMDD"},
		{name: "bad logical", st: shp.Point, fields: []shp.Field{{Name: "L", Type: shp.Logical, Length: 1}}, geom: orb.Point{}, attrs: []string{"yes"}, wantErr: "is not one of T, F"},
		{name: "not in Windows-1252", st: shp.Point, fields: oneField, opts: shp.WriterOptions{Encoding: shp.Windows1252}, geom: orb.Point{}, attrs: []string{"Ω"}, wantErr: "has no Windows-1252 code"},
		{name: "invalid UTF-8", st: shp.Point, fields: oneField, geom: orb.Point{}, attrs: []string{"\xff"}, wantErr: "invalid UTF-8"},

		{name: "polygon in a point file", st: shp.Point, fields: oneField, geom: orb.Polygon{sq(0, 0, 1)}, attrs: []string{""}, wantErr: "orb.Polygon cannot be written to a Point file"},
		{name: "point in a polygon file", st: shp.PolygonZ, fields: oneField, geom: orb.Point{}, attrs: []string{""}, wantErr: "orb.Point cannot be written to a PolygonZ file"},
		{name: "line in a multipoint file", st: shp.MultiPoint, fields: oneField, geom: orb.LineString{{0, 0}, {1, 1}}, attrs: []string{""}, wantErr: "cannot be written to a MultiPoint file"},
		{name: "ring in a polyline file", st: shp.PolyLine, fields: oneField, geom: sq(0, 0, 1), attrs: []string{""}, wantErr: "orb.Ring cannot be written"},
		{name: "one-point line", st: shp.PolyLine, fields: oneField, geom: orb.MultiLineString{{{0, 0}, {1, 1}}, {{2, 2}}}, attrs: []string{""}, wantErr: "line 1 has 1 points"},
		{name: "unclosed ring", st: shp.Polygon, fields: oneField, geom: orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 1}}}, attrs: []string{""}, wantErr: "ring 0 is not closed"},
		{name: "short ring", st: shp.Polygon, fields: oneField, geom: orb.Polygon{{{0, 0}, {1, 0}, {0, 0}}}, attrs: []string{""}, wantErr: "has 3 points"},
		{name: "flat ring", st: shp.Polygon, fields: oneField, geom: orb.Polygon{{{0, 0}, {1, 0}, {2, 0}, {0, 0}}}, attrs: []string{""}, wantErr: "has no area"},
		{name: "NaN point", st: shp.Point, fields: oneField, geom: orb.Point{math.NaN(), 0}, attrs: []string{""}, wantErr: "is not finite"},
		{name: "infinite vertex", st: shp.PolyLine, fields: oneField, geom: orb.LineString{{0, 0}, {math.Inf(1), 1}}, attrs: []string{""}, wantErr: "point 1 [+Inf 1] is not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var s, x, d shp.Buffer
			w, err := shp.NewWriter(&s, &x, &d, tc.st, tc.fields, tc.opts)
			if err == nil {
				err = w.Write(tc.geom, tc.attrs)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "shp: ") {
				t.Fatalf("error = %v, want one starting \"shp: \" and containing %q", err, tc.wantErr)
			}
			if w == nil {
				return
			}
			// A refused record leaves the files consistent.
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, _, err := readAll(s.Bytes(), d.Bytes(), shp.ReaderOptions{})
			if err != nil || len(got) != 0 {
				t.Errorf("after a refused record: read %d features, %v; want 0, nil", len(got), err)
			}
		})
	}
}

func TestWriterClosed(t *testing.T) {
	t.Parallel()
	var s, x, d shp.Buffer
	w, err := shp.NewWriter(&s, &x, &d, shp.Point, oneField, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(orb.Point{}, []string{""}); err == nil {
		t.Error("Write after Close succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	// An empty file is valid: header only, no records.
	got, _, err := readAll(s.Bytes(), d.Bytes(), shp.ReaderOptions{})
	if err != nil || len(got) != 0 || len(s.Bytes()) != 100 || len(x.Bytes()) != 100 {
		t.Errorf("empty file: %d features, %v, .shp %d bytes, .shx %d bytes", len(got), err, len(s.Bytes()), len(x.Bytes()))
	}
}

// TestWriterFile writes real files at an offset: Close patches the
// headers where the writer started.
func TestWriterFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var fs [3]*os.File
	for i, ext := range []string{".shp", ".shx", ".dbf"} {
		f, err := os.Create(filepath.Join(dir, "a"+ext))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fs[i] = f
	}
	w, err := shp.NewWriter(fs[0], fs[1], fs[2], shp.Polygon, oneField, shp.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(orb.Polygon{sq(0, 0, 1)}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := build(t, shp.Polygon, oneField, shp.WriterOptions{}, []record{{orb.Polygon{sq(0, 0, 1)}, []string{"a"}}})
	for i, b := range [][]byte{want.shp, want.shx, want.dbf} {
		got, err := os.ReadFile(fs[i].Name())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("%s differs from the in-memory output", fs[i].Name())
		}
	}
}
