package proj

import (
	"math"

	"github.com/paulmach/orb"
)

// Memo returns p with FromLngLat answered from a table of the last points
// it converted, when the same point comes again: a table of size entries
// (rounded up to a power of two), each point in one slot by a hash of its
// coordinates, a newer point replacing an older one. The answer is the
// one p gave for that very point, so a caller sees the same float64s with
// or without the table; errors are not kept. ToLngLat is p's.
//
// It is for a caller that converts many shared points: the quarter
// sections of a raster sweep or of a generated raster, whose corners each
// belong to up to four quarters, and whose outlines a generator converts
// again for every band of rows that crosses them. It is for one goroutine.
// Memory: 32 bytes an entry.
func Memo(p Projection, size int) Projection {
	n := 1
	for n < size {
		n *= 2
	}
	m := &memo{Projection: p, slots: make([]memoSlot, n), mask: uint64(n - 1)}
	for i := range m.slots {
		m.slots[i].ll = orb.Point{math.NaN(), math.NaN()} // equal to no point
	}
	return m
}

type memo struct {
	Projection
	slots []memoSlot
	mask  uint64
}

type memoSlot struct {
	ll   orb.Point
	x, y float64
}

func (m *memo) FromLngLat(ll orb.Point) (float64, float64, error) {
	h := math.Float64bits(ll[0])*0x9E3779B97F4A7C15 ^ math.Float64bits(ll[1])*0xC2B2AE3D27D4EB4F
	s := &m.slots[(h^h>>29)&m.mask]
	if s.ll == ll {
		return s.x, s.y, nil
	}
	x, y, err := m.Projection.FromLngLat(ll)
	if err == nil {
		*s = memoSlot{ll, x, y}
	}
	return x, y, err
}
