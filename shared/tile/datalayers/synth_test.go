package datalayers

import (
	"context"
	"fmt"
	"testing"

	"meridian/shared/ag"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
)

// synthLSDs calls fn with n DLS LSDs, township by township along rows of
// 29 ranges west of the fourth meridian, then the fifth, the third, the
// second and the first (some 5.8 million LSDs in all), the first perTwp
// LSDs of each township (576: all of them): a synthetic province's LSDs,
// as dense as perTwp says.
func synthLSDs(n, perTwp int, fn func(id, sec, disp string) error) error {
	i := 0
	svc := grid.New()
	for _, mer := range []string{"W4", "W5", "W3", "W2", "W1"} {
		for twp := 1; twp <= 120; twp++ {
			for rge := 1; rge <= 29; rge++ {
				if !townshipOnGrid(svc, twp, rge, mer) {
					continue // past the grid's edge
				}
				for j := range min(perTwp, 576) {
					sec, lsd := j/16+1, j%16+1
					{
						if i == n {
							return nil
						}
						id := fmt.Sprintf("%d-%d-%d-%d-%s", lsd, sec, twp, rge, mer)
						// A disposition per section: 16 LSDs.
						disp := fmt.Sprintf("%02d%03d%02d%d", sec, twp, rge, len(mer))
						if err := fn(id, fmt.Sprintf("%d-%d-%d-%s", sec, twp, rge, mer), disp); err != nil {
							return err
						}
						i++
					}
				}
			}
		}
	}
	return fmt.Errorf("synthetic: %d LSDs is more than the grid holds", n)
}

// townshipOnGrid reports whether every LSD and quarter of a township
// resolves: along a meridian or the grid's edge a township can be partial.
func townshipOnGrid(svc *grid.Service, twp, rge int, mer string) bool {
	for sec := 1; sec <= 36; sec++ {
		for lsd := 1; lsd <= 16; lsd++ {
			if !onGrid(svc, fmt.Sprintf("%d-%d-%d-%d-%s", lsd, sec, twp, rge, mer)) {
				return false
			}
		}
		for _, q := range []string{"SE", "SW", "NW", "NE"} {
			if !onGrid(svc, fmt.Sprintf("%s-%d-%d-%d-%s", q, sec, twp, rge, mer)) {
				return false
			}
		}
	}
	return true
}

// onGrid reports whether the DLS block id resolves.
func onGrid(svc *grid.Service, id string) bool {
	loc, err := lld.Parse(id)
	if err != nil {
		return false
	}
	_, err = svc.Resolve(context.Background(), loc, id)
	return err == nil
}

// synthEnergy publishes an energy dataset: nProd LSDs with wells and
// production, nTenure LSDs (the same first ones, and more) each under one
// disposition of a section's 16 LSDs, half of them petroleum and natural gas, half
// mineral.
func synthEnergy(ctx context.Context, store kv.Store, nProd, nTenure, perTwp int) error {
	holder := "Synthetic Energy (demo)"
	expiry := "2031-06-30"
	_, err := kv.Publish(ctx, store, kv.DatasetInfo{Name: energy.Dataset, Source: "synthetic", Demo: true}, func(w *kv.Writer) error {
		i := 0
		return synthLSDs(max(nProd, nTenure), perTwp, func(id, _, disp string) error {
			defer func() { i++ }()
			if i < nProd {
				s := energy.LSDSummary{LSD: id, Wells: energy.Liability{Total: 2, Active: 1, Abandoned: 1}, ProducingWells: 1,
					Production: energy.Production{WindowMonths: 12, LastProducingMonth: "2026-10", Oil: 120.5 + float64(i%7), Gas: 300, Water: 40}}
				if err := w.Put(energy.LSDKey(id), energy.SKProduction, s); err != nil {
					return err
				}
			}
			if i < nTenure {
				kind, typ := "png", "PNG lease"
				if i/perTwp%2 == 1 { // townships alternate
					kind, typ = "mineral", "Metallic and industrial minerals permit"
				}
				r := energy.TenureRow{ID: "AB-" + disp, TenureKind: kind, Province: "AB", DispositionNumber: disp,
					DispositionType: typ, Holder: energy.Party{Name: &holder}, Status: "active", ExpiryDate: &expiry}
				if err := w.Put(energy.LSDKey(id), energy.TenureSK(expiry, r.ID), r); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return err
}

// synthAg publishes an ag dataset of n quarters with cropping, LSRS and
// soil sections.
func synthAg(ctx context.Context, store kv.Store, n int) error {
	crops := []ag.Crop{{Code: "153", Name: "Canola and Rapeseed", Category: "Oilseed"}, {Code: "146", Name: "Spring Wheat", Category: "Cereal"},
		{Code: "174", Name: "Lentils", Category: "Pulse"}}
	_, err := kv.Publish(ctx, store, kv.DatasetInfo{Name: ag.Dataset, Source: "synthetic", Demo: true}, func(w *kv.Writer) error {
		i := 0
		return synthLSDs(4*n, 576, func(id, sec, _ string) error {
			defer func() { i++ }()
			if i%4 != 0 { // one quarter per four LSDs
				return nil
			}
			q := []string{"SE", "SW", "NW", "NE"}[i/4%4] + "-" + sec
			pk := ag.QuarterKey(q)
			c := crops[i/4%len(crops)]
			if err := w.Put(pk, ag.SKCropping, ag.Cropping{Dominant: c, Rotation: c.Name + "-Spring Wheat", DiversityIndex: 1.25, YearsCovered: 5}); err != nil {
				return err
			}
			if err := w.Put(pk, ag.SKLSRS, ag.Productivity{Score: float64(40 + i%50), Class: fmt.Sprint(2 + i%3)}); err != nil {
				return err
			}
			var s ag.Soil
			s.Classification.Order = []string{"Chernozemic", "Luvisolic"}[i/64%2]
			return w.Put(pk, ag.SKSoil, s)
		})
	})
	return err
}

// eachBuild calls fn with each of region's layers that s has data for, and
// the options to build it with.
func eachBuild(t testing.TB, s *Source, region string, fn func(tile.Layer, tile.BuildOptions)) {
	t.Helper()
	for _, name := range Names() {
		l := layer(t, name)
		if l.Region != region {
			continue
		}
		o, ok, err := s.BuildOptions(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			fn(l, o)
		}
	}
}
