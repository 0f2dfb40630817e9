package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/datadir"
	"meridian/shared/demo/agdemo"
	"meridian/shared/demo/griddemo"
	"meridian/shared/gateway"
	"meridian/shared/tile"
	"meridian/shared/tile/datalayers"
)

// The two versions of every dataset the refresh-under-load test serves,
// and what each request answers in each.
//
// Version A is a data directory as a first start leaves it (fixture grid
// indexes, demo energy and agriculture data, their tile archives) plus an
// ab/twp archive of a small area. Version B differs in every dataset in a
// way each probe's answer shows:
//
//   - grid: the AltaLIS fixture is ingested again with `meridian ingest
//     grid` under the same index name, as a real dataset: every feature's
//     source changes from "Meridian demo data (invented): AltaLIS ATS v4.1 format" to
//     "AltaLIS ATS v4.1";
//   - energy: the demo files are ingested with -now 2031-01-15 instead of
//     the demo date: every operator's refreshed_at, the expiry states and
//     the report's dates change, and the energy tile archives are rebuilt;
//   - ag: the demo files with every municipality renamed ("RM of Demo B
//     ..."), ingested without -demo;
//   - tiles: ab/twp is rebuilt over a larger area, so a tile outside the
//     first area is empty in A and drawn in B.
//
// A probe's answer in A and in B is recorded from a server over a copy of
// each directory before any load starts; a response under load must be
// byte for byte one of the two.

// versionBNow is energy's -now in version B.
const versionBNow = "2031-01-15"

// The ab/twp archive's areas in A and B (around Calgary; B adds the
// townships to the east).
var (
	twpBoundsA = orb.Bound{Min: orb.Point{-114.5, 50.8}, Max: orb.Point{-113.9, 51.3}}
	twpBoundsB = orb.Bound{Min: orb.Point{-114.5, 50.8}, Max: orb.Point{-113.0, 51.3}}
)

func boundsFlag(b orb.Bound) string {
	return fmt.Sprintf("%g,%g,%g,%g", b.Min[0], b.Min[1], b.Max[0], b.Max[1])
}

// refreshSources are the input files of version B, written once.
type refreshSources struct {
	atsFiles  []string // the AltaLIS fixture's files
	energyDir string   // the demo energy files (ingest -demo rewrites them)
	agDir     string   // the demo agriculture files, municipalities renamed
}

