package agingest

import (
	"io"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/geojsonfc"
)

// geoJSONTypes are the geometry types a GeoJSON feature may have.
var geoJSONTypes = []string{"Point", "LineString", "MultiLineString", "Polygon", "MultiPolygon"}

// openGeoJSON returns the table of a FeatureCollection, read a feature at
// a time by package geojsonfc (which converts the coordinates of a legacy
// "crs" member): properties as trimmed text (numbers as written, null as
// "", arrays and objects as JSON), by key(name); polygon rings closed,
// oriented as package shp returns them.
func openGeoJSON(r io.Reader, name string) *table {
	rd := geojsonfc.NewReader(r, geojsonfc.Options{Types: geoJSONTypes, ClosedRings: true})
	rw := &row{idx: make(map[string]int)}
	next := func() (*row, error) {
		f, err := rd.Next()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			ge := err.(*geojsonfc.Error) // as every error of Next but io.EOF
			return nil, ingest.Errorf(name, ge.Line, "%s", ge.Reason)
		}
		clear(rw.idx)
		rw.line, rw.vals, rw.geom = f.Line, rw.vals[:0], nil
		for _, p := range f.Properties {
			k := key(p.Name)
			if _, dup := rw.idx[k]; dup {
				return nil, ingest.Errorf(name, f.Line, "feature: property %s appears twice", k)
			}
			rw.idx[k] = len(rw.vals)
			rw.vals = append(rw.vals, strings.TrimSpace(p.Value))
		}
		if g := f.Geometry; g != nil {
			switch g := g.(type) {
			case orb.Polygon:
				orientRings(g)
			case orb.MultiPolygon:
				for _, p := range g {
					orientRings(p)
				}
			}
			if why := checkLngLat(g); why != "" {
				return nil, ingest.Errorf(name, f.Line, "feature: %s", why)
			}
			rw.geom = g
		}
		return rw, nil
	}
	return &table{name: name, spatial: true, next: next}
}
