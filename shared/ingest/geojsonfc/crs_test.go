package geojsonfc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/geojsonfc"
)

func TestCRS(t *testing.T) {
	t.Parallel()
	read := func(crs, coords string) (orb.Point, error) {
		in := `{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "` + crs + `"}},
			"features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": ` + coords + `}}]}`
		fs, err := readAll(in, geojsonfc.Options{})
		if err != nil {
			return orb.Point{}, err
		}
		return fs[0].Geometry.(orb.Point), nil
	}
	near := func(a, b orb.Point) bool { return math.Abs(a[0]-b[0]) < 1e-6 && math.Abs(a[1]-b[1]) < 1e-6 }
	for _, tc := range []struct {
		crs, coords string
		want        orb.Point
	}{
		{"", "[-110, 50]", orb.Point{-110, 50}},
		{"urn:ogc:def:crs:OGC:1.3:CRS84", "[-110, 50]", orb.Point{-110, 50}},
		{"EPSG:4326", "[-110, 50]", orb.Point{-110, 50}},
		{"urn:ogc:def:crs:EPSG::4269", "[-110, 50]", orb.Point{-110, 50}},
		{"EPSG:4617", "[-110, 50]", orb.Point{-110, 50}},
		{"EPSG:3857", "[0, 0]", orb.Point{0, 0}},
		{"EPSG:900913", "[0, 0]", orb.Point{0, 0}},
		{"urn:ogc:def:crs:EPSG::26912", "[500000, 0]", orb.Point{-111, 0}},
		{"epsg:32612", "[500000, 0]", orb.Point{-111, 0}},
	} {
		got, err := read(tc.crs, tc.coords)
		if err != nil || !near(got, tc.want) {
			t.Errorf("crs %q, %s: %v, %v; want %v", tc.crs, tc.coords, got, err, tc.want)
		}
	}
	_, err := read("EPSG:2154", "[0, 0]")
	wantError(t, err, 1, 0, `crs "EPSG:2154": proj: unsupported`)
	_, err = read("NAD83", "[0, 0]")
	wantError(t, err, 1, 0, "want an EPSG code such as EPSG:4326")
	_, err = read("EPSG:3857", "[1e300, 0]")
	wantError(t, err, 2, 1, "out of domain")

	// After the features a crs may only confirm longitude, latitude.
	after := `{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": null}], "crs": {"properties": {"name": "%"}}}`
	if _, err := readAll(strings.Replace(after, "%", "EPSG:4269", 1), geojsonfc.Options{}); err != nil {
		t.Errorf("a NAD83 crs after the features: %v", err)
	}
	_, err = readAll(strings.Replace(after, "%", "EPSG:3857", 1), geojsonfc.Options{})
	wantError(t, err, 1, 0, "crs member after the features")
}
