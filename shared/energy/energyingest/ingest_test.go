package energyingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	demodata "meridian/shared/demo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

// demo writes the demo energy files into a temporary directory.
func demo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := energydemo.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func ingestDir(t testing.TB, store kv.Store, dir string) (energyingest.Summary, error) {
	t.Helper()
	files, err := energyingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	return energyingest.Ingest(context.Background(), store, grid.New(), files, energyingest.Options{Now: demodata.AsOf(), Demo: true})
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
	files, _ := energyingest.FilesIn(dir)
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

// Alberta's agreements in the form Alberta Energy and Minerals serves them
// (a GeoView layer query saved as GeoJSON) replace the demo's own Alberta
// files: each file's layout banner comes first, guessed layouts first; an
// agreement's second tract is not a second disposition; a new status word
// is a notice.
func TestIngestAlbertaAgreements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := demo(t)
	for _, f := range []string{"Crown_Dispositions_AB.geojson", "Crown_Dispositions_AB.csv"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	feature := func(number, tract, status, expiry string) string {
		return `{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[-114.2,51.0],[-114.2,51.1],[-114.1,51.1],[-114.1,51.0],[-114.2,51.0]]]},` +
			`"properties":{"AgreementType":"004","AgreementNumber":"` + number + `","Tract":"` + tract + `","Status":"` + status + `",` +
			`"DesRep":"ASPEN COULEE PETROLEUM LTD (DEMO)","DesRepId":null,"Participants":null,"TermDate":1620800000000,` +
			`"CurrentExpiryDate":` + expiry + `,"ContinuationDate":null,"CancelDate":null,"ZoneDesc":null}}`
	}
	ab := `{"type":"FeatureCollection","features":[` + "\n" + strings.Join([]string{
		feature("0521050123", "1", "Active", "1778566400000"),
		feature("0521050123", "2", "Active", "1778566400000"),
		feature("0498070011", "1", "Suspended Demo", "253402214400000"),
	}, ",\n") + "\n]}\n"
	if err := os.WriteFile(filepath.Join(dir, "Mineral_Agreements_Ext_PROD_31.geojson"), []byte(ab), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := energyingest.FilesIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	banners, err := energyingest.Banners(files)
	if err != nil {
		t.Fatal(err)
	}
	// Every file has a banner; the guessed layouts (Petrinex wells, our
	// disposition layout) come first, and the Alberta agreements are read as
	// the verified GeoView layout.
	if len(banners) < len(files.WellLists)+len(files.Volumetrics)+len(files.Dispositions)+len(files.Orphans) {
		t.Fatalf("%d banners for %+v", len(banners), files)
	}
	verified := false
	for i, b := range banners {
		guessed := strings.HasPrefix(b, "WARNING")
		if guessed && verified {
			t.Errorf("banner %d is a guessed layout after a verified one: %q", i, b)
		}
		verified = verified || !guessed
	}
	found := 0
	for _, want := range []string{"Orphan Well Association", "Alberta Crown mineral agreements", "AER ST37 list of wells"} {
		for _, b := range banners {
			if strings.HasPrefix(b, want) {
				found++
				break
			}
		}
	}
	if found != 3 {
		t.Errorf("banners %q lack the OWA, Alberta agreement or ST37 layouts", banners)
	}
	store := kv.NewMem()
	sum, err := energyingest.Ingest(ctx, store, grid.New(), files, energyingest.Options{Now: demodata.AsOf(), Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped["disposition tract after the first"] != 1 || sum.NoticeCount != 1 || len(sum.Notices) != 1 ||
		!strings.Contains(sum.Notices[0], `Mineral_Agreements_Ext_PROD_31.geojson:4: column Status: new value "Suspended Demo"`) {
		t.Errorf("summary %+v", sum)
	}
	ds, _, _ := kv.Open(ctx, store, energy.Dataset)
	items := all(t, ds, energy.DispositionKey("0521050123"), "")
	if len(items) != 1 {
		t.Fatalf("disposition 0521050123: %d items", len(items))
	}
	var row energy.TenureRow
	if err := json.Unmarshal(items[0].Data, &row); err != nil {
		t.Fatal(err)
	}
	if row.Province != "AB" || row.Holder.BACode == nil || *row.Holder.BACode != "Z9A1" || row.ExpiryDate == nil || *row.ExpiryDate != "2026-05-12" ||
		row.DispositionTypeRaw != "PNG Lease (Plains)" {
		t.Errorf("disposition %+v", row)
	}
	// No land description: the LSDs are those whose centroid the polygon
	// (0.1° by 0.1°, about 7 by 11 km, some 30 sections west of the 5th
	// meridian) contains.
	if n := len(row.LSDs); n < 400 || n > 560 || row.Centroid == nil || math.Abs(row.Centroid.Lat-51.05) > 0.01 || math.Abs(row.Centroid.Lng+114.15) > 0.01 {
		t.Errorf("disposition over %d LSDs, centroid %+v", n, row.Centroid)
	}
	for _, k := range row.LSDs {
		if !strings.HasSuffix(k, "-W5") {
			t.Errorf("LSD %s", k)
		}
	}
	if lsd := all(t, ds, energy.LSDKey(row.LSDs[0]), energy.TenureSK("2026-05-12", "0521050123")); len(lsd) != 1 {
		t.Errorf("LSD %s: %d tenure rows", row.LSDs[0], len(lsd))
	}
	items = all(t, ds, energy.DispositionKey("0498070011"), "")
	if len(items) != 1 {
		t.Fatalf("disposition 0498070011: %d items", len(items))
	}
	row = energy.TenureRow{}
	if err := json.Unmarshal(items[0].Data, &row); err != nil || row.ExpiryState != "perpetual" || row.ExpiryDate != nil {
		t.Errorf("continued disposition %+v, %v", row, err)
	}
}
