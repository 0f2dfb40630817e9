package dls

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey/datum"
)

// The Alberta–British Columbia boundary follows the Pacific–Arctic divide of
// the Rocky Mountains from the 49th parallel to Intersection Mountain and
// then the 120th meridian to 60°N (survey-geometry.md, "Province boundaries
// in DLS terms" d).

// Ends of the divide section (Wikipedia "Extreme points of British Columbia";
// spiralroad.com "Intersection Mountain").
var (
	monument272     = orb.Point{-(114 + 4.0/60 + 5.45/3600), 48 + 59.0/60 + 55.89/3600}
	intersectionMtn = orb.Point{-120, 53.8}
	boundary60      = orb.Point{-120, 60}
)

// lastDivideTownship is the last township the divide crosses: the north edge
// of township 55 (53.803°N) is at Intersection Mountain.
const lastDivideTownship = 55

// rangeKey orders W5 and W6 ranges from east to west across the divide.
type rangeKey struct {
	mer lld.Meridian
	r   uint8
}

func (k rangeKey) less(o rangeKey) bool {
	return k.mer < o.mer || k.mer == o.mer && k.r < o.r
}

// straddle[t] is the span of ranges of township t (1..55) that the divide
// crosses, from survey-geometry.md ("Province boundaries" d, derived there
// from a public provinces polygon plus the model, ±1 range): ranges east of
// lo are wholly in Alberta, ranges west of hi wholly in British Columbia.
var straddle = [lastDivideTownship + 1][2]rangeKey{
	1: {{lld.W5, 1}, {lld.W5, 2}}, 2: {{lld.W5, 2}, {lld.W5, 2}},
	3: {{lld.W5, 2}, {lld.W5, 4}}, 4: {{lld.W5, 4}, {lld.W5, 4}},
	5: {{lld.W5, 4}, {lld.W5, 5}}, 6: {{lld.W5, 5}, {lld.W5, 5}},
	7: {{lld.W5, 5}, {lld.W5, 6}}, 8: {{lld.W5, 5}, {lld.W5, 6}},
	9: {{lld.W5, 5}, {lld.W5, 5}}, 10: {{lld.W5, 5}, {lld.W5, 6}},
	11: {{lld.W5, 5}, {lld.W5, 6}}, 12: {{lld.W5, 5}, {lld.W5, 5}},
	13: {{lld.W5, 5}, {lld.W5, 6}}, 14: {{lld.W5, 6}, {lld.W5, 6}},
	15: {{lld.W5, 6}, {lld.W5, 6}}, 16: {{lld.W5, 6}, {lld.W5, 7}},
	17: {{lld.W5, 7}, {lld.W5, 7}}, 18: {{lld.W5, 7}, {lld.W5, 10}},
	19: {{lld.W5, 8}, {lld.W5, 10}}, 20: {{lld.W5, 10}, {lld.W5, 11}},
	21: {{lld.W5, 11}, {lld.W5, 12}}, 22: {{lld.W5, 12}, {lld.W5, 13}},
	23: {{lld.W5, 12}, {lld.W5, 13}}, 24: {{lld.W5, 13}, {lld.W5, 14}},
	25: {{lld.W5, 14}, {lld.W5, 15}}, 26: {{lld.W5, 15}, {lld.W5, 16}},
	27: {{lld.W5, 16}, {lld.W5, 17}}, 28: {{lld.W5, 17}, {lld.W5, 17}},
	29: {{lld.W5, 17}, {lld.W5, 17}}, 30: {{lld.W5, 17}, {lld.W5, 18}},
	31: {{lld.W5, 18}, {lld.W5, 21}}, 32: {{lld.W5, 19}, {lld.W5, 21}},
	33: {{lld.W5, 19}, {lld.W5, 22}}, 34: {{lld.W5, 22}, {lld.W5, 23}},
	35: {{lld.W5, 23}, {lld.W5, 24}}, 36: {{lld.W5, 24}, {lld.W5, 26}},
	37: {{lld.W5, 24}, {lld.W5, 27}}, 38: {{lld.W5, 27}, {lld.W5, 27}},
	39: {{lld.W5, 27}, {lld.W6, 2}}, 40: {{lld.W5, 27}, {lld.W6, 2}},
	41: {{lld.W5, 28}, {lld.W6, 3}}, 42: {{lld.W6, 3}, {lld.W6, 3}},
	43: {{lld.W6, 3}, {lld.W6, 3}}, 44: {{lld.W6, 3}, {lld.W6, 3}},
	45: {{lld.W6, 3}, {lld.W6, 5}}, 46: {{lld.W6, 5}, {lld.W6, 5}},
	47: {{lld.W6, 5}, {lld.W6, 6}}, 48: {{lld.W6, 6}, {lld.W6, 9}},
	49: {{lld.W6, 6}, {lld.W6, 10}}, 50: {{lld.W6, 10}, {lld.W6, 12}},
	51: {{lld.W6, 11}, {lld.W6, 13}}, 52: {{lld.W6, 13}, {lld.W6, 13}},
	53: {{lld.W6, 12}, {lld.W6, 14}}, 54: {{lld.W6, 12}, {lld.W6, 13}},
	55: {{lld.W6, 13}, {lld.W6, 14}},
}

