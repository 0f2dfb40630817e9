package nts

import (
	"github.com/paulmach/orb"

	"meridian/shared/survey"
	"meridian/shared/survey/dls"
)

// bcOutline is a coarse outline of British Columbia's mainland and islands,
// for coverage decisions only (lng/lat, closed, counter-clockwise). Locate
// and Resolve read it as NAD27, the grid's datum, so that 49°N, 60°N and
// 120°W are grid lines; its coarse parts (±2 km, ±3 km) do not depend on
// the datum, and InBC's callers with NAD83 points stay within the 70–130 m
// the datums differ by:
//
//   - east: the Alberta boundary exactly as package dls models it
//     (dls.ABBCBoundary): the Rocky Mountain divide from a public provinces
//     outline (±2 km) to Intersection Mountain (53.8°N), then 120°W
//     (exact) to 60°N. Package dls also answers Alberta blocks up to 2 km
//     west of the line (its tolerance), so the grids may overlap there but
//     never leave a gap;
//   - north: 60°N (exact) from 120°W to 139.04°W;
//   - north-west: the Alaska boundary to Portland Canal and the A–B line
//     in Dixon Entrance, about 25 vertices simplified from a public
//     provinces outline (github.com/darrellenns/n1mm-display
//     public/data/canada.geojson, itself ±1 km): ±3 km;
//   - west: offshore of Haida Gwaii and Vancouver Island (generous: coastal
//     waters count as BC);
//   - south: the Strait of Juan de Fuca, Haro Strait and Boundary Pass at
//     ±3 km (Vancouver Island reaches 48.3°N), then 49°N (exact) from
//     123.32°W east to Monument 272.
var bcOutline = newOutline()

// westernBoundary runs from 60°N at the Yukon–Alaska corner of BC south and
// east to 49°N at the Strait of Georgia.
var westernBoundary = []orb.Point{
	{-139.04, 60.0}, {-137.60, 59.23}, {-137.54, 58.90}, {-136.94, 59.10}, {-136.49, 59.26},
	{-136.36, 59.45}, {-136.01, 59.66}, {-135.48, 59.80}, {-135.14, 59.63}, {-135.03, 59.48},
	{-135.09, 59.43}, {-135.02, 59.34}, {-134.56, 59.12}, {-134.28, 58.86}, {-133.46, 58.39},
	{-133.27, 58.21}, {-133.09, 58.01}, {-132.77, 57.70}, {-132.26, 57.21}, {-132.06, 57.04},
	{-132.13, 56.87}, {-131.58, 56.61}, {-131.07, 56.40}, {-130.81, 56.37}, {-130.45, 56.20},
	{-130.10, 56.12}, {-130.00, 55.99}, {-130.17, 55.75}, {-130.13, 55.60}, {-130.00, 55.30},
	{-130.17, 54.95}, {-130.61, 54.70}, // Portland Canal to its mouth
	{-132.68, 54.66}, {-133.60, 54.50}, // A–B line, Cape Muzon, then offshore
	{-133.70, 53.30}, {-132.00, 51.60}, {-129.60, 50.50}, {-127.00, 48.80}, // offshore
	{-124.73, 48.49}, {-124.00, 48.28}, {-123.50, 48.25}, // Strait of Juan de Fuca
	{-123.20, 48.42}, {-123.25, 48.68}, {-123.00, 48.77}, // Haro Strait, Boundary Pass
	{-123.3225, 49.0}, // 49th parallel at the Strait of Georgia
}

func newOutline() orb.Ring {
	// Counter-clockwise: north up the Alberta boundary, west along 60°N,
	// down the west coast, east along 49°N.
	east := dls.ABBCBoundary() // Monument 272 north to (−120, 60)
	r := make(orb.Ring, 0, len(east)+len(westernBoundary)+1)
	r = append(r, east...)
	r = append(r, westernBoundary...)
	return append(r, east[0])
}

// bcBound is the outline's box, a quick reject.
var bcBound = bcOutline.Bound()

// InBC reports whether pt (lng, lat) is in British Columbia by a coarse
// outline (see bcOutline): exact on 49°N, 60°N and 120°W, the Alberta
// boundary south of 53.8°N as package dls models it (±2 km), ±3 km along
// the Alaska boundary and Juan de Fuca, and generous offshore. It is meant
// to reject points clearly outside British Columbia, not to draw its
// border.
func InBC(pt orb.Point) bool {
	// 60°N itself belongs to the Yukon and the Northwest Territories: the
	// blocks north of it are not British Columbia.
	if pt[1] >= 49 && pt[1] < 53.8 && pt[0] >= -123 {
		// East of the coast and between the 49th parallel and Intersection
		// Mountain the outline's only edge is the divide: its look-up by
		// latitude band is cheaper than the ring's 500 vertices.
		return !dls.InAlberta(pt)
	}
	if pt[1] >= 53.8 && pt[1] < 60 && pt[0] >= -129.9 {
		return pt[0] < -120 // the outline's only edge east of Portland Canal
	}
	return bcBound.Contains(pt) && pt[1] < bcBound.Max[1] && survey.RingContains(bcOutline, pt)
}

// intersectsBC reports whether box b shares any area with the outline
// (touching along 120°W or 60°N is not sharing).
func intersectsBC(b orb.Bound) bool {
	const eps = 1e-9 // degrees, 0.1 mm: boxes that only touch do not count
	b.Min[0], b.Min[1], b.Max[0], b.Max[1] = b.Min[0]+eps, b.Min[1]+eps, b.Max[0]-eps, b.Max[1]-eps
	if !b.Intersects(bcBound) {
		return false
	}
	for _, p := range [...]orb.Point{b.Center(), b.Min, b.Max, {b.Min[0], b.Max[1]}, {b.Max[0], b.Min[1]}} {
		if survey.RingContains(bcOutline, p) {
			return true
		}
	}
	// No corner inside: the box meets the outline only if an outline edge
	// crosses it.
	for i := 1; i < len(bcOutline); i++ {
		if segmentIntersectsBox(bcOutline[i-1], bcOutline[i], b) {
			return true
		}
	}
	return false
}

// segmentIntersectsBox clips segment pq to box b (Liang–Barsky).
func segmentIntersectsBox(p, q orb.Point, b orb.Bound) bool {
	t0, t1 := 0.0, 1.0
	d := orb.Point{q[0] - p[0], q[1] - p[1]}
	for k := range 2 {
		for _, e := range [2]struct{ p, q float64 }{
			{-d[k], p[k] - b.Min[k]},
			{d[k], b.Max[k] - p[k]},
		} {
			if e.p == 0 {
				if e.q < 0 {
					return false
				}
				continue
			}
			t := e.q / e.p
			if e.p < 0 {
				t0 = max(t0, t)
			} else {
				t1 = min(t1, t)
			}
			if t0 > t1 {
				return false
			}
		}
	}
	return true
}
