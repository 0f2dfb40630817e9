package dataingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/demo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy"
	"meridian/shared/energy/changefeed"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey/grid"
)

// changeItems reads the served energy version's change items: CHGNEW's
// and every CHG# partition's, by change id.
func changeItems(t *testing.T, data datadir.Dir) (fresh, all map[string]energy.Change, ds kv.Dataset, closeFn func()) {
	t.Helper()
	ctx := context.Background()
	store, _, ok, err := data.Reports(energy.Dataset).OpenCurrent(0)
	if err != nil || !ok {
		t.Fatalf("open the served version: %v %v", ok, err)
	}
	ds, ok, err = kv.Open(ctx, store, energy.Dataset)
	if err != nil || !ok {
		store.Close()
		t.Fatalf("open the energy dataset: %v %v", ok, err)
	}
	fresh, all = map[string]energy.Change{}, map[string]energy.Change{}
	var keys []kv.Key
	if err := ds.ScanKeys(ctx, "CHG", func(ks []kv.Key) error { keys = append(keys, ks...); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		it, ok, err := ds.Get(ctx, k.PK, k.SK)
		if err != nil || !ok {
			t.Fatalf("get %s %s: %v %v", k.PK, k.SK, ok, err)
		}
		var c energy.Change
		if err := json.Unmarshal(it.Data, &c); err != nil {
			t.Fatalf("%s %s: %v", k.PK, k.SK, err)
		}
		switch k.PK {
		case energy.PKChangesNew:
			if k.SK != energy.ChangeNewSK(c) {
				t.Errorf("CHGNEW item %q holds change %s", k.SK, c.ID)
			}
			fresh[c.ID] = c
		default:
			l, err := lld.Parse(c.LegalLocation)
			if err != nil || k.PK != energy.ChangesKey(l) || k.SK != energy.ChangeSK(c) {
				t.Errorf("item %s %s holds change %s of %s", k.PK, k.SK, c.ID, c.LegalLocation)
			}
			all[c.ID] = c
		}
	}
	return fresh, all, ds, func() { store.Close() }
}

// The change feed of the demo: the first version finds no changes, the
// second (energydemo.GenerateNext) exactly its four differences on every
// LSD each touches, and a third of the same data none, keeping the
// second's.
func TestEnergyChangeFeed(t *testing.T) {
	ctx := context.Background()
	data := datadir.Dir(t.TempDir())
	dir := t.TempDir()
	ingestDemo := func() {
		t.Helper()
		r := dataingest.Reports{Domain: energy.Dataset, Dir: dir, Invented: true, AsOf: demo.AsOf()}
		if _, err := dataingest.IngestReports(ctx, data, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := energydemo.Write(dir); err != nil {
		t.Fatal(err)
	}
	ingestDemo()
	fresh, all, _, done := changeItems(t, data)
	done()
	if len(fresh) != 0 || len(all) != 0 {
		t.Fatalf("first version: %d new changes, %d in all; want none", len(fresh), len(all))
	}

	// The LSDs of the two dispositions, as version 1 lists them.
	next, err := energydemo.WriteNext(dir)
	if err != nil {
		t.Fatal(err)
	}
	store, _, _, err := data.Reports(energy.Dataset).OpenCurrent(0)
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := kv.Open(ctx, store, energy.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	lsdsOf := func(id string) []string {
		it, ok, err := ds.Get(ctx, energy.DispositionKey(id), energy.SKInfo)
		if err != nil || !ok {
			t.Fatalf("disposition %s: %v %v", id, ok, err)
		}
		var row energy.TenureRow
		if err := json.Unmarshal(it.Data, &row); err != nil {
			t.Fatal(err)
		}
		if len(row.LSDs) == 0 {
			t.Fatalf("disposition %s lists no LSDs", id)
		}
		return row.LSDs
	}
	transferred, expired := lsdsOf(next.Transferred), lsdsOf(next.Expired)
	store.Close()

	ingestDemo()
	fresh, all, _, done = changeItems(t, data)
	done()
	want := map[string]energy.ChangeKind{
		energy.ChangeID(2, next.StatusChangedLSD, energy.WellStatusChanged, next.StatusChanged): energy.WellStatusChanged,
		energy.ChangeID(2, next.LicensedLSD, energy.WellLicensed, next.Licensed):                energy.WellLicensed,
	}
	for _, l := range transferred {
		want[energy.ChangeID(2, l, energy.DispositionTransferred, next.Transferred)] = energy.DispositionTransferred
	}
	for _, l := range expired {
		want[energy.ChangeID(2, l, energy.DispositionExpired, next.Expired)] = energy.DispositionExpired
	}
	got := slices.Sorted(maps.Keys(fresh))
	wantIDs := slices.Sorted(maps.Keys(want))
	if !slices.Equal(got, wantIDs) {
		t.Fatalf("second version's CHGNEW:\n%v\nwant\n%v", got, wantIDs)
	}
	if allIDs := slices.Sorted(maps.Keys(all)); !slices.Equal(allIDs, wantIDs) {
		t.Fatalf("second version's CHG# items:\n%v\nwant\n%v", allIDs, wantIDs)
	}
	t.Logf("second version: %d changes (%d LSDs transferred, %d expired)", len(fresh), len(transferred), len(expired))
	for id, c := range fresh {
		if c.Kind != want[id] || c.Version != 2 || c.AsOf != demo.AsOf().Format("2006-01-02") || !c.Demo || c.Province == "" || c.Source == "" {
			t.Errorf("change %s: %+v", id, c)
		}
		switch c.Kind {
		case energy.WellStatusChanged:
			if c.Before["licence_status_raw"] == c.After["licence_status_raw"] || c.After["licence_status_raw"] != "Abandoned" ||
				c.After["status"] != string(energy.Abandoned) || c.Before["status"] == nil || len(c.After) != 2 {
				t.Errorf("status change: before %v after %v", c.Before, c.After)
			}
			if c.EntityType != energy.EntityWell || !strings.HasSuffix(c.Source, ": AER ST37 list of wells") {
				t.Errorf("status change of %s from %q", c.EntityType, c.Source)
			}
		case energy.WellLicensed:
			if c.Before != nil || c.After["licence_status_raw"] == nil {
				t.Errorf("new well: before %v after %v", c.Before, c.After)
			}
		case energy.DispositionTransferred:
			if c.Before["holder_name"] != next.TransferredFrom || c.After["holder_name"] != next.TransferredTo || c.Href != "/energy/dispositions/"+next.Transferred {
				t.Errorf("transfer: before %v after %v href %s", c.Before, c.After, c.Href)
			}
		case energy.DispositionExpired:
			if c.Before["status"] != "active" || c.After["status"] != "expired" || len(c.After) != 1 {
				t.Errorf("expiry: before %v after %v", c.Before, c.After)
			}
		}
	}

	// A failed ingest leaves the state as it was.
	state := func() []byte {
		var b []byte
		for _, name := range []string{changefeed.SnapshotFile, changefeed.LogFile} {
			f, err := os.ReadFile(filepath.Join(data.EnergyChanges(), name))
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, f...)
		}
		return b
	}
	before := state()
	broken := filepath.Join(dir, "WellList_2026-11.txt")
	if err := os.WriteFile(broken, []byte("not\ta\twell\tlist\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := dataingest.Reports{Domain: energy.Dataset, Dir: dir, Invented: true, AsOf: demo.AsOf()}
	if _, err := dataingest.IngestReports(ctx, data, r); err == nil {
		t.Fatal("an ingest of a broken well list succeeded")
	}
	if !bytes.Equal(state(), before) {
		t.Error("a failed ingest changed the change feed's state")
	}
	if left, _ := filepath.Glob(filepath.Join(data.EnergyChanges(), ".tmp-*")); len(left) != 0 {
		t.Errorf("a failed ingest left %v", left)
	}
	if _, err := energydemo.WriteNext(dir); err != nil {
		t.Fatal(err)
	}

	// The same data again: nothing new, the second version's kept.
	ingestDemo()
	fresh, all3, _, done := changeItems(t, data)
	done()
	if len(fresh) != 0 {
		ids := slices.Collect(maps.Keys(fresh))
		sort.Strings(ids)
		t.Errorf("third version found %d changes: %v", len(fresh), ids)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(all3)), wantIDs) {
		t.Errorf("third version's CHG# items: %v, want the second's", slices.Sorted(maps.Keys(all3)))
	}
}

// A first start seeds the change feed with the demo it ingests: an ingest
// of the demo's next version then finds its four changes.
func TestDemoStartSeedsTheChangeFeed(t *testing.T) {
	ctx := context.Background()
	data := datadir.Dir(t.TempDir())
	if err := dataingest.EnsureDemoReports(ctx, data, grid.New(), slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data.EnergyChanges(), changefeed.SnapshotFile)); err != nil {
		t.Fatalf("no change feed state after the first start: %v", err)
	}
	dir := t.TempDir()
	next, err := energydemo.WriteNext(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dataingest.IngestReports(ctx, data, dataingest.Reports{Domain: energy.Dataset, Dir: dir, Invented: true, AsOf: demo.AsOf()}); err != nil {
		t.Fatal(err)
	}
	fresh, _, _, done := changeItems(t, data)
	done()
	kinds := map[energy.ChangeKind]int{}
	for _, c := range fresh {
		kinds[c.Kind]++
	}
	if len(fresh) != 42 || kinds[energy.WellStatusChanged] != 1 || kinds[energy.WellLicensed] != 1 ||
		kinds[energy.DispositionTransferred] == 0 || kinds[energy.DispositionExpired] == 0 {
		t.Errorf("after the demo's next version: %d changes %v (the well %s, the licence %s)", len(fresh), kinds, next.StatusChanged, next.Licensed)
	}
}
