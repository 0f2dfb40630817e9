// Package nts is the British Columbia National Topographic System grid as
// used in legal descriptions (A-2-F/93-P-8): exact lat/lng arithmetic, no
// data (docs/survey-geometry.md §4).
//
// All steps count latitude north from the south edge and longitude west
// from the east edge:
//
//	series      4° × 8°      number 10·col + row, col = ⌊(λW−48)/8⌋, row = ⌊(φ−40)/4⌋
//	map area    1° × 2°      A–P, boustrophedon from the SE (D C B A / E F G H / L K J I / M N O P)
//	map sheet   15′ × 30′    1–16, same snake (4 3 2 1 / 5 6 7 8 / 12 11 10 9 / 13 14 15 16)
//	block       5′ × 7.5′    A–L, 3 rows of 4, same snake (D C B A / E F G H / L K J I)
//	unit        30″ × 45″    1–100, ten rows of ten, every row numbered east → west
//	quarter     15″ × 22.5″  A = SE, B = SW, C = NW, D = NE
//
// Internally a point is indexed on the quarter-unit lattice (1/240° of
// latitude north of 40°N, 1/160° of longitude west of 48°W), so every
// level is integer arithmetic and bounds are exact to float64 rounding.
//
// The grid is defined everywhere, but the package answers only for British
// Columbia: the series 82, 83, 92, 93, 94, 102, 103, 104 and 114, and points
// inside InBC's outline. It knows nothing about DLS areas: in the Peace
// River Block (DLS W6) both grids answer and the caller chooses.
package nts
