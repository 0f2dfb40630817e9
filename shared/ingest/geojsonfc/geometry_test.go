package geojsonfc_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/ingest/geojsonfc"
)

// TestEveryType reads a pretty-printed collection, its members out of
// order, with a feature of each geometry type.
func TestEveryType(t *testing.T) {
	t.Parallel()
	got, err := readAll(testdata(t, "every_type.geojson"), geojsonfc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []geojsonfc.Feature{
		{Number: 1, Line: 3, Properties: []geojsonfc.Property{str("name", "point"), {Name: "z", Kind: geojsonfc.NumberValue, Value: "3"}},
			Geometry: orb.Point{-110.5, 50.25}},
		{Number: 2, Line: 9, Properties: []geojsonfc.Property{}, Geometry: orb.MultiPoint{{-110, 50}, {-109, 51}}},
		{Number: 3, Line: 14, Properties: []geojsonfc.Property{str("name", "line")},
			Geometry: orb.LineString{{-110, 50}, {-109, 51}, {-108, 50}}},
		{Number: 4, Line: 16, Properties: []geojsonfc.Property{str("name", "lines")},
			Geometry: orb.MultiLineString{{{-110, 50}, {-109, 51}}, {{-108, 50}, {-107, 51}}}},
		{Number: 5, Line: 18, Properties: []geojsonfc.Property{str("name", "polygon with a hole")},
			Geometry: orb.Polygon{
				{{-110, 50}, {-109, 50}, {-109, 51}, {-110, 51}, {-110, 50}},
				{{-109.6, 50.4}, {-109.6, 50.6}, {-109.4, 50.6}, {-109.4, 50.4}, {-109.6, 50.4}}}},
		{Number: 6, Line: 22, Properties: []geojsonfc.Property{str("name", "polygons")},
			Geometry: orb.MultiPolygon{{{{-110, 50}, {-109, 50}, {-109, 51}, {-110, 50}}}, {{{-108, 50}, {-107, 50}, {-107, 51}, {-108, 50}}}}},
		{Number: 7, Line: 26, Properties: []geojsonfc.Property{str("name", "none")}},
		{Number: 8, Line: 27, Properties: []geojsonfc.Property{str("name", "absent")}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("features (-want +got):\n%s", d)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	open := `{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1]]]}}]}`
	got, err := readAll(open, geojsonfc.Options{})
	if err != nil || len(got) != 1 || len(got[0].Geometry.(orb.Polygon)[0]) != 3 {
		t.Errorf("open ring without ClosedRings: %+v, %v; want the ring as written", got, err)
	}
	_, err = readAll(open, geojsonfc.Options{ClosedRings: true})
	wantError(t, err, 1, 1, "ring 0 is not closed with 4 positions or more")
	_, err = readAll(strings.Replace(open, `[1, 1]]`, `[1, 1], [0, 0.5]]`, 1), geojsonfc.Options{ClosedRings: true})
	wantError(t, err, 1, 1, "ring 0 is not closed")

	_, err = readAll(open, geojsonfc.Options{Types: []string{"LineString", "MultiLineString"}})
	wantError(t, err, 1, 1, `geometry: type "Polygon": want LineString or MultiLineString`)
	_, err = readAll(open, geojsonfc.Options{Types: []string{"Point", "LineString", "Polygon"}})
	if err != nil {
		t.Errorf("Polygon among the types: %v", err)
	}
}
