package survey_test

import (
	"context"
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/survey"
	"meridian/shared/survey/grid"
)

func TestAreaM2(t *testing.T) {
	t.Parallel()
	// A 0.01° square on the equator: a·dλ × a(1-e²)·dφ.
	sq := orb.Polygon{{{0, 0}, {0.01, 0}, {0.01, 0.01}, {0, 0.01}, {0, 0}}}
	d := 0.01 * math.Pi / 180
	const a, e2 = 6378137.0, 0.00669437999014
	want := a * d * a * (1 - e2) * d
	if got := survey.AreaM2(sq); math.Abs(got-want)/want > 1e-4 {
		t.Errorf("AreaM2(equator square) = %v, want %v", got, want)
	}
	// A quarter section at 51°N: within 0.5% of orb's spherical area.
	b, err := grid.New().Search(context.Background(), "NW-25-24-1-W5")
	if err != nil {
		t.Fatal(err)
	}
	got, sphere := survey.AreaM2(b.Geometry), geo.Area(b.Geometry)
	if math.Abs(got-sphere)/sphere > 0.005 || got < 600_000 || got > 700_000 {
		t.Errorf("AreaM2(NW-25-24-1-W5) = %v, spherical %v", got, sphere)
	}
	for _, g := range orb.AllGeometries {
		_ = survey.AreaM2(g) // no panic; 0 for non-areal
	}
	if survey.AreaM2(nil) != 0 || survey.AreaM2(orb.MultiPolygon{sq, sq}) < 2*want*0.999 {
		t.Error("areaM2 of nil or a multipolygon")
	}
}
