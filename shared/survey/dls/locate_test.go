package dls_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
)

var locateUnits = []lld.Unit{lld.Township, lld.Section, lld.QuarterSection, lld.LSD}

func TestLocate(t *testing.T) {
	t.Parallel()
	w5T23 := dls.Bound(twp(lld.W5, 1, 23)).Max[0]
	lsd := func(n, s uint8, mer lld.Meridian, r, tw uint8) lld.Location {
		return lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: mer, Range: r, Township: tw, Section: s, LSD: n}
	}
	tests := []struct {
		name string
		pt   orb.Point
		unit lld.Unit
		want lld.Location
		ok   bool
	}{
		// Real bottom hole well inside its modelled LSD (ground-truth sample).
		{"AER bottom hole", orb.Point{-115.04675, 53.12168}, lld.LSD, lsd(4, 12, lld.W5, 8, 48), true},
		{"BCER surface, Peace River Block", orb.Point{-120.55446, 56.01253}, lld.LSD, lsd(13, 11, lld.W6, 17, 81), true},
		{"township", orb.Point{-115.04675, 53.12168}, lld.Township, twp(lld.W5, 8, 48), true},
		{"section", orb.Point{-115.04675, 53.12168}, lld.Section, sec(12, lld.W5, 8, 48), true},
		{"quarter", orb.Point{-115.04675, 53.12168}, lld.QuarterSection,
			lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: lld.W5, Range: 8, Township: 48, Section: 12, Aliquot: lld.SW}, true},
		// The 5th meridian where the correction puts it in T23 (the east
		// edge of R1 W5; W4's fractional range ends on it).
		{"on the 5th meridian", orb.Point{w5T23, 51}, lld.Township, twp(lld.W5, 1, 23), true},
		{"just east of the 5th meridian", orb.Point{w5T23 + 1e-7, 51}, lld.Township, twp(lld.W4, 29, 23), true},
		// First-system (489-chain) townships: 49.7°N is township 8 (the
		// official centroid of NE-22-8-1E1 is at 49.676°N, NW-10-9-1E1 at
		// 49.735°N), and 101.5°W at 49.5°N is range 30.
		{"east of the 1st meridian", orb.Point{-97.3, 49.7}, lld.Township, twp(lld.E1, 2, 8), true},
		{"Saskatchewan W1", orb.Point{-101.5, 49.5}, lld.Township, twp(lld.W1, 30, 6), true},
		{"Manitoba third system", orb.Point{-101.5, 51.9}, lld.Township, twp(lld.W1, 29, 34), true},
		{"Saskatchewan W3", orb.Point{-106.6, 52.1}, lld.Township, twp(lld.W3, 5, 36), true},
		{"north-west Manitoba answers W1, not E2", orb.Point{-100.3, 56.75}, lld.Township, twp(lld.W1, 18, 89), true},
		{"last township", orb.Point{-112, 59.998}, lld.Township, twp(lld.W4, 12, 126), true},
		{"township 126 reaches 60°N", orb.Point{-112, 59.9999}, lld.Township, twp(lld.W4, 12, 126), true},

		{"south of 49°N", orb.Point{-100, 48.99}, lld.Township, lld.Location{}, false},
		{"on 60°N", orb.Point{-112, 60}, lld.Township, lld.Location{}, false},
		{"north of 60°N", orb.Point{-112, 60.01}, lld.LSD, lld.Location{}, false},
		{"Ontario, south", orb.Point{-94.5, 50}, lld.Township, lld.Location{}, false},
		{"Ontario, north", orb.Point{-90, 55}, lld.Section, lld.Location{}, false},
		{"Hudson Bay", orb.Point{-90, 58}, lld.Section, lld.Location{}, false},
		{"BC, Rocky Mountain Trench", orb.Point{-116, 50.5}, lld.Section, lld.Location{}, false},
		{"BC, 120°W at T60", orb.Point{-120.5, 54.3}, lld.Section, lld.Location{}, false},
		{"BC west of the PRB", orb.Point{-122.1, 56}, lld.Section, lld.Location{}, false},
		{"BC north of the PRB", orb.Point{-121, 57}, lld.Section, lld.Location{}, false},
		{"Vancouver", orb.Point{-123.1, 49.25}, lld.Township, lld.Location{}, false},
		{"NaN", orb.Point{math.NaN(), 50}, lld.Township, lld.Location{}, false},
		{"half sections are not located", orb.Point{-115.04675, 53.12168}, lld.HalfSection, lld.Location{}, false},
		{"NTS unit", orb.Point{-115.04675, 53.12168}, lld.QuarterUnit, lld.Location{}, false},
	}
	for _, tc := range tests {
		got, ok := dls.Locate(tc.pt, tc.unit)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Locate(%v, %v) = %v, %v, want %v, %v", tc.name, tc.pt, tc.unit, got, ok, tc.want, tc.ok)
		}
	}
}

// contains reports whether the block's polygon holds pt, edges included.
func contains(b survey.Block, pt orb.Point) bool {
	return b.Geometry.Bound().Contains(pt)
}

