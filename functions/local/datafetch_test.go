package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/shared/ag"
	"meridian/shared/ag/agingest"
	"meridian/shared/datafetch"
	"meridian/shared/energy"
	"meridian/shared/energy/energyingest"
	"meridian/shared/fixture"
	"meridian/shared/kv"
)

// demoFiles returns every file the project's generators write in the
// publishers' layouts, by base name: the grid fixtures, the energy and the
// agriculture demo data (grid fixtures by format, energy and ag in one
// pool), plus the two the manifest names that no
// generator writes under that name (PRABAIdentifiers.csv from the demo BA
// codes; the drought files of the month the manifest asks for, from the
// demo's latest month).
func demoFiles(t *testing.T) map[string]map[string][]byte {
	t.Helper()
	pools := map[string]map[string][]byte{}
	grid, err := fixture.Files()
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range grid {
		format := path.Dir(p) // ats, mb, sk, on
		if pools[format] == nil {
			pools[format] = map[string][]byte{}
		}
		pools[format][path.Base(p)] = b
	}
	out := map[string][]byte{}
	pools["energy"], pools["ag"] = out, out
	en, err := energyingest.GenerateDemo()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range en {
		out[f.Name] = f.Data
	}
	dir := t.TempDir()
	if err := agingest.WriteDemo(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	// PRABAIdentifiers.csv: BAName, BACode, CorpStatus.
	var ba strings.Builder
	ba.WriteString("BAName,BACode,CorpStatus\n")
	for i, line := range strings.Split(strings.TrimSpace(string(out["ST104A_BusinessAssociate_Codes_2026-11.csv"])), "\n") {
		if i == 0 {
			continue
		}
		code, name, _ := strings.Cut(strings.TrimSpace(line), ",")
		fmt.Fprintf(&ba, "%q,%s,Active\n", name, code)
	}
	out["PRABAIdentifiers.csv"] = []byte(ba.String())
	for d := 0; d <= 2; d++ {
		out[fmt.Sprintf("CDM_2610_D%d_LR.geojson", d)] = out[fmt.Sprintf("CDM_2508_D%d_LR.geojson", d)]
	}
	return pools
}

// publisher serves each manifest URL from the demo files, packed as the
// publisher packs them (a zip when the download is one, a zip of zips for
// Petrinex), with ETag and Last-Modified (304 and 206 through
// http.ServeContent).
type publisher struct {
	mu      sync.Mutex
	files   map[string][]byte // by URL path
	served  map[string]int
	cond    int // conditional requests seen
	replace map[string][]byte
}

func (p *publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	b, ok := p.files[r.URL.Path]
	if r.Header.Get("If-None-Match") != "" {
		p.cond++
	}
	p.served[r.URL.Path]++
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := sha256.Sum256(b)
	w.Header().Set("ETag", `"`+hex.EncodeToString(h[:8])+`"`)
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), bytes.NewReader(b))
}

var shapefileSiblings = []string{".shx", ".dbf", ".prj", ".cpg"}

