package grid

import (
	"context"
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
)

// Official grid data. Where an ingested index covers a location its
// polygons answer; elsewhere the model does. An index that publishes a
// coarser unit than asked (Manitoba quarters, asked for an LSD) answers
// with its block subdivided the way the survey subdivides it.

// subdivisionErrorM is added to a subdivided block's accuracy: LSD and
// quarter lines drawn by proportion inside an official section or quarter
// miss the surveyed ones by road allowances and survey error.
const subdivisionErrorM = 20

// maxRiverLotDistanceM bounds the nearest-centroid answer for lots whose
// dataset publishes no polygon (Manitoba's Original Survey gives one
// centroid per lot); a lot is rarely wider than 400 m, but long ones reach
// farther, so 1 km, as mbquartR errors past.
const maxRiverLotDistanceM = 1000

// unavailable wraps a failure to read a grid index.
func unavailable(err error) error {
	return apierr.Unavailablef(err, "the official grid data could not be read; retry shortly")
}

func blockFrom(r gridindex.Record, m gridindex.Meta) survey.Block {
	return survey.Block{
		Location:  r.Location,
		Province:  r.Province,
		Geometry:  r.Geometry,
		Centroid:  r.Centroid,
		AccuracyM: r.AccuracyM,
		Source:    m.Source,
	}
}

// fromIndex returns l's block from the first index holding it or an
// ancestor it can be subdivided from. Each index is asked for l and then,
// for a DLS location it lacks, for its quarter and section: lookups in the
// same group (township, parish or geographic township), so one page read
// at most.
func (s *Service) fromIndex(ctx context.Context, l lld.Location) (survey.Block, bool, error) {
	for _, ix := range s.indexes() {
		if !holdsSystem(ix, l.System) {
			continue
		}
		r, ok, err := ix.Lookup(ctx, l)
		if err != nil {
			return survey.Block{}, false, unavailable(err)
		}
		if ok {
			return blockFrom(r, ix.Meta()), true, nil
		}
		if l.System != lld.DLS {
			continue
		}
		// The quarter and section subdivideFrom would look up are in l's
		// township: none is there when the township is not (one probe of
		// the group keys instead of two lookups that fail).
		if has, err := ix.HasGroup(ctx, l); err != nil || !has {
			if err != nil {
				return survey.Block{}, false, unavailable(err)
			}
			continue
		}
		b, ok, err := subdivideFrom(ctx, ix, l)
		if err != nil {
			return survey.Block{}, false, unavailable(err)
		}
		if ok {
			return b, true, nil
		}
	}
	return survey.Block{}, false, nil
}

func holdsSystem(ix *gridindex.Index, sys lld.System) bool {
	for _, s := range ix.Meta().Systems {
		if s == sys.String() {
			return true
		}
	}
	return false
}

// subdivideFrom makes a quarter, half or LSD from ix's section (or, for
// an LSD, its quarter).
func subdivideFrom(ctx context.Context, ix *gridindex.Index, l lld.Location) (survey.Block, bool, error) {
	part, ok := dls.SectionPart(l)
	if !ok {
		return survey.Block{}, false, nil
	}
	if l.Unit == lld.LSD {
		q := l
		q.Unit, q.Aliquot, q.LSD = lld.QuarterSection, lld.QuarterOfLSD(int(l.LSD)), 0
		r, ok, err := ix.Lookup(ctx, q)
		if err != nil {
			return survey.Block{}, false, err
		}
		if ok {
			qp, _ := dls.SectionPart(q)
			b, ok := subdivided(r, ix.Meta(), l, relative(part, qp))
			return b, ok, nil
		}
	}
	parent := l
	parent.Unit, parent.Aliquot, parent.LSD = lld.Section, lld.AliquotNone, 0
	r, ok, err := ix.Lookup(ctx, parent)
	if err != nil || !ok {
		return survey.Block{}, false, err
	}
	b, ok := subdivided(r, ix.Meta(), l, part)
	return b, ok, nil
}

// relative expresses box part (in section units) within box of (also in
// section units) as a box in of's unit square.
func relative(part, of orb.Bound) orb.Bound {
	w, h := of.Max[0]-of.Min[0], of.Max[1]-of.Min[1]
	return orb.Bound{
		Min: orb.Point{(part.Min[0] - of.Min[0]) / w, (part.Min[1] - of.Min[1]) / h},
		Max: orb.Point{(part.Max[0] - of.Min[0]) / w, (part.Max[1] - of.Min[1]) / h},
	}
}

