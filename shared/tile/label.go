package tile

import (
	"math"
	"sort"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/apierr"
	"meridian/shared/ingest"
)

// LabelPoint returns where a block's label reads well: its centroid when
// that lies inside the block (every DLS and NTS block, most lots), else the
// middle of the widest stretch of the block along the parallel through the
// centroid (an L-shaped or crescent lot); for a multipolygon, that of its
// largest part.
func LabelPoint(g orb.Geometry, centroid orb.Point) orb.Point {
	switch g := g.(type) {
	case orb.Polygon:
		return polygonLabel(g, centroid)
	case orb.MultiPolygon:
		if len(g) == 0 {
			return centroid
		}
		best, bestA := 0, -1.0
		for i, p := range g {
			if a := math.Abs(planar.Area(p)); a > bestA {
				best, bestA = i, a
			}
		}
		c, _ := planar.CentroidArea(g[best])
		return polygonLabel(g[best], c)
	}
	return centroid
}

func polygonLabel(p orb.Polygon, c orb.Point) orb.Point {
	if len(p) == 0 || len(p[0]) < 4 {
		return c
	}
	if ingest.ContainsPoint(p, c) {
		return c
	}
	// Crossings of the parallel through c with every ring, sorted: the
	// stretches between pairs are inside.
	var xs []float64
	for _, r := range p {
		for i := 0; i+1 < len(r); i++ {
			a, b := r[i], r[i+1]
			if (a[1] > c[1]) != (b[1] > c[1]) {
				xs = append(xs, a[0]+(c[1]-a[1])/(b[1]-a[1])*(b[0]-a[0]))
			}
		}
	}
	sort.Float64s(xs)
	best, bestW := c, -1.0
	for i := 0; i+1 < len(xs); i += 2 {
		if w := xs[i+1] - xs[i]; w > bestW {
			best, bestW = orb.Point{(xs[i] + xs[i+1]) / 2, c[1]}, w
		}
	}
	if bestW < 0 {
		return p[0][0] // the parallel misses the polygon: a degenerate ring
	}
	return best
}

func notFound(err error) bool {
	e := apierr.As(err)
	return e != nil && e.Kind == apierr.NotFound
}
