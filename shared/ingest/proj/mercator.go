package proj

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// webMercatorRadius is the radius of the sphere of EPSG:3857: the WGS 84
// semi-major axis.
const webMercatorRadius = 6378137.0

// webMercatorMaxX is the easting of longitude ±180°: π·R.
const webMercatorMaxX = math.Pi * webMercatorRadius

// webMercator is EPSG:3857, "WGS 84 / Pseudo-Mercator": the spherical
// Mercator of WGS 84 longitude and latitude on a sphere of radius R =
// 6378137 m, x = R·λ, y = R·ln tan(π/4 + φ/2) (Snyder 1987, "Map
// Projections: A Working Manual", eq. 7-1, 7-2; EPSG Guidance Note 7-2,
// method 1024).
type webMercator struct{}

func (webMercator) Name() string { return "WGS 84 / Pseudo-Mercator" }
func (webMercator) EPSG() int    { return EPSGWebMercator }

// ToLngLat inverts the projection: λ = x/R, φ = atan(sinh(y/R)). Any finite
// y is valid; |x| may not exceed π·R (longitude 180°).
func (webMercator) ToLngLat(x, y float64) (orb.Point, error) {
	if err := checkXY(x, y); err != nil {
		return orb.Point{}, err
	}
	if math.Abs(x) > webMercatorMaxX*(1+1e-12) {
		return orb.Point{}, fmt.Errorf("%w: Web Mercator x %v beyond ±%.3f (longitude 180°)", ErrDomain, x, webMercatorMaxX)
	}
	lng := math.Max(-180, math.Min(180, x/webMercatorRadius*rad))
	lat := math.Atan(math.Sinh(y/webMercatorRadius)) * rad
	return orb.Point{lng, lat}, nil
}

// FromLngLat projects a point; the poles (|lat| = 90°) are out of domain.
func (webMercator) FromLngLat(p orb.Point) (float64, float64, error) {
	if err := checkLngLat(p[0], p[1]); err != nil {
		return 0, 0, err
	}
	if math.Abs(p[1]) == 90 {
		return 0, 0, fmt.Errorf("%w: Web Mercator cannot project the pole (latitude %v)", ErrDomain, p[1])
	}
	x := webMercatorRadius * p[0] * deg
	// asinh(tan φ) = ln tan(π/4 + φ/2), without the cancellation of the
	// latter near the equator.
	y := webMercatorRadius * math.Asinh(math.Tan(p[1]*deg))
	return x, y, nil
}
