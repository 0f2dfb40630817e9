// Package dls is a first-principles model of the Dominion Land Survey
// (third system, and the first system in Manitoba): the township grid of
// Alberta, Saskatchewan, Manitoba and British Columbia's Peace River Block,
// computed from the survey rules rather than from surveyed corners
// (docs/survey-geometry.md §1).
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
//   - 1st meridian (W1, E1; manitoba.go): townships 1–26 of W1 and of E1
//     ranges 1–7 are first-system (1871–80): 489 × 489 chains, 1½-chain
//     allowances around every section (equal sixths). The others are third
//     system; where a third-system township meets first-system ones its
//     blocks stop at their lines. Both grids are corrected by a fit to
//     official Manitoba quarter centroids: first-system townships about a
//     chain taller, third-system ones 137 m south, and range lines drifting
//     west going north (14 m a township) with ranges 5 m wider. E2 uses the
//     plain third-system model.
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
// and, for the 3,980 townships within reach of calibration wells, a smooth
// surface of township shifts (a Gaussian kernel of 64 km over the shifts
// that put the most wells in their LSD and section, counting only wells
// between the same correction lines, whose range lines were run from the
// same base line; blended with the regional constant by weight). The fit is made by a test from the
// ground-truth files (go test ./shared/survey/dls -run TestCorrectionTable
// -update) on the calibration townships only: one township in three
// (HeldOut, a hash of meridian, range and township) is kept out, wholly,
// and every accuracy figure comes from its wells. The kernel, prior and the
// weight of wells across correction lines were chosen by 3-fold
// cross-validation inside the calibration set (TestCorrectionParameters
// -cv: 64 km, 1, 0 put the most calibration wells in their section, with
// the lowest worst-fold p99), never on the held-out wells.
//
// Townships move independently, so neighbours with different shifts would
// leave slivers between them: a border block's outer edge is extended to
// its corrected neighbour instead (extend), and neighbouring blocks overlap
// by the difference of their shifts (TestCorrectionOverlaps, over 6,726
// neighbouring pairs of townships with their own shift: 3 m for nine in
// ten, 14 m at the 99th percentile, 96 m at worst; more where the AB W6
// and Peace River Block constants meet at 120°W). Edges on a boundary stay
// on it: township 1 on 49°N, township 126 on 60°N, W4 range 1 on the 4th
// meridian as surveyed. Locate answers a point in an overlap with
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
//	AB W4       131  71.8% → 87.0%   97.7% →  98.5%    37 m → 57 m
//	AB W5        76  72.4% → 94.7%   88.2% → 100%      71 m →  0 m
//	AB W6        12  91.7% → 100%    100%  → 100%       0 m →  0 m
//	BC PRB       30  83.3% → 96.7%   93.3% → 100%      87 m →  0 m
//
// AB W4 stays short of 90% inside the LSD and of a 50 m p99: two of its
// 131 held-out wells are 15–57 m outside their section. Resolve
// reports survey.Block.AccuracyM as the 95th percentile of the held-out
// miss distances of the block's region (surfaceAccuracyM in townships with
// a fitted shift, regionalAccuracyM elsewhere: the regional constants alone
// measured on the same wells; a region with fewer than 40 held-out wells
// takes at least the pooled figure): 42/69 m for AB W4, 20/67 m for AB W5,
// 32/68 m for AB W6, 32/85 m for the Peace River Block. Saskatchewan has
// no ground truth: 1 km for W2/W3 (unverified), 4 km for Saskatchewan W1
// and Manitoba E2 (not measured). Manitoba W1/E1 blocks get the 95th
// percentile of their system's leave-one-township-out misses over 14
// official quarter centroids where those exist (170 m first system,
// townships 1–11; 220 m third system, townships 12–35) and 1 km elsewhere
// (manitoba.go). Alberta blocks within 2 km of the Rocky Mountain divide
// add the divide's own error, 2 km (divide_line.go). Where an official grid has been
// ingested, its polygons replace the model's. The report of every group,
// NTS and Manitoba included, is package survey/accuracy's test.
//
// # Coverage
//
// Province applies the boundary rules of survey-geometry.md ("Province
// boundaries in DLS terms"):
//
//   - Alberta–Saskatchewan is the 4th meridian as surveyed: the last W3
//     range is fractional and clipped there, W4 range 1 starts there.
//   - Manitoba–Saskatchewan is the W1 range 29/30 road allowance up to
//     township 78 (range 30 is fractional at townships 75–78) and the 2nd
//     meridian north of it, where W1 ranges are clipped.
//   - E1 ranges end at range 17 (16 in townships 43–44) and north of
//     township 44 at the Manitoba–Ontario line and the Hudson Bay coast; E2
//     exists in townships 79 and up west of the 1st meridian (its real
//     extent is not documented).
//   - Alberta–British Columbia is the Rocky Mountain divide in townships
//     1–55 (a public provinces outline, ±2 km, see ABBCBoundary and
//     divide_line.go) and the 120th meridian in townships 56–126. A block
//     any part of which is in Alberta is Alberta's, and so is one within
//     the outline's 2 km of the line (its error never throws out a real
//     Alberta parcel); every block within 2 km of the line, on either
//     side, adds 2 km to AccuracyM. A point west of
//     the line by more than 2 km is located in no Alberta block smaller
//     than a township.
//   - North of the divide blocks stop at 120°W: a block with any part east
//     of it resolves to Alberta's part, clipped there, even when most of it
//     lies west of the line. West of 120°W only the Peace River Block is
//     DLS: W6 townships 77–88 east of a west edge computed at
//     ≈121.94–121.99°W (held per township; blocks are clipped at it too).
//     Its south and north boundaries are taken as township lines.
//   - In townships 77–88 a block 120°W crosses is two parcels with one
//     name, one in each province. Resolve answers the larger (the one
//     holding the block's centroid), OtherPart the smaller, and ResolveAt the
//     one on a given point's side, which is what reverse lookups use.
//   - Township 126 ends at 60°N, the boundary: 126 townships of 483 chains
//     end 180 m short of it (59.9984°N), so the model stretches township
//     126 to it (7.5 m per LSD row). Township 127 does not exist.
//
// The BC Railway Belt is not supported. Locate answers W1, never E2, where
// the two overlap. edges_test.go checks every block of the bordering
// ranges at each of these edges, and real wells and places beside them.
package dls
