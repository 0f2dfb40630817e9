package main

import (
	"archive/zip"
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/shared/ag"
	"meridian/shared/datadir"
	"meridian/shared/datafetch"
	"meridian/shared/datafetch/datafetchtest"
	"meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// Every manifest entry is fetched once from a local server that serves the
// demo files as the publishers pack them, checked and ingested by the real
// ingest; a second run is all 304s; a download the -check rejects changes
// nothing.
func TestDataFetchEveryManifestEntry(t *testing.T) {
	// The demo data describes 2026-11-21: its months and seasons are the
	// ones the manifest asks for on that day.
	now := demo.AsOf()
	pub, ts, nfiles := datafetchtest.NewPublisher(t, now)
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
		s, err := datafetch.ReadState(datadir.Dir(data).Downloads(), k)
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
	versions := reportVersions(t, datadir.Dir(data))
	if versions[energy.Dataset] == 0 || versions[ag.Dataset] == 0 {
		t.Fatalf("report datasets %v: want energy and ag published", versions)
	}

	// Second run: nothing changed, every URL answers 304, nothing ingested.
	pub.Lock()
	pub.Cond = 0
	pub.Unlock()
	out.Reset()
	errb.Reset()
	if code := run([]string{"data", "fetch", "-dataset", all, "-data", data, "-now", "2026-11-21"}, nil, &out, &errb); code != 0 {
		t.Fatalf("second fetch = %d: %s", code, errb.String())
	}
	if pub.Cond != nfiles {
		t.Errorf("%d conditional requests, want one per file (%d)", pub.Cond, nfiles)
	}
	for _, k := range datafetch.Keys() {
		if !strings.Contains(out.String(), k+": unchanged") {
			t.Errorf("%s: not unchanged on the second run", k)
		}
	}
	if v := reportVersions(t, datadir.Dir(data)); v[energy.Dataset] != versions[energy.Dataset] || v[ag.Dataset] != versions[ag.Dataset] {
		t.Errorf("versions %v after a run with nothing new, want %v", v, versions)
	}

	// The publisher ships a broken ST37: the -check rejects it, the energy
	// data and the ST37 download stay as they were.
	before, _ := datafetch.ReadState(datadir.Dir(data).Downloads(), "aer-st37")
	pub.Lock()
	goodST37 := pub.Files["/prd/documents/sts/st37/ST37.zip"]
	pub.Files["/prd/documents/sts/st37/ST37.zip"] = zipBytes(t, map[string][]byte{"WellList.txt": []byte("not\ta\twell\tlist\n")})
	pub.Unlock()
	out.Reset()
	errb.Reset()
	if code := run([]string{"data", "fetch", "-dataset", "aer-st37", "-data", data, "-now", "2026-11-21"}, nil, &out, &errb); code != 1 {
		t.Fatalf("fetch of a broken ST37 = %d, want 1\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "aer-st37: FAILED") || !strings.Contains(errb.String(), "-check rejected the download") || !strings.Contains(errb.String(), "https://static.aer.ca/prd/documents/sts/st37/ST37.zip") || !strings.Contains(errb.String(), "WellList.txt:1:") {
		t.Errorf("stderr %q: want the dataset and the check's rejection", errb.String())
	}
	t.Logf("a broken ST37: %s", strings.TrimSpace(errb.String()))
	after, _ := datafetch.ReadState(datadir.Dir(data).Downloads(), "aer-st37")
	if after.Version != before.Version {
		t.Errorf("ST37 download moved from %s to %s after a rejected check", before.Version, after.Version)
	}
	if v := reportVersions(t, datadir.Dir(data)); v[energy.Dataset] != versions[energy.Dataset] {
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
	pub.Lock()
	pub.Files["/prd/documents/sts/st37/ST37.zip"] = goodST37
	delete(pub.Files, "/bbreports/PRABAIdentifiers.csv")
	saskServed := pub.Served["/MapsandPlans/Pages/SaskGrid.aspx"]
	pub.Unlock()
	baBefore, _ := datafetch.ReadState(datadir.Dir(data).Downloads(), "petrinex-ba")
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
	if pub.Served["/MapsandPlans/Pages/SaskGrid.aspx"] != saskServed {
		t.Errorf("a default run requested the SaskGrid URL, which needs an account")
	}
	if !strings.Contains(out.String(), "aer-st37: unchanged") {
		t.Errorf("aer-st37 after its good file is back: want unchanged (the rejected one was never recorded):\n%s", tail(out.String(), 25))
	}
	if baAfter, _ := datafetch.ReadState(datadir.Dir(data).Downloads(), "petrinex-ba"); baAfter.Version != baBefore.Version {
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

func reportVersions(t *testing.T, data datadir.Dir) map[string]kv.Version {
	t.Helper()
	out := map[string]kv.Version{}
	for _, name := range reportDomains {
		d, ok, err := kv.Open(context.Background(), servedReports(t, string(data), name), name)
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
