package survey

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/paulmach/orb"
)

// ErrDissolve is wrapped by every error Dissolve returns.
var ErrDissolve = errors.New("ingest: dissolve")

// Dissolve returns the union of polygons that meet along exact shared
// edges, as grid blocks do: a section from its quarters, a concession from
// its lots. Every ring is read as a list of directed edges (outer rings
// counter-clockwise, holes clockwise, whatever their input orientation);
// edges present in both directions are interior and dropped; the rest are
// chained into rings, turning as sharply left as possible where several
// edges leave one vertex, so polygons that touch at a corner stay separate.
// Counter-clockwise rings are outer rings and clockwise rings holes of the
// smallest outer ring around them. The result is an orb.Polygon, or an
// orb.MultiPolygon when the union has several parts, with closed rings in a
// deterministic order (the order of the input edges).
//
// Shared edges must match vertex for vertex: a vertex of one polygon lying
// on the inside of another's edge (a T-junction), an edge given twice in the
// same direction (overlapping polygons) or a ring with fewer than three
// distinct points is an error wrapping ErrDissolve. Vertices are compared
// exactly; the T-junction test tolerates about 1e-9 of the coordinates'
// magnitude (1 cm in degrees).
//
//	+---+---+      two squares sharing the edge b-c dissolve into
//	|   |   |      a-b-e-f-c-d (b and c stay as vertices);
//	a---b---e      a square beside them whose edge only covers
//	d---c---f      half of b-c is a T-junction and an error.
func Dissolve(polys []orb.Polygon) (orb.Geometry, error) {
	var d dissolver
	for i, p := range polys {
		for j, r := range p {
			if err := d.addRing(r, j == 0); err != nil {
				return nil, fmt.Errorf("%w: polygon %d ring %d: %v", ErrDissolve, i, j, err)
			}
		}
	}
	return d.result()
}

type edge struct{ a, b orb.Point }

type dissolver struct {
	edges []edge
	alive []bool
	open  map[edge][]int // alive edges by (a, b)
}

// addRing adds the edges of r, oriented counter-clockwise when outer and
// clockwise otherwise, cancelling each against an alive edge in the
// opposite direction.
func (d *dissolver) addRing(r orb.Ring, outer bool) error {
	pts := make([]orb.Point, 0, len(r))
	for _, p := range r {
		if !finite(p[0]) || !finite(p[1]) {
			return fmt.Errorf("coordinate %v is not finite", p)
		}
		if len(pts) == 0 || pts[len(pts)-1] != p {
			pts = append(pts, p)
		}
	}
	if len(pts) > 1 && pts[0] == pts[len(pts)-1] {
		pts = pts[:len(pts)-1]
	}
	if len(pts) < 3 {
		return fmt.Errorf("ring has %d distinct points, want at least 3", len(pts))
	}
	a := TwiceSignedArea(pts)
	if a == 0 {
		return errors.New("ring has zero area")
	}
	if (a > 0) != outer {
		slices.Reverse(pts)
	}
	if d.open == nil {
		d.open = make(map[edge][]int)
	}
	for i := range pts {
		e := edge{pts[i], pts[(i+1)%len(pts)]}
		rev := edge{e.b, e.a}
		if s := d.open[rev]; len(s) > 0 {
			d.alive[s[len(s)-1]] = false
			d.open[rev] = s[:len(s)-1]
			continue
		}
		d.open[e] = append(d.open[e], len(d.edges))
		d.edges = append(d.edges, e)
		d.alive = append(d.alive, true)
	}
	return nil
}

