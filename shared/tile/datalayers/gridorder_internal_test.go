package datalayers

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey/grid"
)

// Keys sort by LSD before township, so in key order each LSD lies in
// another township than the one before; a load reads them in grid order
// and so resolves the blocks a township at a time (each township's grid
// index blocks decoded once, not once per LSD), and each block once.
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
	s := NewPartitioned(store, grid.New(), t.TempDir())
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

// gridOrder packs every DLS unit a data layer names and gives its name
// back; other names and non-canonical spellings are not packed.
func TestGridOrderRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mers := []string{"W1", "W2", "W3", "W4", "W5", "W6", "E1", "E2"}
	packed := 0
	for range 5000 {
		mer := mers[rng.IntN(len(mers))]
		twp, rge, sec := 1+rng.IntN(126), 1+rng.IntN(34), 1+rng.IntN(36)
		var id string
		switch rng.IntN(4) {
		case 0:
			id = fmt.Sprintf("%d-%d-%d-%d-%s", 1+rng.IntN(16), sec, twp, rge, mer)
		case 1:
			id = fmt.Sprintf("%s-%d-%d-%d-%s", []string{"NE", "NW", "SW", "SE"}[rng.IntN(4)], sec, twp, rge, mer)
		case 2:
			id = fmt.Sprintf("%d-%d-%d-%s", sec, twp, rge, mer)
		default:
			id = fmt.Sprintf("%d-%d-%s", twp, rge, mer)
		}
		loc, err := lld.Parse(id)
		if err != nil || loc.String() != id {
			continue // not a block of the modelled grid: not a key a dataset holds
		}
		o, ok := gridOrder(id)
		if !ok {
			t.Fatalf("gridOrder(%q) not packed", id)
		}
		if got := gridName(o); got != id {
			t.Fatalf("gridName(gridOrder(%q)) = %q", id, got)
		}
		packed++
	}
	if packed < 4000 {
		t.Fatalf("only %d of 5000 names were canonical: the test checks too little", packed)
	}
	for _, id := range []string{"", "PN00310", "NE-01-001-01-W4", "ne-1-1-1-W4", "A-2-F/93-P-8", "Lot 10 Con 1 Adjala", "1-1-1-1-W4 "} {
		if o, ok := gridOrder(id); ok {
			t.Errorf("gridOrder(%q) = %x, want not packed", id, o)
		}
	}
}

// scanByBlock hands over every item once, a partition's items together
// in SK order, the DLS partitions a township at a time (each township's
// partitions consecutive, townships by meridian, range and township),
// then the other partitions in key order.
func TestScanByBlockOrder(t *testing.T) {
	ctx := context.Background()
	store := kv.NewMem()
	rng := rand.New(rand.NewPCG(3, 4))
	want := map[kv.Key]bool{}
	_, err := kv.Publish(ctx, store, kv.DatasetInfo{Name: "test", Source: "test"}, func(w *kv.Writer) error {
		put := func(pk, sk string) error {
			want[kv.Key{PK: pk, SK: sk}] = true
			return w.Put(pk, sk, map[string]string{"sk": sk})
		}
		for range 3000 {
			id := fmt.Sprintf("%s-%d-%d-%d-W%d", []string{"NE", "NW", "SW", "SE"}[rng.IntN(4)], 1+rng.IntN(36), 1+rng.IntN(20), 1+rng.IntN(5), 4+rng.IntN(2))
			for sk := range 1 + rng.IntN(3) {
				if err := put("QS#"+id, fmt.Sprintf("S%d", sk)); err != nil {
					return err
				}
			}
		}
		for _, pk := range []string{"QS#zzz", "QS#PN00310", "QS#NE-01-001-01-W4"} {
			if err := put(pk, "X"); err != nil {
				return err
			}
		}
		// A partition over a page of a Query.
		for sk := range kv.MaxLimit + 5 {
			if err := put("QS#10-1-1-W4", fmt.Sprintf("S%05d", sk)); err != nil {
				return err
			}
		}
		return put("OTHER#1-1-1-W4", "X") // not under the prefix
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(want, kv.Key{PK: "OTHER#1-1-1-W4", SK: "X"})

	var got []kv.Key
	err = scanByBlock(ctx, store, "test", "QS#", func(it kv.Item) error {
		got = append(got, kv.Key{PK: it.PK, SK: it.SK})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d items, want %d", len(got), len(want))
	}
	seen := map[kv.Key]bool{}
	type twpKey struct{ mer, rge, twp uint8 }
	var twps []twpKey
	donePK := map[string]bool{}
	var others []string
	for i, k := range got {
		if !want[k] || seen[k] {
			t.Fatalf("item %v handed over unexpectedly or twice", k)
		}
		seen[k] = true
		newPK := i == 0 || got[i-1].PK != k.PK
		if !newPK && got[i-1].SK >= k.SK {
			t.Fatalf("%s: SK %s after %s", k.PK, k.SK, got[i-1].SK)
		}
		if !newPK {
			continue
		}
		if donePK[k.PK] {
			t.Fatalf("partition %s handed over in two parts", k.PK)
		}
		donePK[k.PK] = true
		id := strings.TrimPrefix(k.PK, "QS#")
		if _, ok := gridOrder(id); !ok {
			others = append(others, k.PK)
			continue
		}
		if len(others) > 0 {
			t.Fatalf("DLS partition %s after the others %v", k.PK, others)
		}
		loc, _ := lld.Parse(id)
		tk := twpKey{uint8(loc.Meridian), loc.Range, loc.Township}
		if n := len(twps); n == 0 || twps[n-1] != tk {
			twps = append(twps, tk)
		}
	}
	if !slices.IsSortedFunc(twps, func(a, b twpKey) int {
		return cmp.Or(cmp.Compare(a.mer, b.mer), cmp.Compare(a.rge, b.rge), cmp.Compare(a.twp, b.twp))
	}) {
		t.Errorf("townships not visited once each in grid order: %v", twps)
	}
	if !slices.IsSorted(others) || len(others) != 3 {
		t.Errorf("others = %v, want the 3 non-DLS partitions in key order", others)
	}
}
