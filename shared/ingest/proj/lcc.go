package proj

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// The Lambert Conformal Conic below follows
//
//	J. P. Snyder, "Map Projections: A Working Manual", USGS Professional
//	Paper 1395 (1987), pp. 107–109, eqs. (15-7)–(15-11), (14-1)–(14-4),
//	(14-10), (14-11) and (14-15),
//
// which is also IOGP Guidance Note 7-2, methods 9802 (2SP) and 9801 (1SP).
// With m(φ) = cos φ / √(1 - e²sin²φ) (14-15) and t(φ) = tan(π/4 - φ/2) /
// [(1 - e·sin φ)/(1 + e·sin φ)]^(e/2) (15-9),
//
//	n = (ln m1 - ln m2) / (ln t1 - ln t2)                  (15-8)
//	F = m1 / (n·t1ⁿ)                                       (15-10)
//	ρ = a·F·tⁿ                                             (15-7)
//
// (one standard parallel φ1 = φ2, and the 1SP form: n = sin φ1, with the
// scale k0 at the natural origin multiplying a·F), a point projects to
//
//	θ = n·(λ - λ0),  x = FE + ρ·sin θ,  y = FN + ρ0 - ρ·cos θ,
//
// with ρ0 = ρ(φ0), and is recovered by (14-10), (14-11) and (15-11):
//
//	ρ = ±√(x'² + (ρ0 - y')²), sign of n,  θ = atan2(x'/ρ, (ρ0 - y')/ρ),
//	t = (ρ/(a·F))^(1/n),  λ = λ0 + θ/n,
//
// where x' = x - FE and y' = y - FN. t is exp(-ψ), ψ the isometric latitude,
// and tan(π/4 - φ/2)·[…]^(-e/2) = tan(π/4 - χ/2), χ the conformal latitude,
// so this file works with ψ = asinh(tan χ): tⁿ = exp(-n·ψ). tan χ comes from
// tan φ, and φ back from tan χ, by the same functions as the Transverse
// Mercator's (conformalTau, geodeticTau in tm.go), which replace Snyder's
// fixed-point iteration (7-9) and stay accurate up to the poles.
//
// The pole on the cone's side (north for n > 0) maps to the apex, ρ = 0; the
// other pole is at infinity and has no image (ErrDomain), nor has an angle θ
// beyond ±n·180° (the gap between the edges of the unrolled cone), except
// within a millimetre of the edge, which is taken as rounding.

// lccParams defines a Lambert Conformal Conic.
type lccParams struct {
	name string
	epsg int
	ell  ellipsoid
	// lat0, lon0 are the latitude and longitude of the false origin (2SP)
	// or of the natural origin (1SP), in degrees.
	lat0, lon0 float64
	// lat1, lat2 are the standard parallels in degrees (2SP). A 1SP
	// projection has oneSP set and its scale k0 at the natural origin,
	// whose latitude is its one standard parallel.
	lat1, lat2 float64
	oneSP      bool
	k0         float64
	fe, fn     float64 // false easting and northing, in units
	units      float64 // metres per unit of x and y
}

// lcc is a Lambert Conformal Conic with its constants.
type lcc struct {
	lccParams
	e    float64 // eccentricity
	e2m  float64 // 1 - e²
	n    float64 // cone constant
	aF   float64 // a·F (·k0 for 1SP), metres
	rho0 float64 // ρ of the latitude of origin, metres
}

// The Lambert Conformal Conics of Canada that FromEPSG knows.
const (
	EPSGOntarioLambert         = 3161 // NAD83 / Ontario MNR Lambert
	EPSGOntarioLambertCSRS     = 3162 // NAD83(CSRS) / Ontario MNR Lambert
	EPSGCanadaAtlasLambert     = 3978 // NAD83 / Canada Atlas Lambert
	EPSGCanadaAtlasLambertCSRS = 3979 // NAD83(CSRS) / Canada Atlas Lambert
	EPSGStatCanLambert         = 3347 // NAD83 / Statistics Canada Lambert
	EPSGStatCanLambertCSRS     = 3348 // NAD83(CSRS) / Statistics Canada Lambert
)