func (d *dissolver) result() (orb.Geometry, error) {
	var rest []int
	for i, ok := range d.alive {
		if ok {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		return nil, fmt.Errorf("%w: no boundary left (no polygons, or polygons that cancel out)", ErrDissolve)
	}
	out := make(map[orb.Point][]int, len(rest))
	for _, i := range rest {
		e := d.edges[i]
		if len(d.open[e]) > 1 {
			return nil, fmt.Errorf("%w: edge %v-%v is given twice in the same direction (overlapping polygons)", ErrDissolve, e.a, e.b)
		}
		out[e.a] = append(out[e.a], i)
	}
	if err := d.checkJunctions(rest); err != nil {
		return nil, err
	}

	used := make([]bool, len(d.edges))
	var outers, holes []orb.Ring
	for _, start := range rest {
		if used[start] {
			continue
		}
		ring := orb.Ring{d.edges[start].a}
		cur := start
		for {
			used[cur] = true
			e := d.edges[cur]
			ring = append(ring, e.b)
			next, closes := -1, false
			best := math.Inf(1)
			consider := func(i int, isStart bool) {
				c := d.edges[i]
				if a := clockwiseTurn(e.a, e.b, c.b); a < best {
					best, next, closes = a, i, isStart
				}
			}
			for _, i := range out[e.b] {
				if !used[i] {
					consider(i, false)
				}
			}
			if e.b == d.edges[start].a {
				consider(start, true)
			}
			if next < 0 {
				return nil, fmt.Errorf("%w: edges do not close into rings at %v", ErrDissolve, e.b)
			}
			if closes {
				break
			}
			cur = next
		}
		switch a := TwiceSignedArea(ring); {
		case a > 0:
			outers = append(outers, ring)
		case a < 0:
			holes = append(holes, ring)
		default:
			return nil, fmt.Errorf("%w: boundary ring at %v has zero area", ErrDissolve, ring[0])
		}
	}
	if len(outers) == 0 {
		return nil, fmt.Errorf("%w: the boundary has holes but no outer ring", ErrDissolve)
	}

	polys := make([]orb.Polygon, len(outers))
	areas := make([]float64, len(outers))
	for i, r := range outers {
		polys[i] = orb.Polygon{r}
		areas[i] = TwiceSignedArea(r)
	}
	for _, h := range holes {
		p := interiorPoint(h, outers)
		best := -1
		for i, r := range outers {
			if RingContains(r, p) && (best < 0 || areas[i] < areas[best]) {
				best = i
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("%w: hole at %v is outside every outer ring", ErrDissolve, h[0])
		}
		polys[best] = append(polys[best], h)
	}
	if len(polys) == 1 {
		return polys[0], nil
	}
	return orb.MultiPolygon(polys), nil
}

// clockwiseTurn is the clockwise angle, in [0, 2π), from the direction
// b→a (back along the edge just walked) to b→c. The smallest such angle is
// the sharpest left turn, which keeps the face on the left of the walk as
// small as possible.
func clockwiseTurn(a, b, c orb.Point) float64 {
	rx, ry := a[0]-b[0], a[1]-b[1]
	dx, dy := c[0]-b[0], c[1]-b[1]
	t := -math.Atan2(rx*dy-ry*dx, rx*dx+ry*dy)
	if t <= 0 {
		t += 2 * math.Pi
	}
	return t
}

// checkJunctions reports a vertex of one remaining edge lying on the inside
// of another: edges that only partly match, which no chaining can repair.
func (d *dissolver) checkJunctions(rest []int) error {
	verts := make([]orb.Point, 0, len(rest))
	scale := 0.0
	for _, i := range rest {
		p := d.edges[i].a
		verts = append(verts, p)
		scale = max(scale, math.Abs(p[0]), math.Abs(p[1]))
	}
	eps := 1e-9 * (1 + scale)
	sort.Slice(verts, func(i, j int) bool { return verts[i][0] < verts[j][0] })
	for _, i := range rest {
		e := d.edges[i]
		minX, maxX := min(e.a[0], e.b[0])-eps, max(e.a[0], e.b[0])+eps
		minY, maxY := min(e.a[1], e.b[1])-eps, max(e.a[1], e.b[1])+eps
		k := sort.Search(len(verts), func(j int) bool { return verts[j][0] >= minX })
		for ; k < len(verts) && verts[k][0] <= maxX; k++ {
			p := verts[k]
			if p == e.a || p == e.b || p[1] < minY || p[1] > maxY {
				continue
			}
			if segmentDistance(p, e.a, e.b) <= eps {
				return fmt.Errorf("%w: edges do not match: vertex %v lies on edge %v-%v of another polygon (a T-junction or partly shared edge)", ErrDissolve, p, e.a, e.b)
			}
		}
	}
	return nil
}

// segmentDistance is the planar distance from p to the segment a-b.
func segmentDistance(p, a, b orb.Point) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = max(0, min(1, ((p[0]-a[0])*dx+(p[1]-a[1])*dy)/l2))
	}
	x, y := a[0]+t*dx-p[0], a[1]+t*dy-p[1]
	return math.Hypot(x, y)
}

