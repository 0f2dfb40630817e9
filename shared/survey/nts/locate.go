package nts

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/datum"
)

// Locate returns the NTS location of the given unit (Series, MapArea,
// MapSheet, Block, NTSUnit or QuarterUnit) that holds pt (NAD83 lng, lat),
// and false when pt is outside the BC series or outside British Columbia.
// The point is moved to NAD27 with NRCan's NTv1 grid and indexed there,
// where the grid is defined; the coverage test is InBC of that NAD27
// position, as Resolve tests the NAD27 box. A point on a line (in NAD27)
// belongs to the block north or west of it.
func Locate(pt orb.Point, unit lld.Unit) (lld.Location, bool) {
	if unit < lld.Series || unit > lld.QuarterUnit || !nearBC.Contains(pt) {
		return lld.Location{}, false
	}
	p, err := datum.NAD83ToNAD27(pt)
	if err != nil {
		return lld.Location{}, false
	}
	return locateNAD27(p, unit)
}

// nearBC is the outline's box padded by the largest shift: a quick reject
// before the datum shift (it is also false for NaN).
var nearBC = orb.Bound{
	Min: orb.Point{bcBound.Min[0] - padLng, bcBound.Min[1] - padLat},
	Max: orb.Point{bcBound.Max[0] + padLng, bcBound.Max[1] + padLat},
}

// locateNAD27 is Locate of a NAD27 position.
func locateNAD27(pt orb.Point, unit lld.Unit) (lld.Location, bool) {
	if !InBC(pt) {
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
