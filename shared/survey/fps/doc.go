// Package fps is the Federal Permit System grid of the Canada Oil and Gas
// Land Regulations (C.R.C., c. 1518, ss. 4-9), used in the Northwest
// Territories, Nunavut and offshore: exact latitude/longitude arithmetic on
// NAD27, moved to NAD83 with NRCan's NTv1 grid (package datum). The
// mathematics and its sources are in ../shared/docs/fps-grid.md.
//
// A grid area is named by its north-east corner (N, E; longitude west). Its
// south edge is S = N − 10′; it is 15′ wide when S < 70° N, else 30′, and
// holds C columns of ten 1′ rows of sections:
//
//	south edge   C   sections  section          unit
//	40°–60°     10   100       1′ × 1.5′        15″ × 22.5″
//	60°–68°      8    80       1′ × 1.875′      15″ × 28.125″
//	68°–70°      6    60       1′ × 2.5′        15″ × 37.5″
//	70°–75°     10   100       1′ × 3′          15″ × 45″
//	75°–78°      8    80       1′ × 3.75′       15″ × 56.25″
//	78°–85°      6    60       1′ × 5′          15″ × 75″
//
// Sections number south to north in each column, columns east to west (1 at
// the south-east, 10 above it, 11 west of 1). Units letter A-P in a snake
// from the south-east corner: D C B A / E F G H / L K J I / M N O P.
//
// Geometry. The regulation joins grid corners with "straight lines", which
// on the ellipsoid are geodesics: a north or south edge bows poleward of
// its parallel by sinφ·cosφ·x·(W−x)/2 radians at x from its east end (at
// most about 7.5 m for 15′ grids, 19.5 m for 30′ grids at 70° N). Blocks
// here are latitude/longitude boxes, as the regulation's own tables are
// written and as fps-grid.md §3 defines them; AccuracyM carries that bow at
// the block plus the datum shift's error.
//
// Datum. COGLR s.9 refers all positions to NAD27. Every vertex is moved to
// NAD83 with datum.NAD27ToNAD83; the edges of a box are split where they
// cross the NTv1 grid's 15′ node lines, where the bilinear shift bends, so
// the NAD83 polygon is the exact image of the NAD27 box under the shift.
// The NTv1 grid covers 40°-84° N, 44°-142° W: grid areas outside it (north
// of 84° N, east of 44° W, west of 142° W) are refused with ErrOutside
// rather than answered with an unshifted guess.
//
// Accuracy (AccuracyM): 2 m for the transformation (EPSG:1312, "NAD27 to
// NAD83 (3)", NRCan's NTv1, operation accuracy 2.0 m) plus the geodesic bow
// above at the block's longitudes, from its formula. EPSG gives that 2 m
// for Canada onshore and the east-coast offshore (40°-83.17° N); over the
// Beaufort Sea and other Arctic waters the NTv1 grid has nodes but no
// published accuracy, and the same 2 m is used there: an assumption. Reverse lookups move
// the NAD83 point to NAD27 (datum.NAD83ToNAD27) and index it with
// half-open intervals: a point on a line belongs to the block north or west
// of it.
package fps
