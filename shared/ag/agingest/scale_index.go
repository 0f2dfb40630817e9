package agingest

import (
	"math"
	"slices"

	"meridian/shared/lld"

	"github.com/paulmach/orb"
)

// bucketIndex finds the features of a layer (SLC, CLI, drought,
// municipalities, water) whose bound meets a box, so that placing a
// quarter looks at the few features near it rather than the whole layer:
// at the provinces' size (2.5 million quarters, tens of thousands of
// polygons a layer) the scan of every feature per quarter is 10^10 and
// more tests. Features go in every cell of bucketCellDeg degrees their
// bound meets. Memory: an index entry (4 bytes) per feature and cell, a
// map entry per non-empty cell, and a bound (32 bytes) and a stamp (4
// bytes) per feature.
type bucketIndex struct {
	cells  map[[2]int32][]int32
	wide   []int32 // features in too many cells: every query's
	bounds []orb.Bound
	stamp  []uint32
	gen    uint32
	out    []int
}

const bucketCellDeg = 0.1

func bucketCell(v float64) int32 { return int32(math.Floor(v / bucketCellDeg)) }

// bucketMaxCells is the most cells a feature is put in; a feature wider
// (a province-wide drought area, a bound that is not finite) is checked on
// every query instead, so that the index stays a few entries a feature.
const bucketMaxCells = 256

// newBucketIndex indexes n features by their bounds.
func newBucketIndex(n int, bound func(i int) orb.Bound) *bucketIndex {
	x := &bucketIndex{cells: map[[2]int32][]int32{}, bounds: make([]orb.Bound, n), stamp: make([]uint32, n)}
	for i := range n {
		b := bound(i)
		x.bounds[i] = b
		w, h := math.Floor(b.Max[0]/bucketCellDeg)-math.Floor(b.Min[0]/bucketCellDeg)+1, math.Floor(b.Max[1]/bucketCellDeg)-math.Floor(b.Min[1]/bucketCellDeg)+1
		if !(w*h <= bucketMaxCells) { // also NaN and infinite bounds
			x.wide = append(x.wide, int32(i))
			continue
		}
		for cx := bucketCell(b.Min[0]); cx <= bucketCell(b.Max[0]); cx++ {
			for cy := bucketCell(b.Min[1]); cy <= bucketCell(b.Max[1]); cy++ {
				k := [2]int32{cx, cy}
				x.cells[k] = append(x.cells[k], int32(i))
			}
		}
	}
	return x
}

// copy returns an index of the same features for another goroutine: the
// cells and bounds shared, the query state (stamps, results) its own.
func (x *bucketIndex) copy() *bucketIndex {
	return &bucketIndex{cells: x.cells, wide: x.wide, bounds: x.bounds, stamp: make([]uint32, len(x.stamp))}
}

// near returns, in ascending order (the layer's file order, which decides
// ties as the scan of the whole layer did), the features whose bound may
// meet b. The slice is reused by the next call.
func (x *bucketIndex) near(b orb.Bound) []int {
	x.gen++
	if x.gen == 0 { // wrapped: forget every stamp
		clear(x.stamp)
		x.gen = 1
	}
	x.out = x.out[:0]
	for _, i := range x.wide {
		x.stamp[i] = x.gen
		x.out = append(x.out, int(i))
	}
	for cx := bucketCell(b.Min[0]); cx <= bucketCell(b.Max[0]); cx++ {
		for cy := bucketCell(b.Min[1]); cy <= bucketCell(b.Max[1]); cy++ {
			for _, i := range x.cells[[2]int32{cx, cy}] {
				if x.stamp[i] != x.gen {
					x.stamp[i] = x.gen
					x.out = append(x.out, int(i))
				}
			}
		}
	}
	slices.Sort(x.out)
	return x.out
}

// containing returns, in ascending order, the features whose bound holds
// pt: near's candidates, checked against the bounds kept. Placing a quarter
// asks this of five layers; the point-in-polygon test that follows
// computed each candidate's bound again (orb walks every vertex), for
// province-wide drought polygons on every quarter: a quarter of the
// full-size ingest's CPU. The slice is reused by the next call.
func (x *bucketIndex) containing(pt orb.Point) []int {
	cand := x.near(pt.Bound())
	out := cand[:0] // filtered in place
	for _, i := range cand {
		if x.bounds[i].Contains(pt) {
			out = append(out, i)
		}
	}
	x.out = out
	return out
}

// geomBound is g's bound; the empty bound at the origin for nil.
func geomBound(g orb.Geometry) orb.Bound {
	if g == nil {
		return orb.Bound{}
	}
	return g.Bound()
}

// searchBox is the quarter's bound padded by the hydrology search radius
// (with a margin: the degrees of 500 m vary across a quarter).
func searchBox(b orb.Bound, radiusM float64) orb.Bound {
	lat := math.Max(math.Abs(b.Min[1]), math.Abs(b.Max[1]))
	dy := 1.5 * radiusM / 110_574
	dx := 1.5 * radiusM / (111_320 * math.Cos(lat*math.Pi/180))
	return orb.Bound{Min: orb.Point{b.Min[0] - dx, b.Min[1] - dy}, Max: orb.Point{b.Max[0] + dx, b.Max[1] + dy}}
}

// classPx is a quarter's pixels of one class in one year: the compact
// tally the ingest keeps per quarter while it reads the rasters (12 bytes
// a class and year, where a QuarterYear takes some 200).
type classPx struct {
	year, code uint16
	px         uint32
}

// addClasses adds a raster's summary of one quarter and year to its
// tally: a quarter on the edge of two files gets the pixels of both.
func addClasses(t []classPx, y QuarterYear) []classPx {
	for _, c := range y.Classes {
		i := slices.IndexFunc(t, func(o classPx) bool { return int(o.year) == y.Year && int(o.code) == c.Code })
		if i < 0 {
			t = append(t, classPx{year: uint16(y.Year), code: uint16(c.Code), px: uint32(c.Pixels)})
		} else {
			t[i].px += uint32(c.Pixels)
		}
	}
	return t
}

// tallyYears turns a tally back into QuarterYears of l, classes in code
// order with their shares, years in the order first met.
func tallyYears(l lld.Location, t []classPx) []QuarterYear {
	var out []QuarterYear
	for _, c := range t {
		i := slices.IndexFunc(out, func(y QuarterYear) bool { return y.Year == int(c.year) })
		if i < 0 {
			out = append(out, QuarterYear{Location: l, Year: int(c.year)})
			i = len(out) - 1
		}
		out[i].Classes = append(out[i].Classes, ClassShare{Code: int(c.code), Pixels: int(c.px)})
	}
	for i := range out {
		y := &out[i]
		slices.SortFunc(y.Classes, func(a, b ClassShare) int { return a.Code - b.Code })
		total := 0
		for _, c := range y.Classes {
			total += c.Pixels
		}
		for j := range y.Classes {
			y.Classes[j].Pct = round(100*float64(y.Classes[j].Pixels)/float64(total), 2)
		}
	}
	return out
}

// scaleKey packs a DLS location into a number: the quarters' map key
// (qkey). The province-size generator (demo/agdemo) packs locations the
// same way for its random numbers, with its own copy, so that changing
// this key does not change the generated data.
func scaleKey(l lld.Location) uint64 {
	return uint64(l.Meridian)<<48 | uint64(l.Range)<<40 | uint64(l.Township)<<32 | uint64(l.Section)<<24 | uint64(l.Aliquot)<<16 | uint64(l.Unit)<<8 | uint64(l.LSD)
}