// TestLocateResolveContains: for random points across the coverage and on
// grid lines (correction lines, meridians, range and section lines, LSD
// corners), ResolveAt(Locate(pt, u), pt) holds pt for every unit, and so
// does Resolve(Locate(pt, u)) unless the block is one 120°W splits between
// Alberta and the Peace River Block (townships 77–88).
func TestLocateResolveContains(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(pt orb.Point) (located int) {
		for _, u := range locateUnits {
			l, ok := dls.Locate(pt, u)
			if !ok {
				continue
			}
			located++
			b, ok := dls.ResolveAt(l, pt)
			if !ok {
				t.Fatalf("Locate(%v, %v) = %v, but ResolveAt rejects it", pt, u, l)
			}
			if !contains(b, pt) {
				t.Fatalf("Locate(%v, %v) = %v, whose block %v does not hold the point", pt, u, l, b.Geometry.Bound())
			}
			if b.Location != l {
				t.Fatalf("ResolveAt(%v).Location = %v", l, b.Location)
			}
			r, ok := dls.Resolve(l)
			if !ok {
				t.Fatalf("Locate(%v, %v) = %v, but Resolve rejects it", pt, u, l)
			}
			if !contains(r, pt) && !splitAt120(l) {
				t.Fatalf("Locate(%v, %v) = %v, whose block %v does not hold the point", pt, u, l, r.Geometry.Bound())
			}
		}
		return located
	}

	const n = 200000
	located := 0
	for range n {
		pt := orb.Point{-122 + rng.Float64()*34, 48.95 + rng.Float64()*11.1}
		located += check(pt)
	}
	// Prairie provinces and the PRB are about half of this box.
	if share := float64(located) / (4 * n); share < 0.4 {
		t.Errorf("only %.0f%% of random points located; the test is not exercising the model", 100*share)
	}

	// Points on the lines of random blocks: corners, edge midpoints.
	for range 50000 {
		l := randomLocation(rng)
		b, ok := dls.Resolve(l)
		if !ok {
			continue
		}
		bd := b.Geometry.Bound()
		c := bd.Center()
		for _, pt := range []orb.Point{
			bd.Min, bd.Max, {bd.Min[0], bd.Max[1]}, {bd.Max[0], bd.Min[1]},
			{bd.Min[0], c[1]}, {bd.Max[0], c[1]}, {c[0], bd.Min[1]}, {c[0], bd.Max[1]},
		} {
			check(pt)
		}
	}
}

// TestLocateCentroidRoundTrip: for random valid locations,
// Locate(Resolve(l).Centroid, l.Unit) == l. E2 is answered in W1. Blocks
// that are Alberta's only by the divide's tolerance, with their centroid in
// British Columbia, may answer nothing there.
func TestLocateCentroidRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	resolved := 0
	for range 300000 {
		l := randomLocation(rng)
		if l.Unit == lld.HalfSection {
			l.Unit, l.Aliquot = lld.Section, lld.AliquotNone
		}
		b, ok := dls.Resolve(l)
		if !ok {
			continue
		}
		resolved++
		got, ok := dls.Locate(b.Centroid, l.Unit)
		if l.Meridian == lld.E2 {
			if !ok || got.Meridian != lld.W1 {
				t.Fatalf("Locate(centroid of %v) = %v, %v, want a W1 location", l, got, ok)
			}
			continue
		}
		if !ok && l.Unit != lld.Township && !dls.InAlberta(b.Centroid) {
			// Alberta's by the divide's tolerance, centroid in British
			// Columbia: Locate answers points there only within the tolerance.
			continue
		}
		if !ok || got != l {
			t.Fatalf("Locate(Resolve(%v).Centroid, %v) = %v, %v", l, l.Unit, got, ok)
		}
	}
	if resolved < 100000 {
		t.Errorf("only %d random locations resolved", resolved)
	}
}

// splitAt120 reports whether the block of l has parts on both sides of 120°W
// in the Peace River Block's townships.
func splitAt120(l lld.Location) bool {
	b := dls.Bound(l)
	return l.Meridian == lld.W6 && l.Township >= 77 && l.Township <= 88 && b.Min[0] < -120 && b.Max[0] > -120
}

// randomLocation returns a random syntactically valid DLS location, most of
// them inside coverage.
func randomLocation(rng *rand.Rand) lld.Location {
	mers := []lld.Meridian{lld.W1, lld.W2, lld.W3, lld.W4, lld.W5, lld.W6, lld.E1, lld.E2}
	l := lld.Location{
		System:   lld.DLS,
		Unit:     []lld.Unit{lld.Township, lld.Section, lld.HalfSection, lld.QuarterSection, lld.LSD}[rng.IntN(5)],
		Meridian: mers[rng.IntN(len(mers))],
		Range:    uint8(1 + rng.IntN(34)),
		Township: uint8(1 + rng.IntN(126)),
	}
	if l.Unit != lld.Township {
		l.Section = uint8(1 + rng.IntN(36))
	}
	switch l.Unit {
	case lld.HalfSection:
		l.Aliquot = lld.NorthHalf + lld.Aliquot(rng.IntN(4))
	case lld.QuarterSection:
		l.Aliquot = lld.NE + lld.Aliquot(rng.IntN(4))
	case lld.LSD:
		l.LSD = uint8(1 + rng.IntN(16))
	}
	return l
}

func BenchmarkLocate(b *testing.B) {
	pts := make([]orb.Point, 1024)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range pts {
		pts[i] = orb.Point{-119 + rng.Float64()*9, 49.5 + rng.Float64()*10}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		dls.Locate(pts[i%len(pts)], lld.LSD)
	}
}
