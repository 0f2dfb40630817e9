package nts

import (
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Resolve returns the block the NTS location l names: its exact box as a
// closed counter-clockwise lng/lat ring (SW, SE, NE, NW, SW), centroid,
// Province BC, AccuracyM 0 and Source survey.SourceModel. ok is false when
// l is not a valid NTS location in a BC series or the block has no part in
// British Columbia (InBC's outline; a block that crosses the border
// resolves). Fields of l its unit does not use are cleared in the returned
// Location.
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
		Geometry:  survey.BoxPolygon(b),
		Centroid:  b.Center(),
		AccuracyM: 0,
		Source:    survey.SourceModel,
	}, true
}
