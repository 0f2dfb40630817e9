package dls_test

import (
	"testing"

	"meridian/shared/survey/dls"
)

func TestABBCBoundary(t *testing.T) {
	t.Parallel()
	line := dls.ABBCBoundary()
	if n := len(line); n < 10 {
		t.Fatalf("ABBCBoundary has %d vertices", n)
	}
	if first := line[0]; first[1] > 49 || first[0] > -114 || first[0] < -114.1 {
		t.Errorf("ABBCBoundary starts at %v, want Monument 272 (48.9988°N 114.068°W)", first)
	}
	if last := line[len(line)-1]; last[0] != -120 || last[1] != 60 {
		t.Errorf("ABBCBoundary ends at %v, want 120°W 60°N", last)
	}
	// Spot checks against the surveyed line: the westernmost crossing of
	// the parallel.
	tests := []struct {
		lat, lng, tol float64
	}{
		{49.0, -114.068, 0.01}, // Monument 272
		{51.0, -115.72, 0.15},  // near Canmore / Spray Lakes
		{52.5, -118.2, 0.15},   // Yellowhead area
		{53.8, -120, 1e-9},     // Intersection Mountain
		{56, -120, 0},
		{60, -120, 0},
	}
	for _, tc := range tests {
		if got := dls.ABBCBoundaryLng(tc.lat); got < tc.lng-tc.tol || got > tc.lng+tc.tol {
			t.Errorf("ABBCBoundaryLng(%v) = %v, want %v ± %v", tc.lat, got, tc.lng, tc.tol)
		}
	}
}
