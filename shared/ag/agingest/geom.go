package agingest

import (
	"fmt"

	"github.com/paulmach/orb"
)

// polygonal returns g when it is a non-empty Polygon or MultiPolygon, and
// otherwise why not.
func polygonal(g orb.Geometry) (orb.Geometry, string) {
	switch g := g.(type) {
	case nil:
		return nil, "no geometry"
	case orb.Polygon:
		if len(g) == 0 {
			return nil, "empty polygon"
		}
		return g, ""
	case orb.MultiPolygon:
		if len(g) == 0 {
			return nil, "empty multipolygon"
		}
		if len(g) == 1 {
			return g[0], ""
		}
		return g, ""
	}
	return nil, fmt.Sprintf("geometry is a %s, want a polygon", g.GeoJSONType())
}

// linear returns g when it is a non-empty LineString or MultiLineString,
// and otherwise why not.
func linear(g orb.Geometry) (orb.Geometry, string) {
	switch g := g.(type) {
	case nil:
		return nil, "no geometry"
	case orb.LineString:
		if len(g) < 2 {
			return nil, "a line needs two points"
		}
		return g, ""
	case orb.MultiLineString:
		if len(g) == 0 {
			return nil, "empty multilinestring"
		}
		if len(g) == 1 {
			return g[0], ""
		}
		return g, ""
	}
	return nil, fmt.Sprintf("geometry is a %s, want a line", g.GeoJSONType())
}
