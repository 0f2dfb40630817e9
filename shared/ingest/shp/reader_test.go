package shp_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
)

// TestRoundTrip writes every supported shape type with the Writer and
// reads it back: X and Y survive exactly, Z and M are skipped, Null and
// empty shapes read as nil.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	point := orb.Point{382104.25, 5435210.5}
	multi := orb.MultiPoint{{1, 2}, {3.5, -4.25}, {1e6, 6e6}}
	line := orb.LineString{{0, 0}, {10, 5}, {20, 0}}
	lines := orb.MultiLineString{{{0, 0}, {1, 1}}, {{5, 5}, {6, 7}, {8, 9}}}
	poly := orb.Polygon{sq(0, 0, 10), cw(sq(2, 2, 3))}
	multiPoly := orb.MultiPolygon{{sq(0, 0, 10), cw(sq(2, 2, 3)), cw(sq(6, 6, 2))}, {sq(20, 0, 10)}}
	tests := []struct {
		types []shp.ShapeType
		geoms []orb.Geometry
	}{
		{[]shp.ShapeType{shp.Point, shp.PointZ, shp.PointM}, []orb.Geometry{point, nil, orb.Point{-1, -2}}},
		{[]shp.ShapeType{shp.MultiPoint, shp.MultiPointZ, shp.MultiPointM}, []orb.Geometry{multi, nil, orb.MultiPoint{{7, 8}}}},
		{[]shp.ShapeType{shp.PolyLine, shp.PolyLineZ, shp.PolyLineM}, []orb.Geometry{line, lines, nil}},
		{[]shp.ShapeType{shp.Polygon, shp.PolygonZ, shp.PolygonM}, []orb.Geometry{poly, nil, multiPoly, orb.Polygon{sq(-5, -5, 1)}}},
	}
	for _, tc := range tests {
		for _, st := range tc.types {
			t.Run(st.String(), func(t *testing.T) {
				t.Parallel()
				var recs []record
				for i, g := range tc.geoms {
					recs = append(recs, record{g, []string{fmt.Sprint("feature ", i+1)}})
				}
				f := build(t, st, oneField, shp.WriterOptions{}, recs)
				got, fields, err := readAll(f.shp, f.dbf, shp.ReaderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(oneField, fields); diff != "" {
					t.Errorf("Fields mismatch (-want +got):\n%s", diff)
				}
				if len(got) != len(recs) {
					t.Fatalf("read %d features, want %d", len(got), len(recs))
				}
				for i, f := range got {
					if f.Number != i+1 {
						t.Errorf("feature %d: Number = %d", i+1, f.Number)
					}
					if diff := cmp.Diff(recs[i].geom, f.Geometry); diff != "" {
						t.Errorf("feature %d geometry mismatch (-want +got):\n%s", i+1, diff)
					}
					if diff := cmp.Diff(recs[i].attrs, f.Attrs); diff != "" {
						t.Errorf("feature %d attrs mismatch (-want +got):\n%s", i+1, diff)
					}
				}
			})
		}
	}
}

