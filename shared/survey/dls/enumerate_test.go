package dls_test

import (
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

// Every township Locate finds at a point of the box is enumerated, and every
// enumerated township's box meets the box.
func TestTownshipsCoverBound(t *testing.T) {
	t.Parallel()
	boxes := []orb.Bound{
		{Min: orb.Point{-114.3, 50.9}, Max: orb.Point{-113.9, 51.2}},   // Calgary, W5 and W4
		{Min: orb.Point{-110.2, 52.0}, Max: orb.Point{-109.8, 52.3}},   // the 4th meridian
		{Min: orb.Point{-97.8, 49.5}, Max: orb.Point{-97.1, 50.0}},     // W1 and E1
		{Min: orb.Point{-120.5, 55.5}, Max: orb.Point{-119.5, 56.5}},   // Peace River Block edge
		{Min: orb.Point{-122.5, 48.0}, Max: orb.Point{-84.0, 61.0}},    // everything
		{Min: orb.Point{-101.9, 58.0}, Max: orb.Point{-101.85, 58.02}}, // a sliver
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range boxes {
		got := map[lld.Location]bool{}
		dls.Townships(b, func(l lld.Location) bool {
			if got[l] {
				t.Errorf("%v: %s twice", b, l)
			}
			got[l] = true
			if tb := dls.Bound(l); !tb.Intersects(b) {
				t.Errorf("%v: %s box %v does not meet it", b, l, tb)
			}
			return true
		})
		for range 2000 {
			pt := orb.Point{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])}
			l, ok := dls.Locate(pt, lld.Township)
			if ok && !got[l] {
				t.Fatalf("%v: %s holds %v but was not enumerated", b, l, pt)
			}
		}
		if len(got) == 0 {
			t.Errorf("%v: no townships", b)
		}
	}
	n := 0
	dls.Townships(orb.Bound{Min: orb.Point{-122.5, 48}, Max: orb.Point{-84, 61}}, func(lld.Location) bool { n++; return n < 10 })
	if n != 10 {
		t.Errorf("stopping after 10 yielded %d", n)
	}
}

func BenchmarkTownships(b *testing.B) {
	box := orb.Bound{Min: orb.Point{-114.6, 50.8}, Max: orb.Point{-113.9, 51.3}} // about a z9 tile
	for b.Loop() {
		dls.Townships(box, func(lld.Location) bool { return true })
	}
}
