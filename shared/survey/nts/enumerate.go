package nts

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Cells calls fn, until it returns false, with every location of unit
// (Series ... QuarterUnit) whose block (in NAD83, as Resolve draws it)
// has a bounding box that intersects b (NAD83), and that Locate answers at
// the block's centre: the blocks a map tile over b draws.
func Cells(b orb.Bound, unit lld.Unit, fn func(lld.Location) bool) {
	rows, cols, ok := size(unit)
	if !ok {
		return
	}
	// Lattice rows north of 40°N and columns west of 48°W that b touches
	// in NAD27 (b padded by the largest shift), widened to whole blocks of
	// the unit.
	i0 := floorTo(int(math.Floor((b.Min[1]-padLat-originLat)*rowsPerDegree)), rows)
	i1 := int(math.Ceil((b.Max[1] + padLat - originLat) * rowsPerDegree))
	j0 := floorTo(int(math.Floor((-b.Max[0]-padLng-originLngW)*colsPerDegree)), cols)
	j1 := int(math.Ceil((-b.Min[0] + padLng - originLngW) * colsPerDegree))
	for i := max(i0, 0); i < i1; i += rows {
		for j := max(j0, 0); j < j1; j += cols {
			c := cells{i, i + rows, j, j + cols}
			l, ok := locateNAD27(c.bound().Center(), unit)
			if ok && c.boundNAD83().Intersects(b) && !fn(l) {
				return
			}
		}
	}
}

// boundNAD83 returns the box of c's NAD83 outline (Resolve's ring).
func (c cells) boundNAD83() orb.Bound {
	if c.i1-c.i0 > nodeRows || c.j1-c.j0 > nodeCols {
		return c.ring().Bound()
	}
	// Within one cell of the shift grid the outline's edges are straight:
	// its corners bound it.
	b := c.bound()
	return orb.MultiPoint{toNAD83(b.Min), toNAD83(b.Max), toNAD83(orb.Point{b.Min[0], b.Max[1]}), toNAD83(orb.Point{b.Max[0], b.Min[1]})}.Bound()
}

// size returns a block of unit's height and width in lattice cells.
func size(unit lld.Unit) (rows, cols int, ok bool) {
	switch unit {
	case lld.Series:
		return seriesRows, seriesCols, true
	case lld.MapArea:
		return areaRows, areaCols, true
	case lld.MapSheet:
		return sheetRows, sheetCols, true
	case lld.Block:
		return blockRows, blockCols, true
	case lld.NTSUnit:
		return unitRows, unitCols, true
	case lld.QuarterUnit:
		return 1, 1, true
	}
	return 0, 0, false
}

// floorTo rounds v down to a multiple of n (n > 0).
func floorTo(v, n int) int {
	if v < 0 {
		return -((-v + n - 1) / n) * n
	}
	return v - v%n
}
