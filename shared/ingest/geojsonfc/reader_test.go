package geojsonfc_test

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"
	"meridian/shared/ingest/geojsonfc"
)

// each calls fn for every feature rd reads and returns the error that
// stops it, nil at the end of the collection.
func each(rd *geojsonfc.Reader, fn func(*geojsonfc.Feature)) error {
	for {
		f, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		fn(f)
	}
}

// readAll reads every feature of in, copying each (the Reader reuses them).
func readAll(in string, opts geojsonfc.Options) ([]geojsonfc.Feature, error) {
	var out []geojsonfc.Feature
	err := each(geojsonfc.NewReader(strings.NewReader(in), opts), func(f *geojsonfc.Feature) {
		c := *f
		c.Properties = slices.Clone(f.Properties)
		out = append(out, c)
	})
	return out, err
}

func testdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantError checks that err is an *Error at line, in feature, whose reason
// has want in it.
func wantError(t *testing.T, err error, line, feature int, want string) {
	t.Helper()
	var e *geojsonfc.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *geojsonfc.Error", err, err)
	}
	if e.Line != line || e.Feature != feature || !strings.Contains(e.Reason, want) {
		t.Errorf("error %+v, want line %d, feature %d, a reason with %q", e, line, feature, want)
	}
}

func str(name, v string) geojsonfc.Property {
	return geojsonfc.Property{Name: name, Kind: geojsonfc.StringValue, Value: v}
}

// TestMemberOrder reads the same features whatever the order of the
// top-level members.
func TestMemberOrder(t *testing.T) {
	t.Parallel()
	const (
		typ      = `"type": "FeatureCollection"`
		features = `"features": [{"type": "Feature", "properties": {"a": 1}, "geometry": {"type": "Point", "coordinates": [0.5, 1]}}]`
		crs      = `"crs": {"type": "name", "properties": {"name": "EPSG:4326"}}`
		other    = `"name": {"features": [1, 2], "type": "x", "crs": null}, "bbox": [0, 0, 1, 1]`
	)
	orders := [][]string{
		{typ, features},
		{features, typ},
		{crs, features, typ},
		{features, crs, typ},
		{features, typ, crs, other},
		{other, features, other, typ},
		{typ, other, crs, features},
	}
	for _, members := range orders {
		in := "{" + strings.Join(members, ",\n") + "}"
		got, err := readAll(in, geojsonfc.Options{})
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if len(got) != 1 || got[0].Geometry != (orb.Point{0.5, 1}) || got[0].Properties[0].Value != "1" {
			t.Errorf("%s: features %+v", in, got)
		}
	}
}

