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
	line  int               // line of its opening brace
	props map[string]string // values as text (numbers as written, null as ""), keys upper-cased
	geom  orb.Geometry      // nil for a null geometry
}

func (f *feature) get(names ...string) string {
	for _, n := range names {
		if v, ok := f.props[n]; ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func (f *feature) has(name string) bool {
	_, ok := f.props[name]
	return ok
}

// readFeatures streams the features of a GeoJSON FeatureCollection to fn,
// one at a time (see package geojsonfc, which converts the coordinates of a
// legacy "crs" member to longitude, latitude). Geometries must be one of
// kinds (or null), property values text, numbers, booleans or null. The
// feature is reused for the next one.
func readFeatures(r io.Reader, file string, kinds []string, fn func(*feature) error) error {
	rd := geojsonfc.NewReader(r, geojsonfc.Options{Types: kinds})
	f := &feature{props: make(map[string]string)}
	for {
		gf, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			ge := err.(*geojsonfc.Error) // as every error of Next but io.EOF
			return ingest.Errorf(file, ge.Line, "%s", ge.Reason)
		}
		clear(f.props)
		for _, p := range gf.Properties {
			if p.Kind == geojsonfc.ObjectValue || p.Kind == geojsonfc.ArrayValue {
				return ingest.Errorf(file, gf.Line, "feature: property %q: an object or array where text or a number was expected", p.Name)
			}
			f.props[strings.ToUpper(strings.TrimSpace(p.Name))] = p.Value
		}
		if gf.Geometry != nil {
			if err := checkLngLat(gf.Geometry); err != nil {
				return ingest.Errorf(file, gf.Line, "feature: geometry: %v", err)
			}
		}
		f.line, f.geom = gf.Line, gf.Geometry
		if err := fn(f); err != nil {
			return err
		}
	}
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
