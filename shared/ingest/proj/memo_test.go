package proj_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

// countingProj counts the points it converts.
type countingProj struct {
	proj.Projection
	n int
}

func (c *countingProj) FromLngLat(p orb.Point) (float64, float64, error) {
	c.n++
	return c.Projection.FromLngLat(p)
}

// TestMemo checks that a memoized projection gives exactly the
// projection's answers, points again and again, through collisions and
// replacements, errors included, and that it converts a point met again
// only once.
func TestMemo(t *testing.T) {
	for _, code := range []int{26912, 3005, 3347} {
		p, err := proj.FromEPSG(code)
		if err != nil {
			t.Fatal(err)
		}
		c := &countingProj{Projection: p}
		m := proj.Memo(c, 64) // small: most points share a slot with others
		rng := rand.New(rand.NewPCG(1, uint64(code)))
		var pts []orb.Point
		for range 300 {
			pts = append(pts, orb.Point{-120 + rng.Float64()*25, 49 + rng.Float64()*11})
		}
		pts = append(pts, orb.Point{math.NaN(), 50}, orb.Point{-110, math.Inf(1)}, orb.Point{-110, 95})
		for range 20_000 {
			ll := pts[rng.IntN(len(pts))]
			if rng.IntN(4) == 0 { // a near neighbour: the table must not answer for it
				ll[0] = math.Nextafter(ll[0], 0)
			}
			wx, wy, werr := p.FromLngLat(ll)
			x, y, err := m.FromLngLat(ll)
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("EPSG:%d %v: error %v, want %v", code, ll, err, werr)
			}
			if err == nil && (math.Float64bits(x) != math.Float64bits(wx) || math.Float64bits(y) != math.Float64bits(wy)) {
				t.Fatalf("EPSG:%d %v: %v, %v, want %v, %v", code, ll, x, y, wx, wy)
			}
			// And back, from the projected point (or a neighbour of it).
			if err == nil {
				if rng.IntN(4) == 0 {
					wy = math.Nextafter(wy, 0)
				}
				want, werr := p.ToLngLat(wx, wy)
				got, err := m.ToLngLat(wx, wy)
				if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
					t.Fatalf("EPSG:%d %v, %v: error %v, want %v", code, wx, wy, err, werr)
				}
				if math.Float64bits(got[0]) != math.Float64bits(want[0]) || math.Float64bits(got[1]) != math.Float64bits(want[1]) {
					t.Fatalf("EPSG:%d %v, %v: %v, want %v", code, wx, wy, got, want)
				}
			}
		}
		// A run of points each met four times in a row: converted once each.
		c.n = 0
		m = proj.Memo(c, 1024)
		for _, ll := range pts[:200] {
			for range 4 {
				if _, _, err := m.FromLngLat(ll); err != nil {
					t.Fatal(err)
				}
			}
		}
		if c.n != 200 {
			t.Errorf("EPSG:%d: %d conversions for 200 points met four times each, want 200", code, c.n)
		}
		if _, err := m.ToLngLat(math.NaN(), 0); err == nil {
			t.Errorf("EPSG:%d: NaN converted", code)
		}
		if m.EPSG() != p.EPSG() || m.Name() != p.Name() || proj.Geographic(m) {
			t.Errorf("EPSG:%d: the memo names itself %d %q", code, m.EPSG(), m.Name())
		}
	}
	// A geographic system stays one (its callers treat it apart).
	g, err := proj.FromEPSG(proj.EPSGNAD83)
	if err != nil {
		t.Fatal(err)
	}
	if !proj.Geographic(proj.Memo(g, 16)) {
		t.Error("Memo of NAD83 is not geographic")
	}
}