func TestProperties(t *testing.T) {
	t.Parallel()
	in := `{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {
		"text": " a\tb ", "escaped": "caf\u00e9 \"quoted\" \\ \/ \ud83d\ude00", "empty": "", "int": 42, "float": -1.5e-3,
		"yes": true, "no": false, "null": null, "object": {"k": [1, "}"]}, "array": [1, 2],
		"DUP": 1, "DUP": 2, "na\u006de": "escaped name", "bad utf-8": "` + "\xff" + `"}}]}`
	got, err := readAll(in, geojsonfc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []geojsonfc.Property{
		str("text", " a\tb "),
		str("escaped", "café \"quoted\" \\ / 😀"),
		str("empty", ""),
		{Name: "int", Kind: geojsonfc.NumberValue, Value: "42"},
		{Name: "float", Kind: geojsonfc.NumberValue, Value: "-1.5e-3"},
		{Name: "yes", Kind: geojsonfc.BoolValue, Value: "true"},
		{Name: "no", Kind: geojsonfc.BoolValue, Value: "false"},
		{Name: "null", Kind: geojsonfc.NullValue},
		{Name: "object", Kind: geojsonfc.ObjectValue, Value: `{"k": [1, "}"]}`},
		{Name: "array", Kind: geojsonfc.ArrayValue, Value: `[1, 2]`},
		{Name: "DUP", Kind: geojsonfc.NumberValue, Value: "1"},
		{Name: "DUP", Kind: geojsonfc.NumberValue, Value: "2"},
		str("name", "escaped name"),
		str("bad utf-8", "\ufffd"),
	}
	if d := cmp.Diff(want, got[0].Properties); d != "" {
		t.Errorf("properties (-want +got):\n%s", d)
	}
}

func fc(features ...string) string {
	return "{\"type\": \"FeatureCollection\",\n\"features\": [\n" + strings.Join(features, ",\n") + "\n]}\n"
}

func point(coords string) string {
	return `{"type": "Feature", "geometry": {"type": "Point", "coordinates": ` + coords + `}}`
}

func poly(coords string) string {
	return `{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": ` + coords + `}}`
}

var okPoint = point("[1, 2]")

// errorTests are errors in the structure of the file (feature 0) and in
// features, with their lines.
var errorTests = []struct {
	name, in      string
	line, feature int
	want          string
}{
	{"empty", "", 1, 0, "unexpected end of file: truncated GeoJSON"},
	{"blank", "\n\n", 3, 0, "unexpected end of file"},
	{"array", "[]", 1, 0, "not a GeoJSON object"},
	{"feature", `{"type": "Feature", "properties": {}}`, 1, 0, `type "Feature": want a FeatureCollection`},
	{"type not a string", `{"type": 5}`, 1, 0, "type 5: want a FeatureCollection"},
	{"no features", `{"type": "FeatureCollection"}`, 1, 0, "no features member"},
	{"null features", `{"type": "FeatureCollection", "features": null}`, 1, 0, "features is not an array"},
	{"features object", `{"type": "FeatureCollection", "features": {}}`, 1, 0, "features is not an array"},
	{"features twice", `{"type": "FeatureCollection", "features": [], "features": []}`, 1, 0, "features member appears twice"},
	{"no type", "{\"features\": [\n]}", 2, 0, `no "type": "FeatureCollection" member`},
	{"data after", fc(okPoint) + "{}", 5, 0, "data after the FeatureCollection"},
	{"syntax in a feature", "{\"type\": \"FeatureCollection\",\n\"features\": [\n{\"type\": \"Feature\",\n\"properties\": {\"a\": 1,}}]}", 4, 0, "not JSON: invalid character '}'"},
	{"syntax between members", "{\"type\": \"FeatureCollection\"\n\"features\": []}", 2, 0, "not JSON"},
	{"truncated", fc(okPoint, okPoint)[:130], 4, 0, "truncated"},
	{"crs not an object", `{"crs": "EPSG:4326"}`, 1, 0, "crs: string where"},
	{"not an object", fc(okPoint, "[1]"), 4, 2, "feature: not a GeoJSON Feature object (array)"},
	{"not a Feature", fc(okPoint, `{"type": "Point", "coordinates": [1, 2]}`), 4, 2, `feature: "type" is "Point": want "type": "Feature"`},
	{"no type member", fc(`{"geometry": null}`), 3, 1, `feature: no "type": "Feature" member`},
	{"properties array", fc(`{"type": "Feature", "properties": [1]}`), 3, 1, "feature: properties is not an object"},
	{"geometry not an object", fc(`{"type": "Feature", "geometry": "POINT (1 2)"}`), 3, 1, "geometry: not a GeoJSON geometry object (string)"},
	{"geometry without type", fc(`{"type": "Feature", "geometry": {"coordinates": [1, 2]}}`), 3, 1, `geometry: type "": want Point, MultiPoint`},
	{"geometry collection", fc(`{"type": "Feature", "geometry": {"type": "GeometryCollection", "geometries": []}}`), 3, 1, `type "GeometryCollection"`},
	{"no coordinates", fc(`{"type": "Feature", "geometry": {"type": "Point"}}`), 3, 1, "Point without coordinates"},
	{"null coordinates", fc(point("null")), 3, 1, "Point without coordinates"},
	{"short position", fc(point("[1]")), 3, 1, "position with 1 numbers, want 2 or more"},
	{"string coordinate", fc(point(`[1, "2"]`)), 3, 1, `coordinate "2" is not a number`},
	{"null coordinate", fc(point(`[1, null]`)), 3, 1, "coordinate null is not a number"},
	{"z not a number", fc(point(`[1, 2, true]`)), 3, 1, "coordinate true is not a number"},
	{"huge coordinate", fc(point(`[1e400, 2]`)), 3, 1, "coordinate 1e400 is not a finite number"},
	{"huge negative", fc(point(`[1, -1E+309]`)), 3, 1, "coordinate -1E+309 is not a finite number"},
	{"point nesting", fc(point(`[[1, 2]]`)), 3, 1, "Point coordinates are not a position"},
	{"line nesting", fc(`{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [1, 2]}}`), 3, 1, "LineString coordinates are not an array of positions"},
	{"short line", fc(`{"type": "Feature", "geometry": {"type": "MultiLineString", "coordinates": [[[1, 2], [3, 4]], [[1, 2]]]}}`), 3, 1, "line with 1 positions, want 2 or more"},
	{"polygon nesting", fc(poly(`[[1, 2], [3, 4]]`)), 3, 1, "Polygon coordinates are not an array of rings"},
	{"multipolygon nesting", fc(`{"type": "Feature", "geometry": {"type": "MultiPolygon", "coordinates": [[[1, 2]]]}}`), 3, 1, "MultiPolygon coordinates are not an array of polygons"},
	{"no rings", fc(poly(`[]`)), 3, 1, "polygon without rings"},
}

func TestErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range errorTests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(tc.in, geojsonfc.Options{})
			wantError(t, err, tc.line, tc.feature, tc.want)
		})
	}
}

