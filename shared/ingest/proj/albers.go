package proj

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// The Albers Equal Area Conic below follows
//
//	J. P. Snyder, "Map Projections: A Working Manual", USGS Professional
//	Paper 1395 (1987), pp. 101–102, eqs. (14-3)–(14-21) and (3-12),
//
// which is also IOGP Guidance Note 7-2, method 9822. With e the
// eccentricity, s = sin φ and
//
//	q(φ) = (1 - e²)·[s/(1 - e²s²) + atanh(e·s)/e]          (3-12)
//	m(φ) = cos φ / √(1 - e²s²)                              (14-15)
//	n    = (m1² - m2²) / (q2 - q1)                          (14-14)
//	C    = m1² + n·q1                                       (14-13)
//	ρ(φ) = a·√(C - n·q(φ)) / n                              (14-12)
//
// (the logarithm of eq. 3-12 written as atanh), a point projects to
//
//	θ = n·(λ - λ0),  x = FE + ρ·sin θ,  y = FN + ρ0 - ρ·cos θ,
//
// with ρ0 = ρ(φ0), and is recovered by (14-10), (14-11) and (14-19):
//
//	ρ = ±√(x'² + (ρ0 - y')²), sign of n,  θ = atan2(x'/ρ, (ρ0 - y')/ρ),
//	q = (C - ρ²n²/a²) / n,  λ = λ0 + θ/n,
//
// where x' = x - FE and y' = y - FN. When the standard parallels coincide
// n = sin φ1, the limit of eq. (14-14).
//
// The latitude follows from q by Newton's method, as in Snyder's eq. (3-16),
// but on s = sin φ rather than on φ: dq/ds = 2(1 - e²)/(1 - e²s²)² never
// vanishes, where dq/dφ does at the poles, and q is convex in s on [0, 1],
// so from the authalic start s = q/q_p (q_p = q(90°)) the iterates
// converge monotonically once past the root, quadratically, up to the pole.
// A q beyond ±q_p has no latitude, nor has an angle θ beyond ±n·180°
// (the gap between the edges of the unrolled cone): both are ErrDomain,
// except within a millimetre of the pole's image or the cone's edge, which
// is taken as rounding. (Near a pole the inverse is ill-conditioned: the
// pole maps to an arc, and a millimetre across it moves the latitude by
// centimetres, so coordinates rounded to the millimetre at a pole must
// still invert.)

// minConeConstant is the smallest |n| accepted. As n tends to 0 (standard
// parallels symmetric about the equator) the cone opens into a cylinder,
// ρ ≈ a/n grows without bound and y = ρ0 - ρ·cos θ loses its digits; at
// |n| = 1e-5 the rounding is still well under a millimetre.
const minConeConstant = 1e-5

// maxRounding is how far, in metres, a point may lie beyond the image of
// a pole or the edge of the cone and still invert: to the pole, or to
// longitude λ0 ± 180°.
const maxRounding = 1e-3

// albersParams defines an Albers Equal Area Conic.
type albersParams struct {
	name       string
	epsg       int
	ell        ellipsoid
	lat0, lon0 float64 // latitude and longitude of false origin, degrees
	lat1, lat2 float64 // standard parallels, degrees
	fe, fn     float64 // false easting and northing, in units
	units      float64 // metres per unit of x and y
}

// albers is an Albers Equal Area Conic with its constants.
type albers struct {
	albersParams
	e    float64 // eccentricity
	e2m  float64 // 1 - e²
	n    float64 // cone constant
	c    float64 // C of eq. (14-13)
	qp   float64 // q at the north pole
	qTol float64 // excess of |q| over q_p taken as rounding: 1 mm, at most
	rho0 float64 // ρ of the latitude of false origin, metres
}

// bcAlbers returns EPSG:3005 or EPSG:3153: the British Columbia Albers
// on GRS 1980.
func bcAlbers(name string, epsg int) (Projection, error) {
	p, err := newAlbers(bcAlbersParams(name, epsg))
	if err != nil {
		return nil, err
	}
	return p, nil
}

// bcAlbersParams are the parameters of the British Columbia Albers
// (EPSG conversion 19888).
func bcAlbersParams(name string, epsg int) albersParams {
	return albersParams{
		name: name, epsg: epsg, ell: grs80,
		lat0: 45, lon0: -126, lat1: 50, lat2: 58.5,
		fe: 1_000_000, units: 1,
	}
}

