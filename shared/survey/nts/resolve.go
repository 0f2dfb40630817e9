package nts

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/datum"
)

// AccuracyM is the accuracy of every NTS answer in NAD83, in metres: the
// grid is exact on NAD27, so what remains is the error of NRCan's NTv1
// transformation to NAD83 (datum.AccuracyM, 2 m as EPSG records it for
// transformation 1312).
const AccuracyM = datum.AccuracyM

// Resolve returns the block the NTS location l names, in NAD83: its exact
// NAD27 box moved to NAD83 with NRCan's NTv1 grid, as a closed
// counter-clockwise lng/lat ring (SW, SE, NE, NW, SW, with extra vertices
// where the edges of a map sheet, map area or series cross the shift
// grid's 15′ node lines, so that the ring is the exact image of the box),
// the NAD27 centre moved the same way as Centroid, Province BC, AccuracyM
// (2 m: the transformation's error, see AccuracyM) and Source
// survey.SourceModel. ok is false when l is not a valid NTS location in a
// BC series or the block has no part in British Columbia (InBC's outline
// against the NAD27 box; a block that crosses the border resolves). Fields
// of l its unit does not use are cleared in the returned Location.
func Resolve(l lld.Location) (survey.Block, bool) {
	c, ok := cellsOf(l)
	if !ok {
		return survey.Block{}, false
	}
	b := c.bound()
	if !intersectsBC(b) {
		return survey.Block{}, false
	}
	loc, _ := locationAt(c.i0, c.j0, l.Unit) // canonical form of l
	return survey.Block{
		Location:  loc,
		Province:  survey.BC,
		Geometry:  orb.Polygon{c.ring()},
		Centroid:  toNAD83(b.Center()),
		AccuracyM: AccuracyM,
		Source:    survey.SourceModel,
	}, true
}