// TestReadError checks that an error of the underlying reader is reported,
// and that it and io.EOF are returned again by later calls.
func TestReadError(t *testing.T) {
	t.Parallel()
	in := "{\"type\": \"FeatureCollection\",\n\"features\": ["
	rd := geojsonfc.NewReader(io.MultiReader(strings.NewReader(in), iotest.ErrReader(errors.New("disk on fire"))), geojsonfc.Options{})
	_, err := rd.Next()
	wantError(t, err, 2, 0, "read: disk on fire")
	if _, again := rd.Next(); again != err {
		t.Errorf("second Next: %v, want the first error again", again)
	}
	rd = geojsonfc.NewReader(strings.NewReader(`{"type": "FeatureCollection", "features": []}`), geojsonfc.Options{})
	for range 2 {
		if f, err := rd.Next(); f != nil || err != io.EOF {
			t.Errorf("Next of an empty collection: %v, %v; want io.EOF", f, err)
		}
	}
}

// collection is a FeatureCollection of n polygon features, one a line,
// written as it is read: a large file that is never in memory.
type collection struct {
	n, i    int
	started bool
	buf     []byte
	next    []byte
}

func (c *collection) Read(p []byte) (int, error) {
	for len(c.next) == 0 {
		switch {
		case !c.started:
			c.buf, c.started = append(c.buf[:0], `{"type": "FeatureCollection", "features": [`...), true
		case c.i < c.n:
			c.i++
			c.buf = append(c.buf[:0], "\n{\"type\": \"Feature\", \"properties\": {\"id\": "...)
			c.buf = strconv.AppendInt(c.buf, int64(c.i), 10)
			c.buf = append(c.buf, `, "name": "lot`...)
			c.buf = strconv.AppendInt(c.buf, int64(c.i), 10)
			c.buf = append(c.buf, `", "area": 64.75}, "geometry": {"type": "Polygon", "coordinates": [[[-110, 50], [-109.99, 50], [-109.99, 50.01], [-110, 50]]]}}`...)
			if c.i < c.n {
				c.buf = append(c.buf, ',')
			}
		case c.i == c.n:
			c.i++
			c.buf = append(c.buf[:0], "\n]}\n"...)
		default:
			return 0, io.EOF
		}
		c.next = c.buf
	}
	k := copy(p, c.next)
	c.next = c.next[k:]
	return k, nil
}

// TestAllocsPerFeature bounds the allocations of one feature in a long
// stream: its three property values, the ring, the polygon and the
// geometry's interface value, and nothing that grows with the stream.
func TestAllocsPerFeature(t *testing.T) {
	rd := geojsonfc.NewReader(&collection{n: math.MaxInt}, geojsonfc.Options{})
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(10_000, func() {
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 6 {
		t.Errorf("%.1f allocations a feature, want 6 or fewer", allocs)
	}
}
