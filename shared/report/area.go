package report

import (
	"math"

	"github.com/paulmach/orb"
)

// AreaHa is a parcel's area_ha: AreaM2 in hectares, to 2 decimals. Every
// report's area_ha comes from it, so one parcel has one area whichever
// report is asked.
func AreaHa(g orb.Geometry) float64 { return math.Round(AreaM2(g)/100) / 100 }

// AreaM2 is the area of a lng/lat polygon on the WGS84 ellipsoid, in square
// metres: each ring is projected onto the plane tangent at the ring's mean
// latitude with the ellipsoid's radii of curvature there, which is exact to
// well under 0.01% for a quarter section.
func AreaM2(g orb.Geometry) float64 {
	switch g := g.(type) {
	case orb.Polygon:
		a := 0.0
		for i, ring := range g {
			if i == 0 {
				a += math.Abs(signedRingAreaM2(ring))
			} else {
				a -= math.Abs(signedRingAreaM2(ring))
			}
		}
		return a
	case orb.MultiPolygon:
		a := 0.0
		for _, p := range g {
			a += AreaM2(p)
		}
		return a
	}
	return 0
}

// signedRingAreaM2 is the area of a lng/lat ring in square metres on the
// ellipsoid (see AreaM2), positive when the ring is counter-clockwise.
func signedRingAreaM2(r orb.Ring) float64 {
	if len(r) < 3 {
		return 0
	}
	const (
		a  = 6378137.0
		f  = 1 / 298.257223563
		e2 = f * (2 - f)
	)
	lat0, lng0 := 0.0, r[0][0]
	for _, p := range r {
		lat0 += p[1]
	}
	lat0 /= float64(len(r))
	phi := lat0 * math.Pi / 180
	s := 1 - e2*math.Sin(phi)*math.Sin(phi)
	n := a / math.Sqrt(s)                  // prime vertical radius
	m := a * (1 - e2) / (s * math.Sqrt(s)) // meridional radius
	kx, ky := n*math.Cos(phi)*math.Pi/180, m*math.Pi/180
	sum := 0.0
	for i := range r {
		j := (i + 1) % len(r)
		x1, y1 := (r[i][0]-lng0)*kx, (r[i][1]-lat0)*ky
		x2, y2 := (r[j][0]-lng0)*kx, (r[j][1]-lat0)*ky
		sum += x1*y2 - x2*y1
	}
	return sum / 2
}
