package ingest

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
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

// lngLatNoise is how far outside [-180, 180] × [-90, 90] a coordinate may
// lie and still be read as on the boundary: the float noise of the
// publishers' tools (NRCan's national CanVec files have a vertex at
// longitude -180.00000000099996). 1e-6° is about 0.1 m.
const lngLatNoise = 1e-6

// clampLngLat returns g with every coordinate within lngLatNoise outside
// the range of longitude and latitude moved onto its boundary, changing
// g's slices in place; anything further out is left for checkLngLat.
func clampLngLat(g orb.Geometry) orb.Geometry {
	if p, ok := g.(orb.Point); ok {
		return clampPoint(p)
	}
	eachPoints(g, func(ps []orb.Point) {
		for i := range ps {
			ps[i] = clampPoint(ps[i])
		}
	})
	return g
}

func clampPoint(p orb.Point) orb.Point {
	return orb.Point{clampNoise(p[0], 180), clampNoise(p[1], 90)}
}

// clampNoise returns v moved onto ±limit when it lies outside by no more
// than lngLatNoise.
func clampNoise(v, limit float64) float64 {
	switch {
	case v > limit && v <= limit+lngLatNoise:
		return limit
	case v < -limit && v >= -limit-lngLatNoise:
		return -limit
	}
	return v
}

// eachPoints calls fn with each slice of points of g (a line, a ring).
func eachPoints(g orb.Geometry, fn func([]orb.Point)) {
	switch g := g.(type) {
	case orb.MultiPoint:
		fn(g)
	case orb.LineString:
		fn(g)
	case orb.Ring:
		fn(g)
	case orb.MultiLineString:
		for _, l := range g {
			fn(l)
		}
	case orb.Polygon:
		for _, r := range g {
			fn(r)
		}
	case orb.MultiPolygon:
		for _, p := range g {
			for _, r := range p {
				fn(r)
			}
		}
	case orb.Collection:
		for _, h := range g {
			eachPoints(h, fn)
		}
	}
}

// closeRings closes the open rings of a polygon (the last position made
// equal to the first), in place, and returns why a ring cannot be a
// ring once closed (fewer than 4 positions), or "".
func closeRings(g orb.Geometry) (orb.Geometry, string) {
	fix := func(p orb.Polygon) string {
		for i, r := range p {
			if len(r) > 0 && r[0] != r[len(r)-1] {
				r = append(r, r[0])
				p[i] = r
			}
			if len(r) < 4 {
				return fmt.Sprintf("ring %d has %d positions once closed, fewer than 4", i, len(r))
			}
		}
		return ""
	}
	switch g := g.(type) {
	case orb.Polygon:
		return g, fix(g)
	case orb.MultiPolygon:
		for _, p := range g {
			if why := fix(p); why != "" {
				return g, why
			}
		}
	}
	return g, ""
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

// ContainsPoint reports whether the polygon or multipolygon g holds pt,
// its boundary included: a point on an edge or a vertex of any ring (a
// hole's too) is in; a point strictly inside a hole is out. Rings are
// tested by shp.PointInRing, exactly. Any other geometry holds nothing.
// It does not check g's bound first (orb computes a bound by walking
// every vertex, as the ring test does): callers that test many points
// against one polygon check its bound once.
func ContainsPoint(g orb.Geometry, pt orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return polygonContains(g, pt)
	case orb.MultiPolygon:
		for _, p := range g {
			if polygonContains(p, pt) {
				return true
			}
		}
	}
	return false
}

func polygonContains(p orb.Polygon, pt orb.Point) bool {
	if len(p) == 0 {
		return false
	}
	switch shp.PointInRing(pt, p[0]) {
	case -1:
		return false
	case 0:
		return true
	}
	for _, h := range p[1:] {
		switch shp.PointInRing(pt, h) {
		case 1:
			return false
		case 0:
			return true
		}
	}
	return true
}