func writeRefreshSources(t *testing.T) refreshSources {
	t.Helper()
	root := t.TempDir()
	s := refreshSources{energyDir: filepath.Join(root, "energy"), agDir: filepath.Join(root, "ag")}
	for _, src := range griddemo.Sources() {
		if src.Meta.Name != "fixture-altalis-ats-v4.1" {
			continue
		}
		for _, f := range src.Files {
			data, err := fs.ReadFile(src.FS, f)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, "ats", filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			s.atsFiles = append(s.atsFiles, p)
		}
	}
	if len(s.atsFiles) == 0 {
		t.Fatal("no AltaLIS fixture among griddemo.Sources()")
	}
	if err := agdemo.Write(s.agDir); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.agDir, agdemo.Municipalities)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	renamed := bytes.ReplaceAll(data, []byte(`"RM of Demo `), []byte(`"RM of Demo B `))
	if bytes.Equal(renamed, data) {
		t.Fatalf("%s names no \"RM of Demo\" municipality: version B would not differ", p)
	}
	if err := os.WriteFile(p, renamed, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// refreshStep is one command of the refresh from A to B.
type refreshStep struct {
	dataset string // grid, energy, ag, tiles
	args    []string
}

// steps are the commands that turn data directory dir from A into B.
func (s refreshSources) steps(dir string) []refreshStep {
	return []refreshStep{
		{"grid", append([]string{"ingest", "grid", "-format", "ats", "-name", "fixture-altalis-ats-v4.1", "-as-of", versionBNow, "-data", dir}, s.atsFiles...)},
		{"energy", []string{"ingest", "energy", "-data", dir, "-demo", "-now", versionBNow, s.energyDir}},
		{"ag", []string{"ingest", "ag", "-data", dir, s.agDir}},
		{"tiles", []string{"build-tiles", "-data", dir, "-q", "-workers", "1", "-zoom", "10-10", "-bounds", boundsFlag(twpBoundsB), "ab/twp"}},
	}
}

// runStep runs one command as `meridian` would.
func runStep(st refreshStep) error {
	var out bytes.Buffer
	if rc := run(st.args, nil, io.Discard, &out); rc != 0 {
		return fmt.Errorf("meridian %s: exit %d: %s", strings.Join(st.args[:2], " "), rc, out.String())
	}
	return nil
}

// versionDirs builds version A in one directory and version B in another.
func versionDirs(t *testing.T, src refreshSources) (dirA, dirB string) {
	t.Helper()
	dirA = t.TempDir()
	if _, err := gateway.EnsureDemoKey(dirA); err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(t.Context(), serverConfig{data: datadir.Dir(dirA), logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := runStep(refreshStep{"tiles", []string{"build-tiles", "-data", dirA, "-q", "-workers", "1", "-zoom", "10-10", "-bounds", boundsFlag(twpBoundsA), "ab/twp"}}); err != nil {
		t.Fatal(err)
	}
	dirB = t.TempDir()
	copyTree(t, dirA, dirB)
	for _, st := range src.steps(dirB) {
		if err := runStep(st); err != nil {
			t.Fatal(err)
		}
	}
	return dirA, dirB
}

// copyTree copies the regular files under from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// probe is one request of the load, with the answer of each version.
type probe struct {
	name    string // "search", "tile energy/...", ...
	dataset string // the dataset the answer comes from: grid, energy, ag, tiles
	product string // the Lambda that answers it on AWS: search, autocomplete, batch, ag, energy, tiles
	method  string
	path    string // with the query
	body    string
	want    [2]answer // in A and in B
}

// answer is a response as far as the checks go.
type answer struct {
	status int
	body   []byte
}

func (a answer) String() string {
	return fmt.Sprintf("%d %d bytes %.120q", a.status, len(a.body), a.body)
}

func (p *probe) request(base, key string) (*http.Request, error) {
	r, err := http.NewRequest(p.method, base+p.path, strings.NewReader(p.body))
	if err != nil {
		return nil, err
	}
	if key != "" {
		r.Header.Set("X-API-Key", key)
	}
	if p.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if p.dataset == "tiles" || strings.HasPrefix(p.name, "tile ") {
		r.Header.Set("Accept-Encoding", "gzip") // the archive's bytes as stored
	}
	return r, nil
}

// classify returns the version (0: A, 1: B, 2: both answer the same) whose
// answer the response is, or an error saying how it is neither: -1 a
// failure (a status neither version answers), -2 a body of neither.
func (p *probe) classify(status int, body []byte) (int, error) {
	got := answer{status, body}
	a := got.status == p.want[0].status && bytes.Equal(got.body, p.want[0].body)
	b := got.status == p.want[1].status && bytes.Equal(got.body, p.want[1].body)
	switch {
	case a && b:
		return 2, nil
	case a:
		return 0, nil
	case b:
		return 1, nil
	case status != p.want[0].status && status != p.want[1].status:
		return -1, fmt.Errorf("%s: failed: %s; want %d (A) or %d (B)", p.name, got, p.want[0].status, p.want[1].status)
	}
	return -2, fmt.Errorf("%s: mixed or unexpected: %s\nA: %s (first difference at byte %d)\nB: %s (first difference at byte %d)",
		p.name, got, p.want[0], firstDiff(body, p.want[0].body), p.want[1], firstDiff(body, p.want[1].body))
}

// probes are the requests of the load: search, autocomplete and batch (the
// grid), an energy report and the operator list (energy), an agriculture
// report (ag), ab/twp tiles inside both areas and inside B's only (tiles),
// and a tile of a data archive of each domain that differs between A and B
// (rebuilt by the energy and ag ingests).
func probes(t *testing.T, dirA, dirB string) []*probe {
	t.Helper()
	twp := func(p orb.Point) string {
		tl := maptile.At(p, 10)
		return fmt.Sprintf("/tiles/ab/twp/10/%d/%d.mvt", tl.X, tl.Y)
	}
	ps := []*probe{
		{name: "search", dataset: "grid", product: "search", method: "GET", path: "/search/legal-location?location=NW-25-24-1-W5"},
		{name: "autocomplete", dataset: "grid", product: "autocomplete", method: "GET", path: "/autocomplete/legal-location?location=NW-25-24&limit=3"},
		{name: "batch", dataset: "grid", product: "batch", method: "POST", path: "/batch/legal-location", body: `["NW-25-24-1-W5","SE-36-24-1-W5"]`},
		{name: "energy report", dataset: "energy", product: "energy", method: "GET", path: "/energy/report?legal_location=9-10-60-22-W5"},
		{name: "energy operators", dataset: "energy", product: "energy", method: "GET", path: "/energy/operators"},
		{name: "ag report", dataset: "ag", product: "ag", method: "GET", path: "/ag/report?legal_location=NE-25-10-14-W2"},
		{name: "tile ab/twp both", dataset: "tiles", product: "tiles", method: "GET", path: twp(orb.Point{-114.05, 51.05})},
		{name: "tile ab/twp B only", dataset: "tiles", product: "tiles", method: "GET", path: twp(orb.Point{-113.3, 51.05})},
	}
	// Candidate data tiles: each data layer's tiles at the demo parcels,
	// at its first zooms; the first of each domain that differs is kept.
	points := map[string]orb.Point{"energy": {-117.2047, 54.175733}, "ag": {-103.767339, 49.855368}}
	var cands []*probe
	for _, l := range tile.Layers() {
		if !datalayers.Supported(l) {
			continue
		}
		for z := l.MinZoom; z <= min(l.MaxZoom, l.MinZoom+4); z++ {
			tl := maptile.At(points[l.Region], maptile.Zoom(z))
			cands = append(cands, &probe{name: "tile " + l.Path(), dataset: l.Region, product: "tiles", method: "GET",
				path: fmt.Sprintf("/tiles/%s/%d/%d/%d.mvt", l.Path(), z, tl.X, tl.Y)})
		}
	}
	for v, dir := range []string{dirA, dirB} {
		key, err := gateway.EnsureDemoKey(dir)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := newServer(t.Context(), serverConfig{data: datadir.Dir(dir), logger: slog.New(slog.DiscardHandler), archiveRecheck: -1})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.handler)
		client := ts.Client()
		client.Transport.(*http.Transport).DisableCompression = true
		for _, p := range append(ps, cands...) {
			r, err := p.request(ts.URL, key)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			p.want[v] = answer{resp.StatusCode, body}
		}
		ts.Close()
		srv.Close()
	}
	// Of each domain, a data tile that differs if there is one, else one
	// answered alike (its archive is still rebuilt and replaced under the
	// load: it must never fail or come out of a mixed file).
	for _, ds := range []string{"energy", "ag"} {
		var pick *probe
		for _, c := range cands {
			if c.dataset != ds || c.want[0].status != http.StatusOK || c.want[1].status != http.StatusOK {
				continue
			}
			if !bytes.Equal(c.want[0].body, c.want[1].body) {
				pick = c
				break
			}
			if pick == nil {
				pick = c
			}
		}
		if pick != nil {
			// Published with the tile archives on AWS (rebuilt by the
			// domain's ingest locally).
			pick.dataset = "tiles"
			ps = append(ps, pick)
		}
	}
	// Every dataset must look different in B, or the test could not tell.
	differs := map[string]bool{}
	for _, p := range ps {
		if p.want[0].status >= 300 && p.want[0].status != http.StatusNoContent || p.want[1].status != http.StatusOK {
			t.Fatalf("%s %s: A answers %s, B answers %s; want 200 or 204 in A and 200 in B", p.name, p.path, p.want[0], p.want[1])
		}
		if p.want[0].status != p.want[1].status || !bytes.Equal(p.want[0].body, p.want[1].body) {
			differs[p.dataset] = true
		}
	}
	for _, ds := range []string{"grid", "energy", "ag", "tiles"} {
		if !differs[ds] {
			t.Fatalf("no probe of %s answers differently in A and B: the test could not see a mixture", ds)
		}
	}
	return ps
}

// firstDiff returns the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
