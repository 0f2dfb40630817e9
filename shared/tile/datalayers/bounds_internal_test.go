package datalayers

import (
	"testing"

	"github.com/paulmach/orb"
)

// A layer of one point (one pasture label at a fraction of the province
// data) was refused by the archive writer: its bounds had no area.
func TestWithArea(t *testing.T) {
	pt := orb.Point{-105.6706125, 52.5374095}
	b := withArea(orb.Bound{Min: pt, Max: pt})
	if w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]; w < minExtent*0.99 || h < minExtent*0.99 {
		t.Errorf("withArea(point) = %v: %g x %g, want at least %g each way", b, w, h, minExtent)
	}
	if !b.Contains(pt) {
		t.Errorf("withArea(point) = %v does not hold the point", b)
	}
	wide := orb.Bound{Min: orb.Point{-110, 49}, Max: orb.Point{-101, 60}}
	if got := withArea(wide); got != wide {
		t.Errorf("withArea changed a box with an area: %v", got)
	}
	line := orb.Bound{Min: orb.Point{-110, 49}, Max: orb.Point{-110, 60}}
	if got := withArea(line); got.Min[1] != 49 || got.Max[1] != 60 || got.Max[0]-got.Min[0] < minExtent*0.99 {
		t.Errorf("withArea(meridian segment) = %v", got)
	}
}
