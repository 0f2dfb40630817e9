package nts_test

import (
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/survey/dls"
	"meridian/shared/survey/nts"
)

func TestInBC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pt   orb.Point
		want bool
	}{
		{"Vancouver", orb.Point{-123.12, 49.28}, true},
		{"Victoria", orb.Point{-123.37, 48.43}, true},
		{"Sooke", orb.Point{-123.73, 48.37}, true},
		{"Tofino", orb.Point{-125.91, 49.15}, true},
		{"Cape Scott", orb.Point{-128.42, 50.78}, true},
		{"Masset, Haida Gwaii", orb.Point{-132.14, 54.01}, true},
		{"Cape St James, Haida Gwaii", orb.Point{-131.02, 51.94}, true},
		{"Prince Rupert", orb.Point{-130.32, 54.31}, true},
		{"Terrace", orb.Point{-128.60, 54.52}, true},
		{"Dease Lake", orb.Point{-130.03, 58.44}, true},
		{"Atlin", orb.Point{-133.69, 59.58}, true},
		{"Tatshenshini", orb.Point{-137.3, 59.6}, true},
		{"Fort Nelson", orb.Point{-122.70, 58.81}, true},
		{"Dawson Creek", orb.Point{-120.24, 55.76}, true},
		{"Prince George", orb.Point{-122.75, 53.92}, true},
		{"Valemount", orb.Point{-119.27, 52.83}, true},
		{"Revelstoke", orb.Point{-118.20, 51.00}, true},
		{"Golden", orb.Point{-116.96, 51.30}, true},
		{"Cranbrook", orb.Point{-115.77, 49.51}, true},
		{"Osoyoos", orb.Point{-119.47, 49.03}, true},

		{"Calgary", orb.Point{-114.07, 51.05}, false},
		{"Banff", orb.Point{-115.57, 51.18}, false},
		{"Jasper", orb.Point{-118.08, 52.87}, false},
		{"Grande Prairie", orb.Point{-118.80, 55.17}, false},
		{"Rainbow Lake, AB", orb.Point{-119.40, 58.50}, false},
		{"Seattle", orb.Point{-122.33, 47.61}, false},
		{"Bellingham", orb.Point{-122.48, 48.75}, false},
		{"Point Roberts", orb.Point{-123.06, 48.98}, false},
		{"Friday Harbor", orb.Point{-123.01, 48.53}, false},
		{"Port Angeles", orb.Point{-123.43, 48.12}, false},
		{"Oroville, WA", orb.Point{-119.44, 48.94}, false},
		{"Ketchikan", orb.Point{-131.64, 55.34}, false},
		{"Juneau", orb.Point{-134.42, 58.30}, false},
		{"Skagway", orb.Point{-135.31, 59.46}, false},
		{"Whitehorse", orb.Point{-135.05, 60.72}, false},
		{"60°N itself", orb.Point{-125, 60}, false},
	}
	for _, tc := range tests {
		if got := nts.InBC(tc.pt); got != tc.want {
			t.Errorf("%s: InBC(%v) = %v, want %v", tc.name, tc.pt, got, tc.want)
		}
	}
}

// TestInBCAgreesWithDLS: the east edge of InBC is dls.ABBCBoundary.
func TestInBCAgreesWithDLS(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for range 10000 {
		lat := 49.001 + rng.Float64()*10.99
		lng := dls.ABBCBoundaryLng(lat)
		if !nts.InBC(orb.Point{lng - 1e-7, lat}) || nts.InBC(orb.Point{lng + 1e-7, lat}) {
			t.Fatalf("InBC disagrees with dls.ABBCBoundaryLng(%v) = %v", lat, lng)
		}
	}
}

func BenchmarkInBC(b *testing.B) {
	pt := orb.Point{-122.75, 53.92}
	for b.Loop() {
		nts.InBC(pt)
	}
}
