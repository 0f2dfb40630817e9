package shp

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// signedArea returns twice the signed area of a closed ring by the
// shoelace formula, positive when the ring is counter-clockwise (x east,
// y north). Coordinates are taken relative to the first point to keep the
// products small for projected coordinates in the millions.
func signedArea(r orb.Ring) float64 {
	if len(r) < 3 {
		return 0
	}
	x0, y0 := r[0][0], r[0][1]
	a := 0.0
	for i := 1; i < len(r)-1; i++ {
		a += (r[i][0]-x0)*(r[i+1][1]-y0) - (r[i+1][0]-x0)*(r[i][1]-y0)
	}
	return a
}

// PointInRing returns 1 when p is inside ring r, -1 when outside and 0
// on its boundary: on an edge or a vertex, exactly (no tolerance). It is
// the crossing-number test, with the crossings decided by the sign of a
// cross product rather than a division, so that a point on an edge is
// found on it whatever the edge's slope when the arithmetic is exact (as
// it is for the axis-aligned edges of survey grids). r may be closed or
// not. It is the rule the reader places holes by, and the one
// ingest.ContainsPoint applies to polygons.
func PointInRing(p orb.Point, r orb.Ring) int {
	inside := false
	for i, j := 0, len(r)-1; i < len(r); j, i = i, i+1 {
		a, b := r[j], r[i]
		if a[1] == p[1] {
			if a[0] == p[0] {
				return 0 // on a vertex
			}
			if b[1] == p[1] && (a[0] < p[0]) != (b[0] < p[0]) && b[0] != p[0] {
				return 0 // inside a horizontal edge
			}
		}
		if (a[1] > p[1]) == (b[1] > p[1]) {
			continue // the edge does not cross p's parallel
		}
		cross := (b[0]-a[0])*(p[1]-a[1]) - (b[1]-a[1])*(p[0]-a[0])
		if cross == 0 {
			return 0 // on the edge
		}
		if (cross > 0) == (b[1] > a[1]) {
			inside = !inside // the edge crosses east of p
		}
	}
	if inside {
		return 1
	}
	return -1
}

// ringInRing reports whether ring h lies inside ring o, judged by the
// first vertex of h that is not on o's boundary (inside when all are).
func ringInRing(h, o orb.Ring) bool {
	for _, p := range h[:len(h)-1] {
		switch PointInRing(p, o) {
		case 1:
			return true
		case -1:
			return false
		}
	}
	return true
}

// assemblePolygons groups the rings of a Polygon record by the shapefile
// rule: clockwise rings are outer rings, counter-clockwise rings holes,
// each hole belonging to the smallest outer ring that contains it. A hole
// inside no outer ring is taken as an outer ring of its own, as other
// readers do with files written with the orientation reversed. Rings are
// reversed to orb's orientation (outer counter-clockwise, holes
// clockwise). One polygon comes back as orb.Polygon, several as
// orb.MultiPolygon, in the order of their outer rings in the record.
func assemblePolygons(rings []orb.Ring) (orb.Geometry, error) {
	type ring struct {
		r     orb.Ring
		area  float64 // twice the signed area
		bound orb.Bound
		outer int // index in polys of the polygon it belongs to, -1 unknown
	}
	rs := make([]ring, len(rings))
	for i, r := range rings {
		a := signedArea(r)
		if a == 0 || math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("ring %d has no area", i)
		}
		rs[i] = ring{r: r, area: a, bound: r.Bound(), outer: -1}
	}
	// Assign each hole to the smallest clockwise ring containing it.
	for i := range rs {
		h := &rs[i]
		if h.area < 0 {
			continue
		}
		best, bestArea := -1, math.Inf(1)
		for j := range rs {
			o := &rs[j]
			if o.area > 0 || -o.area >= bestArea || !o.bound.Contains(h.bound.Min) || !o.bound.Contains(h.bound.Max) {
				continue
			}
			if ringInRing(h.r, o.r) {
				best, bestArea = j, -o.area
			}
		}
		h.outer = best
	}
	// Polygons in file order of their outer rings (orphan holes included).
	var polys []orb.Polygon
	index := make([]int, len(rs)) // ring -> polygon, for outer rings
	for i := range rs {
		if rs[i].area < 0 || rs[i].outer == -1 {
			r := rs[i].r
			if rs[i].area < 0 {
				r.Reverse()
			}
			index[i] = len(polys)
			polys = append(polys, orb.Polygon{r})
		}
	}
	for i := range rs {
		if rs[i].area > 0 && rs[i].outer != -1 {
			r := rs[i].r
			r.Reverse()
			k := index[rs[i].outer]
			polys[k] = append(polys[k], r)
		}
	}
	if len(polys) == 1 {
		return polys[0], nil
	}
	return orb.MultiPolygon(polys), nil
}