// newAlbers checks p and computes the projection's constants. It returns
// an ErrUnsupported error for parameters that define no Albers projection.
func newAlbers(p albersParams) (*albers, error) {
	bad := func(format string, args ...any) (*albers, error) {
		return nil, fmt.Errorf("%w: Albers Equal Area %q: %s", ErrUnsupported, p.name, fmt.Sprintf(format, args...))
	}
	switch {
	case !(p.ell.a > 0) || math.IsInf(p.ell.a, 0) || !(p.ell.invF == 0 || p.ell.invF > 1 && !math.IsInf(p.ell.invF, 0)):
		return bad("ellipsoid a = %v, 1/f = %v", p.ell.a, p.ell.invF)
	case !(p.units > 0) || math.IsInf(p.units, 0) || !finite(p.fe) || !finite(p.fn):
		return bad("false easting %v, false northing %v in units of %v m", p.fe, p.fn, p.units)
	case !(math.Abs(p.lon0) <= 180) || !(math.Abs(p.lat0) <= 90):
		return bad("false origin longitude %v, latitude %v out of range", p.lon0, p.lat0)
	case !(math.Abs(p.lat1) < 90) || !(math.Abs(p.lat2) < 90):
		return bad("standard parallels %v and %v must lie strictly between the poles", p.lat1, p.lat2)
	}
	t := &albers{albersParams: p}
	f := p.ell.flattening()
	e2 := f * (2 - f)
	t.e = math.Sqrt(e2)
	t.e2m = 1 - e2
	t.qp = t.q(1)
	phi1, phi2 := p.lat1*deg, p.lat2*deg
	if math.Abs(phi1-phi2) < 1e-5 {
		// One standard parallel: n = sin φ1. Parallels closer than 2"
		// are taken as one at their mean, where eq. (14-14) would
		// cancel away its digits; n then errs by O((φ1-φ2)²), < 1e-11.
		phi := (phi1 + phi2) / 2
		t.n = math.Sin(phi)
		t.c = t.m2(phi) + t.n*t.q(math.Sin(phi))
	} else {
		q1, q2 := t.q(math.Sin(phi1)), t.q(math.Sin(phi2))
		t.n = (t.m2(phi1) - t.m2(phi2)) / (q2 - q1)
		t.c = t.m2(phi1) + t.n*q1
	}
	if !(math.Abs(t.n) >= minConeConstant) {
		return bad("standard parallels %v and %v are (nearly) symmetric about the equator: cone constant n = %.3g, the projection degenerates to a cylinder",
			p.lat1, p.lat2, t.n)
	}
	// q = (C - ρ²n²/a²)/n rounds to a few ulps of (|C| + 2)/|n|, and
	// dq/dρ = -2ρn²/(a²n): 1 mm in ρ at a pole's image is 2·r·1e-3/a in q,
	// r = |ρ·n|/a = √(C ∓ n·q_p).
	r := math.Sqrt(math.Max(math.Abs(t.c-t.n*t.qp), math.Abs(t.c+t.n*t.qp)))
	t.qTol = 1e-13*(math.Abs(t.c)+2)/math.Abs(t.n) + 2*r*maxRounding/p.ell.a
	t.rho0 = t.rho(t.q(math.Sin(p.lat0 * deg)))
	return t, nil
}

// q is eq. (3-12) of s = sin φ.
func (t *albers) q(s float64) float64 {
	if t.e == 0 {
		return 2 * s
	}
	es := t.e * s
	return t.e2m * (s/(1-es*es) + math.Atanh(es)/t.e)
}

// m2 is m² of eq. (14-15).
func (t *albers) m2(phi float64) float64 {
	s, c := math.Sincos(phi)
	return c * c / (1 - t.e*t.e*s*s)
}

// rho is eq. (14-12), signed like n. C - n·q ≥ 0 for every latitude; the
// clamp only absorbs rounding at a pole.
func (t *albers) rho(q float64) float64 {
	return t.ell.a * math.Sqrt(math.Max(0, t.c-t.n*q)) / t.n
}

// sinLat solves q(s) = q for s = sin φ, |q| ≤ q_p, by Newton's method
// (see the comment at the top of this file).
func (t *albers) sinLat(q float64) float64 {
	aq := math.Abs(q)
	s := aq / t.qp // sine of the authalic latitude
	for range 10 {
		w := 1 - t.e*t.e*s*s
		ds := (aq - t.q(s)) * w * w / (2 * t.e2m)
		s = math.Min(1, s+ds)
		if math.Abs(ds) <= 1e-12 {
			// The error left is of order ds², below rounding.
			break
		}
	}
	return math.Copysign(math.Max(0, s), q)
}

func (t *albers) Name() string { return t.name }
func (t *albers) EPSG() int    { return t.epsg }

// FromLngLat projects any longitude and latitude, the poles included.
func (t *albers) FromLngLat(p orb.Point) (float64, float64, error) {
	if err := checkLngLat(p[0], p[1]); err != nil {
		return 0, 0, err
	}
	rho := t.rho(t.q(math.Sin(p[1] * deg)))
	sin, cos := math.Sincos(t.n * normalizeLng(p[0]-t.lon0) * deg)
	x := t.fe + rho*sin/t.units
	y := t.fn + (t.rho0-rho*cos)/t.units
	return x, y, nil
}

// ToLngLat inverts the projection for a point between the images of the
// poles and within the cone's angle.
func (t *albers) ToLngLat(x, y float64) (orb.Point, error) {
	if err := checkXY(x, y); err != nil {
		return orb.Point{}, err
	}
	dx := (x - t.fe) * t.units
	dy := t.rho0 - (y-t.fn)*t.units
	rho := math.Hypot(dx, dy)
	if t.n < 0 {
		rho, dx, dy = -rho, -dx, -dy
	}
	theta := math.Atan2(dx, dy)
	if excess := math.Abs(theta) - math.Pi*math.Abs(t.n); excess > 1e-12 && excess*math.Abs(rho) > maxRounding {
		return orb.Point{}, fmt.Errorf("%w: %s: x %v, y %v lie outside the cone's angle (more than 180° from central meridian %v)",
			ErrDomain, t.name, x, y, t.lon0)
	}
	r := rho * t.n / t.ell.a
	q := (t.c - r*r) / t.n
	if !finite(q) || math.Abs(q) > t.qp+t.qTol {
		return orb.Point{}, fmt.Errorf("%w: %s: x %v, y %v lie beyond a pole", ErrDomain, t.name, x, y)
	}
	q = math.Max(-t.qp, math.Min(t.qp, q))
	s := t.sinLat(q)
	lat := math.Atan2(s, math.Sqrt((1-s)*(1+s))) * rad
	lam := math.Max(-180, math.Min(180, theta/t.n*rad))
	return orb.Point{normalizeLng(t.lon0 + lam), lat}, nil
}
