package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/blob"
	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/demo/griddemo"
	"meridian/shared/gateway"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
	"meridian/shared/teamdata"
)

type feature struct {
	Geometry struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

func search(t *testing.T, srv *server, key, path string, q url.Values) (int, []feature) {
	t.Helper()
	req := httptest.NewRequest("GET", path+"?"+q.Encode(), nil)
	req.Header.Set("X-API-Key", key)
	rec := httptest.NewRecorder()
	srv.handler.ServeHTTP(rec, req)
	var fc struct{ Features []feature }
	json.Unmarshal(rec.Body.Bytes(), &fc)
	return rec.Code, fc.Features
}

// A fresh data directory answers Ontario, Manitoba river lot and
// official-data DLS queries out of the box, from the embedded fixtures,
// and says so in source.
func TestFixturesOnFirstStart(t *testing.T) {
	t.Parallel()
	srv, key := newTestServer(t)
	tests := []struct {
		in, legal, system, unit, source string
		polygon                         bool
	}{
		{"Lot 10 Con 1 Adjala", "Lot 10 Con 1 Adjala", "Geographic Township", "Lot", "Meridian demo data (invented): LIO Geographic Lot Fabric format", true},
		{"Con 1 Adjala", "Con 1 Adjala", "Geographic Township", "Concession", "Meridian demo data (invented): LIO Geographic Lot Fabric format", true},
		{"RL-22-St. Norbert", "RL-22-St. Norbert", "River Lot", "River/Parish Lot", "Meridian demo data (invented): Manitoba Original Survey format", false},
		{"NW-25-24-1-W5", "NW-25-24-1-W5", "DLS", "Quarter Section", "Meridian demo data (invented): AltaLIS ATS v4.1 format", true},
		{"NE-1-17-19-W2", "NE-1-17-19-W2", "DLS", "Quarter Section", "Meridian demo data (invented): ISC SaskGrid format", true},
		{"NE-1-12-12E1", "NE-1-12-12-E1", "DLS", "Quarter Section", "Meridian demo data (invented): Manitoba Original Survey format", true},
		{"NW-25-50-1-W5", "NW-25-50-1-W5", "DLS", "Quarter Section", "model", true},
	}
	for _, tc := range tests {
		code, fs := search(t, srv, key, "/search/legal-location", url.Values{"location": {tc.in}})
		if code != 200 || len(fs) != 2 {
			t.Errorf("%s: status %d, %d features", tc.in, code, len(fs))
			continue
		}
		p := fs[0].Properties
		got := [4]any{p["legal_location"], p["survey_system"], p["unit"], p["source"]}
		if got != [4]any{tc.legal, tc.system, tc.unit, tc.source} {
			t.Errorf("%s: got %v", tc.in, got)
		}
		if (fs[0].Geometry.Type == "Polygon") != tc.polygon {
			t.Errorf("%s: grid geometry %q", tc.in, fs[0].Geometry.Type)
		}
	}
}

// A data directory from an older meridian, whose fixture indexes are of a
// format this one does not read, gets them rebuilt on start; an index of
// a real dataset in the old format is left for its owner to rebuild (it
// needs the source file), and the start does not fail.
func TestOldFormatFixturesRebuilt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := datadir.Dir(t.TempDir())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := dataingest.EnsureFixtures(ctx, dir, logger); err != nil {
		t.Fatal(err)
	}
	names, err := dataingest.GridNames(dir)
	if err != nil || len(names) == 0 {
		t.Fatalf("gridNames = %v, %v", names, err)
	}
	// Mark every fixture index as format 1, and add a "real" one.
	age := func(name string) {
		p := filepath.Join(dir.Grid(), name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		copy(b, "MRDNGIX1")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first, _ := os.ReadFile(filepath.Join(dir.Grid(), names[0]))
	if err := os.WriteFile(filepath.Join(dir.Grid(), "altalis-ats-v4.1.mgix"), first, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range append(names, "altalis-ats-v4.1.mgix") {
		age(n)
	}
	if err := dataingest.EnsureFixtures(ctx, dir, logger); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := gridindex.Open(ctx, blob.NewDir(dir.Grid()), n, gridindex.Options{}); err != nil {
			t.Errorf("fixture %s after start: %v", n, err)
		}
	}
	_, err = gridindex.Open(ctx, blob.NewDir(dir.Grid()), "altalis-ats-v4.1.mgix", gridindex.Options{})
	if !errors.Is(err, gridindex.ErrOldFormat) {
		t.Errorf("a real dataset's old index after start: %v, want it left as it was (ErrOldFormat)", err)
	}
}

// The six official Manitoba quarter centroids of the ground truth come
// back exactly from the fixture ingested on first start, while the model
// misses them by 7–100 m (dls/manitoba.go; 0.2–2.1 km before its survey
// systems).
func TestManitobaOfficialCentroids(t *testing.T) {
	t.Parallel()
	srv, key := newTestServer(t)
	n := 0
	for _, p := range teamdata.GroundTruth(t) {
		if p.Kind != "centroid" {
			continue
		}
		n++
		code, fs := search(t, srv, key, "/search/legal-location", url.Values{"location": {p.LLD}})
		if code != 200 {
			t.Fatalf("%s: status %d", p.LLD, code)
		}
		var c [2]float64
		json.Unmarshal(fs[1].Geometry.Coordinates, &c)
		got := geo.Distance(orb.Point(c), p.Pt)
		l, _ := lld.Parse(p.LLD)
		model, _ := dls.Resolve(l)
		miss := geo.Distance(model.Centroid, p.Pt)
		t.Logf("%-14s official centroid back within %.2f m; the model misses it by %.0f m", p.LLD, got, miss)
		if got > 0.5 {
			t.Errorf("%s: centroid %v is %.2f m from the official %v", p.LLD, c, got, p.Pt)
		}
		if miss < 5 { // 10 times the tolerance above
			t.Errorf("%s: the model is only %.0f m off: the test would not tell the index from the model", p.LLD, miss)
		}
	}
	if n != 6 {
		t.Errorf("%d Manitoba centroids in the ground truth, want 6", n)
	}
}

// meridian ingest grid installs an index the running server picks up; a
// bad file is rejected with file:line and the index served before stays.
func TestIngestCommand(t *testing.T) {
	t.Parallel()
	dir := datadir.Dir(t.TempDir())
	key, _ := gateway.EnsureDemoKey(string(dir))
	srv, err := newServer(t.Context(), serverConfig{data: dir, logger: slog.New(slog.DiscardHandler), noFixtures: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	q := url.Values{"location": {"Lot 10 Con 1 Adjala"}}
	if code, _ := search(t, srv, key, "/search/legal-location", q); code != 404 {
		t.Fatalf("before ingest: status %d, want 404", code)
	}

	// Copy the Ontario fixture files out, as a user's download would be.
	in := t.TempDir()
	var args []string
	for _, ds := range griddemo.Datasets() {
		if ds.Format != "on" {
			continue
		}
		for _, f := range ds.Files {
			stem := strings.TrimSuffix(f, filepath.Ext(f))
			for _, ext := range []string{filepath.Ext(f), ".dbf", ".prj", ".shx"} {
				b, err := fsReadFile(stem + ext)
				if err != nil {
					continue
				}
				os.WriteFile(filepath.Join(in, filepath.Base(stem+ext)), b, 0o644)
			}
			args = append(args, filepath.Join(in, filepath.Base(f)))
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"ingest", "grid", "-format", "on", "-data", string(dir)}, args...), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr.String())
	}
	// Each file's layout comes first: LIO's field names are verified, its
	// flag words are not, and the output says both.
	if first, _, _ := strings.Cut(stdout.String(), "\n"); !strings.HasPrefix(first, "LIO Geographic") || !strings.Contains(first, "layout verified") ||
		strings.Count(stdout.String(), "layout verified") != len(args) {
		t.Errorf("ingest output does not start with the files' layouts:\n%s", stdout.String())
	}
	if _, err := srv.grids.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	code, fs := search(t, srv, key, "/search/legal-location", q)
	if code != 200 || fs[0].Properties["source"] != "LIO Geographic Lot Fabric" {
		t.Fatalf("after ingest: %d %v", code, fs)
	}

	// A corrupt version of the same dataset is rejected whole.
	bad := filepath.Join(in, "bad_township.geojson")
	os.WriteFile(bad, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"NAME":"Adjala"},"geometry":{"type":"Polygon","coordinates":[[[-79.9,44.1],[-79.8,44.1],[-79.8,"x"]]]}}]}`), 0o644)
	stderr.Reset()
	before, _ := os.Stat(dir.GridFile("lio-geographic-lot-fabric"))
	if code := run(append([]string{"ingest", "grid", "-format", "on", "-data", string(dir)}, append(args, bad)...), nil, &stdout, &stderr); code != 1 {
		t.Fatalf("bad file: exit %d", code)
	}
	if !strings.Contains(stderr.String(), "bad_township.geojson:1:") || !strings.Contains(stderr.String(), "unchanged") {
		t.Errorf("rejection does not name file and line: %s", stderr.String())
	}
	after, _ := os.Stat(dir.GridFile("lio-geographic-lot-fabric"))
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Error("the served index was replaced by a rejected ingest")
	}
	if left, _ := filepath.Glob(filepath.Join(dir.Grid(), ".new-*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	// The reload compares the files' sizes and modification times, not
	// the clock: with the rejected ingest leaving them as they were, it
	// keeps the index open.
	srv.grids.Reload(context.Background())
	if code, _ := search(t, srv, key, "/search/legal-location", q); code != 200 {
		t.Errorf("after the rejected ingest: status %d, want the old index still answering", code)
	}
}

func fsReadFile(name string) ([]byte, error) { return fs.ReadFile(griddemo.Grid(), name) }
