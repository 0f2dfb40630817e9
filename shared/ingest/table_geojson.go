package ingest

import (
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
// oriented as package shp returns them.
func openGeoJSON(s Source, name string) *Table {
	opt := geojsonfc.Options{Types: geoJSONTypes, ClosedRings: true}
	if s.Features != nil {
		opt = *s.Features
	}
	rd := geojsonfc.NewReader(s.R, opt)
	norm := s.names()
	rw := &Row{idx: make(map[string]int)}
	next := func() (*Row, error) {
		f, err := rd.Next()
		if err == io.EOF {
			return nil, io.EOF
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
		if g := f.Geometry; g != nil && s.Geometry != nil {
			var why string
			if g, why = s.Geometry(g); why != "" {
				return nil, Errorf(name, rw.Line, "%s", why)
			}
			rw.Geom = g
		} else if g != nil {
			switch g := g.(type) {
			case orb.Polygon:
				OrientRings(g)
			case orb.MultiPolygon:
				for _, p := range g {
					OrientRings(p)
				}
			}
			if why := checkLngLat(g); why != "" {
				return nil, Errorf(name, rw.Line, "feature: %s", why)
			}
			rw.Geom = g
		}
		return rw, nil
	}
	return &Table{Name: name, Spatial: true, next: next}
}
