package survey_test

import (
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/survey"
)

func TestBoxPolygon(t *testing.T) {
	t.Parallel()
	b := orb.Bound{Min: orb.Point{-114.02, 51.07}, Max: orb.Point{-114.01, 51.08}}
	p := survey.BoxPolygon(b)
	if len(p) != 1 || len(p[0]) != 5 || !p[0].Closed() || p[0].Orientation() != orb.CCW {
		t.Fatalf("BoxPolygon(%v) = %v: want one closed counter-clockwise ring of 5 points", b, p)
	}
	if p[0][0] != b.Min || p[0][2] != b.Max {
		t.Errorf("ring %v does not start at SW and pass NE third", p[0])
	}
	if got := p.Bound(); got != b {
		t.Errorf("bound = %v, want %v", got, b)
	}
}

// RingContains agrees with orb's planar.RingContains away from edges.
func TestRingContains(t *testing.T) {
	t.Parallel()
	r := orb.Ring{{0, 0}, {4, 0}, {4, 4}, {2, 2}, {0, 4}, {0, 0}} // a notched square
	for _, p := range []orb.Point{{1, 1}, {3, 1}, {2, 3}, {1, 3.5}, {5, 1}, {-1, 1}, {2, 1.99}, {2, 2.01}} {
		if got, want := survey.RingContains(r, p), planar.RingContains(r, p); got != want {
			t.Errorf("RingContains(%v) = %v, planar says %v", p, got, want)
		}
	}
}

func TestProvinceNames(t *testing.T) {
	t.Parallel()
	for p, want := range map[survey.Province][2]string{
		survey.AB: {"Alberta", "AB"}, survey.BC: {"British Columbia", "BC"}, survey.SK: {"Saskatchewan", "SK"},
		survey.MB: {"Manitoba", "MB"}, survey.ON: {"Ontario", "ON"}, survey.CanadaLands: {"Canada Lands", "CL"},
		survey.ProvinceNone: {"", ""},
	} {
		if p.Name() != want[0] || p.Code() != want[1] {
			t.Errorf("%d: %q %q, want %q %q", p, p.Name(), p.Code(), want[0], want[1])
		}
	}
}

func TestRound6(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want float64 }{
		{-114.0123455, -114.012346}, // half away from zero, negative
		{51.0000005, 51.000001},     // half away from zero, positive
		{51.0000004999, 51.0},
		{-0.0000005, -0.000001},
		{-49.1234564, -49.123456},
		{0, 0},
	} {
		if got := survey.Round6(tc.in); got != tc.want {
			t.Errorf("Round6(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
