package proj

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
)

// TestLCCSnyder checks the worked example of J. P. Snyder, "Map
// Projections: A Working Manual", USGS Professional Paper 1395 (1987),
// Appendix A, pp. 296–297: Clarke 1866 (a = 6378206.4 m, e² =
// 0.00676866), standard parallels 33° and 45°, origin 23°N 96°W; 35°N 75°W
// gives x = 1,894,410.9 m, y = 1,564,649.5 m. (PROJ 9.1.1
// with +a=6378206.4 +es=0.00676866: 1894410.8990, 1564649.4768.)
func TestLCCSnyder(t *testing.T) {
	t.Parallel()
	f := 1 - math.Sqrt(1-0.00676866)
	p, err := newLCC(lccParams{name: "Snyder", ell: ellipsoid{a: 6378206.4, invF: 1 / f},
		lat0: 23, lon0: -96, lat1: 33, lat2: 45, units: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := orb.Point{-75, 35}
	const wantX, wantY = 1894410.9, 1564649.5
	x, y, err := p.FromLngLat(in)
	if err != nil || math.Abs(x-wantX) > 0.05 || math.Abs(y-wantY) > 0.05 {
		t.Errorf("FromLngLat(%v) = %.4f, %.4f, %v; want %.1f, %.1f to 0.05 m", in, x, y, err, wantX, wantY)
	}
	got, err := p.ToLngLat(x, y)
	if err != nil || math.Abs(got[0]-in[0]) > 1e-10 || math.Abs(got[1]-in[1]) > 1e-10 {
		t.Errorf("ToLngLat(%.4f, %.4f) = %.11f, %v; want %v", x, y, got, err, in)
	}
}

// TestLCCGuidanceNote7 checks the examples of IOGP Guidance Note 7-2
// (Coordinate Conversions and Transformations including Formulas), given
// to the centimetre, on Clarke 1866 (a = 6378206.4 m, 1/f = 294.9786982):
//
//   - method 9802, 2SP: NAD27 / Texas South Central, standard parallels
//     28°23'N and 30°17'N, false origin 27°50'N 99°W at 2,000,000 US
//     survey feet east; 28°30'N 96°W is E 2,963,503.91 ftUS,
//     N 254,759.80 ftUS.
//   - method 9801, 1SP: JAD69 / Jamaica National Grid, natural origin
//     18°N 77°W, k0 1, FE 250,000 m, FN 150,000 m; 17°55'55.80"N
//     76°56'37.26"W is E 255,966.58 m, N 142,493.51 m.
func TestLCCGuidanceNote7(t *testing.T) {
	t.Parallel()
	clarke := ellipsoid{a: 6378206.4, invF: 294.9786982}
	const usFt = 1200.0 / 3937
	tests := []struct {
		name string
		p    lccParams
		in   orb.Point
		x, y float64
	}{
		{"Texas South Central 2SP", lccParams{name: "TX", ell: clarke, lat0: 27 + 50.0/60, lon0: -99,
			lat1: 28 + 23.0/60, lat2: 30 + 17.0/60, fe: 2_000_000, units: usFt},
			orb.Point{-96, 28.5}, 2963503.91, 254759.80},
		{"Jamaica 1SP", lccParams{name: "JM", ell: clarke, lat0: 18, lon0: -77, oneSP: true, k0: 1,
			fe: 250_000, fn: 150_000, units: 1},
			orb.Point{-(76 + 56.0/60 + 37.26/3600), 17 + 55.0/60 + 55.80/3600}, 255966.58, 142493.51},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := newLCC(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			x, y, err := p.FromLngLat(tc.in)
			if err != nil || math.Abs(x-tc.x) > 0.005 || math.Abs(y-tc.y) > 0.005 {
				t.Errorf("FromLngLat(%v) = %.4f, %.4f, %v; want %.2f, %.2f", tc.in, x, y, err, tc.x, tc.y)
			}
			got, err := p.ToLngLat(tc.x, tc.y)
			if err != nil || groundDistance(got, tc.in) > 0.01 {
				t.Errorf("ToLngLat(%.2f, %.2f) = %.9f, %v; want %v within 1 cm", tc.x, tc.y, got, err, tc.in)
			}
		})
	}
}

// TestLCCSouthernCone checks a cone opening south (n < 0): the south pole
// is the apex and the north pole has no image. PROJ 9.1.1:
// echo '150 -35' | cs2cs -f %.6f +proj=longlat +ellps=GRS80 +to
// +proj=lcc +lat_1=-30 +lat_2=-40 +lat_0=-35 +lon_0=145 +ellps=GRS80
func TestLCCSouthernCone(t *testing.T) {
	t.Parallel()
	p, err := newLCC(lccParams{name: "south", ell: grs80, lat0: -35, lon0: 145, lat1: -30, lat2: -40, units: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.n >= 0 {
		t.Fatalf("n = %v, want negative", p.n)
	}
	const southX, southY = 454520.874627, -11392.429612
	in := orb.Point{150, -35}
	x, y, err := p.FromLngLat(in)
	if err != nil || math.Abs(x-southX) > 1e-3 || math.Abs(y-southY) > 1e-3 {
		t.Errorf("FromLngLat(%v) = %.6f, %.6f, %v; want %.6f, %.6f", in, x, y, err, southX, southY)
	}
	got, err := p.ToLngLat(x, y)
	if err != nil || groundDistance(got, in) > 1e-3 {
		t.Errorf("ToLngLat(%v, %v) = %v, %v; want %v", x, y, got, err, in)
	}
	if _, _, err := p.FromLngLat(orb.Point{0, 90}); err == nil {
		t.Errorf("FromLngLat(north pole) succeeded; want ErrDomain")
	}
	ax, ay, err := p.FromLngLat(orb.Point{0, -90})
	if err != nil || math.Abs(ax) > 1e-6 {
		t.Errorf("FromLngLat(south pole) = %v, %v, %v; want the apex at x 0", ax, ay, err)
	}
	if got, err := p.ToLngLat(ax, ay); err != nil || got[1] != -90 {
		t.Errorf("ToLngLat(apex) = %v, %v; want latitude -90", got, err)
	}
}

// TestLCCTable checks that every entry of canadaLCC builds.
func TestLCCTable(t *testing.T) {
	t.Parallel()
	for _, k := range canadaLCC {
		if _, ok, err := canadaLCCFromEPSG(k.epsg); !ok || err != nil {
			t.Errorf("EPSG:%d: %v, %v", k.epsg, ok, err)
		}
	}
}
