package nts

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// The quarter-unit lattice: rows of 15″ (1/240°) north of 40°N, columns of
// 22.5″ (1/160°) west of 48°W. Sizes of each level in lattice cells.
const (
	originLat     = 40.0
	originLngW    = 48.0 // degrees west
	rowsPerDegree = 240
	colsPerDegree = 160

	seriesRows, seriesCols = 4 * rowsPerDegree, 8 * colsPerDegree // 960 × 1280
	areaRows, areaCols     = rowsPerDegree, 2 * colsPerDegree     // 240 × 320
	sheetRows, sheetCols   = areaRows / 4, areaCols / 4           // 60 × 80
	blockRows, blockCols   = sheetRows / 3, sheetCols / 4         // 20 × 20
	unitRows, unitCols     = blockRows / 10, blockCols / 10       // 2 × 2
)

// bcSeries reports whether s is one of the 1:1,000,000 series that hold
// part of British Columbia.
func bcSeries(s uint8) bool {
	switch s {
	case 82, 83, 92, 93, 94, 102, 103, 104, 114:
		return true
	}
	return false
}

// cells is a block of the lattice: rows i0..i1-1 north of 40°N, columns
// j0..j1-1 west of 48°W.
type cells struct{ i0, i1, j0, j1 int }

// snake returns the row (from the south) and column (from the east) of
// index k (0-based) in a grid 4 wide numbered boustrophedon from the SE.
func snake(k int) (row, col int) {
	row, col = k/4, k%4
	if row%2 == 1 {
		col = 3 - col
	}
	return row, col
}

// snakeIndex is the inverse of snake.
func snakeIndex(row, col int) int {
	if row%2 == 1 {
		col = 3 - col
	}
	return 4*row + col
}

// quarterCell is the (row, column from the east) of quarter units A–D
// within a unit: A = SE, B = SW, C = NW, D = NE.
var quarterCell = [4][2]int{{0, 0}, {0, 1}, {1, 1}, {1, 0}}

// quarterAt is the inverse of quarterCell, by row and column from the east.
var quarterAt = [2][2]byte{{'A', 'B'}, {'D', 'C'}}

// cellsOf returns the lattice cells the NTS location l covers, and false
// when l is not a valid BC NTS location (codes upper case, as
// lld.Location.String writes them).
func cellsOf(l lld.Location) (cells, bool) {
	if l.System != lld.NTS || l.Unit < lld.Series || l.Unit > lld.QuarterUnit || !bcSeries(l.Series) {
		return cells{}, false
	}
	i, j := int(l.Series%10)*seriesRows, int(l.Series/10)*seriesCols
	if l.Unit == lld.Series {
		return cells{i, i + seriesRows, j, j + seriesCols}, true
	}
	if l.Area < 'A' || l.Area > 'P' {
		return cells{}, false
	}
	r, c := snake(int(l.Area - 'A'))
	i, j = i+r*areaRows, j+c*areaCols
	if l.Unit == lld.MapArea {
		return cells{i, i + areaRows, j, j + areaCols}, true
	}
	if l.Sheet < 1 || l.Sheet > 16 {
		return cells{}, false
	}
	r, c = snake(int(l.Sheet - 1))
	i, j = i+r*sheetRows, j+c*sheetCols
	if l.Unit == lld.MapSheet {
		return cells{i, i + sheetRows, j, j + sheetCols}, true
	}
	if l.Block < 'A' || l.Block > 'L' {
		return cells{}, false
	}
	r, c = snake(int(l.Block - 'A'))
	i, j = i+r*blockRows, j+c*blockCols
	if l.Unit == lld.Block {
		return cells{i, i + blockRows, j, j + blockCols}, true
	}
	if l.UnitNo < 1 || l.UnitNo > 100 {
		return cells{}, false
	}
	u := int(l.UnitNo) - 1
	i, j = i+(u/10)*unitRows, j+(u%10)*unitCols
	if l.Unit == lld.NTSUnit {
		return cells{i, i + unitRows, j, j + unitCols}, true
	}
	if l.Quarter < 'A' || l.Quarter > 'D' {
		return cells{}, false
	}
	q := quarterCell[l.Quarter-'A']
	i, j = i+q[0], j+q[1]
	return cells{i, i + 1, j, j + 1}, true
}

// locationAt returns the location of the given unit that holds lattice cell
// (i, j), i, j >= 0, and the cells it covers.
func locationAt(i, j int, unit lld.Unit) (lld.Location, cells) {
	l := lld.Location{System: lld.NTS, Unit: unit, Series: uint8(10*(j/seriesCols) + i/seriesRows)}
	i0, j0 := i-i%seriesRows, j-j%seriesCols
	if unit == lld.Series {
		return l, cells{i0, i0 + seriesRows, j0, j0 + seriesCols}
	}
	ri, rj := i%seriesRows, j%seriesCols
	l.Area = 'A' + byte(snakeIndex(ri/areaRows, rj/areaCols))
	i0, j0 = i-ri%areaRows, j-rj%areaCols
	if unit == lld.MapArea {
		return l, cells{i0, i0 + areaRows, j0, j0 + areaCols}
	}
	ri, rj = ri%areaRows, rj%areaCols
	l.Sheet = uint8(1 + snakeIndex(ri/sheetRows, rj/sheetCols))
	i0, j0 = i-ri%sheetRows, j-rj%sheetCols
	if unit == lld.MapSheet {
		return l, cells{i0, i0 + sheetRows, j0, j0 + sheetCols}
	}
	ri, rj = ri%sheetRows, rj%sheetCols
	l.Block = 'A' + byte(snakeIndex(ri/blockRows, rj/blockCols))
	i0, j0 = i-ri%blockRows, j-rj%blockCols
	if unit == lld.Block {
		return l, cells{i0, i0 + blockRows, j0, j0 + blockCols}
	}
	ri, rj = ri%blockRows, rj%blockCols
	l.UnitNo = uint8(1 + 10*(ri/unitRows) + rj/unitCols)
	i0, j0 = i-ri%unitRows, j-rj%unitCols
	if unit == lld.NTSUnit {
		return l, cells{i0, i0 + unitRows, j0, j0 + unitCols}
	}
	l.Quarter = quarterAt[ri%unitRows][rj%unitCols]
	return l, cells{i, i + 1, j, j + 1}
}

func latOf(i int) float64 { return originLat + float64(i)/rowsPerDegree }
func lngOf(j int) float64 { return -(originLngW + float64(j)/colsPerDegree) }

// bound returns the lng/lat box of c.
func (c cells) bound() orb.Bound {
	return orb.Bound{
		Min: orb.Point{lngOf(c.j1), latOf(c.i0)},
		Max: orb.Point{lngOf(c.j0), latOf(c.i1)},
	}
}

// Bound returns the exact NAD27 lng/lat box of a BC NTS series, map area,
// map sheet, block, unit or quarter unit (the grid's definition, §4's
// figures), and the zero Bound when l is not a valid NTS location in a BC
// series. It applies no coverage test and no datum shift: Resolve gives
// the block in NAD83.
func Bound(l lld.Location) orb.Bound {
	c, ok := cellsOf(l)
	if !ok {
		return orb.Bound{}
	}
	return c.bound()
}
