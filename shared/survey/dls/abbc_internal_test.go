package dls

import (
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// TestDivideTolerance: along the divide, an LSD wholly in British Columbia
// but within abbcToleranceM of the line is Alberta's (AccuracyM says so),
// yet a point of it farther than the tolerance from the line answers no
// Alberta block in reverse; an LSD farther than the tolerance is not
// Alberta's.
func TestDivideTolerance(t *testing.T) {
	t.Parallel()
	var inTol, beyond int
	for _, mr := range [][2]int{{5, 4}, {5, 5}, {5, 6}, {5, 13}, {6, 5}, {6, 12}} {
		for tw := 1; tw <= lastDivideTownship; tw += 6 {
			for sec := 1; sec <= 36; sec++ {
				for lsd := 1; lsd <= 16; lsd++ {
					l := lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W4 + lld.Meridian(mr[0]-4),
						Range: uint8(mr[1]), Township: uint8(tw), Section: uint8(sec), LSD: uint8(lsd)}
					bd, ok := std.bound(l)
					if !ok {
						continue
					}
					corners := []orb.Point{bd.Min, bd.Max, {bd.Min[0], bd.Max[1]}, {bd.Max[0], bd.Min[1]}}
					wholly := true
					for _, c := range corners {
						wholly = wholly && !abbc.inAlberta(c)
					}
					if !wholly || abbc.near(bd) && segmentCrossesAny(bd) {
						continue
					}
					b, ok := std.resolve(l)
					if !abbc.near(bd) {
						if ok {
							t.Errorf("%v is %.0f+ m west of the divide but resolves to %v", l, float64(abbcToleranceM), b.Province)
						}
						beyond++
						continue
					}
					inTol++
					if !ok || b.Province != survey.AB || b.AccuracyM < abbcToleranceM {
						t.Fatalf("%v within the tolerance: Resolve = %v, %v", l, b, ok)
					}
					for _, c := range corners {
						_, ok := std.resolveAt(l, &c)
						if far := !abbc.near(orb.Bound{Min: c, Max: c}); ok == far {
							t.Errorf("%v: ResolveAt(corner %v) ok = %v, corner beyond the tolerance = %v", l, c, ok, far)
						}
					}
				}
			}
		}
	}
	t.Logf("%d LSDs west of the divide within its tolerance, %d beyond", inTol, beyond)
	if inTol == 0 || beyond == 0 {
		t.Error("no LSDs tested on one side of the tolerance")
	}
}

// segmentCrossesAny reports whether the divide passes through b.
func segmentCrossesAny(b orb.Bound) bool {
	for i := 0; i+1 < len(abbc.pts); i++ {
		if segmentCrossesBox(abbc.pts[i], abbc.pts[i+1], b) {
			return true
		}
	}
	return false
}
