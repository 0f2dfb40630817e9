package dls

import (
	"math"
	"testing"
)

func TestMeridianArc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		latDeg float64
		want   float64 // metres
		tol    float64
	}{
		{"equator", 0, 0, 1e-9},
		// GRS80 published values: M(45°) and the quarter meridian.
		{"45°", 45, 4984944.378, 1e-3},
		{"quarter meridian", 90, 10001965.729, 1e-3},
	}
	for _, tc := range tests {
		if got := meridianArc(tc.latDeg * degree); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("%s: meridianArc(%v°) = %.4f, want %.4f", tc.name, tc.latDeg, got, tc.want)
		}
	}
}

func TestInverseMeridianArc(t *testing.T) {
	t.Parallel()
	for lat := 48.0; lat <= 61; lat += 0.0137 {
		m := meridianArc(lat * degree)
		if got := inverseMeridianArc(m) / degree; math.Abs(got-lat) > 1e-11 {
			t.Fatalf("inverseMeridianArc(meridianArc(%v°)) = %v°", lat, got)
		}
	}
}

func TestMeridianRadiusIsDerivative(t *testing.T) {
	t.Parallel()
	for _, lat := range []float64{49, 53.5, 60} {
		phi, h := lat*degree, 1e-6
		num := (meridianArc(phi+h) - meridianArc(phi-h)) / (2 * h)
		if got := meridianRadius(phi); math.Abs(got-num)/got > 1e-9 {
			t.Errorf("meridianRadius(%v°) = %v, dM/dφ = %v", lat, got, num)
		}
	}
}
