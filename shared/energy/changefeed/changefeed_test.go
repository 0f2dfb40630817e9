package changefeed

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"meridian/shared/energy"
	"meridian/shared/kv"
)

func strp(s string) *string { return &s }

func well(lsd, uwi, status, raw, ba string, orphan bool) Record {
	return WellRecord("AB", "wells", energy.WellRow{LSD: lsd, UWI: uwi, Status: energy.Bucket(status), LicenceStatusRaw: raw,
		Operator: energy.NewParty(ba, "Op "+ba), IsOrphan: orphan})
}

func disp(lsd, id, status, holder, expiry string) Record {
	r := energy.TenureRow{ID: id, Href: "/energy/dispositions/" + id, Holder: energy.NewParty("", holder), Status: status}
	if expiry != "" {
		r.ExpiryDate = strp(expiry)
	}
	return DispositionRecord(lsd, "AB", "tenure", "2020-01-01", r)
}

// writeSnapshot writes records (in any order) as a snapshot file.
func writeSnapshot(t *testing.T, path string, h Header, recs ...Record) {
	t.Helper()
	s := NewSnapshot(context.Background(), 1<<10) // spills: the runs are merged
	for _, r := range recs {
		if err := s.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.WriteTo(path, h); err != nil {
		t.Fatal(err)
	}
}

// diffOf returns the changes from prev to next as "kind lsd entity
// before→after" lines.
func diffOf(t *testing.T, prev, next []Record, prevAsOf, asOf string) []string {
	t.Helper()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeSnapshot(t, a, Header{Version: 1, AsOf: prevAsOf}, prev...)
	writeSnapshot(t, b, Header{Version: 2, AsOf: asOf}, next...)
	var out []string
	err := Diff(a, b, Version{Version: 2, AsOf: asOf, Sources: map[string]string{"wells": "AER ST37"}}, func(c energy.Change) error {
		bf, _ := json.Marshal(c.Before)
		af, _ := json.Marshal(c.After)
		out = append(out, string(c.Kind)+" "+c.LegalLocation+" "+c.EntityID+" "+string(bf)+"→"+string(af))
		if c.Version != 2 || c.AsOf != asOf || c.ID != energy.ChangeID(2, c.LegalLocation, c.Kind, c.EntityID) {
			t.Errorf("change %+v", c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDiffKinds(t *testing.T) {
	const l1, l2 = "1-1-1-1-W5", "2-1-1-1-W5"
	prev := []Record{
		well(l1, "W1", "active", "Issued", "A1", false),
		well(l1, "W2", "active", "Issued", "A1", false),
		well(l1, "W3", "suspended", "Suspension", "A1", false),
		well(l2, "W4", "active", "Issued", "A1", false),
		disp(l1, "D1", "active", "Holder One", "2027-01-01"),
		disp(l1, "D2", "active", "Holder One", "2026-11-10"), // expires between the as-of dates
		disp(l1, "D3", "active", "Holder One", "2030-01-01"),
		disp(l1, "D4", "active", "Holder One", "2030-01-01"),
		disp(l2, "D5", "active", "Holder One", "2026-01-01"), // dropped after its expiry
		disp(l2, "D6", "active", "Holder One", "2031-01-01"), // dropped, no reason
	}
	next := []Record{
		well(l2, "W4", "active", "Issued", "A1", false), // unchanged (given first: the sort orders)
		well(l1, "W1", "abandoned", "Abandoned", "A1", false),
		well(l1, "W2", "active", "Issued", "B2", false),
		well(l1, "W3", "orphan", "Suspension", "A1", true),
		well(l1, "W9", "active", "Issued", "A1", false),
		disp(l1, "D1", "active", "Holder Two", "2027-01-01"),
		disp(l1, "D2", "active", "Holder One", "2026-11-10"),
		disp(l1, "D3", "cancelled", "Holder One", "2030-01-01"),
		disp(l1, "D4", "active", "Holder One", "2032-01-01"),
	}
	got := diffOf(t, prev, next, "2026-11-01", "2026-11-21")
	want := []string{
		`disposition_transferred 1-1-1-1-W5 D1 {"holder_name":"Holder One"}→{"holder_name":"Holder Two"}`,
		`disposition_expired 1-1-1-1-W5 D2 {"expired":false}→{"expired":true}`,
		`disposition_cancelled 1-1-1-1-W5 D3 {"status":"active"}→{"status":"cancelled"}`,
		`disposition_expiry_changed 1-1-1-1-W5 D4 {"expiry_date":"2030-01-01"}→{"expiry_date":"2032-01-01"}`,
		`well_status_changed 1-1-1-1-W5 W1 {"licence_status_raw":"Issued","status":"active"}→{"licence_status_raw":"Abandoned","status":"abandoned"}`,
		`well_operator_changed 1-1-1-1-W5 W2 {"operator_ba_code":"A1","operator_name":"Op A1"}→{"operator_ba_code":"B2","operator_name":"Op B2"}`,
		`well_status_changed 1-1-1-1-W5 W3 {"status":"suspended"}→{"status":"orphan"}`,
		`well_orphaned 1-1-1-1-W5 W3 {"is_orphan":false}→{"is_orphan":true}`,
		`well_licensed 1-1-1-1-W5 W9 null→{"is_orphan":false,"licence_status_raw":"Issued","operator_ba_code":"A1","operator_name":"Op A1","status":"active"}`,
		`disposition_expired 2-1-1-1-W5 D5 {"expiry_date":"2026-01-01","holder_ba_code":"","holder_name":"Holder One","issue_date":"2020-01-01","status":"active"}→null`,
		`disposition_removed 2-1-1-1-W5 D6 {"expiry_date":"2031-01-01","holder_ba_code":"","holder_name":"Holder One","issue_date":"2020-01-01","status":"active"}→null`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if same := diffOf(t, next, next, "2026-11-21", "2026-11-21"); len(same) != 0 {
		t.Errorf("identical snapshots: %v", same)
	}
}

// publish runs Build in a Mem store's publish and returns the change
// items it wrote (by PK and SK) and its stats.
func publish(t *testing.T, st *State, v Version, recs ...Record) (map[string]energy.Change, Stats) {
	t.Helper()
	snap := NewSnapshot(context.Background(), 0)
	for _, r := range recs {
		if err := snap.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	store := kv.NewMem()
	var stats Stats
	_, err := kv.Publish(context.Background(), store, kv.DatasetInfo{Name: "energy"}, func(w *kv.Writer) error {
		var err error
		stats, err = st.Build(w, snap, v)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := kv.Open(context.Background(), store, "energy")
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]energy.Change{}
	err = ds.ScanKeys(context.Background(), "CHG", func(keys []kv.Key) error {
		for _, k := range keys {
			it, _, err := ds.Get(context.Background(), k.PK, k.SK)
			if err != nil {
				return err
			}
			var c energy.Change
			if err := json.Unmarshal(it.Data, &c); err != nil {
				return err
			}
			items[k.PK+" "+c.ID] = c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items, stats
}

// The retained changes: kept while within ChangeRetentionDays of the
// newest as-of date, dropped after; a failed publish (Abort) leaves the
// state; a Commit cut short after the log's rename reports the lost
// version's changes once, under the next version.
func TestStateRetentionAndCommit(t *testing.T) {
	dir := t.TempDir()
	open := func() *State {
		st, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	const l = "1-1-1-1-W5"
	st := open()
	if _, ok := st.Previous(); ok {
		t.Fatal("a new directory has a previous snapshot")
	}
	items, stats := publish(t, st, Version{Version: st.NextVersion(1), AsOf: "2025-01-01"}, well(l, "W1", "active", "Issued", "A1", false))
	if len(items) != 0 || stats.Records != 1 {
		t.Fatalf("first publish: %v %+v", items, stats)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}

	// The refresh job's empty directory restarts its store at version 1:
	// the changes still go up.
	st = open()
	if v := st.NextVersion(1); v != 2 {
		t.Fatalf("NextVersion(1) after version 1: %d", v)
	}
	items, stats = publish(t, st, Version{Version: 2, AsOf: "2025-02-01"}, well(l, "W1", "abandoned", "Abandoned", "A1", false))
	if stats.Found != 1 || len(items) != 2 || items["CHGNEW "+energy.ChangeID(2, l, energy.WellStatusChanged, "W1")].Kind != energy.WellStatusChanged {
		t.Fatalf("second publish: %v %+v", items, stats)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}

	// A failed publish leaves the state: the next one finds the same.
	st = open()
	_, stats = publish(t, st, Version{Version: 3, AsOf: "2025-03-01"}, well(l, "W1", "abandoned", "Abandoned", "B2", false))
	if stats.Found != 1 || stats.Retained != 1 {
		t.Fatalf("third publish: %+v", stats)
	}
	st.Abort()
	left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("Abort left %v", left)
	}

	// A commit cut short: the log renamed, the snapshot not. The next
	// publish finds version 3's change again, once, as its own.
	st = open()
	items, stats = publish(t, st, Version{Version: 3, AsOf: "2025-03-01"}, well(l, "W1", "abandoned", "Abandoned", "B2", false))
	if stats.Found != 1 {
		t.Fatalf("third publish: %+v", stats)
	}
	if err := os.Rename(st.logTmp, filepath.Join(dir, LogFile)); err != nil {
		t.Fatal(err)
	}
	st = open() // removes the snapshot's temporary file
	items, stats = publish(t, st, Version{Version: 4, AsOf: "2025-04-01"}, well(l, "W1", "abandoned", "Abandoned", "B2", false))
	var ids []string
	for k := range items {
		ids = append(ids, k)
	}
	slices.Sort(ids)
	wantIDs := []string{
		"CHG#1-1-W5 " + energy.ChangeID(2, l, energy.WellStatusChanged, "W1"),
		"CHG#1-1-W5 " + energy.ChangeID(4, l, energy.WellOperatorChanged, "W1"),
		"CHGNEW " + energy.ChangeID(4, l, energy.WellOperatorChanged, "W1"),
	}
	if stats.Found != 1 || stats.Retained != 1 || !slices.Equal(ids, wantIDs) {
		t.Fatalf("after a cut-short commit: %+v\n%v\nwant\n%v", stats, ids, wantIDs)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}

	// 730 days and two after version 2's as-of date its change goes;
	// version 4's stays.
	st = open()
	_, stats = publish(t, st, Version{Version: 5, AsOf: "2027-02-03"}, well(l, "W1", "abandoned", "Abandoned", "B2", false))
	if stats.Found != 0 || stats.Retained != 1 || stats.Dropped != 1 {
		t.Fatalf("after the retention: %+v", stats)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	var logged []int64
	if err := ReadLog(dir, func(c energy.Change) error { logged = append(logged, c.Version); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(logged, []int64{4}) {
		t.Errorf("log holds the changes of versions %v, want [4]", logged)
	}
}
