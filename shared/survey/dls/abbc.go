package dls

import (
	"math"

	"github.com/paulmach/orb"
)

// abbcToleranceM is the accuracy of divideVertices, in metres: a block
// within it of the line counts as Alberta's, and its AccuracyM grows by it.
const abbcToleranceM = 2000

// abbcBinDegrees is the height of the latitude bands the divide's segments
// are filed in (about 5.5 km).
const abbcBinDegrees = 0.05

// abbcLine is the divide part of the AB–BC boundary, its segments filed by
// latitude band so that a look-up reads only the handful of segments near
// a point, not the 400-odd of the line.
type abbcLine struct {
	pts []orb.Point
	// bins[k] holds the indices i of the segments pts[i]–pts[i+1] whose
	// latitude span, widened by the tolerance, meets band k (latitudes
	// lat0 + k·abbcBinDegrees to the next); minLng and maxLng are the least and
	// greatest longitude of those segments (±Inf for a band with none).
	bins           [][]int32
	minLng, maxLng []float64
	lat0           float64
}

// abbc is the model's divide line, computed at initialisation.
var abbc = newABBCLine(divideVertices[:])

// Degrees of latitude per metre, and the tolerance in degrees of latitude
// (a spherical approximation: it only widens the bands).
const latDegPerM = 1 / 111132.0

func newABBCLine(pts []orb.Point) *abbcLine {
	a := &abbcLine{pts: pts, lat0: pts[0][1]}
	n := int((pts[len(pts)-1][1]-a.lat0)/abbcBinDegrees) + 1
	a.bins = make([][]int32, n)
	a.minLng, a.maxLng = make([]float64, n), make([]float64, n)
	for k := range n {
		a.minLng[k], a.maxLng[k] = math.Inf(1), math.Inf(-1)
	}
	tol := abbcToleranceM * latDegPerM
	for i := 0; i+1 < len(pts); i++ {
		p, q := pts[i], pts[i+1]
		lo, hi := a.band(math.Min(p[1], q[1])-tol), a.band(math.Max(p[1], q[1])+tol)
		for k := lo; k <= hi; k++ {
			a.bins[k] = append(a.bins[k], int32(i))
			a.minLng[k] = math.Min(a.minLng[k], math.Min(p[0], q[0]))
			a.maxLng[k] = math.Max(a.maxLng[k], math.Max(p[0], q[0]))
		}
	}
	return a
}

// band returns the band of latitude lat, clamped to the line's.
func (a *abbcLine) band(lat float64) int {
	k := int(math.Floor((lat - a.lat0) / abbcBinDegrees))
	return max(0, min(k, len(a.bins)-1))
}

// crossings calls f with the longitude of every crossing of latitude lat by
// the divide (half-open in latitude, so a vertex on lat counts once).
func (a *abbcLine) crossings(lat float64, f func(x float64)) {
	for _, i := range a.bins[a.band(lat)] {
		p, q := a.pts[i], a.pts[i+1]
		if (p[1] <= lat) != (q[1] <= lat) {
			f(p[0] + (q[0]-p[0])*(lat-p[1])/(q[1]-p[1]))
		}
	}
}

// inAlberta reports whether pt is on Alberta's side of the boundary: an odd
// number of crossings west of it. South of Monument 272 the line runs due
// south; north of Intersection Mountain it is 120°W.
func (a *abbcLine) inAlberta(pt orb.Point) bool {
	lat := pt[1]
	if lat >= intersectionMtn[1] {
		return pt[0] >= intersectionMtn[0]
	}
	if lat < a.lat0 {
		return pt[0] >= a.lat0Lng()
	}
	k := a.band(lat)
	if pt[0] > a.maxLng[k] {
		return true // east of every crossing: one net crossing
	}
	if pt[0] < a.minLng[k] {
		return false
	}
	n := 0
	a.crossings(lat, func(x float64) {
		if x < pt[0] {
			n++
		}
	})
	return n%2 == 1
}

func (a *abbcLine) lat0Lng() float64 { return a.pts[0][0] }

// westLng returns the westernmost crossing of latitude lat.
func (a *abbcLine) westLng(lat float64) float64 {
	switch {
	case lat >= intersectionMtn[1]:
		return intersectionMtn[0]
	case lat < a.lat0:
		return a.lat0Lng()
	}
	w := math.Inf(1)
	a.crossings(lat, func(x float64) { w = math.Min(w, x) })
	return w
}

