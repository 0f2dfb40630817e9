package ingest

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// checkLngLat returns why g is not in longitude and latitude, or "".
func checkLngLat(g orb.Geometry) string {
	why := ""
	visit(g, func(p orb.Point) bool {
		x, y := p[0], p[1]
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			why = "a coordinate is not a finite number"
			return false
		}
		if x < -180 || x > 180 || y < -90 || y > 90 {
			why = fmt.Sprintf("point (%g, %g) is not a longitude and latitude", x, y)
			return false
		}
		return true
	})
	return why
}

// visit calls fn for every point of g until fn returns false.
func visit(g orb.Geometry, fn func(orb.Point) bool) bool {
	switch g := g.(type) {
	case orb.Point:
		return fn(g)
	case orb.MultiPoint:
		for _, p := range g {
			if !fn(p) {
				return false
			}
		}
	case orb.LineString:
		return visit(orb.MultiPoint(g), fn)
	case orb.MultiLineString:
		for _, l := range g {
			if !visit(orb.MultiPoint(l), fn) {
				return false
			}
		}
	case orb.Ring:
		return visit(orb.MultiPoint(g), fn)
	case orb.Polygon:
		for _, r := range g {
			if !visit(orb.MultiPoint(r), fn) {
				return false
			}
		}
	case orb.MultiPolygon:
		for _, p := range g {
			if !visit(p, fn) {
				return false
			}
		}
	}
	return true
}

// OrientRings returns p with its outer ring counter-clockwise and its holes
// clockwise, the orientation package shp returns.
func OrientRings(p orb.Polygon) orb.Polygon {
	for i, r := range p {
		want := orb.CCW
		if i > 0 {
			want = orb.CW
		}
		if o := r.Orientation(); o != 0 && o != want {
			r.Reverse()
		}
	}
	return p
}

// MultiPolygon is g as a multipolygon, for the files whose areas are a
// polygon or a multipolygon feature by feature; nil for any other type.
func MultiPolygon(g orb.Geometry) orb.MultiPolygon {
	switch g := g.(type) {
	case orb.Polygon:
		return orb.MultiPolygon{g}
	case orb.MultiPolygon:
		return g
	}
	return nil
}
