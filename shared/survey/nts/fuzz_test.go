package nts_test

import (
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/survey/nts"
)

// FuzzLocate: for any coordinates, Locate either rejects them or returns a
// location whose block resolves and holds the point.
func FuzzLocate(f *testing.F) {
	f.Add(-123.11478, 49.14809) // ROYAL CITY NO. 1
	f.Add(-120.0, 57.0)         // on 120°W
	f.Add(-125.0, 60.0)         // on 60°N
	f.Add(-120.25, 55.0+1.0/3)  // a block corner
	f.Fuzz(func(t *testing.T, lng, lat float64) {
		pt := orb.Point{lng, lat}
		for _, u := range units {
			l, ok := nts.Locate(pt, u)
			if !ok {
				continue
			}
			b, ok := nts.Resolve(l)
			if !ok || !b.Geometry.Bound().Contains(pt) {
				t.Fatalf("Locate(%v, %v) = %v; Resolve = %v, %v", pt, u, l, b.Geometry, ok)
			}
		}
	})
}
