package proj

import (
	"math"

	"github.com/paulmach/orb"
)

// MemoPoints is the table size this project's callers give Memo: 65,536 points,
// 2 MiB a direction, enough for the corners of many townships.
const MemoPoints = 1 << 16

// Memo returns p answering each conversion from a table of the last
// points it converted, when the same point comes again: a table of size
// entries (rounded up to a power of two) for each direction, made on its
// first use, each point in one slot by a hash of its coordinates, a newer
// point replacing an older one. The answer is the one p gave for that
// very point, so a caller sees the same float64s with or without the
// table; errors are not kept.
//
// It is for a caller that converts many shared points: the parcels of a
// shapefile, whose corners each belong to up to four of them, or the
// quarter sections of a raster sweep or of a generated raster, whose
// outlines a generator converts again for every band of rows that
// crosses them. It is for one goroutine. Memory: 32 bytes an entry of a
// direction used. A geographic p (the identity) is returned as it is.
func Memo(p Projection, size int) Projection {
	if Geographic(p) {
		return p
	}
	n := 1
	for n < size {
		n *= 2
	}
	return &memo{Projection: p, n: n}
}

type memo struct {
	Projection
	n        int
	from, to []memoSlot // FromLngLat's and ToLngLat's, nil until used
}

type memoSlot struct {
	in, out orb.Point
}

func newMemoSlots(n int) []memoSlot {
	s := make([]memoSlot, n)
	for i := range s {
		s[i].in = orb.Point{math.NaN(), math.NaN()} // equal to no point
	}
	return s
}

// slot returns the slot of pt in table.
func slot(table []memoSlot, pt orb.Point) *memoSlot {
	h := math.Float64bits(pt[0])*0x9E3779B97F4A7C15 ^ math.Float64bits(pt[1])*0xC2B2AE3D27D4EB4F
	return &table[(h^h>>29)&uint64(len(table)-1)]
}

func (m *memo) FromLngLat(ll orb.Point) (float64, float64, error) {
	if m.from == nil {
		m.from = newMemoSlots(m.n)
	}
	s := slot(m.from, ll)
	if s.in == ll {
		return s.out[0], s.out[1], nil
	}
	x, y, err := m.Projection.FromLngLat(ll)
	if err == nil {
		*s = memoSlot{ll, orb.Point{x, y}}
	}
	return x, y, err
}

func (m *memo) ToLngLat(x, y float64) (orb.Point, error) {
	if m.to == nil {
		m.to = newMemoSlots(m.n)
	}
	xy := orb.Point{x, y}
	s := slot(m.to, xy)
	if s.in == xy {
		return s.out, nil
	}
	ll, err := m.Projection.ToLngLat(x, y)
	if err == nil {
		*s = memoSlot{xy, ll}
	}
	return ll, err
}
