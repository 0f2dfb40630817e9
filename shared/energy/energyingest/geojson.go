package energyingest

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/geojsonfc"
)

// feature is one member of a FeatureCollection's features array.
type feature struct {
	line int          // line of its opening brace
	row  *ingest.Row  // values as trimmed text (numbers as written, null as ""), by upper-cased key
	geom orb.Geometry // nil for a null geometry
}

func (f *feature) get(names ...string) string { return f.row.Get(names...) }

func (f *feature) has(name string) bool { return f.row.Has(name) }

// upperName is how readFeatures names properties: trimmed, upper case.
func upperName(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// readFeatures streams the features of a GeoJSON FeatureCollection to fn,
// one at a time (an ingest.Table over package geojsonfc, which converts
// the coordinates of a legacy "crs" member to longitude, latitude).
// Geometries must be one of kinds (or null), property values text,
// numbers, booleans or null, each property given once. The feature is
// reused for the next one.
func readFeatures(r io.Reader, file string, kinds []string, fn func(*feature) error) error {
	t, err := ingest.Source{
		Name: file, Format: ingest.GeoJSON, R: r,
		Names: upperName, Features: &geojsonfc.Options{Types: kinds}, ScalarProperties: true,
		Geometry: func(g orb.Geometry) (orb.Geometry, string) {
			if err := checkLngLat(g); err != nil {
				return g, "feature: geometry: " + err.Error()
			}
			return g, ""
		},
	}.Open()
	if err != nil {
		return err
	}
	f := new(feature)
	return t.Each(func(r *ingest.Row) error {
		f.line, f.row, f.geom = r.Line, r, r.Geom
		return fn(f)
	})
}

// checkLngLat refuses coordinates outside longitude/latitude ranges (a
// projected file such as AER's 10TM variant) and empty parts.
func checkLngLat(g orb.Geometry) error {
	var bad error
	check := func(ps []orb.Point, min int) {
		if len(ps) < min && bad == nil {
			bad = fmt.Errorf("a line or ring with %d points (want %d or more)", len(ps), min)
		}
		for _, p := range ps {
			if !(p[0] >= -180 && p[0] <= 180 && p[1] >= -90 && p[1] <= 90) && bad == nil {
				bad = fmt.Errorf("coordinate %v is not longitude, latitude (a projected file?)", p)
			}
		}
	}
	switch g := g.(type) {
	case orb.LineString:
		check(g, 2)
	case orb.MultiLineString:
		if len(g) == 0 {
			return errors.New("a MultiLineString without lines")
		}
		for _, l := range g {
			check(l, 2)
		}
	case orb.Polygon:
		if len(g) == 0 {
			return errors.New("a Polygon without rings")
		}
		for _, r := range g {
			check(r, 4)
		}
	case orb.MultiPolygon:
		if len(g) == 0 {
			return errors.New("a MultiPolygon without polygons")
		}
		for _, p := range g {
			if len(p) == 0 {
				return errors.New("a polygon without rings")
			}
			for _, r := range p {
				check(r, 4)
			}
		}
	case orb.Point:
		check([]orb.Point{g}, 1)
	}
	return bad
}
