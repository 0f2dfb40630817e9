package dls_test

import (
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

// FuzzLocate: for any coordinates, Locate either rejects them or returns a
// location whose block (ResolveAt, the part on the point's side) holds the
// point.
func FuzzLocate(f *testing.F) {
	f.Add(-115.04675, 53.12168)   // Alberta W5
	f.Add(-114.0, 51.0)           // on the 5th meridian
	f.Add(-97.4578917, 49.5)      // on the 1st meridian
	f.Add(-120.0, 56.0)           // 120°W in the Peace River Block
	f.Add(-120.001, 56.19)        // west of 120°W in a block 120°W splits
	f.Add(-110.0, 59.9999999)     // just south of 60°N, the north edge of township 126
	f.Add(-101.5, 49.17473804636) // near the T2/T3 correction line
	f.Fuzz(func(t *testing.T, lng, lat float64) {
		pt := orb.Point{lng, lat}
		for _, u := range []lld.Unit{lld.Township, lld.Section, lld.QuarterSection, lld.LSD} {
			l, ok := dls.Locate(pt, u)
			if !ok {
				continue
			}
			b, ok := dls.ResolveAt(l, pt)
			if !ok || !b.Geometry.Bound().Contains(pt) {
				t.Fatalf("Locate(%v, %v) = %v; Resolve = %v, %v", pt, u, l, b.Geometry, ok)
			}
		}
	})
}
