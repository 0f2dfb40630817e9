package dls

import "math"

// GRS80 ellipsoid (NAD83).
const (
	semiMajor  = 6378137.0
	flattening = 1 / 298.257222101
	semiMinor  = semiMajor * (1 - flattening)
	ecc2       = flattening * (2 - flattening) // first eccentricity squared
	thirdFlat  = flattening / (2 - flattening) // n = (a-b)/(a+b)
	degree     = math.Pi / 180                 // radians per degree
	chain      = 20.1168                       // metres: 66 ft
)

// Meridian-arc coefficients (series in n, truncated after n³: error below
// 0.1 mm on GRS80).
var (
	arc0 = 1 + thirdFlat + 5.0/4*thirdFlat*thirdFlat + 5.0/4*thirdFlat*thirdFlat*thirdFlat
	arc2 = 3*thirdFlat + 3*thirdFlat*thirdFlat + 21.0/8*thirdFlat*thirdFlat*thirdFlat
	arc4 = 15.0/8*thirdFlat*thirdFlat + 15.0/8*thirdFlat*thirdFlat*thirdFlat
	arc6 = 35.0 / 24 * thirdFlat * thirdFlat * thirdFlat
)

// meridianArc returns M(φ), the length in metres of the meridian from the
// equator to latitude phi (radians).
func meridianArc(phi float64) float64 {
	return semiMinor * (arc0*phi -
		arc2*math.Sin(phi)*math.Cos(phi) +
		arc4*math.Sin(2*phi)*math.Cos(2*phi) -
		arc6*math.Sin(3*phi)*math.Cos(3*phi))
}

// meridianRadius is ρ(φ), the radius of curvature in the meridian: dM/dφ.
func meridianRadius(phi float64) float64 {
	s := math.Sin(phi)
	w := 1 - ecc2*s*s
	return semiMajor * (1 - ecc2) / (w * math.Sqrt(w))
}

// primeVerticalRadius is N(φ).
func primeVerticalRadius(phi float64) float64 {
	s := math.Sin(phi)
	return semiMajor / math.Sqrt(1-ecc2*s*s)
}

// parallelRadius is r(φ) = N(φ)·cos φ, the radius of the parallel at phi.
func parallelRadius(phi float64) float64 {
	return primeVerticalRadius(phi) * math.Cos(phi)
}

// inverseMeridianArc returns the latitude (radians) whose meridian arc is m
// metres, by Newton iteration on meridianArc.
func inverseMeridianArc(m float64) float64 {
	phi := m / (semiMinor * arc0)
	for range 10 {
		d := (m - meridianArc(phi)) / meridianRadius(phi)
		phi += d
		if math.Abs(d) < 1e-15 {
			break
		}
	}
	return phi
}
