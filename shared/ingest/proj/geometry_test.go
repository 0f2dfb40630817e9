package proj_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

// TestGeometryAll runs every geometry type and value of orb.AllGeometries
// (nil and empty ones included) through Geometry.
func TestGeometryAll(t *testing.T) {
	t.Parallel()
	p, err := proj.FromEPSG(26913)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range orb.AllGeometries {
		t.Run(fmt.Sprintf("%d_%T", i, g), func(t *testing.T) {
			t.Parallel()
			got, err := proj.Geometry(g, p)
			if _, ok := g.(orb.Bound); ok {
				if err == nil {
					t.Fatalf("Geometry(%#v) = %#v, want an error for orb.Bound", g, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Geometry(%#v): %v", g, err)
			}
			if g == nil {
				if got != nil {
					t.Fatalf("Geometry(nil) = %#v, want nil", got)
				}
				return
			}
			if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", g) {
				t.Errorf("Geometry(%#v) is a %T, want %T", g, got, g)
			}
			if isNilSlice(g) != isNilSlice(got) {
				t.Errorf("Geometry(%#v) = %#v: nil-ness changed", g, got)
			}
		})
	}
}

func isNilSlice(g orb.Geometry) bool {
	switch g := g.(type) {
	case orb.MultiPoint:
		return g == nil
	case orb.LineString:
		return g == nil
	case orb.MultiLineString:
		return g == nil
	case orb.Ring:
		return g == nil
	case orb.Polygon:
		return g == nil
	case orb.MultiPolygon:
		return g == nil
	case orb.Collection:
		return g == nil
	}
	return false
}

// TestGeometry checks that every point is converted as ToLngLat converts
// it, and that the input is left alone.
func TestGeometry(t *testing.T) {
	t.Parallel()
	p, err := proj.FromEPSG(3857)
	if err != nil {
		t.Fatal(err)
	}
	const r = 6378137.0
	x := func(lng float64) float64 { return r * lng * math.Pi / 180 }
	square := orb.Ring{{x(-98), 0}, {x(-97), 0}, {x(-97), 1e5}, {x(-98), 1e5}, {x(-98), 0}}
	tests := []struct {
		name string
		in   orb.Geometry
	}{
		{"point", orb.Point{x(-97), 0}},
		{"multipoint", orb.MultiPoint{{x(-97), 0}, {x(-96), 1e5}}},
		{"linestring", orb.LineString{{x(-97), 0}, {x(-96), 1e5}}},
		{"multilinestring", orb.MultiLineString{{{x(-97), 0}, {x(-96), 1e5}}, nil}},
		{"ring", square},
		{"polygon", orb.Polygon{square, square}},
		{"multipolygon", orb.MultiPolygon{{square}, {}}},
		{"collection", orb.Collection{orb.Point{x(-97), 0}, orb.Polygon{square}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := orb.Clone(tc.in)
			got, err := proj.Geometry(tc.in, p)
			if err != nil {
				t.Fatal(err)
			}
			want := orb.Clone(orb.Collection{tc.in})
			forEachPoint(want, func(pt *orb.Point) {
				q, err := p.ToLngLat(pt[0], pt[1])
				if err != nil {
					t.Fatal(err)
				}
				*pt = q
			})
			if diff := cmp.Diff(want.(orb.Collection)[0], got); diff != "" {
				t.Errorf("Geometry mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.in); diff != "" {
				t.Errorf("Geometry changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

// forEachPoint calls f on every point of g, in place.
func forEachPoint(g orb.Geometry, f func(*orb.Point)) {
	pts := func(ps []orb.Point) {
		for i := range ps {
			f(&ps[i])
		}
	}
	switch g := g.(type) {
	case orb.Point:
		panic("forEachPoint: orb.Point is not addressable; wrap it")
	case orb.MultiPoint:
		pts(g)
	case orb.LineString:
		pts(g)
	case orb.Ring:
		pts(g)
	case orb.MultiLineString:
		for _, ls := range g {
			pts(ls)
		}
	case orb.Polygon:
		for _, r := range g {
			pts(r)
		}
	case orb.MultiPolygon:
		for _, pg := range g {
			forEachPoint(pg, f)
		}
	case orb.Collection:
		for i, h := range g {
			if pt, ok := h.(orb.Point); ok {
				f(&pt)
				g[i] = pt
				continue
			}
			forEachPoint(h, f)
		}
	}
}

func TestGeometryError(t *testing.T) {
	t.Parallel()
	p, err := proj.FromEPSG(3857)
	if err != nil {
		t.Fatal(err)
	}
	in := orb.Polygon{{{0, 0}, {1, 0}, {math.NaN(), 1}, {0, 0}}}
	got, err := proj.Geometry(in, p)
	if !errors.Is(err, proj.ErrDomain) || got != nil {
		t.Errorf("Geometry(%v) = %v, %v; want nil and ErrDomain", in, got, err)
	}
}
