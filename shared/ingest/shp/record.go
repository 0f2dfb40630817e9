package shp

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paulmach/orb"
)

// decodeShape decodes the content of record rec of a file of fileType:
// Null records give nil, as do shapes without parts or points. With
// closeRings a polygon ring whose last point is not its first is closed
// rather than refused.
func decodeShape(b []byte, fileType ShapeType, rec int, closeRings bool) (orb.Geometry, error) {
	if len(b) < 4 {
		return nil, shpError(rec, "content length %d bytes is too short for a shape type", len(b))
	}
	t := ShapeType(binary.LittleEndian.Uint32(b[0:4]))
	if t == Null {
		if len(b) != 4 {
			return nil, shpError(rec, "content length %d bytes for a Null shape, want 4", len(b))
		}
		return nil, nil
	}
	if t != fileType {
		return nil, shpError(rec, "shape type %v does not match the file's %v", t, fileType)
	}
	switch t.base() {
	case Point:
		return decodePoint(b, t, rec)
	case MultiPoint:
		return decodeMultiPoint(b, t, rec)
	case PolyLine, Polygon:
		return decodeParts(b, t, rec, closeRings)
	}
	return nil, shpError(rec, "shape type %v is not supported", t)
}

// zmLens returns the content lengths a shape of type t may have: base
// bytes of X and Y data, then for Z types a Z range and n Z values and an
// optional M range and n M values, for M types the optional M part.
func zmLens(t ShapeType, base, n int64) []int64 {
	switch {
	case t.hasZ():
		return []int64{base + 16 + 8*n, base + 32 + 16*n}
	case t.hasM():
		return []int64{base, base + 16 + 8*n}
	}
	return []int64{base}
}

// checkLen reports a content length that is none of want.
func checkLen(b []byte, want []int64, rec int, what string) error {
	if slices.Contains(want, int64(len(b))) {
		return nil
	}
	ws := make([]string, len(want))
	for i, w := range want {
		ws[i] = fmt.Sprint(w)
	}
	return shpError(rec, "content length %d bytes disagrees with %s (want %s)", len(b), what, strings.Join(ws, " or "))
}

func decodePoint(b []byte, t ShapeType, rec int) (orb.Geometry, error) {
	want := []int64{20}
	switch {
	case t.hasZ():
		want = []int64{28, 36} // X, Y, Z and an optional M
	case t.hasM():
		want = []int64{28}
	}
	if err := checkLen(b, want, rec, "a "+t.String()); err != nil {
		return nil, err
	}
	p := orb.Point{float64At(b, 4), float64At(b, 12)}
	if !finite(p) {
		return nil, shpError(rec, "point %v is not finite", p)
	}
	return p, nil
}

func decodeMultiPoint(b []byte, t ShapeType, rec int) (orb.Geometry, error) {
	if len(b) < 40 {
		return nil, shpError(rec, "content length %d bytes is too short for a %v header (40)", len(b), t)
	}
	n := int64(int32(binary.LittleEndian.Uint32(b[36:40])))
	if n < 0 {
		return nil, shpError(rec, "negative number of points %d", n)
	}
	base := 40 + 16*n
	if base > int64(len(b)) {
		return nil, shpError(rec, "%d points need %d bytes, content length is %d", n, base, len(b))
	}
	if err := checkLen(b, zmLens(t, base, n), rec, fmt.Sprintf("%d points", n)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	mp, err := readPoints(b, 40, int(n), rec)
	if err != nil {
		return nil, err
	}
	return orb.MultiPoint(mp), nil
}

// readPoints reads n little-endian X, Y pairs at off; the caller has
// checked that they fit.
func readPoints(b []byte, off, n, rec int) ([]orb.Point, error) {
	pts := make([]orb.Point, n)
	for i := range pts {
		o := off + 16*i
		pts[i] = orb.Point{float64At(b, o), float64At(b, o+8)}
		if !finite(pts[i]) {
			return nil, shpError(rec, "point %d %v is not finite", i, pts[i])
		}
	}
	return pts, nil
}

func finite(p orb.Point) bool {
	return !math.IsNaN(p[0]) && !math.IsInf(p[0], 0) && !math.IsNaN(p[1]) && !math.IsInf(p[1], 0)
}

// decodeParts decodes PolyLine and Polygon shapes (and their Z and M
// variants): box, NumParts, NumPoints, Parts[NumParts], Points[NumPoints].
func decodeParts(b []byte, t ShapeType, rec int, closeRings bool) (orb.Geometry, error) {
	if len(b) < 44 {
		return nil, shpError(rec, "content length %d bytes is too short for a %v header (44)", len(b), t)
	}
	np := int64(int32(binary.LittleEndian.Uint32(b[36:40])))
	n := int64(int32(binary.LittleEndian.Uint32(b[40:44])))
	if np < 0 || n < 0 {
		return nil, shpError(rec, "negative count: %d parts, %d points", np, n)
	}
	base := 44 + 4*np + 16*n
	if base > int64(len(b)) {
		return nil, shpError(rec, "%d parts and %d points need %d bytes, content length is %d", np, n, base, len(b))
	}
	if err := checkLen(b, zmLens(t, base, n), rec, fmt.Sprintf("%d parts and %d points", np, n)); err != nil {
		return nil, err
	}
	if np == 0 && n == 0 {
		return nil, nil
	}
	if np == 0 || n == 0 {
		return nil, shpError(rec, "%d parts with %d points", np, n)
	}
	starts := make([]int, np)
	for i := range starts {
		s := int64(int32(binary.LittleEndian.Uint32(b[44+4*i:])))
		switch {
		case i == 0 && s != 0:
			return nil, shpError(rec, "part 0 starts at point %d, want 0", s)
		case s < 0 || s >= n:
			return nil, shpError(rec, "part %d starts at point %d, out of range for %d points", i, s, n)
		case i > 0 && s <= int64(starts[i-1]):
			return nil, shpError(rec, "part %d starts at point %d, not after part %d at point %d", i, s, i-1, starts[i-1])
		}
		starts[i] = int(s)
	}
	pts, err := readPoints(b, int(44+4*np), int(n), rec)
	if err != nil {
		return nil, err
	}
	// Each part is a sub-slice of pts capped at its end, so that appending
	// to one cannot overwrite the next.
	part := func(i int) []orb.Point {
		end := len(pts)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		return pts[starts[i]:end:end]
	}
	if t.base() == PolyLine {
		mls := make(orb.MultiLineString, len(starts))
		for i := range starts {
			ls := part(i)
			if len(ls) < 2 {
				return nil, shpError(rec, "part %d has %d point, a line needs 2", i, len(ls))
			}
			mls[i] = ls
		}
		if len(mls) == 1 {
			return mls[0], nil
		}
		return mls, nil
	}
	rings := make([]orb.Ring, len(starts))
	for i := range starts {
		r := orb.Ring(part(i))
		if closeRings && len(r) > 0 && r[0] != r[len(r)-1] {
			r = append(r, r[0]) // a new array: part caps each ring at its end
		}
		if len(r) < 4 {
			return nil, shpError(rec, "ring %d has %d points, a ring needs 4", i, len(r))
		}
		if r[0] != r[len(r)-1] {
			return nil, shpError(rec, "ring %d is not closed: starts at %v, ends at %v", i, r[0], r[len(r)-1])
		}
		rings[i] = r
	}
	g, err := assemblePolygons(rings)
	if err != nil {
		return nil, shpError(rec, "%v", err)
	}
	return g, nil
}
