package nts

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Locate returns the NTS location of the given unit (Series, MapArea,
// MapSheet, Block, NTSUnit or QuarterUnit) that holds pt (lng, lat), and
// false when pt is outside the BC series or outside British Columbia
// (InBC). A point on a line belongs to the block north or west of it.
func Locate(pt orb.Point, unit lld.Unit) (lld.Location, bool) {
	if unit < lld.Series || unit > lld.QuarterUnit || !InBC(pt) {
		return lld.Location{}, false
	}
	lng, lat := pt[0], pt[1]
	i := int(math.Floor((lat - originLat) * rowsPerDegree))
	j := int(math.Floor((-lng - originLngW) * colsPerDegree))
	// Rounding: make latOf(i) <= lat < latOf(i+1), lngOf(j+1) < lng <= lngOf(j).
	if lat < latOf(i) {
		i--
	} else if lat >= latOf(i+1) {
		i++
	}
	if lng > lngOf(j) {
		j--
	} else if lng <= lngOf(j+1) {
		j++
	}
	if i < 0 || j < 0 {
		return lld.Location{}, false
	}
	l, _ := locationAt(i, j, unit)
	if !bcSeries(l.Series) {
		return lld.Location{}, false
	}
	return l, true
}
