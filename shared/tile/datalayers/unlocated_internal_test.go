package datalayers

import (
	"context"
	"testing"

	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

// A parcel the grid does not cover (8-22-13-W5 lies in British Columbia, west of the
// AB-BC divide) is left out and counted, not a failed build: a real file
// can name such land (the province-size run found one).
func TestUnlocatedParcelsLeftOut(t *testing.T) {
	ctx := context.Background()
	store := kv.NewMem()
	_, err := kv.Publish(ctx, store, kv.DatasetInfo{Name: energy.Dataset, Source: "test"}, func(w *kv.Writer) error {
		for _, id := range []string{"10-36-42-3-W5", "8-22-13-W5"} {
			s := energy.LSDSummary{LSD: id, Wells: energy.Liability{Total: 1, Active: 1}}
			if err := w.Put(energy.LSDKey(id), energy.SKProduction, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := grid.New().Search(ctx, "8-22-13-W5"); err == nil {
		t.Fatal("8-22-13-W5 is in the grid now: pick another parcel outside it")
	}
	for _, s := range []*Source{New(store, grid.New()), NewPartitioned(store, grid.New(), t.TempDir())} {
		if _, err := s.region(ctx, "energy"); err != nil {
			t.Fatalf("a parcel outside the grid failed the load: %v", err)
		}
		if got := s.Unlocated(); got != 1 {
			t.Errorf("Unlocated() = %d, want 1", got)
		}
		s.Close()
	}
}
