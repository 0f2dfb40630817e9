package grid

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
	// The model's townships over b grown by townshipSlack: an official
	// township lies within some metres of the model's, and its blocks
	// just outside the model's township are to be found too.
	var twps []lld.Location
	dls.Townships(b.Pad(townshipSlack), func(l lld.Location) bool { twps = append(twps, l); return true })
	official := s.hasSystem(lld.DLS)
	for _, twp := range twps {
		var holder *gridindex.Index // the index that holds the township, if any
		if official {
			var err error
			if holder, err = s.groupHolder(ctx, twp); err != nil {
				return err
			}
		}
		held := holder != nil
		if held {
			tb, ok, err := holder.RecordBound(ctx, twp)
			if err != nil {
				return unavailable(err)
			}
			if ok && !tb.Pad(sectionSlack).Intersects(b) {
				continue
			}
		}
		perSection := per / 36 // blocks of u in a section (0 for townships)
		for i := 0; i < per; i++ {
			l := childOf(twp, u, i)
			// Skip a whole section's quarters or LSDs when the section
			// misses b: the model's section (official blocks are within
			// metres of it; the caller's b already carries a tile's
			// buffer), or the official section's box, read without its
			// geometry, grown by sectionSlack.
			if perSection > 1 && i%perSection == 0 {
				sec := l
				sec.Unit, sec.Aliquot, sec.LSD = lld.Section, 0, 0
				var sb orb.Bound
				ok := true
				if held {
					var err error
					if sb, ok, err = holder.RecordBound(ctx, sec); err != nil {
						return unavailable(err)
					}
					sb = sb.Pad(sectionSlack)
				} else {
					sb = dls.Bound(sec)
				}
				if ok && !sb.Intersects(b) {
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

// groupHolder returns the first DLS index that holds twp's township, or nil.
func (s *Service) groupHolder(ctx context.Context, twp lld.Location) (*gridindex.Index, error) {
	for _, ix := range s.indexes() {
		if !holdsSystem(ix, lld.DLS) {
			continue
		}
		ok, err := ix.HasGroup(ctx, twp)
		if err != nil {
			return nil, unavailable(err)
		}
		if ok {
			return ix, nil
		}
	}
	return nil, nil
}

// sectionSlack is how far (in degrees, some 35-55 m) an official quarter
// or LSD may reach past its section's box and still be found by Blocks: a
// published subdivision lies within its section up to its digitising.
const sectionSlack = 0.0005

// townshipSlack is how far (in degrees, some 140-220 m) Blocks looks past
// b for the model's townships whose official township may reach into it.
const townshipSlack = 0.002

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