// canadaLCC are the parameters of the Lambert Conformal Conics FromEPSG
// knows, from the EPSG dataset (as PROJ 9.1.1's projinfo prints them):
// conversions 19970 (Ontario MNR Lambert), 3977 (Canada Atlas Lambert) and
// 19897 (Statistics Canada Lambert), all in metres on GRS 1980. The
// Statistics Canada Lambert's origin is 63°23'26.43"N, 91°52'W.
var canadaLCC = []lccParams{
	{name: "NAD83 / Ontario MNR Lambert", epsg: EPSGOntarioLambert, lat0: 0, lon0: -85, lat1: 44.5, lat2: 53.5, fe: 930_000, fn: 6_430_000},
	{name: "NAD83(CSRS) / Ontario MNR Lambert", epsg: EPSGOntarioLambertCSRS, lat0: 0, lon0: -85, lat1: 44.5, lat2: 53.5, fe: 930_000, fn: 6_430_000},
	{name: "NAD83 / Canada Atlas Lambert", epsg: EPSGCanadaAtlasLambert, lat0: 49, lon0: -95, lat1: 49, lat2: 77},
	{name: "NAD83(CSRS) / Canada Atlas Lambert", epsg: EPSGCanadaAtlasLambertCSRS, lat0: 49, lon0: -95, lat1: 49, lat2: 77},
	{name: "NAD83 / Statistics Canada Lambert", epsg: EPSGStatCanLambert, lat0: 63.390675, lon0: -(91 + 52.0/60), lat1: 49, lat2: 77, fe: 6_200_000, fn: 3_000_000},
	{name: "NAD83(CSRS) / Statistics Canada Lambert", epsg: EPSGStatCanLambertCSRS, lat0: 63.390675, lon0: -(91 + 52.0/60), lat1: 49, lat2: 77, fe: 6_200_000, fn: 3_000_000},
}

// canadaLCCFromEPSG returns the Lambert Conformal Conic of an EPSG code in
// canadaLCC, or false.
func canadaLCCFromEPSG(code int) (Projection, bool, error) {
	for _, p := range canadaLCC {
		if p.epsg == code {
			p.ell, p.units = grs80, 1
			l, err := newLCC(p)
			if err != nil {
				return nil, true, err
			}
			return l, true, nil
		}
	}
	return nil, false, nil
}

// newLCC checks p and computes the projection's constants. It returns an
// ErrUnsupported error for parameters that define no Lambert Conformal
// Conic.
func newLCC(p lccParams) (*lcc, error) {
	bad := func(format string, args ...any) (*lcc, error) {
		return nil, fmt.Errorf("%w: Lambert Conformal Conic %q: %s", ErrUnsupported, p.name, fmt.Sprintf(format, args...))
	}
	if p.oneSP {
		p.lat1, p.lat2 = p.lat0, p.lat0
	} else {
		p.k0 = 1
	}
	switch {
	case !(p.ell.a > 0) || math.IsInf(p.ell.a, 0) || !(p.ell.invF == 0 || p.ell.invF > 1 && !math.IsInf(p.ell.invF, 0)):
		return bad("ellipsoid a = %v, 1/f = %v", p.ell.a, p.ell.invF)
	case !(p.units > 0) || math.IsInf(p.units, 0) || !finite(p.fe) || !finite(p.fn):
		return bad("false easting %v, false northing %v in units of %v m", p.fe, p.fn, p.units)
	case !(p.k0 >= 0.1 && p.k0 <= 10):
		return bad("scale factor %v", p.k0)
	case !(math.Abs(p.lon0) <= 180) || !(math.Abs(p.lat0) < 90):
		return bad("origin longitude %v, latitude %v out of range", p.lon0, p.lat0)
	case !(math.Abs(p.lat1) < 90) || !(math.Abs(p.lat2) < 90):
		return bad("standard parallels %v and %v must lie strictly between the poles", p.lat1, p.lat2)
	}
	t := &lcc{lccParams: p}
	f := p.ell.flattening()
	e2 := f * (2 - f)
	t.e = math.Sqrt(e2)
	t.e2m = 1 - e2
	phi1, phi2 := p.lat1*deg, p.lat2*deg
	var lnm1, psi1 float64
	if math.Abs(phi1-phi2) < 1e-5 {
		// One standard parallel: n = sin φ1, the limit of eq. (15-8).
		// Parallels closer than 2" are taken as one at their mean, where
		// the quotient would cancel away its digits.
		phi := (phi1 + phi2) / 2
		t.n = math.Sin(phi)
		lnm1, psi1 = t.lnM(phi), t.psi(phi)
	} else {
		lnm1, psi1 = t.lnM(phi1), t.psi(phi1)
		t.n = (lnm1 - t.lnM(phi2)) / (t.psi(phi2) - psi1)
	}
	if !(math.Abs(t.n) >= minConeConstant) || !(math.Abs(t.n) <= 1) {
		return bad("standard parallels %v and %v give cone constant n = %.3g: the projection degenerates to a cylinder",
			p.lat1, p.lat2, t.n)
	}
	// a·F = a·m1/(n·t1ⁿ) = a·m1·exp(n·ψ1)/n, eq. (15-10).
	t.aF = p.k0 * p.ell.a * math.Exp(lnm1+t.n*psi1) / t.n
	t.rho0 = t.rho(t.psi(p.lat0 * deg))
	if !finite(t.aF) || !finite(t.rho0) {
		return bad("standard parallels %v and %v, latitude of origin %v give no finite radius", p.lat1, p.lat2, p.lat0)
	}
	return t, nil
}

