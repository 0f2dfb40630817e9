package shp_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/paulmach/orb"
)

// readGeoJSON returns the geometries of a GeoJSON FeatureCollection, X and
// Y only (orb/geojson would add a dependency for a test fixture).
func readGeoJSON(t testing.TB, name string) []orb.Geometry {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Geometry *struct {
				Type        string          `json:"type"`
				Coordinates json.RawMessage `json:"coordinates"`
			} `json:"geometry"`
		} `json:"features"`
	}
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pt := func(c []float64) orb.Point { return orb.Point{c[0], c[1]} }
	line := func(cs [][]float64) []orb.Point {
		out := make([]orb.Point, len(cs))
		for i, c := range cs {
			out[i] = pt(c)
		}
		return out
	}
	poly := func(rs [][][]float64) orb.Polygon {
		out := make(orb.Polygon, len(rs))
		for i, r := range rs {
			out[i] = line(r)
		}
		return out
	}
	var out []orb.Geometry
	for i, f := range fc.Features {
		if f.Geometry == nil {
			out = append(out, nil)
			continue
		}
		raw := f.Geometry.Coordinates
		var err error
		switch f.Geometry.Type {
		case "Point":
			var c []float64
			err = json.Unmarshal(raw, &c)
			out = append(out, pt(c))
		case "LineString":
			var c [][]float64
			err = json.Unmarshal(raw, &c)
			out = append(out, orb.LineString(line(c)))
		case "MultiLineString":
			var c [][][]float64
			err = json.Unmarshal(raw, &c)
			mls := make(orb.MultiLineString, len(c))
			for j, l := range c {
				mls[j] = line(l)
			}
			out = append(out, mls)
		case "Polygon":
			var c [][][]float64
			err = json.Unmarshal(raw, &c)
			out = append(out, poly(c))
		case "MultiPolygon":
			var c [][][][]float64
			err = json.Unmarshal(raw, &c)
			mp := make(orb.MultiPolygon, len(c))
			for j, p := range c {
				mp[j] = poly(p)
			}
			out = append(out, mp)
		default:
			t.Fatalf("%s feature %d: geometry type %q", name, i, f.Geometry.Type)
		}
		if err != nil {
			t.Fatalf("%s feature %d: %v", name, i, err)
		}
	}
	return out
}
