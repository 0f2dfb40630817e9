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
// 2,000 changes from a bbolt store (what GET /energy/changes reads at
// province size for a busy township), and the whole page of a township
// holding 8 (the scale test's townships average about that).
func BenchmarkChangesPage(b *testing.B) {
	ctx := context.Background()
	store, err := kv.OpenBolt(filepath.Join(b.TempDir(), "r.db"), kv.BoltOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	_, err = kv.Publish(ctx, store, kv.DatasetInfo{Name: energy.Dataset}, func(w *kv.Writer) error {
		put := func(i int, twp string) error {
			c := energy.Change{Kind: energy.WellStatusChanged, LegalLocation: fmt.Sprintf("%d-%d-%s", 1+i%16, 1+i/16%36, twp),
				EntityType: energy.EntityWell, EntityID: fmt.Sprintf("100/%04d", i), Version: int64(2 + i%5), AsOf: "2026-11-21",
				Before: map[string]any{"status": "active"}, After: map[string]any{"status": "abandoned"}, Source: "test"}
			c.ID = energy.ChangeID(c.Version, c.LegalLocation, c.Kind, c.EntityID)
			l, _ := lld.Parse(c.LegalLocation)
			return w.Put(energy.ChangesKey(l), energy.ChangeSK(c), c)
		}
		for i := range 2000 {
			if err := put(i, "24-1-W5"); err != nil {
				return err
			}
		}
		for i := range 8 {
			if err := put(i, "25-1-W5"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	rep := energy.NewReporter(store, nil, nil)
	for _, c := range []struct {
		name, twp string
		rows      int
		next      bool
	}{{"busy", "24-1-W5", 50, true}, {"eight", "25-1-W5", 8, false}} {
		b.Run(c.name, func(b *testing.B) {
			twp, _ := lld.Parse(c.twp)
			b.ReportAllocs()
			var body []byte // the handler's pooled body buffer
			for b.Loop() {
				var pg energy.ChangesPage
				var err error
				body, pg, err = rep.AppendChanges(ctx, body[:0], energy.ChangesQuery{Area: twp, Page: 1, PerPage: 50})
				if err != nil || pg.Rows != c.rows || (pg.Next != "") != c.next {
					b.Fatalf("%d rows, next %q, %v", pg.Rows, pg.Next, err)
				}
			}
		})
	}
}