// lnM is ln m of eq. (14-15).
func (t *lcc) lnM(phi float64) float64 {
	s, c := math.Sincos(phi)
	return math.Log(c) - 0.5*math.Log1p(-t.e*t.e*s*s)
}

// psi is the isometric latitude ψ = -ln t of eq. (15-9), for |φ| < 90°.
func (t *lcc) psi(phi float64) float64 {
	return math.Asinh(conformalTau(t.e, math.Tan(phi)))
}

// rho is eq. (15-7) of ψ, signed like n.
func (t *lcc) rho(psi float64) float64 {
	return t.aF * math.Exp(-t.n*psi)
}

func (t *lcc) Name() string { return t.name }
func (t *lcc) EPSG() int    { return t.epsg }

// FromLngLat projects any point but the pole away from the cone's apex
// (the south pole when n > 0).
func (t *lcc) FromLngLat(p orb.Point) (float64, float64, error) {
	if err := checkLngLat(p[0], p[1]); err != nil {
		return 0, 0, err
	}
	var rho float64
	switch {
	case p[1] == math.Copysign(90, t.n):
		rho = 0 // the apex
	case p[1] == -math.Copysign(90, t.n):
		return 0, 0, fmt.Errorf("%w: %s: latitude %v has no image (the pole away from the cone's apex)", ErrDomain, t.name, p[1])
	default:
		rho = t.rho(t.psi(p[1] * deg))
	}
	sin, cos := math.Sincos(t.n * normalizeLng(p[0]-t.lon0) * deg)
	x := t.fe + rho*sin/t.units
	y := t.fn + (t.rho0-rho*cos)/t.units
	if !finite(x) || !finite(y) {
		return 0, 0, fmt.Errorf("%w: %s: longitude %v, latitude %v give no finite easting and northing", ErrDomain, t.name, p[0], p[1])
	}
	return x, y, nil
}

// maxPsi is the isometric latitude beyond which the latitude is ±90° to
// rounding (tan χ > 1e16).
const maxPsi = 38

// ToLngLat inverts the projection for a point within the cone's angle.
func (t *lcc) ToLngLat(x, y float64) (orb.Point, error) {
	if err := checkXY(x, y); err != nil {
		return orb.Point{}, err
	}
	dx := (x - t.fe) * t.units
	dy := t.rho0 - (y-t.fn)*t.units
	rho := math.Hypot(dx, dy)
	if t.n < 0 {
		rho, dx, dy = -rho, -dx, -dy
	}
	if rho == 0 {
		return orb.Point{t.lon0, math.Copysign(90, t.n)}, nil
	}
	theta := math.Atan2(dx, dy)
	if excess := math.Abs(theta) - math.Pi*math.Abs(t.n); excess > 1e-12 && excess*math.Abs(rho) > maxRounding {
		return orb.Point{}, fmt.Errorf("%w: %s: x %v, y %v lie outside the cone's angle (more than 180° from central meridian %v)",
			ErrDomain, t.name, x, y, t.lon0)
	}
	// ρ/(a·F) = exp(-n·ψ), eq. (15-11).
	psi := -math.Log(rho/t.aF) / t.n
	var lat float64
	switch {
	case !finite(psi):
		return orb.Point{}, fmt.Errorf("%w: %s: x %v, y %v have no latitude", ErrDomain, t.name, x, y)
	case math.Abs(psi) > maxPsi:
		if math.Signbit(psi) != math.Signbit(t.n) {
			return orb.Point{}, fmt.Errorf("%w: %s: x %v, y %v lie at the pole away from the cone's apex", ErrDomain, t.name, x, y)
		}
		lat = math.Copysign(90, psi)
	default:
		lat = math.Atan(geodeticTau(t.e, t.e2m, math.Sinh(psi))) * rad
	}
	lam := math.Max(-180, math.Min(180, theta/t.n*rad))
	return orb.Point{normalizeLng(t.lon0 + lam), lat}, nil
}
