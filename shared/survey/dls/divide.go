package dls

import (
	"github.com/paulmach/orb"

	"meridian/shared/survey/datum"
)

// The Alberta–British Columbia boundary follows the Pacific–Arctic divide of
// the Rocky Mountains from the 49th parallel to Intersection Mountain and
// then the 120th meridian to 60°N (survey-geometry.md, "Province boundaries
// in DLS terms" d).

// Ends of the divide section (Wikipedia "Extreme points of British Columbia";
// spiralroad.com "Intersection Mountain"); between them the line is
// divideVertices (divide_line.go).
var (
	monument272     = orb.Point{-(114 + 4.0/60 + 5.45/3600), 48 + 59.0/60 + 55.89/3600}
	intersectionMtn = orb.Point{-120, 53.8}
	boundary60      = orb.Point{-120, 60}
)

// lastDivideTownship is the last township the divide crosses: the north edge
// of township 55 (53.803°N) is at Intersection Mountain.
const lastDivideTownship = 55

// ABBCBoundary returns the model's Alberta–British Columbia boundary as a
// line from Monument 272 on the 49th parallel north to 60°N, in lng/lat: the
// Rocky Mountain divide as a public provinces outline draws it (divideVertices,
// ±abbcToleranceM) to Intersection Mountain at 53.8°N, then the 120th
// meridian. The divide part is not monotonic in latitude: where it doubles
// back, a parallel crosses it three or more times. Package nts uses it so
// that both grids agree on where British Columbia begins.
func ABBCBoundary() orb.LineString {
	ls := make(orb.LineString, 0, len(abbc.pts)+1)
	ls = append(ls, abbc.pts...)
	return append(ls, boundary60)
}

// ABBCBoundaryLng returns the westernmost longitude at which ABBCBoundary
// crosses latitude lat (120°W north of Intersection Mountain; the line is
// extended due south of Monument 272). Points west of it (smaller
// longitude) are in British Columbia; east of it a point may still be in
// British Columbia where the divide doubles back (InAlberta decides).
func ABBCBoundaryLng(lat float64) float64 { return abbc.westLng(lat) }

// InAlberta reports whether pt (lng, lat, NAD83) is east of ABBCBoundary,
// on Alberta's side, between 49°N and 60°N. It does not test the other
// boundaries of Alberta.
func InAlberta(pt orb.Point) bool { return abbc.inAlberta(pt) }

// lng120 is the Alberta–British Columbia boundary north of Intersection
// Mountain: the 120th meridian, as the boundary commission surveyed it
// (1913–53), in NAD27 (see ABBCLine120).
const lng120 = -120.0

// ABBCLine120 returns the NAD83 longitude of the Alberta–British Columbia
// boundary at latitude lat north of Intersection Mountain (townships
// 56–126): the 120th meridian of NAD27, about 90 m west of NAD83's 120°W.
// Blocks of those townships are clipped at it. The BC petroleum and natural
// gas grid (package nts) is defined on NAD27 and ends at NAD27's 120°W, so
// clipping Alberta's DLS blocks at the same line makes the two grids meet
// without a gap or an overlap. That the commission's line is NAD27's
// meridian is our reading, not a published fact: the boundary predates
// NAD83 and was computed on the continental datum of its day, so NAD83's
// 120°W would leave an 85–90 m strip that no grid answers. The difference
// is within the model's accuracy_m either way.
func ABBCLine120(lat float64) float64 {
	p, err := datum.NAD27ToNAD83(orb.Point{lng120, lat})
	if err != nil {
		return lng120 // not reached: the grid covers 40°–84°N at 120°W
	}
	return p[0]
}

// lat60 is the north boundary of Alberta, Saskatchewan and Manitoba, the
// 60th parallel (Alberta and Saskatchewan Acts 1905, Manitoba Boundaries
// Extension Act 1912; survey-geometry.md "Province boundaries" f). Township
// 126 is the last township and ends there; the model's 126 townships of 483
// chains would end 180 m short of it (59.9984°N), so township 126 is
// stretched to reach it: each of its 24 LSD rows is 7.5 m (0.4%) taller.
// Where the real surplus lies is not known to us; it is well inside the
// model's error.
const lat60 = 60.0

// Peace River Block (survey-geometry.md "Province boundaries" e): townships
// 77–88 of W6 between 120°W and a west edge that runs from ≈121.94°W at the
// south boundary (south edge of T77) to ≈121.99°W at the north boundary
// (south edge of T89), computed there from the Block's 75.7-mile width
// along great circles [computed, unverified]. The south and north
// boundaries are taken as township lines: the great-circle sag of ≤ 1.7 km
// at the west end (a sliver of T76 inside, of T88 outside) is not modelled.
const (
	prbFirstTownship = 77
	prbLastTownship  = 88
	prbWestSouth     = -121.94
	prbWestNorth     = -121.99
)

// prbWestLng returns the Peace River Block's west edge in township t
// (77–88): the edge at the township's mid-latitude, held over the whole
// township so that blocks clipped at it stay boxes. The edge drifts 0.004°
// (260 m) per township, well inside the ±0.01° the edge itself is known to.
func (m *model) prbWestLng(t int) float64 {
	s, n := m.south[prbFirstTownship], m.south[prbLastTownship+1]
	lat := (m.south[t] + m.south[t+1]) / 2
	f := (lat - s) / (n - s)
	return prbWestSouth + f*(prbWestNorth-prbWestSouth)
}

// mbEast is Manitoba north of the 12th base line and east of the 1st
// meridian, the area E1 ranges north of township 44 may occupy: the
// Manitoba–Ontario line through the vertices of survey-geometry.md §c (from a
// public provinces outline, ±1 km) and then the Hudson Bay coast, simplified
// from the same outline to a dozen vertices (±5 km; the E1 ranges there are
// mostly unsurveyed).
var mbEast = orb.Ring{
	{lngW1, 52.8334}, {-95.1577, 52.8334}, {-93.6637, 53.7368}, {-88.9609, 56.8980},
	{-89.70, 57.01}, {-90.72, 57.28}, {-91.82, 57.12}, {-92.62, 56.99}, {-92.43, 57.43},
	{-92.75, 57.90}, {-93.10, 58.63}, {-93.21, 58.84}, {-94.13, 58.86}, {-94.79, 59.14},
	{-94.67, 59.38}, {-94.72, 59.78}, {-94.69, 60.0}, {lngW1, 60.0}, {lngW1, 52.8334},
}
