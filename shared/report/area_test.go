package report_test

import (
	"context"
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/report"
	"meridian/shared/survey/grid"
)

func TestAreaM2(t *testing.T) {
	t.Parallel()
	// A 0.01° square on the equator: a·dλ × a(1-e²)·dφ.
	sq := orb.Polygon{{{0, 0}, {0.01, 0}, {0.01, 0.01}, {0, 0.01}, {0, 0}}}
	d := 0.01 * math.Pi / 180
	const a, e2 = 6378137.0, 0.00669437999014
	want := a * d * a * (1 - e2) * d
	if got := report.AreaM2(sq); math.Abs(got-want)/want > 1e-4 {
		t.Errorf("AreaM2(equator square) = %v, want %v", got, want)
	}
	// A quarter section at 51°N: within 0.5% of orb's spherical area.
	b, err := grid.New().Search(context.Background(), "NW-25-24-1-W5")
	if err != nil {
		t.Fatal(err)
	}
	got, sphere := report.AreaM2(b.Geometry), geo.Area(b.Geometry)
	if math.Abs(got-sphere)/sphere > 0.005 || got < 600_000 || got > 700_000 {
		t.Errorf("AreaM2(NW-25-24-1-W5) = %v, spherical %v", got, sphere)
	}
	for _, g := range orb.AllGeometries {
		_ = report.AreaM2(g) // no panic; 0 for non-areal
	}
	if report.AreaM2(nil) != 0 || report.AreaM2(orb.MultiPolygon{sq, sq}) < 2*want*0.999 {
		t.Error("areaM2 of nil or a multipolygon")
	}
}

// area_ha of known blocks, as the goldens of both reports hold them: a
// quarter section is nominally 160 acres (64.75 ha) and the survey's
// road allowances and corrections move it by a few percent.
func TestAreaHa(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lld  string
		want float64
	}{
		{"NE-25-10-14-W2", 64.54}, // agapi testdata/sk-every-section.json
		{"NW-25-24-1-W5", 66.4},   // agapi testdata/ab-full.json
		{"9-10-60-22-W5", 16.21},  // energyapi testdata/report-full.json
	}
	for _, tc := range tests {
		b, err := grid.New().Search(context.Background(), tc.lld)
		if err != nil {
			t.Fatal(err)
		}
		if got := report.AreaHa(b.Geometry); got != tc.want {
			t.Errorf("AreaHa(%s) = %v, want %v", tc.lld, got, tc.want)
		}
	}
	b, err := grid.New().Search(context.Background(), "NE-25-10-14-W2")
	if err != nil {
		t.Fatal(err)
	}
	if got := report.AreaHa(b.Geometry); math.Abs(got-64.75)/64.75 > 0.01 {
		t.Errorf("AreaHa(NE-25-10-14-W2) = %v, want within 1%% of a nominal quarter (64.75 ha)", got)
	}
	for _, g := range orb.AllGeometries {
		_ = report.AreaHa(g) // no panic; 0 for non-areal
	}
	if got := report.AreaHa(nil); got != 0 {
		t.Errorf("AreaHa(nil) = %v, want 0", got)
	}
}
