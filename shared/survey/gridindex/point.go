package gridindex

// The queries at a point: the records whose polygon contains it (by a
// search of the blocks around it, or by a candidate's key), and the
// record whose centroid is nearest.

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// scratchRings holds the rings containingHits decodes, one at a time.
var scratchRings = sync.Pool{New: func() any { s := make([]orb.Point, 0, 64); return &s }}

// containingHits returns every record whose polygon contains pt, of any
// unit, undecoded: the point is tested on the encoded rings, so a reverse
// lookup decodes only the records it answers with (it decoded every
// record around the point, a third of its time with the blocks cached).
func (ix *version) containingHits(ctx context.Context, pt orb.Point) ([]Hit, error) {
	out := make([]Hit, 0, 8) // a DLS point is in a township, a section, a quarter, an LSD and perhaps a half
	sp := scratchRings.Get().(*[]orb.Point)
	defer scratchRings.Put(sp)
	scratch := *sp
	defer func() { *sp = scratch[:0] }()
	err := ix.blocksNear(ctx, pt, 0, func(p *block) error {
		var kinds []kind
		for i := range p.len() {
			if !p.bounds[i].contains(pt) {
				continue
			}
			in, err := p.contains(i, pt, &scratch)
			if err == nil && kinds == nil {
				kinds, err = p.kindsOf()
			}
			if err != nil {
				return fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
			}
			if in {
				out = append(out, Hit{System: kinds[i].sys, Unit: kinds[i].unit, v: ix, b: p, i: i})
			}
		}
		return nil
	})
	return out, err
}

// Nearest returns the record of unit u whose centroid is nearest pt and no
// farther than maxM metres: the lookup for datasets that publish centroids
// only (Manitoba river and parish lots).
func (ix *version) nearest(ctx context.Context, pt orb.Point, u lld.Unit, maxM float64) (Record, float64, bool, error) {
	const mPerDeg = 111_320.0
	margin := maxM / (mPerDeg * math.Max(0.2, math.Cos(pt[1]*math.Pi/180)))
	var (
		best  *block
		bestI int
		bestD = math.Inf(1)
	)
	err := ix.blocksNear(ctx, pt, margin, func(p *block) error {
		kinds, err := p.kindsOf()
		if err != nil {
			return fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
		}
		for i := range p.len() {
			if kinds[i].unit != u {
				continue
			}
			c, err := p.centroid(i)
			if err != nil {
				return fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
			}
			if d := distanceM(pt, c); d < bestD {
				best, bestI, bestD = p, i, d
			}
		}
		return nil
	})
	if err != nil || bestD > maxM {
		return Record{}, 0, false, err
	}
	r, err := ix.recordAt(best, bestI, nil)
	if err != nil {
		return Record{}, 0, false, fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
	}
	return r, bestD, true, nil
}

// distanceM is the distance in metres between nearby points (equirectangular).
func distanceM(a, b orb.Point) float64 {
	const mPerDeg = 111_320.0
	dx := (a[0] - b[0]) * math.Cos((a[1]+b[1])/2*math.Pi/180) * mPerDeg
	dy := (a[1] - b[1]) * 110_574.0
	return math.Hypot(dx, dy)
}

// edgeMargin is how near an edge (in degrees, about 10 cm) a point must
// not be for containingAt to decide it: on a shared edge two records
// contain the point, and which one answers is the scan's to say.
const edgeMargin = 1e-6

// containingAt returns the hit of l's record when its polygon contains pt
// farther than edgeMargin from its edges, without a spatial search: a key
// lookup and one ring test, where containingHits scans every block whose
// box holds the point. ok is false when the index has no record l or the
// point is not clearly inside it; the caller then asks containingHits.
func (ix *version) containingAt(ctx context.Context, l lld.Location, pt orb.Point) (Hit, bool, error) {
	b, i, ok, err := ix.blockOf(ctx, l)
	if err != nil || !ok || !b.bounds[i].contains(pt) {
		return Hit{}, false, err
	}
	sp := scratchRings.Get().(*[]orb.Point)
	in, err := b.containsOff(i, pt, sp, edgeMargin)
	*sp = (*sp)[:0]
	scratchRings.Put(sp)
	if err != nil || !in {
		return Hit{}, false, err
	}
	kinds, err := b.kindsOf()
	if err != nil {
		return Hit{}, false, fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
	}
	return Hit{System: kinds[i].sys, Unit: kinds[i].unit, v: ix, b: b, i: i}, true, nil
}
