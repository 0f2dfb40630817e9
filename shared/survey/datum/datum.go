// Package datum moves positions between NAD27 and NAD83 with Natural
// Resources Canada's NTv1 grid (ntv1_can.dat: 40°–84° N, 44°–142° W at
// 15′ spacing, public domain). The BC petroleum and natural gas grid (NTS
// blocks, units and quarter units) and the federal FPS grids are defined on
// NAD27 latitudes and longitudes, and much oil and gas data in circulation
// is NAD27: computed on NAD83 coordinates those grids sit 70–130 m east of
// where they are in western Canada.
//
// The NTv1 format (big-endian): twelve 16-byte header records, each an
// 8-character key and an 8-byte value — HEADER (int32 12), S LAT, N LAT,
// E LONG, W LONG, N GRID, W GRID (float64 degrees, longitude positive
// west), TYPE (SECONDS), FROM (NAD27), TO (NAD83) and the two ellipsoids'
// semi-minor axes — then rows of nodes from south to north, each row from
// east to west, a node being two float64 shifts in arc-seconds (latitude,
// then longitude positive west). Between nodes the shift is interpolated
// bilinearly, as NRCan and PROJ do.
//
// A Grid holds its nodes as float32 arc-seconds (8 bytes a node; 556 KB
// for the whole of Canada), which keeps every shift to 1e-6″ (0.03 mm) of
// the file's float64 values.
package datum

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/paulmach/orb"
)

// Grid is an NTv1 shift grid from NAD27 to NAD83.
type Grid struct {
	south, north float64 // degrees
	east, west   float64 // degrees, positive west
	dLat, dLon   float64 // node spacing, degrees
	rows, cols   int
	shifts       []float32 // per node: latitude, longitude (positive west), arc-seconds
}

// ErrOutside is returned for a position the grid does not cover.
var ErrOutside = errors.New("datum: position outside the NAD27-NAD83 grid")

const (
	headerRecords = 12
	recordBytes   = 16
	maxNodes      = 4 << 20 // far above Canada's 69,561: a guard against a corrupt header
)

// ReadNTv1 reads an NTv1 grid. It checks the header (a NAD27 to NAD83
// grid in seconds, a sane extent and spacing) and that every node is
// there; bytes after the last node are ignored.
func ReadNTv1(r io.Reader) (*Grid, error) {
	head := make([]byte, headerRecords*recordBytes)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("datum: NTv1 header: %w", err)
	}
	rec := map[string][]byte{}
	for i := 0; i < headerRecords; i++ {
		b := head[i*recordBytes : (i+1)*recordBytes]
		rec[strings.TrimSpace(string(b[:8]))] = b[8:]
	}
	if v, ok := rec["HEADER"]; !ok || binary.BigEndian.Uint32(v[:4]) != headerRecords {
		return nil, errors.New("datum: not an NTv1 grid (no HEADER record of 12)")
	}
	text := func(k string) string { return strings.TrimSpace(string(rec[k])) }
	if text("TYPE") != "SECONDS" || text("FROM") != "NAD27" || text("TO") != "NAD83" {
		return nil, fmt.Errorf("datum: NTv1 grid of %q from %q to %q, want SECONDS from NAD27 to NAD83", text("TYPE"), text("FROM"), text("TO"))
	}
	num := func(k string) (float64, error) {
		v, ok := rec[k]
		if !ok {
			return 0, fmt.Errorf("datum: NTv1 header lacks %s", k)
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(v))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("datum: NTv1 header %s is %v", k, f)
		}
		return f, nil
	}
	g := &Grid{}
	var err error
	for _, f := range []struct {
		k string
		p *float64
	}{{"S LAT", &g.south}, {"N LAT", &g.north}, {"E LONG", &g.east}, {"W LONG", &g.west}, {"N GRID", &g.dLat}, {"W GRID", &g.dLon}} {
		if *f.p, err = num(f.k); err != nil {
			return nil, err
		}
	}
	if g.dLat <= 0 || g.dLon <= 0 || g.north <= g.south || g.west <= g.east || g.south < -90 || g.north > 90 {
		return nil, fmt.Errorf("datum: NTv1 extent %v–%v N, %v–%v W by %v, %v is not a grid", g.south, g.north, g.east, g.west, g.dLat, g.dLon)
	}
	rows := (g.north-g.south)/g.dLat + 1
	cols := (g.west-g.east)/g.dLon + 1
	if math.Abs(rows-math.Round(rows)) > 1e-6 || math.Abs(cols-math.Round(cols)) > 1e-6 || rows*cols > maxNodes {
		return nil, fmt.Errorf("datum: NTv1 extent is not a whole number of nodes (%v × %v)", rows, cols)
	}
	g.rows, g.cols = int(math.Round(rows)), int(math.Round(cols))
	g.shifts = make([]float32, 2*g.rows*g.cols)
	buf := make([]byte, recordBytes*g.cols)
	for row := 0; row < g.rows; row++ {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("datum: NTv1 nodes: row %d of %d: %w", row+1, g.rows, err)
		}
		for c := 0; c < g.cols; c++ {
			i := 2 * (row*g.cols + c)
			g.shifts[i] = float32(math.Float64frombits(binary.BigEndian.Uint64(buf[16*c:])))
			g.shifts[i+1] = float32(math.Float64frombits(binary.BigEndian.Uint64(buf[16*c+8:])))
		}
	}
	return g, nil
}

