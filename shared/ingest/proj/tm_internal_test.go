package proj

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
)

// TestTransverseMercatorPublished checks worked examples published for
// other ellipsoids; the series is the same for any flattening.
func TestTransverseMercatorPublished(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		p      tmParams
		lngLat orb.Point
		x, y   float64
		tol    float64
	}{
		{
			// J. P. Snyder, "Map Projections: A Working Manual", USGS
			// Professional Paper 1395 (1987), p. 269: Clarke 1866,
			// φ = 40°30'N, λ = 73°30'W, λ0 = 75°W, k0 = 0.9996 gives
			// x = 127,106.5 m, y = 4,484,124.4 m. (PROJ 9.1.1: 127106.4674,
			// 4484124.4344.)
			name:   "Snyder 1987 p. 269, Clarke 1866",
			p:      tmParams{name: "Snyder", ell: ellipsoid{a: 6378206.4, invF: 294.978698213898}, lon0: -75, k0: 0.9996, units: 1},
			lngLat: orb.Point{-73.5, 40.5},
			x:      127106.5, y: 4484124.4, tol: 0.05,
		},
		{
			// IOGP Guidance Note 7-2 (EPSG), Transverse Mercator example,
			// OSGB 1936 / British National Grid on Airy 1830: 50°30'N,
			// 0°30'E gives E 577274.99 m, N 69740.50 m. (PROJ 9.1.1:
			// 577274.9838, 69740.4923; the note uses a shorter series.)
			name: "EPSG Guidance Note 7-2, Airy 1830",
			p: tmParams{name: "BNG", ell: ellipsoid{a: 6377563.396, invF: 299.3249646}, lon0: -2, lat0: 49,
				k0: 0.9996012717, fe: 400000, fn: -100000, units: 1},
			lngLat: orb.Point{0.5, 50.5},
			x:      577274.99, y: 69740.50, tol: 0.015,
		},
		{
			// C. F. F. Karney, GeographicLib GeoConvert manual page:
			// "echo 33.3 44.4 | GeoConvert -u" prints "38n 444140.54
			// 3684706.36" (WGS 84).
			name:   "GeoConvert manual, WGS 84 zone 38N",
			p:      utm(38, wgs84, "WGS 84").tmParams,
			lngLat: orb.Point{44.4, 33.3},
			x:      444140.54, y: 3684706.36, tol: 0.005,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTransverseMercator(tc.p)
			x, y, err := p.FromLngLat(tc.lngLat)
			if err != nil || math.Abs(x-tc.x) > tc.tol || math.Abs(y-tc.y) > tc.tol {
				t.Errorf("FromLngLat(%v) = %.4f, %.4f, %v; want %.4f, %.4f within %v m", tc.lngLat, x, y, err, tc.x, tc.y, tc.tol)
			}
			got, err := p.ToLngLat(tc.x, tc.y)
			if err != nil || math.Abs(got[0]-tc.lngLat[0]) > 1e-6 || math.Abs(got[1]-tc.lngLat[1]) > 1e-6 {
				t.Errorf("ToLngLat(%v, %v) = %v, %v; want %v", tc.x, tc.y, got, err, tc.lngLat)
			}
		})
	}
}

// TestTransverseMercatorSphere checks the structure of the series (the
// conformal latitude, ξ', η' and their inverse) against the closed-form
// spherical Transverse Mercator (Snyder 1987, eqs. 8-1 to 8-3 and 8-6 to
// 8-7): with flattening 0 every α_j and β_j vanishes and the two must
// agree to rounding.
func TestTransverseMercatorSphere(t *testing.T) {
	t.Parallel()
	const r, k0 = 6371000.0, 0.9996
	p := newTransverseMercator(tmParams{name: "sphere", ell: ellipsoid{a: r}, lon0: -105, k0: k0, fe: 500000, units: 1})
	for lat := -80.0; lat <= 80; lat += 10 {
		for d := -30.0; d <= 30; d += 7.5 {
			phi, lam := lat*deg, d*deg
			b := math.Cos(phi) * math.Sin(lam)
			wantX := 500000 + k0*r*math.Atanh(b)
			wantY := k0 * r * math.Atan2(math.Tan(phi), math.Cos(lam))
			x, y, err := p.FromLngLat(orb.Point{-105 + d, lat})
			if err != nil || math.Abs(x-wantX) > 1e-6 || math.Abs(y-wantY) > 1e-6 {
				t.Errorf("FromLngLat(%v, %v) = %.7f, %.7f, %v; want %.7f, %.7f", -105+d, lat, x, y, err, wantX, wantY)
			}
			// Inverse, Snyder eqs. 8-6, 8-7.
			dd := (wantY) / (k0 * r)
			wantLat := math.Asin(math.Sin(dd)/math.Cosh((wantX-500000)/(k0*r))) * rad
			wantLng := -105 + math.Atan2(math.Sinh((wantX-500000)/(k0*r)), math.Cos(dd))*rad
			got, err := p.ToLngLat(wantX, wantY)
			if err != nil || math.Abs(got[0]-wantLng) > 1e-11 || math.Abs(got[1]-wantLat) > 1e-11 {
				t.Errorf("ToLngLat(%.4f, %.4f) = %v, %v; want [%v %v]", wantX, wantY, got, err, wantLng, wantLat)
			}
		}
	}
}
