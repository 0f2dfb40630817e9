package shp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"
)

// square returns the closed ring of the square [x, x+s] × [y, y+s],
// clockwise when cw (the shapefile's outer-ring orientation).
func square(x, y, s float64, cw bool) orb.Ring {
	r := orb.Ring{{x, y}, {x + s, y}, {x + s, y + s}, {x, y + s}, {x, y}} // counter-clockwise
	if cw {
		r.Reverse()
	}
	return r
}

// reversed returns a reversed copy of r.
func reversed(r orb.Ring) orb.Ring {
	c := r.Clone()
	c.Reverse()
	return c
}

func TestAssemblePolygons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rings []orb.Ring // in the file: outer clockwise, holes counter-clockwise
		want  orb.Geometry
	}{
		{
			name:  "one outer ring",
			rings: []orb.Ring{square(0, 0, 10, true)},
			want:  orb.Polygon{square(0, 0, 10, false)},
		},
		{
			//	+--------+
			//	|  +--+  |
			//	|  |  |  |   hole inside the outer ring
			//	|  +--+  |
			//	+--------+
			name:  "outer ring and hole",
			rings: []orb.Ring{square(0, 0, 10, true), square(2, 2, 3, false)},
			want:  orb.Polygon{square(0, 0, 10, false), square(2, 2, 3, true)},
		},
		{
			// Holes listed after both outer rings, the second's first.
			name: "holes out of order",
			rings: []orb.Ring{
				square(0, 0, 10, true), square(20, 0, 10, true),
				square(22, 2, 3, false), square(2, 2, 3, false), square(5, 5, 2, false),
			},
			want: orb.MultiPolygon{
				{square(0, 0, 10, false), square(2, 2, 3, true), square(5, 5, 2, true)},
				{square(20, 0, 10, false), square(22, 2, 3, true)},
			},
		},
		{
			//	+--------------+
			//	|  +--------+  |   lake in a field, island in the lake:
			//	|  |  +--+  |  |   the island is a second polygon and the
			//	|  |  |  |  |  |   lake belongs to the field, not to the
			//	|  |  +--+  |  |   island (smallest containing outer ring)
			//	|  +--------+  |
			//	+--------------+
			name:  "island in a lake",
			rings: []orb.Ring{square(4, 4, 2, true), square(0, 0, 10, true), square(2, 2, 6, false)},
			want: orb.MultiPolygon{
				{square(4, 4, 2, false)},
				{square(0, 0, 10, false), square(2, 2, 6, true)},
			},
		},
		{
			// A hole touching its outer ring at a corner: the first vertex
			// is on the boundary, the next decides.
			name:  "hole touching the outer ring",
			rings: []orb.Ring{square(0, 0, 10, true), {{0, 0}, {3, 1}, {1, 3}, {0, 0}}},
			want:  orb.Polygon{square(0, 0, 10, false), reversed(orb.Ring{{0, 0}, {3, 1}, {1, 3}, {0, 0}})},
		},
		{
			// A counter-clockwise ring in no outer ring is a polygon of
			// its own (files written with the orientation reversed).
			name:  "orphan hole",
			rings: []orb.Ring{square(0, 0, 10, true), square(20, 20, 5, false)},
			want:  orb.MultiPolygon{{square(0, 0, 10, false)}, {square(20, 20, 5, false)}},
		},
		{
			name:  "all counter-clockwise",
			rings: []orb.Ring{square(0, 0, 1, false), square(5, 5, 1, false)},
			want:  orb.MultiPolygon{{square(0, 0, 1, false)}, {square(5, 5, 1, false)}},
		},
		{
			// Large projected coordinates: the orientation test works
			// relative to the first point.
			name:  "UTM coordinates",
			rings: []orb.Ring{square(399999.5, 5429999.5, 0.001, true), square(399999.5002, 5429999.5002, 0.0002, false)},
			want:  orb.Polygon{square(399999.5, 5429999.5, 0.001, false), square(399999.5002, 5429999.5002, 0.0002, true)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := make([]orb.Ring, len(tc.rings))
			for i, r := range tc.rings {
				in[i] = r.Clone()
			}
			got, err := assemblePolygons(in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("assemblePolygons mismatch (-want +got):\n%s", diff)
			}
			checkOrientation(t, got)
		})
	}
}

// checkOrientation fails unless every outer ring is counter-clockwise and
// every hole clockwise.
func checkOrientation(t *testing.T, g orb.Geometry) {
	t.Helper()
	var polys []orb.Polygon
	switch g := g.(type) {
	case orb.Polygon:
		polys = []orb.Polygon{g}
	case orb.MultiPolygon:
		polys = g
	}
	for i, p := range polys {
		for j, r := range p {
			want := orb.CW
			if j == 0 {
				want = orb.CCW
			}
			if got := r.Orientation(); got != want {
				t.Errorf("polygon %d ring %d orientation %v, want %v", i, j, got, want)
			}
		}
	}
}

func TestAssemblePolygonsDegenerate(t *testing.T) {
	t.Parallel()
	_, err := assemblePolygons([]orb.Ring{square(0, 0, 1, true), {{0, 0}, {1, 1}, {2, 2}, {0, 0}}})
	if err == nil || !strings.Contains(err.Error(), "ring 1 has no area") {
		t.Errorf("assemblePolygons(flat ring) error = %v, want ring 1 has no area", err)
	}
}

func TestPointInRing(t *testing.T) {
	t.Parallel()
	r := square(0, 0, 10, true)
	tests := []struct {
		p    orb.Point
		want int
	}{
		{orb.Point{5, 5}, 1},
		{orb.Point{15, 5}, -1},
		{orb.Point{0, 5}, 0},
		{orb.Point{10, 10}, 0},
		{orb.Point{5, 0}, 0},
		{orb.Point{-1, 0}, -1},
		{orb.Point{5, 10.000001}, -1},
	}
	for _, tc := range tests {
		if got := PointInRing(tc.p, r); got != tc.want {
			t.Errorf("PointInRing(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
}