// TestRoundTripOrientation writes polygons in either orientation: the
// files hold outer rings clockwise and holes counter-clockwise, and the
// reader returns outer rings counter-clockwise and holes clockwise.
func TestRoundTripOrientation(t *testing.T) {
	t.Parallel()
	want := orb.MultiPolygon{
		{sq(0, 0, 10), cw(sq(1, 1, 2)), cw(sq(5, 5, 2))},
		{sq(20, 0, 10), cw(sq(21, 1, 2))},
	}
	reversedInput := orb.MultiPolygon{
		{cw(sq(0, 0, 10)), sq(1, 1, 2), sq(5, 5, 2)},
		{cw(sq(20, 0, 10)), sq(21, 1, 2)},
	}
	for name, in := range map[string]orb.MultiPolygon{"orb orientation": want, "reversed": reversedInput} {
		f := build(t, shp.Polygon, oneField, shp.WriterOptions{}, []record{{in, []string{"x"}}})
		// In the file: 5 rings of 5 points after 44 + 5·4 bytes of header
		// and part indices, starting at byte 100 + 8 of the .shp.
		pts := f.shp[108+44+20:]
		for i := range 5 {
			r := make(orb.Ring, 5)
			for j := range r {
				o := 16 * (5*i + j)
				r[j] = orb.Point{float64At(pts, o), float64At(pts, o+8)}
			}
			wantOrient := orb.CCW
			if i == 0 || i == 3 {
				wantOrient = orb.CW
			}
			if got := r.Orientation(); got != wantOrient {
				t.Errorf("%s: ring %d in the file is %v, want %v", name, i, got, wantOrient)
			}
		}
		got, _, err := readAll(f.shp, f.dbf, shp.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(orb.Geometry(want), got[0].Geometry); diff != "" {
			t.Errorf("%s: geometry mismatch (-want +got):\n%s", name, diff)
		}
	}
}

func TestAttributes(t *testing.T) {
	t.Parallel()
	fields := []shp.Field{
		{Name: "NAME", Type: shp.Character, Length: 30},
		{Name: "TWP", Type: shp.Numeric, Length: 4},
		{Name: "AREA_HA", Type: shp.Numeric, Length: 12, Decimals: 3},
		{Name: "RATIO", Type: shp.Float, Length: 19, Decimals: 11},
		{Name: "SURVEYED", Type: shp.Date, Length: 8},
		{Name: "ACTIVE", Type: shp.Logical, Length: 1},
	}
	rows := [][]string{
		{"  Saint-Léon", "34", "64.750", "1.25e-3", "19110630", "T"},
		{"Rivière-Qui-Barre", "-1", "", "-0.5", "", ""},
		{"Île-à-la-Crosse € Œuvre", "", "0.001", "3", "20010102", "n"},
		{"", "9999", "12345678.123", "", "", "?"},
	}
	// What comes back: trailing blanks go, leading blanks of text stay, "?"
	// reads as "".
	want := [][]string{
		{"  Saint-Léon", "34", "64.750", "1.25e-3", "19110630", "T"},
		{"Rivière-Qui-Barre", "-1", "", "-0.5", "", ""},
		{"Île-à-la-Crosse € Œuvre", "", "0.001", "3", "20010102", "n"},
		{"", "9999", "12345678.123", "", "", ""},
	}
	tests := []struct {
		name string
		enc  shp.Encoding
		cpg  string
	}{
		{"UTF-8 detected", shp.UTF8, ""},
		{"UTF-8 by .cpg", shp.UTF8, "UTF-8"},
		{"Windows-1252 by language driver", shp.Windows1252, ""},
		{"Windows-1252 by .cpg", shp.Windows1252, "1252"},
		{"Latin-1 .cpg", shp.Windows1252, "ISO-8859-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var recs []record
			for i, row := range rows {
				recs = append(recs, record{orb.Point{float64(i), 0}, row})
			}
			f := build(t, shp.Point, fields, shp.WriterOptions{Encoding: tc.enc}, recs)
			if tc.enc == shp.Windows1252 && bytes.Contains(f.dbf, []byte("Léon")) {
				t.Fatalf("Windows-1252 file holds UTF-8 text")
			}
			got, gotFields, err := readAll(f.shp, f.dbf, shp.ReaderOptions{CPG: tc.cpg})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fields, gotFields); diff != "" {
				t.Errorf("Fields mismatch (-want +got):\n%s", diff)
			}
			var attrs [][]string
			for _, f := range got {
				attrs = append(attrs, f.Attrs)
			}
			if diff := cmp.Diff(want, attrs); diff != "" {
				t.Errorf("attributes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFeatureGet(t *testing.T) {
	t.Parallel()
	fields := []shp.Field{{Name: "Name", Type: shp.Character, Length: 8}, {Name: "TWP", Type: shp.Numeric, Length: 3}}
	f := build(t, shp.Point, fields, shp.WriterOptions{}, []record{{orb.Point{1, 1}, []string{"a", "12"}}})
	got, _, err := readAll(f.shp, f.dbf, shp.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		want   string
		wantOK bool
	}{
		{"NAME", "a", true},
		{"name", "a", true},
		{"Twp", "12", true},
		{"RGE", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		if v, ok := got[0].Get(tc.name); v != tc.want || ok != tc.wantOK {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", tc.name, v, ok, tc.want, tc.wantOK)
		}
	}
	if v, ok := (shp.Feature{}).Get("NAME"); v != "" || ok {
		t.Errorf("zero Feature Get = %q, %v; want \"\", false", v, ok)
	}
}

// TestDeleted marks the second .dbf record deleted: the reader skips the
// record in both files.
func TestDeleted(t *testing.T) {
	t.Parallel()
	f := build(t, shp.Point, oneField, shp.WriterOptions{}, []record{
		{orb.Point{1, 1}, []string{"one"}}, {orb.Point{2, 2}, []string{"two"}}, {orb.Point{3, 3}, []string{"three"}},
	})
	recLen := 1 + oneField[0].Length
	f.dbf[32+32+1+recLen] = '*'
	got, _, err := readAll(f.shp, f.dbf, shp.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []shp.Feature{
		{Number: 1, Geometry: orb.Point{1, 1}, Attrs: []string{"one"}},
		{Number: 3, Geometry: orb.Point{3, 3}, Attrs: []string{"three"}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(shp.Feature{})); diff != "" {
		t.Errorf("features mismatch (-want +got):\n%s", diff)
	}
}

func TestNoDBF(t *testing.T) {
	t.Parallel()
	f := build(t, shp.PolyLine, oneField, shp.WriterOptions{}, []record{{orb.LineString{{0, 0}, {1, 1}}, []string{"a"}}})
	got, fields, err := readAll(f.shp, nil, shp.ReaderOptions{})
	if err != nil || len(got) != 1 || got[0].Attrs != nil || fields != nil {
		t.Errorf("readAll without .dbf = %v, %v, %v; want one feature without attributes", got, fields, err)
	}
}

func TestReaderHeader(t *testing.T) {
	t.Parallel()
	f := build(t, shp.Polygon, oneField, shp.WriterOptions{}, []record{
		{orb.Polygon{sq(-3, 2, 1)}, []string{"a"}}, {nil, []string{"b"}}, {orb.Polygon{sq(10, 20, 5)}, []string{"c"}},
	})
	r, err := shp.NewReader(bytes.NewReader(f.shp), bytes.NewReader(f.dbf), shp.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.ShapeType(); got != shp.Polygon {
		t.Errorf("ShapeType() = %v, want Polygon", got)
	}
	if got, want := r.Bound(), (orb.Bound{Min: orb.Point{-3, 2}, Max: orb.Point{15, 25}}); got != want {
		t.Errorf("Bound() = %v, want %v", got, want)
	}
}

// TestGDAL reads shapefiles written by GDAL 3.6.2 (ogr2ogr) from the
// GeoJSON files beside them, an implementation independent of this
// package's Writer:
//
//	ogr2ogr -f "ESRI Shapefile" -a_srs EPSG:26913 parcels_utf8.shp parcels.geojson -lco ENCODING=UTF-8 -nln parcels_utf8
//	ogr2ogr ... parcels_latin1.shp parcels.geojson -lco ENCODING=ISO-8859-1
//	ogr2ogr ... parcels_m.shp parcels.geojson -lco SHPT=POLYGONM
//	ogr2ogr ... wells_z.shp wells.geojson                 (PointZ with M)
//	ogr2ogr ... wells_zm.shp wells.geojson -lco SHPT=POINTZM
//	ogr2ogr ... lines.shp lines.geojson
//	ogr2ogr ... lines_z.shp lines.geojson -lco SHPT=ARCZ
func TestGDAL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		shp, source string
		shapeType   shp.ShapeType
	}{
		{shp: "parcels_utf8", source: "parcels", shapeType: shp.Polygon},
		{shp: "parcels_latin1", source: "parcels", shapeType: shp.Polygon},
		{shp: "parcels_m", source: "parcels", shapeType: shp.PolygonM},
		{shp: "wells_z", source: "wells", shapeType: shp.PointZ},
		{shp: "wells_zm", source: "wells", shapeType: shp.PointZ},
		{shp: "lines", source: "lines", shapeType: shp.PolyLine},
		{shp: "lines_z", source: "lines", shapeType: shp.PolyLineZ},
	}
	parcelAttrs := [][]string{
		{"NW-12-34-5-W3", "34", "64.750000000000000", "19110630", "Saint-Léon"},
		{"SE-1-1-1-W2 with slough", "1", "60.100000000000001", "", "Rivière-Qui-Barre"},
		{"split quarter", "2", "", "20010102", "Île-à-la-Crosse"},
		{"no geometry", "3", "0.500000000000000", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.shp, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", "gdal")
			shpData := mustRead(t, filepath.Join(dir, tc.shp+".shp"))
			dbfData := mustRead(t, filepath.Join(dir, tc.shp+".dbf"))
			cpg, _ := os.ReadFile(filepath.Join(dir, tc.shp+".cpg"))
			source := readGeoJSON(t, filepath.Join(dir, tc.source+".geojson"))
			r, err := shp.NewReader(bytes.NewReader(shpData), bytes.NewReader(dbfData), shp.ReaderOptions{CPG: string(cpg)})
			if err != nil {
				t.Fatal(err)
			}
			if r.ShapeType() != tc.shapeType {
				t.Errorf("ShapeType() = %v, want %v", r.ShapeType(), tc.shapeType)
			}
			got, _, err := readAll(shpData, dbfData, shp.ReaderOptions{CPG: string(cpg)})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(source) {
				t.Fatalf("read %d features, want %d", len(got), len(source))
			}
			for i, f := range got {
				if diff := cmp.Diff(source[i], f.Geometry); diff != "" {
					t.Errorf("feature %d geometry mismatch (-want +got):\n%s", i+1, diff)
				}
				if tc.source == "parcels" {
					if diff := cmp.Diff(parcelAttrs[i], f.Attrs); diff != "" {
						t.Errorf("feature %d attributes mismatch (-want +got):\n%s", i+1, diff)
					}
				}
			}
		})
	}
}

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
