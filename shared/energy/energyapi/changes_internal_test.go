package energyapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"meridian/shared/api"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

// The answer written by hand is byte for byte what api.WriteJSON writes
// for the same envelope with the rows as json.RawMessage, with every meta
// field null and set, rows stored with HTML escaping or without (the
// encoder keeps a json.RawMessage's \u0026 as it is, and so does the
// answer), and no rows.
func TestChangesListAsEncoder(t *testing.T) {
	ctx := t.Context()
	store := kv.NewMem()
	_, err := kv.Publish(ctx, store, kv.DatasetInfo{Name: energy.Dataset}, func(w *kv.Writer) error {
		for i, name := range []string{"A & B <OIL> LTD.", "PLAIN ENERGY", "ÉNERGIE \"QUOTÉE\""} {
			c := energy.Change{Kind: energy.WellOperatorChanged, LegalLocation: fmt.Sprintf("%d-1-24-1-W5", 1+i),
				EntityType: energy.EntityWell, EntityID: fmt.Sprintf("100/%04d", i), Version: 2, AsOf: "2026-11-21",
				Before: map[string]any{"operator_name": "X"}, After: map[string]any{"operator_name": name}, Source: "test"}
			c.ID = energy.ChangeID(c.Version, c.LegalLocation, c.Kind, c.EntityID)
			l, _ := lld.Parse(c.LegalLocation)
			if err := w.Put(energy.ChangesKey(l), energy.ChangeSK(c), c); err != nil {
				return err
			}
		}
		// One row as written with HTML escaping (every dataset before
		// kv.Writer.Put stopped escaping).
		return w.PutRaw("CHG#24-1-W5", "2026-11-20#1#4-1-24-1-W5#well_licensed#100/0009",
			[]byte(`{"id":"x","kind":"well_licensed","after":{"operator_name":"C \u0026 D"}}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := energy.NewReporter(store, nil, nil)
	twp, _ := lld.Parse("24-1-W5")
	for _, perPage := range []int{50, 2} {
		rows, pg, err := rep.AppendChanges(ctx, nil, energy.ChangesQuery{Area: twp, Page: 1, PerPage: perPage})
		if err != nil {
			t.Fatal(err)
		}
		if pg.Rows != min(perPage, 4) {
			t.Fatalf("per_page %d: %d rows, want %d", perPage, pg.Rows, min(perPage, 4))
		}
		for _, meta := range []changesMeta{
			{Dir: "desc", Sort: "newest", Page: 1, PerPage: perPage},
			{Dir: "desc", Sort: "newest", Page: 3, PerPage: perPage, Total: 7, Since: "2026-01-01", Kinds: []string{"well", "disposition_expired"}, NextCursor: "abc_-"},
		} {
			list := changesList{LegalLocation: "24-1-W5", Province: "AB", Unit: "township", Meta: meta}
			got := appendChangesMeta(append(appendChangesHead(nil, list.LegalLocation, list.Province, list.Unit), rows...), meta)
			// The reference: the rows as the store holds them, encoded.
			if err := json.Unmarshal(append(append([]byte("["), rows...), ']'), &list.Rows); err != nil {
				t.Fatalf("rows are not JSON: %v", err)
			}
			if len(list.Rows) != pg.Rows {
				t.Fatalf("%d rows appended, %d counted", len(list.Rows), pg.Rows)
			}
			rec := httptest.NewRecorder()
			api.WriteJSON(rec, 200, list)
			if !bytes.Equal(got, rec.Body.Bytes()) {
				t.Errorf("per_page %d, meta %+v:\n got %s\nwant %s", perPage, meta, got, rec.Body.Bytes())
			}
		}
	}
	// No rows.
	rows, pg, err := rep.AppendChanges(ctx, nil, energy.ChangesQuery{Area: twp, Page: 9, PerPage: 50})
	if err != nil || pg.Rows != 0 || len(rows) != 0 {
		t.Fatalf("page 9: %d rows (%q), %v", pg.Rows, rows, err)
	}
	meta := changesMeta{Dir: "desc", Sort: "newest", Page: 9, PerPage: 50, Total: 4}
	list := changesList{LegalLocation: "24-1-W5", Province: "AB", Unit: "township", Rows: []json.RawMessage{}, Meta: meta}
	rec := httptest.NewRecorder()
	api.WriteJSON(rec, 200, list)
	if got := appendChangesMeta(appendChangesHead(nil, "24-1-W5", "AB", "township"), meta); !bytes.Equal(got, rec.Body.Bytes()) {
		t.Errorf("no rows:\n got %s\nwant %s", got, rec.Body.Bytes())
	}
}
