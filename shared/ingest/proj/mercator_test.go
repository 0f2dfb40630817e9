package proj_test

import (
	"errors"
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

func TestWebMercator(t *testing.T) {
	t.Parallel()
	const r = 6378137.0
	p, err := proj.FromEPSG(3857)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		lngLat orb.Point
		x, y   float64
	}{
		{"origin", orb.Point{0, 0}, 0, 0},
		{"equator 180W", orb.Point{-180, 0}, -math.Pi * r, 0},
		{"equator Winnipeg meridian", orb.Point{-97.1384, 0}, r * -97.1384 * math.Pi / 180, 0},
		// The square world of web maps: y = π·R at the latitude
		// 2·atan(e^π) - 90° = 85.0511287798°.
		{"top of the square world", orb.Point{180, 2*math.Atan(math.Exp(math.Pi))*180/math.Pi - 90}, math.Pi * r, math.Pi * r},
		// y = R·ln tan(45° + φ/2) directly, at 60°N: tan 75° = 2 + √3.
		{"60N", orb.Point{-95, 60}, r * -95 * math.Pi / 180, r * math.Log(2+math.Sqrt(3))},
	}
	for _, tc := range tests {
		x, y, err := p.FromLngLat(tc.lngLat)
		if err != nil || math.Abs(x-tc.x) > 1e-7 || math.Abs(y-tc.y) > 1e-7 {
			t.Errorf("%s: FromLngLat(%v) = %.9f, %.9f, %v; want %.9f, %.9f", tc.name, tc.lngLat, x, y, err, tc.x, tc.y)
		}
		got, err := p.ToLngLat(tc.x, tc.y)
		if err != nil || math.Abs(got[0]-tc.lngLat[0]) > 1e-12 || math.Abs(got[1]-tc.lngLat[1]) > 1e-12 {
			t.Errorf("%s: ToLngLat(%v, %v) = %v, %v; want %v", tc.name, tc.x, tc.y, got, err, tc.lngLat)
		}
	}
}

func TestWebMercatorRoundTrip(t *testing.T) {
	t.Parallel()
	p, err := proj.FromEPSG(3857)
	if err != nil {
		t.Fatal(err)
	}
	for lat := -89.0; lat <= 89; lat += 0.5 {
		for lng := -180.0; lng <= 180; lng += 7.5 {
			x, y, err := p.FromLngLat(orb.Point{lng, lat})
			if err != nil {
				t.Fatalf("FromLngLat(%v, %v): %v", lng, lat, err)
			}
			got, err := p.ToLngLat(x, y)
			if err != nil || math.Abs(got[0]-lng) > 1e-12 || math.Abs(got[1]-lat) > 1e-12 {
				t.Errorf("ToLngLat(FromLngLat(%v, %v)) = %v, %v", lng, lat, got, err)
			}
		}
	}
}

func TestWebMercatorDomain(t *testing.T) {
	t.Parallel()
	p, err := proj.FromEPSG(3857)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []orb.Point{{0, 90}, {0, -90}, {math.NaN(), 0}, {0, math.Inf(-1)}, {181, 0}} {
		if x, y, err := p.FromLngLat(in); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("FromLngLat(%v) = %v, %v, %v; want ErrDomain", in, x, y, err)
		}
	}
	for _, in := range [][2]float64{{2.1e7, 0}, {math.NaN(), 0}, {0, math.Inf(1)}} {
		if got, err := p.ToLngLat(in[0], in[1]); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("ToLngLat(%v, %v) = %v, %v; want ErrDomain", in[0], in[1], got, err)
		}
	}
}