// divideLine is the interpolated AB–BC boundary: Monument 272 on the 49th
// parallel, one vertex per township 1..55 at its mid-latitude and at the
// middle of its straddling span (from the east edge of the first straddling
// range to the west edge of the last), Intersection Mountain, then north
// along 120°W to 60°N. Vertices are in increasing latitude; between them the
// line is straight in lng/lat. It is approximate: ±1 range (~10 km) south of
// Intersection Mountain, exact (by definition) north of it.
type divideLine [lastDivideTownship + 3]orb.Point

func newDivideLine(m *model) divideLine {
	var d divideLine
	d[0] = monument272
	for t := 1; t <= lastDivideTownship; t++ {
		lo, hi := straddle[t][0], straddle[t][1]
		_, east := m.rangeEdges(lo.mer, int(lo.r), t)
		west, _ := m.rangeEdges(hi.mer, int(hi.r), t)
		d[t] = orb.Point{(east + west) / 2, (m.south[t] + m.south[t+1]) / 2}
	}
	d[lastDivideTownship+1] = intersectionMtn
	d[lastDivideTownship+2] = boundary60
	return d
}

// lng returns the boundary's longitude at latitude lat: the line extended
// due south of Monument 272 and due north of 60°N.
func (d *divideLine) lng(lat float64) float64 {
	if lat <= d[0][1] {
		return d[0][0]
	}
	if lat >= intersectionMtn[1] {
		return intersectionMtn[0]
	}
	// Vertices are about one township (0.087°) apart: start near the answer.
	i := int((lat-firstBaseLine)/0.0874) + 1
	i = max(1, min(i, len(d)-1))
	for i > 1 && d[i-1][1] > lat {
		i--
	}
	for i < len(d)-1 && d[i][1] < lat {
		i++
	}
	a, b := d[i-1], d[i]
	return a[0] + (b[0]-a[0])*(lat-a[1])/(b[1]-a[1])
}

// ABBCBoundary returns the model's Alberta–British Columbia boundary as a
// line from Monument 272 on the 49th parallel north to 60°N, in lng/lat: the
// Rocky Mountain divide interpolated from the township table of
// survey-geometry.md (±1 range, about ±10 km, south of Intersection
// Mountain at 53.8°N) and then the 120th meridian. Package nts uses it so
// that both grids agree on where British Columbia begins.
func ABBCBoundary() orb.LineString {
	ls := make(orb.LineString, len(std.divide))
	copy(ls, std.divide[:])
	return ls
}

// ABBCBoundaryLng returns the longitude of ABBCBoundary at latitude lat.
// Points west of it (smaller longitude) are in British Columbia.
func ABBCBoundaryLng(lat float64) float64 { return std.divide.lng(lat) }

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