// near reports whether box b comes within abbcToleranceM of the divide.
// Distances are measured on a plane tangent at b's centre (the errors of
// that over a few kilometres are centimetres).
func (a *abbcLine) near(b orb.Bound) bool {
	tol := abbcToleranceM * latDegPerM
	if b.Min[1] > intersectionMtn[1]+tol || b.Max[1] < a.lat0-tol {
		return false
	}
	lo, hi := a.band(b.Min[1]-tol), a.band(b.Max[1]+tol)
	kx := math.Cos(b.Center()[1] * math.Pi / 180) // lng degrees to lat degrees
	tolLng := tol / kx
	west, east := math.Inf(1), math.Inf(-1)
	for k := lo; k <= hi; k++ {
		west, east = math.Min(west, a.minLng[k]), math.Max(east, a.maxLng[k])
	}
	if b.Min[0] > east+tolLng || b.Max[0] < west-tolLng {
		return false
	}
	// Work in degrees of latitude: x scaled by kx.
	box := orb.Bound{Min: orb.Point{b.Min[0] * kx, b.Min[1]}, Max: orb.Point{b.Max[0] * kx, b.Max[1]}}
	tol2 := tol * tol
	last := int32(-1)
	for k := lo; k <= hi; k++ {
		for _, i := range a.bins[k] {
			if i <= last {
				continue // filed in an earlier band too
			}
			last = i
			p := orb.Point{a.pts[i][0] * kx, a.pts[i][1]}
			q := orb.Point{a.pts[i+1][0] * kx, a.pts[i+1][1]}
			if math.Max(p[0], q[0]) < box.Min[0]-tol || math.Min(p[0], q[0]) > box.Max[0]+tol ||
				math.Max(p[1], q[1]) < box.Min[1]-tol || math.Min(p[1], q[1]) > box.Max[1]+tol {
				continue // the segment's box is farther than tol
			}
			if segmentBoxDist2(p, q, box) <= tol2 {
				return true
			}
		}
	}
	return false
}

// segmentBoxDist2 returns the squared distance between segment pq and box
// b: 0 when they meet, else the least of the distances from the segment's
// ends to the box and from the box's corners to the segment.
func segmentBoxDist2(p, q orb.Point, b orb.Bound) float64 {
	if b.Contains(p) || b.Contains(q) || segmentCrossesBox(p, q, b) {
		return 0
	}
	d := math.Min(pointBoxDist2(p, b), pointBoxDist2(q, b))
	for _, c := range [...]orb.Point{b.Min, b.Max, {b.Min[0], b.Max[1]}, {b.Max[0], b.Min[1]}} {
		d = math.Min(d, pointSegmentDist2(c, p, q))
	}
	return d
}

func pointBoxDist2(p orb.Point, b orb.Bound) float64 {
	dx := math.Max(0, math.Max(b.Min[0]-p[0], p[0]-b.Max[0]))
	dy := math.Max(0, math.Max(b.Min[1]-p[1], p[1]-b.Max[1]))
	return dx*dx + dy*dy
}

func pointSegmentDist2(c, p, q orb.Point) float64 {
	dx, dy := q[0]-p[0], q[1]-p[1]
	t := 0.0
	if l2 := dx*dx + dy*dy; l2 > 0 {
		t = math.Max(0, math.Min(1, ((c[0]-p[0])*dx+(c[1]-p[1])*dy)/l2))
	}
	ex, ey := p[0]+t*dx-c[0], p[1]+t*dy-c[1]
	return ex*ex + ey*ey
}

// segmentCrossesBox clips segment pq to box b (Liang–Barsky).
func segmentCrossesBox(p, q orb.Point, b orb.Bound) bool {
	t0, t1 := 0.0, 1.0
	d := orb.Point{q[0] - p[0], q[1] - p[1]}
	for k := range 2 {
		for _, e := range [2][2]float64{{-d[k], p[k] - b.Min[k]}, {d[k], b.Max[k] - p[k]}} {
			if e[0] == 0 {
				if e[1] < 0 {
					return false
				}
				continue
			}
			t := e[1] / e[0]
			if e[0] < 0 {
				t0 = math.Max(t0, t)
			} else {
				t1 = math.Min(t1, t)
			}
			if t0 > t1 {
				return false
			}
		}
	}
	return true
}
