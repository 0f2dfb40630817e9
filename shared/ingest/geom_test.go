package ingest_test

import (
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/ingest"
)

// box is the closed counter-clockwise ring of [x0, x1] × [y0, y1].
func box(x0, y0, x1, y1 float64) orb.Ring {
	return orb.Ring{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}
}

func TestContainsPoint(t *testing.T) {
	t.Parallel()
	hole := box(4, 4, 6, 6)
	hole.Reverse()
	holed := orb.Polygon{box(0, 0, 10, 10), hole}
	// A triangle with sloping edges whose points are exact in binary.
	tri := orb.Polygon{{{0, 0}, {8, 0}, {0, 4}, {0, 0}}}
	multi := orb.MultiPolygon{holed, orb.Polygon{box(20, 0, 30, 10)}}
	tests := []struct {
		name string
		g    orb.Geometry
		pt   orb.Point
		want bool
	}{
		{"inside", holed, orb.Point{2, 2}, true},
		{"outside", holed, orb.Point{11, 2}, false},
		{"outside on an edge's line", holed, orb.Point{12, 0}, false},
		{"on the south edge", holed, orb.Point{5, 0}, true},
		{"on the west edge", holed, orb.Point{0, 3}, true},
		{"on the north edge", holed, orb.Point{3, 10}, true},
		{"on the east edge", holed, orb.Point{10, 7}, true},
		{"on a vertex", holed, orb.Point{10, 10}, true},
		{"on the first vertex", holed, orb.Point{0, 0}, true},
		{"in the hole", holed, orb.Point{5, 5}, false},
		{"on the hole's edge", holed, orb.Point{4, 5}, true},
		{"on the hole's vertex", holed, orb.Point{6, 6}, true},
		{"level with the hole, beside it", holed, orb.Point{8, 5}, true},
		{"level with a vertex, outside", holed, orb.Point{-1, 10}, false},
		{"on a sloping edge", tri, orb.Point{4, 2}, true},
		{"just inside a sloping edge", tri, orb.Point{3.5, 2}, true},
		{"just outside a sloping edge", tri, orb.Point{4.5, 2}, false},
		{"multipolygon, second part", multi, orb.Point{25, 5}, true},
		{"multipolygon, second part's edge", multi, orb.Point{30, 5}, true},
		{"multipolygon, between parts", multi, orb.Point{15, 5}, false},
		{"multipolygon, first part's hole", multi, orb.Point{5, 5}, false},
		{"empty polygon", orb.Polygon{}, orb.Point{0, 0}, false},
		{"empty multipolygon", orb.MultiPolygon{}, orb.Point{0, 0}, false},
		{"a line holds nothing", orb.LineString{{0, 0}, {1, 1}}, orb.Point{0, 0}, false},
		{"nil", nil, orb.Point{0, 0}, false},
	}
	for _, tc := range tests {
		if got := ingest.ContainsPoint(tc.g, tc.pt); got != tc.want {
			t.Errorf("%s: ContainsPoint(%v) = %v, want %v", tc.name, tc.pt, got, tc.want)
		}
	}
}

// TestContainsPointAgreesWithOrb checks random points off the boundary
// against orb's planar.PolygonContains on an irregular polygon with a
// hole: the two may differ only on the boundary.
func TestContainsPointAgreesWithOrb(t *testing.T) {
	t.Parallel()
	outer := orb.Ring{{0, 0}, {10, 1}, {12, 8}, {6, 12}, {-2, 7}, {0, 0}}
	hole := orb.Ring{{3, 3}, {4, 7}, {7, 6}, {6, 3}, {3, 3}} // clockwise
	p := orb.Polygon{outer, hole}
	r := rand.New(rand.NewPCG(1, 2))
	in := 0
	for range 20000 {
		pt := orb.Point{r.Float64()*16 - 3, r.Float64()*14 - 1}
		want := planar.PolygonContains(p, pt)
		if got := ingest.ContainsPoint(p, pt); got != want {
			t.Fatalf("ContainsPoint(%v) = %v, planar says %v", pt, got, want)
		}
		if want {
			in++
		}
	}
	if in < 5000 || in > 15000 {
		t.Errorf("%d of 20000 points inside: the sample misses the polygon", in)
	}
}
