package energyingest

import (
	"sort"
	"time"

	"meridian/shared/energy"
	"meridian/shared/lld"
)

// writeRollups writes what was counted: LSD summaries (and their quarter
// index), operators and their footprints, the operators list and sources.
func (in *ingester) writeRollups() error {
	type named struct {
		name string
		acc  *lsdAcc
	}
	keys := make([]named, 0, len(in.lsds)+len(in.otherLSDs))
	for id, a := range in.lsds {
		keys = append(keys, named{id.location().String(), a})
	}
	for k, a := range in.otherLSDs {
		keys = append(keys, named{k, a})
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name < keys[j].name })
	for _, n := range keys {
		k, s := n.name, n.acc.summary(n.name)
		s.Production.WindowMonths = 12
		for ba := range s.WellsByOperator {
			if name := in.operator(ba).row.Name; name != "" {
				if s.OperatorNames == nil {
					s.OperatorNames = map[string]string{}
				}
				s.OperatorNames[ba] = name
			}
		}
		if err := in.w.Put(energy.LSDKey(k), energy.SKProduction, s); err != nil {
			return err
		}
		l, err := lld.Parse(k)
		if err != nil {
			continue
		}
		q := l
		q.Unit, q.LSD, q.Aliquot = lld.QuarterSection, 0, QuarterOf(l.LSD)
		if err := in.w.Put(energy.QuarterKey(q.String()), energy.QuarterLSDSK(k), s); err != nil {
			return err
		}
	}
	refreshed := in.o.Now.UTC().Format(time.RFC3339)
	bas := make([]string, 0, len(in.ops))
	for ba := range in.ops {
		bas = append(bas, ba)
	}
	sort.Strings(bas)
	for _, ba := range bas {
		op := in.ops[ba]
		r := &op.row
		if r.Name == "" {
			r.Name = in.baNames[ba]
			r.Slug = energy.Slug(r.Name)
		}
		r.ActiveWells, r.AbandonedWells, r.OrphanWells = r.Liability.Active, r.Liability.Abandoned, r.Liability.Orphan
		r.ReclamationCertifiedWells, r.RefreshedAt, r.FootprintTotal = r.Liability.ReclamationCertified, refreshed, len(op.footprint)
		if err := in.w.Put(energy.OperatorKey(ba), energy.SKInfo, energy.OperatorInfo{OperatorRow: *r, Liability: r.Liability,
			PNG: r.PNGDispositions, Mineral: r.MineralDispositions, AreaHa: r.TotalAreaHa, In: r.TransfersIn, Out: r.TransfersOut, Footprint: r.FootprintTotal}); err != nil {
			return err
		}
		if err := energy.PutOperatorRow(in.w, in.ranks, *r); err != nil {
			return err
		}
		for _, name := range []string{r.Slug, energy.Squash(r.Name)} {
			if name != "" {
				if err := in.w.Put(energy.OperatorNameKey(name), energy.OperatorNameBASK(ba), map[string]string{"ba_code": ba}); err != nil {
					return err
				}
			}
		}
		for lsd, fp := range op.footprint {
			if err := in.putRanked(energy.OperatorKey(ba), energy.SKFootprintPrefix, energy.FootprintSK(fp.TotalWells, lsd), fp); err != nil {
				return err
			}
		}
	}
	for section, s := range in.sources {
		if err := in.w.Put(energy.PKSources, section, s); err != nil {
			return err
		}
	}
	in.sum.Derived["operators"] = len(in.ops)
	return in.writeListCounts()
}

func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}
