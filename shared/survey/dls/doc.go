// Package dls is a first-principles model of the Dominion Land Survey
// (third system): the township grid of Alberta, Saskatchewan, Manitoba and
// British Columbia's Peace River Block, computed from the survey rules
// rather than from surveyed corners (docs/survey-geometry.md §1).
//
// # Model
//
// On the GRS80 ellipsoid (NAD83), with M(φ) the meridian arc and r(φ) the
// radius of the parallel:
//
//   - Township T spans latitudes M⁻¹(M(49°) + (T−1)·H) to the same for T+1,
//     H = 483 chains (6 sections of 80 ch plus 3 road allowances of 1 ch).
//   - Range lines are true meridians, measured along the township's
//     governing base line (the south edge of township 4i+1, i = ⌊(T+1)/4⌋),
//     W = 486 chains apart there: a range is W / r(φB) radians of longitude,
//     so range lines jog at every correction line. W ranges count west from
//     their meridian and end at the next one (the last range is fractional
//     and clipped there; a range or block wholly past it does not exist);
//     E ranges (Manitoba) count east.
//   - Meridians: W1 97.4578917°W, W2 102°W (nominal: the only surveyed point
//     found on W2, 102°00′06″W at the MB–SK switch corner, is closer to it
//     than alephcom/dls's unverified 102.0067659), W3 106°W, W4
//     110.0051061°W (surveyed, 110°00′18.4″; 110° exactly puts W4 townships
//     ~340 m east), W5 114°W, W6 118°W; W7 122°W only ends the W6 ranges.
//   - Sections are 80-chain squares with 1-chain road allowances: north–south
//     beside every section column, on its west side within the township
//     (survey posts stand on the west limit of N–S allowances at the
//     north-east corner of every section), east–west on the north side of
//     sections 7–12, 19–24 and 31–36. Each allowance is counted in the block
//     beside it, so blocks tile the township. Quarters, halves and LSDs are
//     1/2 and 1/4 of the 80-chain section; numbering is boustrophedon from
//     the south-east (§1.5). Every block is a lng/lat rectangle.
//
// The tables (township edges, range widths, the divide line, the
// correction spread over every W4–W6 township) are computed once at
// package initialisation; Bound, Resolve, Locate and Province are
// table look-ups and arithmetic, safe for concurrent use.
//
// # Correction
//
// The rules place every township where the survey should have put it; the
// real survey is off by tens of metres, differently from place to place.
// In Alberta (W4–W6) and the Peace River Block each township, with all its
// blocks, is then moved by a shift fitted to real wells (correction.go,
// correction_table.go): a constant per region (AB W4, AB W5, AB W6, PRB)
// and, for the 3,739 townships within about 100 km of calibration wells, a
// smooth surface of township shifts (a Gaussian kernel of 32 km over the
// shifts that put the most wells in their LSD and section, blended with the
// regional constant by weight). The fit is made by a test from the
// ground-truth files (go test ./shared/survey/dls -run TestCorrectionTable
// -update) on the calibration townships only: one township in three
// (HeldOut, a hash of meridian, range and township) is kept out, wholly,
// and every accuracy figure comes from its wells. The kernel and prior were
// chosen by cross-validation inside the calibration set
// (TestCorrectionParameters -cv).
//
// Townships move independently, so neighbours with different shifts would
// leave slivers between them: a border block's outer edge is extended to
// its corrected neighbour instead (extend), and neighbouring blocks overlap
// by the difference of their shifts (under 4 m for nine neighbours in ten,
// 43 m at the 99th percentile, more only where the AB W6 and Peace River
// Block constants meet at 120°W). Locate answers a point in an overlap with
// one of the blocks that hold it. Fractional ranges end on the corrected
// next meridian, so meridians neither overlap nor part.
//
// # Accuracy
//
// Miss distance: the distance from a real well to the modelled LSD its
// licence names, 0 inside (a lower bound on the model's error there, as
// wells are not at LSD centres). On the held-out townships of the ground
// truth (249 wells of the 878 AER bottom holes and BC Energy Regulator
// surfaces; a well within 15 m counts as inside), before and after the
// correction:
//
//	group        n   inside LSD      inside section   p99 section miss
//	AB W4       131  71.8% → 82.4%   97.7% →  88.5%    37 m → 34 m
//	AB W5        76  72.4% → 94.7%   88.2% → 100%      71 m →  0 m
//	AB W6        12  91.7% → 100%    100%  → 100%       0 m →  7 m
//	BC PRB       30  83.3% → 90.0%   93.3% → 100%      87 m →  0 m
//
// AB W4's held-out set is dominated by one township (62-7-W4, 17 wells,
// most on the east line of section 4) whose shift differs from its
// neighbours': the correction moves those wells 15–19 m outside. Resolve
// reports survey.Block.AccuracyM as the 95th percentile of the held-out
// miss distances of the block's region (surfaceAccuracyM in townships with
// a fitted shift, regionalAccuracyM elsewhere: the regional constants alone
// measured on the same wells; a region with fewer than 40 held-out wells
// takes at least the pooled figure): 20/69 m for AB W4, 19/67 m for AB W5,
// 26/68 m for AB W6, 42/85 m for the Peace River Block. Saskatchewan has
// no ground truth: 1 km for W2/W3 (unverified), 4 km for Manitoba and
// Saskatchewan W1 (see Accuracy). Where an official grid has been
// ingested, its polygons replace the model's. The report of every group,
// NTS and Manitoba included, is package survey/accuracy's test.
//
// # Coverage
//
// Province applies the boundary rules of survey-geometry.md ("Province
// boundaries in DLS terms"): the Alberta–Saskatchewan line is the 4th
// meridian; Manitoba–Saskatchewan the W1 range 29/30 road allowance up to
// township 78 and the 2nd meridian north of it; E1 ranges end at range 17
// (16 in townships 43–44) and north of township 44 at the Manitoba–Ontario
// line and the Hudson Bay coast; E2 exists in townships 79 and up west of
// the 1st meridian (its real extent is not documented); Alberta–British
// Columbia is the Rocky Mountain divide (interpolated from a township
// table, ±1 range, see ABBCBoundary) and 120°W; the Peace River Block is W6
// townships 77–88 west of 120°W and east of ≈121.94–121.99°W. Blocks that
// cross a boundary are placed by their centroid. The BC Railway Belt is not
// supported. Locate answers W1, never E2, where the two overlap.
package dls
