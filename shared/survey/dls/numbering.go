package dls

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Numbering (survey-geometry.md §1.5). Sections in a township and LSDs in a
// section run boustrophedon from the south-east corner: the bottom row east
// to west, the next west to east, and so on.
//
//	31 32 33 34 35 36        13 14 15 16
//	30 29 28 27 26 25        12 11 10  9
//	19 20 21 22 23 24         5  6  7  8
//	18 17 16 15 14 13         4  3  2  1
//	 7  8  9 10 11 12
//	 6  5  4  3  2  1
//
// Quarters: SE = LSD 1, 2, 7, 8; SW = 3, 4, 5, 6; NW = 11, 12, 13, 14;
// NE = 9, 10, 15, 16.

// snakeCell returns the row (from the south) and column (from the west) of
// number k (1-based) in an n × n grid numbered boustrophedon from the SE.
func snakeCell(k, n int) (row, col int) {
	row, i := (k-1)/n, (k-1)%n
	if row%2 == 0 {
		return row, n - 1 - i
	}
	return row, i
}

// snakeNumber is the inverse of snakeCell.
func snakeNumber(row, col, n int) int {
	if row%2 == 0 {
		return row*n + n - col
	}
	return row*n + col + 1
}

// aliquotCells returns the part of a section's 4 × 4 LSD grid (columns
// x0..x1-1 from the west, rows y0..y1-1 from the south) that a quarter or
// half covers.
func aliquotCells(a lld.Aliquot) (c cells, ok bool) {
	switch a {
	case lld.NE:
		return cells{2, 4, 2, 4}, true
	case lld.NW:
		return cells{0, 2, 2, 4}, true
	case lld.SW:
		return cells{0, 2, 0, 2}, true
	case lld.SE:
		return cells{2, 4, 0, 2}, true
	case lld.NorthHalf:
		return cells{0, 4, 2, 4}, true
	case lld.SouthHalf:
		return cells{0, 4, 0, 2}, true
	case lld.EastHalf:
		return cells{2, 4, 0, 4}, true
	case lld.WestHalf:
		return cells{0, 2, 0, 4}, true
	}
	return cells{}, false
}

// quarterAt returns the quarter holding LSD cell (row, col) of a section,
// both 0..3.
func quarterAt(row, col int) lld.Aliquot {
	switch {
	case row >= 2 && col >= 2:
		return lld.NE
	case row >= 2:
		return lld.NW
	case col >= 2:
		return lld.SE
	}
	return lld.SW
}

// cellsOf returns the LSD cells of the township that l covers, and false
// when l's unit or its section, aliquot or LSD is not valid.
func cellsOf(l lld.Location) (cells, bool) {
	if l.Unit == lld.Township {
		return cells{0, grid, 0, grid}, true
	}
	if l.Section < 1 || l.Section > 36 {
		return cells{}, false
	}
	r, c := snakeCell(int(l.Section), 6)
	x, y := 4*c, 4*r
	switch l.Unit {
	case lld.Section:
		return cells{x, x + 4, y, y + 4}, true
	case lld.QuarterSection, lld.HalfSection:
		if (l.Unit == lld.QuarterSection) != l.Aliquot.IsQuarter() ||
			(l.Unit == lld.HalfSection) != l.Aliquot.IsHalf() {
			return cells{}, false
		}
		a, _ := aliquotCells(l.Aliquot)
		return cells{x + a.x0, x + a.x1, y + a.y0, y + a.y1}, true
	case lld.LSD:
		if l.LSD < 1 || l.LSD > 16 {
			return cells{}, false
		}
		lr, lc := snakeCell(int(l.LSD), 4)
		return cells{x + lc, x + lc + 1, y + lr, y + lr + 1}, true
	}
	return cells{}, false
}

// canonical returns l with only the fields its unit uses.
func canonical(l lld.Location) lld.Location {
	c := lld.Location{
		System:   lld.DLS,
		Unit:     l.Unit,
		Meridian: l.Meridian,
		Range:    l.Range,
		Township: l.Township,
	}
	switch l.Unit {
	case lld.Section:
		c.Section = l.Section
	case lld.QuarterSection, lld.HalfSection:
		c.Section, c.Aliquot = l.Section, l.Aliquot
	case lld.LSD:
		c.Section, c.LSD = l.Section, l.LSD
	}
	return c
}

// locationAt returns the location of the given unit that holds LSD cell
// (x, y) of township t, range r of mer, and the cells it covers.
func locationAt(mer lld.Meridian, r, t, x, y int, unit lld.Unit) (lld.Location, cells) {
	l := lld.Location{System: lld.DLS, Unit: unit, Meridian: mer, Range: uint8(r), Township: uint8(t)}
	if unit == lld.Township {
		return l, cells{0, grid, 0, grid}
	}
	sc, sr := x/4, y/4
	l.Section = uint8(snakeNumber(sr, sc, 6))
	x0, y0 := 4*sc, 4*sr
	switch unit {
	case lld.QuarterSection:
		l.Aliquot = quarterAt(y%4, x%4)
		a, _ := aliquotCells(l.Aliquot)
		return l, cells{x0 + a.x0, x0 + a.x1, y0 + a.y0, y0 + a.y1}
	case lld.LSD:
		l.LSD = uint8(snakeNumber(y%4, x%4, 4))
		return l, cells{x, x + 1, y, y + 1}
	}
	return l, cells{x0, x0 + 4, y0, y0 + 4}
}

// SectionPart returns the part of its section that a quarter section, half
// section or LSD covers, as a box in the section's unit square (x from the
// west edge, y from the south edge, both 0 to 1). Official datasets that
// publish sections or quarters are subdivided with it.
func SectionPart(l lld.Location) (orb.Bound, bool) {
	var c cells
	switch l.Unit {
	case lld.QuarterSection, lld.HalfSection:
		var ok bool
		if c, ok = aliquotCells(l.Aliquot); !ok {
			return orb.Bound{}, false
		}
	case lld.LSD:
		if l.LSD < 1 || l.LSD > 16 {
			return orb.Bound{}, false
		}
		row, col := snakeCell(int(l.LSD), 4)
		c = cells{col, col + 1, row, row + 1}
	default:
		return orb.Bound{}, false
	}
	return orb.Bound{
		Min: orb.Point{float64(c.x0) / 4, float64(c.y0) / 4},
		Max: orb.Point{float64(c.x1) / 4, float64(c.y1) / 4},
	}, true
}

// SectionCell returns the row (from the south, 0-5) and column (from the
// west, 0-5) of section s (1-36) in its township.
func SectionCell(s int) (row, col int) { return snakeCell(s, 6) }

// LSDCell returns the row (from the south, 0-3) and column (from the west,
// 0-3) of LSD n (1-16) in its section.
func LSDCell(n int) (row, col int) { return snakeCell(n, 4) }
