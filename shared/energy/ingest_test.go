package energy_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"meridian/shared/convert"
	"meridian/shared/energy"
	"meridian/shared/ingest"
	src "meridian/shared/ingest/energy"
	"meridian/shared/kv"
)

// demo writes the demo energy files into a temporary directory.
func demo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := src.WriteDemo(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func ingestDir(t testing.TB, store kv.Store, dir string) (energy.Summary, error) {
	t.Helper()
	files, err := energy.Classify(dir)
	if err != nil {
		t.Fatal(err)
	}
	return energy.Ingest(context.Background(), store, convert.New(), files, energy.Options{Now: src.DemoAsOf(), Demo: true})
}

func all(t testing.TB, ds kv.Dataset, pk, prefix string) []kv.Item {
	t.Helper()
	var out []kv.Item
	q := kv.Query{PK: pk, SKPrefix: prefix}
	for {
		p, err := ds.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Items...)
		if p.Next == "" {
			return out
		}
		q.After = p.Next
	}
}

func TestIngestDemo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := demo(t)
	files, _ := energy.Classify(dir)
	if len(files.WellLists) != 2 || len(files.Pipelines) != 1 || len(files.Orphans) != 1 || len(files.Volumetrics) == 0 ||
		len(files.Dispositions) != 3 || len(files.Wells) != 3 || len(files.Facilities) != 3 || len(files.Unrecognised) != 0 {
		t.Fatalf("Classify: %+v", files)
	}
	store := kv.NewMem()
	sum, err := ingestDir(t, store, dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Read["wells_st37"] == 0 || sum.Read["wells_petrinex"] == 0 || sum.Read["pipeline_segments"] == 0 || sum.Read["dispositions"] == 0 || sum.Items == 0 {
		t.Fatalf("summary %+v", sum)
	}
	ds, ok, err := kv.Open(ctx, store, energy.Dataset)
	if err != nil || !ok || !ds.Info.Demo {
		t.Fatalf("Open: %+v %v %v", ds, ok, err)
	}

	// Operators: the list is by orphan wells, most first; every bucket occurs.
	ops := all(t, ds, energy.PKOperators, "")
	if len(ops) < 3 {
		t.Fatalf("%d operators", len(ops))
	}
	buckets := map[string]int{}
	prevOrphans := 1 << 30
	for _, it := range ops {
		var r energy.OperatorRow
		json.Unmarshal(it.Data, &r)
		if r.OrphanWells > prevOrphans {
			t.Errorf("operators out of order at %s", r.BACode)
		}
		prevOrphans = r.OrphanWells
		buckets["active"] += r.ActiveWells
		buckets["orphan"] += r.OrphanWells
		buckets["abandoned"] += r.AbandonedWells
		buckets["reclamation_certified"] += r.ReclamationCertifiedWells
		if r.Name == "" || r.Slug == "" {
			t.Errorf("operator %s has no name", r.BACode)
		}
	}
	for _, b := range []string{"active", "orphan", "abandoned", "reclamation_certified"} {
		if buckets[b] == 0 {
			t.Errorf("no %s wells in the demo: %v", b, buckets)
		}
	}

	// An LSD with wells: rows in status order, its summary counts them.
	var lsdWithWells string
	for _, it := range ops {
		var r energy.OperatorRow
		json.Unmarshal(it.Data, &r)
		fp := all(t, ds, energy.OperatorKey(r.BACode), "LSD#")
		if len(fp) > 0 {
			var f energy.FootprintRow
			json.Unmarshal(fp[0].Data, &f)
			lsdWithWells = f.LegalLocation
			break
		}
	}
	wells := all(t, ds, energy.LSDKey(lsdWithWells), "WELL#")
	summary, ok, _ := ds.Get(ctx, energy.LSDKey(lsdWithWells), energy.SKProduction)
	var s energy.LSDSummary
	json.Unmarshal(summary.Data, &s)
	if len(wells) == 0 || !ok || s.Wells.Total != len(wells) {
		t.Errorf("LSD %s: %d well rows, summary %+v", lsdWithWells, len(wells), s)
	}
	for _, it := range wells {
		var w energy.WellRow
		json.Unmarshal(it.Data, &w)
		if w.UWI == "" || w.Location.Lat == 0 || string(w.Status) == "" || (w.Status == energy.Orphan) != w.IsOrphan {
			t.Errorf("well row %+v", w)
		}
	}

	// Expiring tenure is by date; perpetual dispositions are not in it.
	exp := all(t, ds, energy.PKExpiring, "")
	if len(exp) == 0 {
		t.Fatal("no dated dispositions")
	}
	for i, it := range exp {
		var r energy.TenureRow
		json.Unmarshal(it.Data, &r)
		if r.ExpiryDate == nil || r.ExpiryState == "perpetual" || r.DaysToExpiry == nil {
			t.Errorf("expiring row %+v", r)
		}
		if i > 0 && it.SK < exp[i-1].SK {
			t.Error("expiring out of order")
		}
	}
	sources := all(t, ds, energy.PKSources, "")
	if len(sources) < 5 {
		t.Errorf("sources %d", len(sources))
	}
	for _, it := range sources {
		var src energy.Source
		json.Unmarshal(it.Data, &src)
		if !src.Demo || src.AsOf == "" || src.Name == "" {
			t.Errorf("source %s: %+v", it.SK, src)
		}
	}

	// Re-ingesting the same files gives the same store.
	sum2, err := ingestDir(t, store, dir)
	if err != nil || sum2.Items != sum.Items || sum2.Version != sum.Version+1 {
		t.Errorf("re-ingest: %+v %v (first %+v)", sum2, err, sum)
	}
	ds2, _, _ := kv.Open(ctx, store, energy.Dataset)
	if got := all(t, ds2, energy.PKOperators, ""); len(got) != len(ops) || string(got[0].Data) != string(ops[0].Data) {
		t.Error("re-ingest changed the operators list")
	}
}

// A bad file rejects the ingest with its name, line and reason, and the
// dataset served before stays.
func TestIngestRejectsBadFileAndKeepsServedData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := demo(t)
	store := kv.NewMem()
	first, err := ingestDir(t, store, dir)
	if err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "WellList_2026-11.txt")
	data, _ := os.ReadFile(wl)
	lines := strings.SplitAfter(string(data), "\n")
	lines[4] = "this\tis\tnot\ta\twell\n"
	os.WriteFile(wl, []byte(strings.Join(lines, "")), 0o644)
	_, err = ingestDir(t, store, dir)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != "WellList_2026-11.txt" || ie.Line != 5 || ie.Reason == "" {
		t.Fatalf("bad file: %v", err)
	}
	ds, _, _ := kv.Open(ctx, store, energy.Dataset)
	if ds.Version != first.Version || ds.Items != first.Items {
		t.Errorf("served %d (%d items), want the first ingest %d (%d)", ds.Version, ds.Items, first.Version, first.Items)
	}
}
