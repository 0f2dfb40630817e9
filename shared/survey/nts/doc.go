// Package nts is the British Columbia National Topographic System grid as
// used in legal descriptions (A-2-F/93-P-8): exact lat/lng arithmetic, no
// data (docs/survey-geometry.md §4).
//
// The grid is defined on NAD27 latitudes and longitudes (BC Data Catalogue,
// "Petroleum and Natural Gas Grid Unit": "It is based on latitude and
// longitude in North American Datum (NAD) 27"). Bound and the lattice below
// are that NAD27 definition, exact. Resolve and Locate speak NAD83, like
// the rest of the service: Resolve moves the NAD27 box to NAD83 with
// NRCan's NTv1 grid (package datum), Locate moves a NAD83 point to NAD27
// before indexing it, and Cells takes a NAD83 box. Computed on NAD83
// coordinates directly, the blocks would sit 70–130 m east of where they
// are; moved, the 118 BC Energy Regulator well surfaces of the team's
// ground truth all fall inside their quarter units (89 did before).
//
// Accuracy: the grid itself is exact, so an answer's error is the
// transformation's, AccuracyM = 2 m, the accuracy the EPSG dataset records
// for NTv1 (transformation 1312, from Geomatics Canada). Coverage
// decisions (InBC, which blocks resolve) are made on NAD27 positions: the
// outline's exact lines, 49°N, 60°N and 120°W, are grid lines there.
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
