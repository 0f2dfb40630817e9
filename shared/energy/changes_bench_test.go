package energy_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

// BenchmarkChangesPage reads the first page of 50 of a township holding
// 2,000 changes from a bbolt store: what GET /energy/changes reads at
// province size for a busy township.
func BenchmarkChangesPage(b *testing.B) {
	ctx := context.Background()
	store, err := kv.OpenBolt(filepath.Join(b.TempDir(), "r.db"), kv.BoltOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	_, err = kv.Publish(ctx, store, kv.DatasetInfo{Name: energy.Dataset}, func(w *kv.Writer) error {
		for i := range 2000 {
			c := energy.Change{Kind: energy.WellStatusChanged, LegalLocation: fmt.Sprintf("%d-%d-24-1-W5", 1+i%16, 1+i/16%36),
				EntityType: energy.EntityWell, EntityID: fmt.Sprintf("100/%04d", i), Version: int64(2 + i%5), AsOf: "2026-11-21",
				Before: map[string]any{"status": "active"}, After: map[string]any{"status": "abandoned"}, Source: "test"}
			c.ID = energy.ChangeID(c.Version, c.LegalLocation, c.Kind, c.EntityID)
			l, _ := lld.Parse(c.LegalLocation)
			if err := w.Put(energy.ChangesKey(l), energy.ChangeSK(c), c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	rep := energy.NewReporter(store, nil, nil)
	twp, _ := lld.Parse("24-1-W5")
	b.ReportAllocs()
	for b.Loop() {
		pg, err := rep.Changes(ctx, energy.ChangesQuery{Area: twp, Page: 1, PerPage: 50})
		if err != nil || pg.Rows != 50 || pg.Next == "" {
			b.Fatalf("%d rows, next %q, %v", pg.Rows, pg.Next, err)
		}
	}
}
