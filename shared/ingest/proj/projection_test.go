package proj_test

import (
	"errors"
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

func TestFromEPSG(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		name string
	}{
		{4269, "NAD83"},
		{4326, "WGS 84"},
		{3857, "WGS 84 / Pseudo-Mercator"},
		{3005, "NAD83 / BC Albers"},
		{3153, "NAD83(CSRS) / BC Albers"},
		{26907, "NAD83 / UTM zone 7N"},
		{26913, "NAD83 / UTM zone 13N"},
		{26922, "NAD83 / UTM zone 22N"},
		{32607, "WGS 84 / UTM zone 7N"},
		{32622, "WGS 84 / UTM zone 22N"},
	}
	for _, tc := range tests {
		p, err := proj.FromEPSG(tc.code)
		if err != nil {
			t.Errorf("FromEPSG(%d): %v", tc.code, err)
			continue
		}
		if p.Name() != tc.name || p.EPSG() != tc.code {
			t.Errorf("FromEPSG(%d) = %q, EPSG %d; want %q, %d", tc.code, p.Name(), p.EPSG(), tc.name, tc.code)
		}
	}
	for _, code := range []int{0, -1, 4267, 3395, 26906, 26923, 32606, 32623, 32713, 2957} {
		if p, err := proj.FromEPSG(code); !errors.Is(err, proj.ErrUnsupported) {
			t.Errorf("FromEPSG(%d) = %v, %v; want ErrUnsupported", code, p, err)
		}
	}
}

// TestNAD83MatchesWGS84 documents the service's tolerance: the two UTM
// systems differ only by the flattening of GRS 1980 and WGS 84, well under
// a millimetre in Canada.
func TestNAD83MatchesWGS84(t *testing.T) {
	t.Parallel()
	nad, _ := proj.FromEPSG(26914)
	wgs, _ := proj.FromEPSG(32614)
	for _, pt := range []orb.Point{{-99, 49}, {-102, 60}, {-96, 83}} {
		x1, y1, _ := nad.FromLngLat(pt)
		x2, y2, _ := wgs.FromLngLat(pt)
		if d := math.Hypot(x1-x2, y1-y2); d > 1e-3 {
			t.Errorf("%v: NAD83 and WGS 84 UTM differ by %.4f m", pt, d)
		}
	}
}

func TestGeographic(t *testing.T) {
	t.Parallel()
	for _, code := range []int{4269, 4326} {
		p, err := proj.FromEPSG(code)
		if err != nil {
			t.Fatal(err)
		}
		in := orb.Point{-106.63, 52.13}
		got, err := p.ToLngLat(in[0], in[1])
		if err != nil || got != in {
			t.Errorf("EPSG:%d ToLngLat(%v) = %v, %v; want it unchanged", code, in, got, err)
		}
		x, y, err := p.FromLngLat(in)
		if err != nil || x != in[0] || y != in[1] {
			t.Errorf("EPSG:%d FromLngLat(%v) = %v, %v, %v; want it unchanged", code, in, x, y, err)
		}
		for _, bad := range []orb.Point{{181, 0}, {0, -90.1}, {math.NaN(), 0}, {0, math.Inf(1)}} {
			if _, err := p.ToLngLat(bad[0], bad[1]); !errors.Is(err, proj.ErrDomain) {
				t.Errorf("EPSG:%d ToLngLat(%v): err = %v, want ErrDomain", code, bad, err)
			}
			if _, _, err := p.FromLngLat(bad); !errors.Is(err, proj.ErrDomain) {
				t.Errorf("EPSG:%d FromLngLat(%v): err = %v, want ErrDomain", code, bad, err)
			}
		}
	}
}
