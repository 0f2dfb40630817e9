package dls

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// Townships calls fn, until it returns false, with every township whose
// model box intersects b: the townships a map tile over b draws. It applies
// no province rules (Resolve each block, or its sections, to apply them) and
// never yields E2 (Locate's rule: where E2 and W1 overlap the model answers
// in W1).
func Townships(b orb.Bound, fn func(lld.Location) bool) {
	std.townships(b, fn)
}

func (m *model) townships(b orb.Bound, fn func(lld.Location) bool) {
	if m.corr != nil {
		// Corrected townships (correction.go) lie within correctionMargin
		// of their uncorrected boxes: search wider, keep those that meet b.
		q := orb.Bound{Min: orb.Point{b.Min[0] - correctionMargin, b.Min[1] - correctionMargin},
			Max: orb.Point{b.Max[0] + correctionMargin, b.Max[1] + correctionMargin}}
		m.uncorrectedTownships(q, func(l lld.Location) bool {
			if tb, ok := m.bound(l); ok && tb.Intersects(b) {
				return fn(l)
			}
			return true
		})
		return
	}
	m.uncorrectedTownships(b, fn)
}

func (m *model) uncorrectedTownships(b orb.Bound, fn func(lld.Location) bool) {
	if !(b.Max[1] > firstBaseLine && b.Min[1] < m.south[maxTownship+1] && b.Max[0] > lngW7 && b.Min[0] < -85) {
		return
	}
	if m.mb != nil && !m.townshipsFirstMeridian(b, fn) {
		return
	}
	for t := 1; t <= maxTownship; t++ {
		if m.south[t+1] <= b.Min[1] || m.south[t] >= b.Max[1] {
			continue
		}
		for mer := lld.W1; mer <= lld.E1; mer++ {
			if m.firstMeridian(mer) {
				continue // done above
			}
			lo, hi := m.rangeSpan(mer, t, b)
			for r := lo; r <= hi; r++ {
				w, e := m.rangeEdges(mer, r, t)
				if !mer.East() {
					w = math.Max(w, m.next[mer])
				}
				if e <= b.Min[0] || w >= b.Max[0] || w >= e {
					continue
				}
				l := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: mer, Range: uint8(r), Township: uint8(t)}
				if !fn(l) {
					return
				}
			}
		}
	}
}

// rangeSpan returns the ranges of mer in township t that can intersect b's
// longitudes (lo > hi when none).
func (m *model) rangeSpan(mer lld.Meridian, t int, b orb.Bound) (lo, hi int) {
	d, base := m.dlng[t], m.base[mer]
	if mer.East() {
		lo = int(math.Floor((b.Min[0]-base)/d)) + 1
		hi = int(math.Floor((b.Max[0]-base)/d)) + 1
	} else {
		if b.Max[0] <= m.next[mer] {
			return 1, 0
		}
		lo = int(math.Floor((base-b.Max[0])/d)) + 1
		hi = int(math.Floor((base-math.Max(b.Min[0], m.next[mer]))/d)) + 1
	}
	return max(lo, 1), min(hi, maxRange)
}
