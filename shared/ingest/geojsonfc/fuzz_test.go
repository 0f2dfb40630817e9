package geojsonfc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/geojsonfc"
)

// FuzzReader reads arbitrary bytes with options chosen by opts and checks
// that the reader never panics; that every error is an *Error with a line
// and a reason; that features come numbered and lined in order, with
// finite geometries of the allowed types and closed rings when asked for;
// and, for a collection read to the end, that encoding/json agrees: the
// input is JSON, with as many features and the same properties (and the
// same Point coordinates when there is no crs). Seeds are the testdata
// files (from the ingest, energy and ag tests) and the error tests.
//
//	go test ./shared/ingest/geojsonfc -run='^$' -fuzz=FuzzReader -fuzztime=30s
func FuzzReader(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.geojson"))
	if err != nil {
		f.Fatal(err)
	}
	for i, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
	}
	for i, tc := range errorTests {
		f.Add(uint8(i), []byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, opts uint8, in []byte) {
		o := geojsonfc.Options{ClosedRings: opts&1 != 0}
		switch opts >> 1 & 3 {
		case 1:
			o.Types = []string{"Polygon", "MultiPolygon"}
		case 2:
			o.Types = []string{"Point", "LineString", "MultiLineString"}
		}
		rd := geojsonfc.NewReader(bytes.NewReader(in), o)
		var props [][]geojsonfc.Property
		var geoms []orb.Geometry
		line := 1
		err := each(rd, func(f *geojsonfc.Feature) {
			if f.Number != len(props)+1 || f.Line < line {
				t.Fatalf("feature %d at line %d after %d features at line %d", f.Number, f.Line, len(props), line)
			}
			line = f.Line
			checkGeometry(t, f.Geometry, o)
			props = append(props, slices.Clone(f.Properties))
			geoms = append(geoms, f.Geometry)
		})
		if err != nil {
			var e *geojsonfc.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Line < line || e.Reason == "" || (e.Feature != 0 && e.Feature != len(props)+1) {
				t.Fatalf("error %+v after %d features at line %d", e, len(props), line)
			}
			return
		}
		agree(t, in, props, geoms)
	})
}

// checkGeometry fails unless g is nil or of a type opts allow, with finite
// coordinates and, if opts say so, closed rings of 4 positions or more.
func checkGeometry(t *testing.T, g orb.Geometry, opts geojsonfc.Options) {
	t.Helper()
	if g == nil {
		return
	}
	if len(opts.Types) > 0 && !slices.Contains(opts.Types, g.GeoJSONType()) {
		t.Fatalf("geometry %s, want one of %v", g.GeoJSONType(), opts.Types)
	}
	var rings []orb.Ring
	switch g := g.(type) {
	case orb.Polygon:
		rings = g
	case orb.MultiPolygon:
		for _, p := range g {
			rings = append(rings, p...)
		}
	}
	for _, r := range rings {
		if opts.ClosedRings && (len(r) < 4 || r[0] != r[len(r)-1]) {
			t.Fatalf("ring %v is not closed", r)
		}
	}
	b := g.Bound()
	for _, v := range []float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("geometry %v is not finite", g)
		}
	}
}

// agree fails unless encoding/json reads in, a collection the reader read
// to the end, as the same features.
func agree(t *testing.T, in []byte, props [][]geojsonfc.Property, geoms []orb.Geometry) {
	t.Helper()
	if !json.Valid(in) {
		t.Fatalf("read to the end input that is not JSON")
	}
	var top map[string]json.RawMessage
	var features []map[string]json.RawMessage
	if err := json.Unmarshal(in, &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(top["features"], &features); err != nil {
		t.Fatal(err)
	}
	if len(features) != len(props) {
		t.Fatalf("%d features, encoding/json reads %d", len(props), len(features))
	}
	for i, raw := range features {
		var want map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw["properties"]))
		dec.UseNumber()
		if len(raw["properties"]) > 0 {
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
		}
		got := map[string]geojsonfc.Property{}
		for _, p := range props[i] {
			got[p.Name] = p // the last of a repeated name wins, as in encoding/json
		}
		if len(got) != len(want) {
			t.Fatalf("feature %d: %d properties, encoding/json reads %d", i+1, len(got), len(want))
		}
		for name, w := range want {
			if p, ok := got[name]; !ok || !sameValue(p, w) {
				t.Fatalf("feature %d: property %q = %+v, encoding/json reads %#v", i+1, name, p, w)
			}
		}
		pt, isPoint := geoms[i].(orb.Point)
		var c struct{ Coordinates []float64 }
		if _, crs := top["crs"]; isPoint && !crs && json.Unmarshal(raw["geometry"], &c) == nil && (orb.Point{c.Coordinates[0], c.Coordinates[1]}) != pt {
			t.Fatalf("feature %d: point %v, encoding/json reads %v", i+1, pt, c.Coordinates)
		}
	}
}

func sameValue(p geojsonfc.Property, v any) bool {
	switch v := v.(type) {
	case nil:
		return p.Kind == geojsonfc.NullValue && p.Value == ""
	case string:
		return p.Kind == geojsonfc.StringValue && p.Value == v
	case json.Number:
		return p.Kind == geojsonfc.NumberValue && p.Value == v.String()
	case bool:
		return p.Kind == geojsonfc.BoolValue && p.Value == map[bool]string{true: "true", false: "false"}[v]
	case map[string]any:
		return p.Kind == geojsonfc.ObjectValue && json.Valid([]byte(p.Value))
	case []any:
		return p.Kind == geojsonfc.ArrayValue && json.Valid([]byte(p.Value))
	}
	return false
}
