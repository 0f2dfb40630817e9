package datalayers

import (
	"context"
	"fmt"
	"testing"

	"meridian/shared/convert"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

// Keys sort by LSD before township, so in key order each LSD lies in
// another township than the one before; a load resolves the blocks a
// township at a time (each township's grid index page decoded once per
// window, not once per LSD), and each block once, and draws the same
// features as when it resolved them in key order.
func TestLoadResolvesBlocksByTownship(t *testing.T) {
	ctx := context.Background()
	store := kv.NewMem()
	var twps []string
	for twp := 40; twp < 46; twp++ {
		twps = append(twps, fmt.Sprintf("%d-25-W4", twp))
	}
	lsds := 0
	_, err := kv.Publish(ctx, store, kv.DatasetInfo{Name: energy.Dataset, Source: "test"}, func(w *kv.Writer) error {
		for _, twp := range twps {
			for sec := 1; sec <= 3; sec++ {
				for lsd := 1; lsd <= 16; lsd++ {
					id := fmt.Sprintf("%d-%d-%s", lsd, sec, twp)
					s := energy.LSDSummary{LSD: id, Wells: energy.Liability{Total: 1, Active: 1}, ProducingWells: 1, Production: energy.Production{Oil: 2}}
					if err := w.Put(energy.LSDKey(id), energy.SKProduction, s); err != nil {
						return err
					}
					lsds++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := NewPartitioned(store, convert.New(), t.TempDir())
	defer s.Close()
	var resolved []lld.Location
	s.onResolve = func(l lld.Location) { resolved = append(resolved, l) }
	r, err := s.region(ctx, "energy")
	if err != nil {
		t.Fatal(err)
	}
	// LSDs once, then sections and townships once per roll-up layer pair
	// (wells, production): at most one move to another township per
	// township and pass.
	moves, seen := 0, map[lld.Location]int{}
	for i, l := range resolved {
		seen[l]++
		if i == 0 || l.Township != resolved[i-1].Township || l.Range != resolved[i-1].Range || l.Meridian != resolved[i-1].Meridian {
			moves++
		}
	}
	for l, n := range seen {
		if l.Unit == lld.LSD && n != 1 {
			t.Errorf("%v resolved %d times", l, n)
		}
	}
	if passes := 5; moves > passes*len(twps) {
		t.Errorf("the load moved between townships %d times resolving %d blocks of %d townships, want at most %d", moves, len(resolved), len(twps), passes*len(twps))
	}
	if n := r.spool.layers["og_activity_lsd"].n; n != uint64(lsds) {
		t.Errorf("og_activity_lsd has %d features, want %d", n, lsds)
	}
}