// Shift returns the NAD27 to NAD83 shift at a NAD27 position, in
// arc-seconds: latitude north and longitude east (negative in western
// Canada, where NAD83 lies west of NAD27).
func (g *Grid) Shift(p orb.Point) (dLat, dLon float64, err error) {
	lat, west := p[1], -p[0]
	if !(lat >= g.south && lat <= g.north && west >= g.east && west <= g.west) {
		return 0, 0, ErrOutside
	}
	y, x := (lat-g.south)/g.dLat, (west-g.east)/g.dLon
	r0, c0 := min(int(y), g.rows-2), min(int(x), g.cols-2)
	fy, fx := y-float64(r0), x-float64(c0)
	node := func(r, c, k int) float64 { return float64(g.shifts[2*(r*g.cols+c)+k]) }
	bilinear := func(k int) float64 {
		return (1-fy)*((1-fx)*node(r0, c0, k)+fx*node(r0, c0+1, k)) + fy*((1-fx)*node(r0+1, c0, k)+fx*node(r0+1, c0+1, k))
	}
	return bilinear(0), -bilinear(1), nil
}

// ToNAD83 moves a NAD27 longitude, latitude to NAD83.
func (g *Grid) ToNAD83(p orb.Point) (orb.Point, error) {
	dLat, dLon, err := g.Shift(p)
	if err != nil {
		return p, err
	}
	return orb.Point{p[0] + dLon/3600, p[1] + dLat/3600}, nil
}

// ToNAD27 moves a NAD83 longitude, latitude to NAD27: the grid is indexed
// by NAD27 positions, so the shift is found by fixed-point iteration
// (the shift changes by well under a millimetre across the ~100 m it
// moves a point, so four steps reach 1e-12°).
func (g *Grid) ToNAD27(p orb.Point) (orb.Point, error) {
	q := p
	for i := 0; i < 6; i++ {
		dLat, dLon, err := g.Shift(q)
		if err != nil {
			return p, err
		}
		next := orb.Point{p[0] - dLon/3600, p[1] - dLat/3600}
		if math.Abs(next[0]-q[0]) < 1e-13 && math.Abs(next[1]-q[1]) < 1e-13 {
			return next, nil
		}
		q = next
	}
	return q, nil
}

// Bound returns the NAD27 area the grid covers, as longitude (negative
// west) and latitude.
func (g *Grid) Bound() orb.Bound {
	return orb.Bound{Min: orb.Point{-g.west, g.south}, Max: orb.Point{-g.east, g.north}}
}

// NodeRing returns the NAD27 box b as a closed counter-clockwise ring from
// its south-west corner (SW, SE, NE, NW, SW) with a vertex wherever an edge
// crosses one of the grid's node lines, the parallels and meridians its
// nodes lie on. Between two node lines the shift is bilinear, so along an
// edge it is linear: moving the ring's vertices to NAD83 gives the exact
// image of the box, where moving its four corners alone would cut across
// the bends (by up to tens of metres on a box of a few degrees).
func (g *Grid) NodeRing(b orb.Bound) orb.Ring {
	lngs := nodeLines(b.Min[0], b.Max[0], -g.west, g.dLon)
	lats := nodeLines(b.Min[1], b.Max[1], g.south, g.dLat)
	r := make(orb.Ring, 0, 5+2*len(lngs)+2*len(lats))
	r = append(r, b.Min)
	for _, x := range lngs { // south edge, west to east
		r = append(r, orb.Point{x, b.Min[1]})
	}
	r = append(r, orb.Point{b.Max[0], b.Min[1]})
	for _, y := range lats { // east edge, south to north
		r = append(r, orb.Point{b.Max[0], y})
	}
	r = append(r, b.Max)
	for i := len(lngs) - 1; i >= 0; i-- { // north edge, east to west
		r = append(r, orb.Point{lngs[i], b.Max[1]})
	}
	r = append(r, orb.Point{b.Min[0], b.Max[1]})
	for i := len(lats) - 1; i >= 0; i-- { // west edge, north to south
		r = append(r, orb.Point{b.Min[0], lats[i]})
	}
	return append(r, b.Min)
}

// nodeLines returns the node lines origin + k·step strictly between lo and
// hi, ascending (none for an empty or reversed interval).
func nodeLines(lo, hi, origin, step float64) []float64 {
	var out []float64
	for k := math.Floor((lo-origin)/step) + 1; ; k++ {
		v := origin + k*step
		if v >= hi {
			return out
		}
		if v > lo {
			out = append(out, v)
		}
	}
}
