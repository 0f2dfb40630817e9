package survey_test

import (
	"errors"
	"testing"

	"meridian/shared/survey"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// square is the unit square with south-west corner (x, y), counter-clockwise.
func square(x, y float64) orb.Polygon {
	return orb.Polygon{{{x, y}, {x + 1, y}, {x + 1, y + 1}, {x, y + 1}, {x, y}}}
}

// signedArea is the signed planar area of the closed ring r (positive when
// counter-clockwise).
func signedArea(r orb.Ring) float64 {
	a := 0.0
	for i := 0; i+1 < len(r); i++ {
		a += r[i][0]*r[i+1][1] - r[i+1][0]*r[i][1]
	}
	return a / 2
}

// clockwise reverses p's outer ring (the orientation Dissolve must ignore).
func clockwise(p orb.Polygon) orb.Polygon {
	r := append(orb.Ring(nil), p[0]...)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return orb.Polygon{r}
}

func TestDissolve(t *testing.T) {
	t.Parallel()
	var grid3 []orb.Polygon
	for x := range 3 {
		for y := range 3 {
			grid3 = append(grid3, square(float64(x), float64(y)))
		}
	}
	ring := append([]orb.Polygon(nil), grid3[:4]...)
	ring = append(ring, grid3[5:]...) // the 3×3 grid without its centre
	tests := []struct {
		name  string
		in    []orb.Polygon
		parts int   // polygons in the result
		rings []int // points per ring of the first polygon, closing point included
		area  float64
	}{
		//	+--+--+--+
		//	|  |  |  |   nine squares: one ring of 12 vertices
		//	+--+--+--+
		//	|  |  |  |
		//	+--+--+--+
		//	|  |  |  |
		//	+--+--+--+
		{"3x3 grid", grid3, 1, []int{13}, 9},
		//	+--+
		//	|  |         an L of three squares: 8 vertices
		//	+--+--+
		//	|  |  |
		//	+--+--+
		{"L shape", []orb.Polygon{square(0, 0), square(1, 0), clockwise(square(0, 1))}, 1, []int{9}, 3},
		//	+--+--+--+
		//	|  |  |  |   eight squares round an empty centre: an outer ring
		//	+--+--+--+   of 12 vertices and a hole of 4
		//	|  |  |  |
		//	+--+--+--+
		//	|  |  |  |
		//	+--+--+--+
		{"ring with a hole", ring, 1, []int{13, 5}, 8},
		{"hole filled", []orb.Polygon{
			{{{0, 0}, {3, 0}, {3, 3}, {0, 3}, {0, 0}}, {{1, 1}, {1, 2}, {2, 2}, {2, 1}, {1, 1}}},
			square(1, 1),
		}, 1, []int{5}, 9},
		//	   +--+
		//	   |  |      two squares touching at a corner stay two
		//	+--+--+
		//	|  |
		//	+--+
		{"corner touch", []orb.Polygon{square(0, 0), square(1, 1)}, 2, []int{5}, 2},
		{"separate", []orb.Polygon{square(0, 0), square(5, 5)}, 2, []int{5}, 2},
		{"one polygon", []orb.Polygon{square(0, 0)}, 1, []int{5}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := survey.Dissolve(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var polys []orb.Polygon
			switch g := g.(type) {
			case orb.Polygon:
				polys = []orb.Polygon{g}
			case orb.MultiPolygon:
				polys = g
			}
			if len(polys) != tc.parts {
				t.Fatalf("Dissolve = %v: %d parts, want %d", g, len(polys), tc.parts)
			}
			if tc.parts == 1 {
				if _, ok := g.(orb.Polygon); !ok {
					t.Errorf("one part as %T, want orb.Polygon", g)
				}
			}
			if len(polys[0]) != len(tc.rings) {
				t.Fatalf("first polygon has %d rings, want %d: %v", len(polys[0]), len(tc.rings), polys[0])
			}
			for i, n := range tc.rings {
				r := polys[0][i]
				if len(r) != n || r[0] != r[len(r)-1] {
					t.Errorf("ring %d = %v: want %d points, closed", i, r, n)
				}
				if a := signedArea(r); (i == 0) != (a > 0) {
					t.Errorf("ring %d has signed area %v: outer rings counter-clockwise, holes clockwise", i, a)
				}
			}
			if a := planar.Area(g); a != tc.area {
				t.Errorf("area %v, want %v", a, tc.area)
			}
		})
	}
}

func TestDissolveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []orb.Polygon
	}{
		//	+--+--+
		//	|  |  |      the right square's west edge covers only half of
		//	+--+  |      the left squares' east edges: a T-junction
		//	|  +--+
		//	+--+
		{"non-matching edges", []orb.Polygon{square(0, 0), square(0, 1), {{{1, 0.5}, {2, 0.5}, {2, 2}, {1, 2}, {1, 0.5}}}}},
		{"partly shared edge", []orb.Polygon{square(0, 0), square(1, 0.5)}},
		{"overlap", []orb.Polygon{square(0, 0), square(0, 0)}},
		{"nothing", nil},
		{"empty polygon", []orb.Polygon{{}}},
		{"degenerate ring", []orb.Polygon{{{{0, 0}, {1, 1}, {0, 0}}}}},
		{"zero area", []orb.Polygon{{{{0, 0}, {1, 1}, {2, 2}, {0, 0}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := survey.Dissolve(tc.in)
			if err == nil {
				t.Fatalf("Dissolve = %v, want an error", g)
			}
			if !errors.Is(err, survey.ErrDissolve) {
				t.Errorf("error %v does not wrap ErrDissolve", err)
			}
		})
	}
}

func BenchmarkDissolveTownship(b *testing.B) {
	var polys []orb.Polygon
	for x := range 6 {
		for y := range 6 {
			polys = append(polys, square(float64(x), float64(y)))
		}
	}
	for b.Loop() {
		if _, err := survey.Dissolve(polys); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDissolve dissolves up to four quadrilaterals built from the input:
// no panics, and errors wrap ErrDissolve.
func FuzzDissolve(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 2, 0, 2, 1, 1, 1})
	f.Add([]byte{0, 0, 2, 0, 2, 2, 0, 2, 2, 0, 4, 0, 4, 1, 2, 1, 2, 1, 4, 1, 4, 2, 2, 2})
	f.Add([]byte{0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var polys []orb.Polygon
		for len(b) >= 8 && len(polys) < 4 {
			var r orb.Ring
			for i := 0; i < 8; i += 2 {
				r = append(r, orb.Point{float64(b[i] % 8), float64(b[i+1] % 8)})
			}
			polys = append(polys, orb.Polygon{append(r, r[0])})
			b = b[8:]
		}
		g, err := survey.Dissolve(polys)
		if err != nil {
			if !errors.Is(err, survey.ErrDissolve) {
				t.Fatalf("error %v does not wrap ErrDissolve", err)
			}
			return
		}
		switch g.(type) {
		case orb.Polygon, orb.MultiPolygon:
		default:
			t.Fatalf("Dissolve = %T", g)
		}
	})
}