func subdivided(r gridindex.Record, m gridindex.Meta, l lld.Location, part orb.Bound) (survey.Block, bool) {
	quad, ok := survey.Corners(r.Geometry)
	if !ok {
		return survey.Block{}, false
	}
	at := func(u, v float64) orb.Point { return bilinear(quad, u, v) }
	ring := orb.Ring{
		at(part.Min[0], part.Min[1]), at(part.Max[0], part.Min[1]),
		at(part.Max[0], part.Max[1]), at(part.Min[0], part.Max[1]),
		at(part.Min[0], part.Min[1]),
	}
	poly := orb.Polygon{ring}
	c, _ := planar.CentroidArea(poly)
	return survey.Block{
		Location:  l,
		Province:  r.Province,
		Geometry:  poly,
		Centroid:  c,
		AccuracyM: r.AccuracyM + subdivisionErrorM,
		Source:    m.Source + " (subdivided)",
	}, true
}

// bilinear maps (u, v) of the unit square onto the quadrilateral q (SW, SE,
// NE, NW).
func bilinear(q [4]orb.Point, u, v float64) orb.Point {
	w := [4]float64{(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v}
	var p orb.Point
	for i := range q {
		p[0] += w[i] * q[i][0]
		p[1] += w[i] * q[i][1]
	}
	return p
}

// atPoint is one reverse lookup's view of the indexes: the records
// containing its point, found in each index at most once (deciding the
// system and then answering in it asked the same index twice) and each
// decoded only when an answer uses it.
type atPoint struct {
	pt   orb.Point
	ixs  []*gridindex.Index
	hits [][]gridindex.Hit
	read []bool
}

func (s *Service) at(pt orb.Point) *atPoint {
	ixs := s.indexes()
	return &atPoint{pt: pt, ixs: ixs, hits: make([][]gridindex.Hit, len(ixs)), read: make([]bool, len(ixs))}
}

// containing returns the records of index i containing the point.
func (a *atPoint) containing(ctx context.Context, i int) ([]gridindex.Hit, error) {
	if !a.read[i] {
		hits, err := a.ixs[i].ContainingHits(ctx, a.pt)
		if err != nil {
			return nil, unavailable(err)
		}
		a.hits[i], a.read[i] = hits, true
	}
	return a.hits[i], nil
}

// fromCandidates fills, for each of units still zero in out, the block of
// index n that is the survey model's block at the point, when the index
// holds that block and it contains the point clearly (gridindex
// ContainingAt): a key lookup and one ring test each, where the search
// around the point (containing) tests every record near it. It reports
// whether every unit was answered so.
func (a *atPoint) fromCandidates(ctx context.Context, n int, units []lld.Unit, out []survey.Block) (bool, error) {
	ix := a.ixs[n]
	all := true
	for i, u := range units {
		if out[i].Location.System != lld.SystemUnknown {
			continue
		}
		if ix.Meta().Units[u.String()] == 0 { // the index has none: it would be subdivided
			all = false
			continue
		}
		l, ok := dls.Locate(a.pt, u)
		if !ok {
			all = false
			continue
		}
		h, ok, err := ix.ContainingAt(ctx, l, a.pt)
		if err != nil {
			return false, unavailable(err)
		}
		if !ok || h.System != lld.DLS || h.Unit != u {
			all = false
			continue
		}
		r, err := h.Record()
		if err != nil {
			return false, unavailable(err)
		}
		out[i] = blockFrom(r, ix.Meta())
	}
	return all, nil
}

// dlsFromIndexes returns, for each of units, the block containing the
// point from an index (directly, or subdivided from a coarser block of the
// same index); blocks no index covers are left zero.
func (s *Service) dlsFromIndexes(ctx context.Context, at *atPoint, units []lld.Unit) ([]survey.Block, bool, error) {
	pt := at.pt
	out := make([]survey.Block, len(units))
	any := false
	for n, ix := range at.ixs {
		if !holdsSystem(ix, lld.DLS) || !ix.Bound().Contains(pt) {
			continue
		}
		// The model's block at the point is the index's block there but
		// near the edges the model misplaces: ask the index for it by key
		// first, and search around the point only for what is left.
		all, err := at.fromCandidates(ctx, n, units, out)
		if err != nil {
			return nil, false, err
		}
		if all {
			any = true
			continue
		}
		for i := range out {
			if out[i].Location.System != lld.SystemUnknown {
				any = true
			}
		}
		hits, err := at.containing(ctx, n)
		if err != nil {
			return nil, false, err
		}
		var finest *gridindex.Hit
		for i := range hits {
			h := &hits[i]
			if h.System != lld.DLS {
				continue
			}
			if finest == nil || dlsDepth(h.Unit) > dlsDepth(finest.Unit) {
				finest = h
			}
		}
		if finest == nil {
			continue
		}
		for i, u := range units {
			if out[i].Location.System != lld.SystemUnknown {
				continue
			}
			if h := lastDLS(hits, u); h != nil {
				r, err := h.Record()
				if err != nil {
					return nil, false, unavailable(err)
				}
				out[i] = blockFrom(r, ix.Meta())
				any = true
				continue
			}
			r, err := finest.Record()
			if err != nil {
				return nil, false, unavailable(err)
			}
			if b, ok := subdivideAt(r, ix.Meta(), u, pt); ok {
				out[i] = b
				any = true
			}
		}
	}
	return out, any, nil
}

// lastDLS returns the last of hits that is a DLS block of unit u (two
// blocks of a unit contain a point on their common edge), or nil.
func lastDLS(hits []gridindex.Hit, u lld.Unit) *gridindex.Hit {
	for i := len(hits) - 1; i >= 0; i-- {
		if hits[i].System == lld.DLS && hits[i].Unit == u {
			return &hits[i]
		}
	}
	return nil
}

func dlsDepth(u lld.Unit) int {
	switch u {
	case lld.Township:
		return 1
	case lld.Section:
		return 2
	case lld.QuarterSection:
		return 3
	case lld.LSD:
		return 4
	}
	return 0
}

// subdivideAt finds the block of unit u containing pt inside record r (a
// section or quarter) by subdividing it.
func subdivideAt(r gridindex.Record, m gridindex.Meta, u lld.Unit, pt orb.Point) (survey.Block, bool) {
	if dlsDepth(u) <= dlsDepth(r.Location.Unit) || r.Location.Unit == lld.Township {
		return survey.Block{}, false
	}
	base := r.Location
	var candidates []lld.Location
	switch u {
	case lld.QuarterSection:
		for _, a := range []lld.Aliquot{lld.NE, lld.NW, lld.SW, lld.SE} {
			l := base
			l.Unit, l.Aliquot = u, a
			candidates = append(candidates, l)
		}
	case lld.LSD:
		for n := uint8(1); n <= 16; n++ {
			l := base
			l.Unit, l.Aliquot, l.LSD = u, lld.AliquotNone, n
			if r.Location.Unit == lld.QuarterSection && lld.QuarterOfLSD(int(n)) != base.Aliquot {
				continue
			}
			candidates = append(candidates, l)
		}
	}
	of := orb.Bound{Min: orb.Point{0, 0}, Max: orb.Point{1, 1}}
	if r.Location.Unit == lld.QuarterSection {
		of, _ = dls.SectionPart(r.Location)
	}
	for _, l := range candidates {
		part, _ := dls.SectionPart(l)
		b, ok := subdivided(r, m, l, relative(part, of))
		if ok && planar.PolygonContains(b.Geometry.(orb.Polygon), pt) {
			return b, true
		}
	}
	return survey.Block{}, false
}

// containingIn returns the record of system sys and unit u containing the
// point from any index (Ontario lots, concessions, townships).
func (s *Service) containingIn(ctx context.Context, at *atPoint, sys lld.System, u lld.Unit) (survey.Block, bool, error) {
	for n, ix := range at.ixs {
		if !holdsSystem(ix, sys) || !ix.Bound().Contains(at.pt) {
			continue
		}
		hits, err := at.containing(ctx, n)
		if err != nil {
			return survey.Block{}, false, err
		}
		for i := range hits {
			if h := &hits[i]; h.System == sys && h.Unit == u {
				r, err := h.Record()
				if err != nil {
					return survey.Block{}, false, unavailable(err)
				}
				return blockFrom(r, ix.Meta()), true, nil
			}
		}
	}
	return survey.Block{}, false, nil
}

// nearestLot returns the Manitoba lot whose official centroid is nearest pt
// within maxRiverLotDistanceM.
func (s *Service) nearestLot(ctx context.Context, pt orb.Point, maxM float64) (survey.Block, bool, error) {
	var (
		best  survey.Block
		bestD = math.Inf(1)
	)
	for _, ix := range s.indexes() {
		if !holdsSystem(ix, lld.RiverLot) {
			continue
		}
		r, d, ok, err := ix.Nearest(ctx, pt, lld.RiverParishLot, maxM)
		if err != nil {
			return survey.Block{}, false, unavailable(err)
		}
		if ok && d < bestD {
			best, bestD = blockFrom(r, ix.Meta()), d
		}
	}
	return best, !math.IsInf(bestD, 1), nil
}
