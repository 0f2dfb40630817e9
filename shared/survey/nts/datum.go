package nts

import (
	"github.com/paulmach/orb"

	"meridian/shared/survey/datum"
)

// The grid is defined on NAD27 (see the package doc); answers are NAD83.
// These helpers move lattice positions to NAD83 with NRCan's NTv1 grid.

// The NTv1 grid's nodes are 15′ apart in latitude and longitude from 40°N
// and 44°W: every 60th lattice row and every 40th lattice column. Between
// nodes the shift is bilinear, so along a parallel or a meridian it is
// linear from one node line to the next, and a block edge moved vertex by
// vertex at its ends and at every node line it crosses is the exact image
// of the edge. Blocks, units and quarter units never cross a node line
// (5′ × 7.5′ divides 15′ × 15′); sheets, map areas and series do.
const (
	nodeRows = rowsPerDegree / 4 // 60
	nodeCols = colsPerDegree / 4 // 40
)

// The largest NAD27 to NAD83 shift anywhere in the BC series (48°–60°N,
// 112°–142°W, measured from the grid at 0.05° steps: latitude −2.13″ to
// +0.53″, longitude −7.57″ to −3.17″), rounded up: the padding that turns a
// NAD83 box into a NAD27 box holding every point of it.
// TestShiftPadding checks it against the grid.
const (
	padLat = 2.5 / 3600 // degrees
	padLng = 8.0 / 3600
)

// gridBound is where Canada's grid has nodes (NAD27).
var gridBound = orb.Bound{Min: orb.Point{-142, 40}, Max: orb.Point{-44, 84}}

// toNAD83 moves a NAD27 grid position to NAD83. Outside Canada's grid (the
// far corners of series 114, west of 142°W, all in Alaska or the Pacific)
// it applies the shift at the nearest position the grid covers, which
// keeps the polygons of those series and map areas closed and continuous.
func toNAD83(p orb.Point) orb.Point {
	q, err := datum.NAD27ToNAD83(p)
	if err == nil {
		return q
	}
	c := orb.Point{min(max(p[0], gridBound.Min[0]), gridBound.Max[0]), min(max(p[1], gridBound.Min[1]), gridBound.Max[1])}
	s, err := datum.NAD27ToNAD83(c)
	if err != nil {
		return p // not reached: c is on the grid
	}
	return orb.Point{p[0] + s[0] - c[0], p[1] + s[1] - c[1]}
}

// ring returns the NAD83 outline of c: its NAD27 box with a vertex
// wherever an edge crosses a node line of the shift grid, moved to NAD83,
// as a closed counter-clockwise ring (SW, SE, NE, NW, SW).
func (c cells) ring() orb.Ring {
	r := datum.Canada().NodeRing(c.bound())
	for i, p := range r {
		r[i] = toNAD83(p)
	}
	return r
}
