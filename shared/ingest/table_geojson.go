package ingest

import (
	"bufio"
	"io"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/geojsonfc"
)

// geoJSONTypes are the geometry types a GeoJSON feature may have.
var geoJSONTypes = []string{"Point", "LineString", "MultiLineString", "Polygon", "MultiPolygon"}

// openGeoJSON returns the table of a FeatureCollection, read a feature at
// a time by package geojsonfc (which converts the coordinates of a legacy
// "crs" member): properties as trimmed text (numbers as written, null as
// "", arrays and objects as JSON), by Key(name); polygon rings closed,
// oriented as package shp returns them. Unless Source.Strict, an open
// ring is closed, and a feature whose geometry is invalid after that (a
// ring of fewer than 4 positions, a point far outside longitude and
// latitude) is skipped with a notice naming it; coordinates within 1e-6°
// outside the range are float noise, moved onto it.
func openGeoJSON(s Source, name string) *Table {
	lenient := !s.Strict && s.Geometry == nil
	opt := geojsonfc.Options{Types: geoJSONTypes, ClosedRings: !lenient}
	if s.Features != nil {
		opt = *s.Features
	}
	// A UTF-8 byte order mark, as some Windows tools write one, is not
	// JSON: skip it.
	br := bufio.NewReaderSize(s.R, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	rd := geojsonfc.NewReader(br, opt)
	norm := s.names()
	rw := &Row{idx: make(map[string]int)}
	var bad skippedFeatures
	next := func() (*Row, error) {
		for {
			f, err := rd.Next()
			if err == io.EOF {
				return nil, bad.end()
			}
			if err != nil {
				ge := err.(*geojsonfc.Error) // as every error of Next but io.EOF
				if s.FeatureNumbers {
					return nil, Errorf(name, ge.Feature, "%s", ge.Reason)
				}
				return nil, Errorf(name, ge.Line, "%s", ge.Reason)
			}
			clear(rw.idx)
			rw.Line, rw.vals, rw.Geom = f.Line, rw.vals[:0], nil
			if s.FeatureNumbers {
				rw.Line = f.Number
			}
			for _, p := range f.Properties {
				if s.ScalarProperties && (p.Kind == geojsonfc.ObjectValue || p.Kind == geojsonfc.ArrayValue) {
					return nil, Errorf(name, rw.Line, "feature: property %q: an object or array where text or a number was expected", p.Name)
				}
				k := norm(p.Name)
				if _, dup := rw.idx[k]; dup {
					return nil, Errorf(name, rw.Line, "feature: property %s appears twice", k)
				}
				rw.idx[k] = len(rw.vals)
				rw.vals = append(rw.vals, strings.TrimSpace(p.Value))
			}
			g := f.Geometry
			if g == nil {
				bad.good = true
				return rw, nil
			}
			g = clampLngLat(g)
			if s.Geometry != nil {
				var why string
				if g, why = s.Geometry(g); why != "" {
					return nil, Errorf(name, rw.Line, "%s", why)
				}
				rw.Geom, bad.good = g, true
				return rw, nil
			}
			why := ""
			if lenient {
				g, why = closeRings(g)
			}
			if why == "" {
				switch g := g.(type) {
				case orb.Polygon:
					OrientRings(g)
				case orb.MultiPolygon:
					for _, p := range g {
						OrientRings(p)
					}
				}
				why = checkLngLat(g)
			}
			if why == "" {
				rw.Geom, bad.good = g, true
				return rw, nil
			}
			e := Errorf(name, rw.Line, "feature: %s", why)
			if !lenient {
				return nil, e
			}
			bad.skip(s.Notices, e, f.Number)
		}
	}
	return &Table{Name: name, Spatial: true, next: next}
}