// pack builds the body of one source from demo: the files its patterns
// match (and a Shapefile's siblings); ok is false when nothing matches (a
// drought class with no area that month).
func pack(t *testing.T, demo map[string][]byte, x datafetch.Expanded) ([]byte, bool) {
	t.Helper()
	picked := map[string][]byte{}
	for n, b := range demo {
		for _, p := range x.Files {
			if m, _ := filepath.Match(strings.ToLower(p), strings.ToLower(n)); m {
				picked[n] = b
			}
		}
	}
	for n := range picked {
		if strings.EqualFold(filepath.Ext(n), ".shp") {
			stem := strings.TrimSuffix(n, filepath.Ext(n))
			for _, ext := range shapefileSiblings {
				if b, ok := demo[stem+ext]; ok {
					picked[stem+ext] = b
				}
			}
		}
	}
	if len(picked) == 0 {
		return nil, false
	}
	lname := strings.ToLower(x.Name)
	if !strings.HasSuffix(lname, ".zip") {
		if len(picked) != 1 {
			t.Fatalf("%s: %d demo files for a plain download", x.URL, len(picked))
		}
		for _, b := range picked {
			return b, true
		}
	}
	petrinex := strings.Contains(x.URL, "petrinex.gov.ab.ca/publicdata")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for n, b := range picked {
		if petrinex { // a zip holding a zip holding the CSV
			var inner bytes.Buffer
			iz := zip.NewWriter(&inner)
			w, _ := iz.Create(n)
			w.Write(b)
			iz.Close()
			n, b = n+".zip", inner.Bytes()
		}
		w, err := zw.Create("folder/" + n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), true
}

func newPublisher(t *testing.T, now time.Time) (*publisher, *httptest.Server, int) {
	demo := demoFiles(t)
	p := &publisher{files: map[string][]byte{}, served: map[string]int{}}
	n := 0
	for _, e := range datafetch.Manifest() {
		for _, x := range e.Expand(now) {
			u, err := url.Parse(x.URL)
			if err != nil {
				t.Fatal(err)
			}
			pool := demo[e.Ingest.Kind]
			if e.Ingest.Kind == "grid" {
				pool = demo[e.Ingest.Format]
			}
			b, ok := pack(t, pool, x)
			if !ok {
				if !x.Optional {
					t.Fatalf("%s: no demo file for %s (%v)", e.Key, x.URL, x.Files)
				}
				continue
			}
			p.files[u.Path] = b
			n++
		}
	}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return p, ts, n
}

// Every manifest entry is fetched once from a local server that serves the
// demo files as the publishers pack them, checked and ingested by the real
// ingest; a second run is all 304s; a download the -check rejects changes
// nothing.
func TestDataFetchEveryManifestEntry(t *testing.T) {
	// The demo data describes 2026-11-21: its months and seasons are the
	// ones the manifest asks for on that day.
	now := energyingest.DemoAsOf()
	pub, ts, nfiles := newPublisher(t, now)
	t.Setenv("MERIDIAN_FETCH_BASE_URL", ts.URL)
	data := t.TempDir()
	all := strings.Join(datafetch.Keys(), ",")
	var out, errb bytes.Buffer
	start := time.Now()
	if code := run([]string{"data", "fetch", "-dataset", all, "-data", data, "-now", "2026-11-21"}, nil, &out, &errb); code != 0 {
		t.Fatalf("data fetch = %d\nstdout:\n%s\nstderr:\n%s", code, tail(out.String(), 60), errb.String())
	}
	t.Logf("first fetch of %d datasets (%d files served) with their ingests: %s", len(datafetch.Keys()), nfiles, time.Since(start).Round(time.Millisecond))
	for _, k := range datafetch.Keys() {
		if !strings.Contains(out.String(), k+": updated") {
			t.Errorf("%s: not updated:\n%s", k, tail(out.String(), 40))
		}
		s, err := datafetch.ReadState(filepath.Join(data, "downloads"), k)
		if err != nil || s == nil || len(s.Files) == 0 {
			t.Errorf("%s: no state recorded (%v)", k, err)
			continue
		}
		for _, f := range s.Files {
			if len(f.SHA256) != 64 || f.Size <= 0 || len(f.Files) == 0 {
				t.Errorf("%s: %s recorded without SHA-256, size or files: %+v", k, f.URL, f)
			}
		}
	}
	// What the ingests installed.
	idx, _ := filepath.Glob(filepath.Join(data, "grid", "*.mgix"))
	if len(idx) != 4 {
		t.Errorf("grid indexes %v, want one per grid dataset (4)", idx)
	}
	versions := reportVersions(t, data)
	if versions[energy.Dataset] == 0 || versions[ag.Dataset] == 0 {
		t.Fatalf("report datasets %v: want energy and ag published", versions)
	}

	// Second run: nothing changed, every URL answers 304, nothing ingested.
	pub.mu.Lock()
	pub.cond = 0
	pub.mu.Unlock()
	out.Reset()
	errb.Reset()
	if code := run([]string{"data", "fetch", "-dataset", all, "-data", data, "-now", "2026-11-21"}, nil, &out, &errb); code != 0 {
		t.Fatalf("second fetch = %d: %s", code, errb.String())
	}
	if pub.cond != nfiles {
		t.Errorf("%d conditional requests, want one per file (%d)", pub.cond, nfiles)
	}
	for _, k := range datafetch.Keys() {
		if !strings.Contains(out.String(), k+": unchanged") {
			t.Errorf("%s: not unchanged on the second run", k)
		}
	}
	if v := reportVersions(t, data); v[energy.Dataset] != versions[energy.Dataset] || v[ag.Dataset] != versions[ag.Dataset] {
		t.Errorf("versions %v after a run with nothing new, want %v", v, versions)
	}

	// The publisher ships a broken ST37: the -check rejects it, the energy
	// data and the ST37 download stay as they were.
	before, _ := datafetch.ReadState(filepath.Join(data, "downloads"), "aer-st37")
	pub.mu.Lock()
	goodST37 := pub.files["/prd/documents/sts/st37/ST37.zip"]
	pub.files["/prd/documents/sts/st37/ST37.zip"] = zipBytes(t, map[string][]byte{"WellList.txt": []byte("not\ta\twell\tlist\n")})
	pub.mu.Unlock()
	out.Reset()
	errb.Reset()
	if code := run([]string{"data", "fetch", "-dataset", "aer-st37", "-data", data, "-now", "2026-11-21"}, nil, &out, &errb); code != 1 {
		t.Fatalf("fetch of a broken ST37 = %d, want 1\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "aer-st37: FAILED") || !strings.Contains(errb.String(), "-check rejected the download") || !strings.Contains(errb.String(), "https://static.aer.ca/prd/documents/sts/st37/ST37.zip") || !strings.Contains(errb.String(), "WellList.txt:1:") {
		t.Errorf("stderr %q: want the dataset and the check's rejection", errb.String())
	}
	t.Logf("a broken ST37: %s", strings.TrimSpace(errb.String()))
	after, _ := datafetch.ReadState(filepath.Join(data, "downloads"), "aer-st37")
	if after.Version != before.Version {
		t.Errorf("ST37 download moved from %s to %s after a rejected check", before.Version, after.Version)
	}
	if v := reportVersions(t, data); v[energy.Dataset] != versions[energy.Dataset] {
		t.Errorf("energy version %d after a rejected download, want %d", v[energy.Dataset], versions[energy.Dataset])
	}

	// A dry run says the ST37 changed and the rest did not.
	out.Reset()
	if code := run([]string{"data", "fetch", "-dry-run", "-dataset", "aer-st37,petrinex-ba", "-data", data, "-now", "2026-11-21"}, nil, &out, &errb); code != 0 {
		t.Fatalf("dry run = %d: %s", code, errb.String())
	}
	if !regexpLine(out.String(), "aer-st37", "changed") || !regexpLine(out.String(), "petrinex-ba", "unchanged") {
		t.Errorf("dry run:\n%s\nwant aer-st37 changed and petrinex-ba unchanged", out.String())
	}

	// The BA list disappears (404): the dataset fails with its URL, the
	// rest of a default run goes on, and the datasets that need a hand
	// step are listed, not fetched.
	pub.mu.Lock()
	pub.files["/prd/documents/sts/st37/ST37.zip"] = goodST37
	delete(pub.files, "/bbreports/PRABAIdentifiers.csv")
	saskServed := pub.served["/MapsandPlans/Pages/SaskGrid.aspx"]
	pub.mu.Unlock()
	baBefore, _ := datafetch.ReadState(filepath.Join(data, "downloads"), "petrinex-ba")
	out.Reset()
	errb.Reset()
	if code := run([]string{"data", "fetch", "-data", data, "-now", "2026-11-21"}, nil, &out, &errb); code != 1 {
		t.Fatalf("default run with a 404 = %d, want 1\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "petrinex-ba: FAILED") || !strings.Contains(errb.String(), "HTTP 404") || !strings.Contains(errb.String(), "https://www.petrinex.gov.ab.ca/bbreports/PRABAIdentifiers.csv") {
		t.Errorf("stderr %q: want petrinex-ba, its URL and HTTP 404", errb.String())
	}
	for _, k := range []string{"altalis-ats", "sk-saskgrid", "owa-inventory", "bc-alr"} {
		if !strings.Contains(out.String(), k+": skipped, needs a hand step") {
			t.Errorf("%s: not listed as skipped in a default run", k)
		}
	}
	if pub.served["/MapsandPlans/Pages/SaskGrid.aspx"] != saskServed {
		t.Errorf("a default run requested the SaskGrid URL, which needs an account")
	}
	if !strings.Contains(out.String(), "aer-st37: unchanged") {
		t.Errorf("aer-st37 after its good file is back: want unchanged (the rejected one was never recorded):\n%s", tail(out.String(), 25))
	}
	if baAfter, _ := datafetch.ReadState(filepath.Join(data, "downloads"), "petrinex-ba"); baAfter.Version != baBefore.Version {
		t.Errorf("petrinex-ba moved from %s to %s after a 404", baBefore.Version, baAfter.Version)
	}
}

func regexpLine(s, key, action string) bool {
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == key && f[2] == action {
			return true
		}
	}
	return false
}

func zipBytes(t *testing.T, files map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for n, b := range files {
		w, _ := zw.Create(n)
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func reportVersions(t *testing.T, data string) map[string]kv.Version {
	t.Helper()
	out := map[string]kv.Version{}
	for _, name := range reportDomains {
		d, ok, err := kv.Open(context.Background(), servedReports(t, data, name), name)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			out[name] = d.Version
		}
	}
	return out
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