// interiorPoint returns a point of hole h that is not a vertex of any of
// the outer rings (so a containment test cannot land on a shared vertex),
// or the mid-point of h's first edge.
func interiorPoint(h orb.Ring, outers []orb.Ring) orb.Point {
	shared := make(map[orb.Point]bool)
	for _, r := range outers {
		for _, p := range r {
			shared[p] = true
		}
	}
	for _, p := range h {
		if !shared[p] {
			return p
		}
	}
	return Mid(h[0], h[1])
}

// Node returns copies of polys in which every vertex of any polygon that
// lies on the inside of an edge (within the tolerance of checkJunctions) is
// inserted into that edge, so that neighbours whose shared boundary is
// split differently on each side match vertex for vertex, as Dissolve
// needs. Rings come out closed.
func Node(polys []orb.Polygon) []orb.Polygon {
	var verts []orb.Point
	seen := make(map[orb.Point]bool)
	scale := 0.0
	for _, p := range polys {
		for _, r := range p {
			for _, v := range r {
				if !seen[v] {
					seen[v] = true
					verts = append(verts, v)
					scale = max(scale, math.Abs(v[0]), math.Abs(v[1]))
				}
			}
		}
	}
	eps := 1e-9 * (1 + scale)
	sort.Slice(verts, func(i, j int) bool { return verts[i][0] < verts[j][0] })
	type onEdge struct {
		t float64
		p orb.Point
	}
	out := make([]orb.Polygon, len(polys))
	for i, p := range polys {
		np := make(orb.Polygon, len(p))
		for j, r := range p {
			nr := make(orb.Ring, 0, len(r)+1)
			for k := range r {
				a, b := r[k], r[(k+1)%len(r)]
				nr = append(nr, a)
				if a == b {
					continue
				}
				minX, maxX := min(a[0], b[0])-eps, max(a[0], b[0])+eps
				minY, maxY := min(a[1], b[1])-eps, max(a[1], b[1])+eps
				var found []onEdge
				dx, dy := b[0]-a[0], b[1]-a[1]
				l2 := dx*dx + dy*dy
				s := sort.Search(len(verts), func(n int) bool { return verts[n][0] >= minX })
				for ; s < len(verts) && verts[s][0] <= maxX; s++ {
					v := verts[s]
					if v == a || v == b || v[1] < minY || v[1] > maxY || segmentDistance(v, a, b) > eps {
						continue
					}
					found = append(found, onEdge{((v[0]-a[0])*dx + (v[1]-a[1])*dy) / l2, v})
				}
				sort.Slice(found, func(x, y int) bool { return found[x].t < found[y].t })
				for _, f := range found {
					nr = append(nr, f.p)
				}
			}
			np[j] = CloseRing(nr)
		}
		out[i] = np
	}
	return out
}

// TwiceSignedArea is twice the signed planar area of r in squared
// coordinate units (positive when counter-clockwise), for orientation and
// degeneracy tests; report.AreaM2 gives areas on the ground. r may or may
// not repeat its first point at the end.
func TwiceSignedArea(r orb.Ring) float64 {
	a := 0.0
	n := len(r)
	for i := range n {
		p, q := r[i], r[(i+1)%n]
		a += p[0]*q[1] - q[0]*p[1]
	}
	return a
}

// CloseRing returns r with its first point repeated at the end.
func CloseRing(r orb.Ring) orb.Ring {
	if len(r) > 0 && r[0] != r[len(r)-1] {
		r = append(r, r[0])
	}
	return r
}

// Mid is the mid-point of a and b; Mid(a, b) == Mid(b, a) exactly, so
// blocks that compute a shared vertex from the same two points agree on it.
func Mid(a, b orb.Point) orb.Point {
	return orb.Point{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2}
}

// finite reports whether f is neither NaN nor infinite.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
