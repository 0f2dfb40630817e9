package convert

import (
	"context"
	"fmt"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/nts"
)

// Blocks calls fn with every block of system sys and unit u whose box
// intersects b: the blocks a map tile over b draws, each exactly the block
// Resolve returns for its location (official data where an index holds its
// township, the model elsewhere). DLS units are Township, Section,
// QuarterSection and LSD; NTS units Series to QuarterUnit; Ontario units
// Township, Concession and Lot; Manitoba RiverParishLot (centroids only).
// Blocks stops at fn's first error and returns it.
func (s *Service) Blocks(ctx context.Context, sys lld.System, u lld.Unit, b orb.Bound, fn func(survey.Block) error) error {
	switch sys {
	case lld.DLS:
		return s.dlsBlocks(ctx, u, b, fn)
	case lld.NTS:
		var err error
		nts.Cells(b, u, func(l lld.Location) bool {
			if blk, ok := nts.Resolve(l); ok {
				err = fn(blk)
			}
			return err == nil
		})
		return err
	case lld.GeoTownship, lld.RiverLot:
		return s.indexBlocks(ctx, sys, u, b, fn)
	}
	return fmt.Errorf("convert: Blocks of system %v", sys)
}

// dlsBlocks enumerates the townships over b and, in each, the blocks of
// unit u: from the model, or through Resolve where an index holds the
// township.
func (s *Service) dlsBlocks(ctx context.Context, u lld.Unit, b orb.Bound, fn func(survey.Block) error) error {
	var per int // blocks of u in a township
	switch u {
	case lld.Township:
		per = 1
	case lld.Section:
		per = 36
	case lld.QuarterSection:
		per = 36 * 4
	case lld.LSD:
		per = 36 * 16
	default:
		return fmt.Errorf("convert: DLS blocks of unit %v", u)
	}
	var twps []lld.Location
	dls.Townships(b, func(l lld.Location) bool { twps = append(twps, l); return true })
	official := s.hasSystem(lld.DLS)
	for _, twp := range twps {
		held := false
		if official {
			var err error
			if held, err = s.holdsGroup(ctx, twp); err != nil {
				return err
			}
		}
		perSection := per / 36 // blocks of u in a section (0 for townships)
		for i := 0; i < per; i++ {
			l := childOf(twp, u, i)
			// Skip a whole section's quarters or LSDs when the model's
			// section misses b (official blocks are within metres of it;
			// the caller's b already carries a tile's buffer).
			if perSection > 1 && i%perSection == 0 && !held {
				sec := l
				sec.Unit, sec.Aliquot, sec.LSD = lld.Section, 0, 0
				if !dls.Bound(sec).Intersects(b) {
					i += perSection - 1
					continue
				}
			}
			var blk survey.Block
			if held {
				var err error
				if blk, err = s.Resolve(ctx, l, ""); err != nil {
					if e := apierr.As(err); e != nil && e.Kind == apierr.NotFound {
						continue // outside coverage, as the model decides
					}
					return err
				}
			} else {
				if !dls.Bound(l).Intersects(b) {
					continue
				}
				var ok bool
				if blk, ok = dls.Resolve(l); !ok {
					continue
				}
				// 120°W splits some Peace River Block blocks in two parcels: draw both.
				if p, ok := dls.OtherPart(l); ok && p.Geometry.Bound().Intersects(b) {
					if err := fn(p); err != nil {
						return err
					}
				}
			}
			if blk.Geometry != nil && !blk.Geometry.Bound().Intersects(b) {
				continue
			}
			if err := fn(blk); err != nil {
				return err
			}
		}
	}
	return nil
}

// childOf returns block i (0-based) of unit u in township twp: sections
// 1-36, quarters SE, SW, NW, NE of each, LSDs 1-16 of each.
func childOf(twp lld.Location, u lld.Unit, i int) lld.Location {
	l := twp
	l.Unit = u
	switch u {
	case lld.Section:
		l.Section = uint8(i + 1)
	case lld.QuarterSection:
		l.Section = uint8(i/4 + 1)
		l.Aliquot = quarters[i%4]
	case lld.LSD:
		l.Section = uint8(i/16 + 1)
		l.LSD = uint8(i%16 + 1)
	}
	return l
}

var quarters = [4]lld.Aliquot{lld.SE, lld.SW, lld.NW, lld.NE}

// holdsGroup reports whether any DLS index holds twp's township.
func (s *Service) holdsGroup(ctx context.Context, twp lld.Location) (bool, error) {
	for _, ix := range s.indexes() {
		if !holdsSystem(ix, lld.DLS) {
			continue
		}
		ok, err := ix.HasGroup(ctx, twp)
		if err != nil {
			return false, unavailable(err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// indexBlocks enumerates the records of the indexes holding sys; where two
// indexes hold the same block the first (preferred) one answers.
func (s *Service) indexBlocks(ctx context.Context, sys lld.System, u lld.Unit, b orb.Bound, fn func(survey.Block) error) error {
	var seen map[lld.Location]bool
	ixs := s.indexes()
	for n, ix := range ixs {
		if !holdsSystem(ix, sys) {
			continue
		}
		if n < len(ixs)-1 && seen == nil {
			seen = map[lld.Location]bool{}
		}
		var ferr error // fn's error, returned as is; the index's are wrapped
		err := ix.Within(ctx, b, u, func(r *gridindex.Record) error {
			if r.Location.System != sys {
				return nil
			}
			if seen != nil {
				if seen[r.Location] {
					return nil
				}
				seen[r.Location] = true
			}
			ferr = fn(blockFrom(*r, ix.Meta()))
			return ferr
		})
		if ferr != nil {
			return ferr
		}
		if err != nil {
			return unavailable(err)
		}
	}
	return nil
}
