package dls

import (
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/teamdata"
)

// groundPoint is one DLS row of the ground-truth sample.
type groundPoint struct {
	raw    string // the lld column as written
	loc    lld.Location
	pt     orb.Point // lng, lat (NAD83)
	kind   string    // point_kind
	source string
}

// readGroundTruth returns the sample's DLS rows, parsed by lld.Parse,
// skipping the test when the shared directory is not beside the repository.
func readGroundTruth(t *testing.T) []groundPoint {
	t.Helper()
	var pts []groundPoint
	for _, p := range teamdata.GroundTruth(t) {
		l, err := lld.Parse(p.LLD)
		if err != nil {
			t.Fatalf("%s line %d: %v", teamdata.GroundTruthFile, p.Line, err)
		}
		if l.System != lld.DLS {
			continue // NTS, tested in package nts
		}
		pts = append(pts, groundPoint{raw: p.LLD, loc: l, pt: p.Pt, kind: p.Kind, source: p.Source})
	}
	return pts
}

// distanceM returns the distance in metres from p to box b (0 inside),
// on the GRS80 ellipsoid with local radii: good to well under a metre at
// these distances.
func distanceM(p orb.Point, b orb.Bound) float64 {
	q := orb.Point{
		math.Max(b.Min[0], math.Min(p[0], b.Max[0])),
		math.Max(b.Min[1], math.Min(p[1], b.Max[1])),
	}
	return pointDistanceM(p, q)
}

// pointDistanceM is the distance in metres between two nearby points.
func pointDistanceM(p, q orb.Point) float64 {
	phi := (p[1] + q[1]) / 2 * degree
	dy := (p[1] - q[1]) * degree * meridianRadius(phi)
	dx := (p[0] - q[0]) * degree * parallelRadius(phi)
	return math.Hypot(dx, dy)
}
