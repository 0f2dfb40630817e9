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
func openGeoJSON(r io.Reader, name string) *Table {
	rd := geojsonfc.NewReader(r, geojsonfc.Options{Types: geoJSONTypes, ClosedRings: true})
	rw := &Row{idx: make(map[string]int)}
	next := func() (*Row, error) {
		f, err := rd.Next()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			ge := err.(*geojsonfc.Error) // as every error of Next but io.EOF
			return nil, Errorf(name, ge.Line, "%s", ge.Reason)
		}
		clear(rw.idx)
		rw.Line, rw.vals, rw.Geom = f.Line, rw.vals[:0], nil
		for _, p := range f.Properties {
			k := Key(p.Name)
			if _, dup := rw.idx[k]; dup {
				return nil, Errorf(name, f.Line, "feature: property %s appears twice", k)
			}
			rw.idx[k] = len(rw.vals)
			rw.vals = append(rw.vals, strings.TrimSpace(p.Value))
		}
		if g := f.Geometry; g != nil {
			switch g := g.(type) {
			case orb.Polygon:
				OrientRings(g)
			case orb.MultiPolygon:
				for _, p := range g {
					OrientRings(p)
				}
			}
			if why := checkLngLat(g); why != "" {
				return nil, Errorf(name, f.Line, "feature: %s", why)
			}
			rw.Geom = g
		}
		return rw, nil
	}
	return &Table{Name: name, Spatial: true, next: next}
}
