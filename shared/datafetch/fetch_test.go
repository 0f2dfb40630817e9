package datafetch_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/shared/datafetch"
)

// fault is what the test server does to one request instead of serving
// the file properly.
type fault string

const (
	faultNone        fault = ""
	fault404         fault = "404"
	fault500         fault = "500"
	faultTruncate    fault = "truncate"     // Content-Length of the whole file, half the body
	faultIgnoreRange fault = "ignore-range" // 200 and the whole file, whatever Range says
	faultHTML        fault = "html"         // a login page
)

// server serves files by path with ETag and Last-Modified (304, 206 and
// If-Range through http.ServeContent), and per path a queue of faults.
type server struct {
	t  *testing.T
	mu sync.Mutex
	// files by URL path
	files  map[string][]byte
	mod    map[string]time.Time
	faults map[string][]fault
	// requests seen: path and the headers that matter
	log []string
	// stream serves a generated body of this many bytes at /big
	stream int64
}

func newServer(t *testing.T) (*server, *httptest.Server) {
	s := &server{t: t, files: map[string][]byte{}, mod: map[string]time.Time{}, faults: map[string][]fault{}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

func (s *server) set(path string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = data
	s.mod[path] = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(s.log)+1) * time.Hour)
}

func (s *server) fail(path string, fs ...fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[path] = append(s.faults[path], fs...)
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func etagOf(b []byte) string {
	h := sha256.Sum256(b)
	return `"` + hex.EncodeToString(h[:8]) + `"`
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p := r.URL.Path
	s.log = append(s.log, fmt.Sprintf("%s %s range=%q if-range=%q inm=%q ims=%q", r.Method, p, r.Header.Get("Range"), r.Header.Get("If-Range"), r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")))
	var f fault
	if q := s.faults[p]; len(q) > 0 {
		f, s.faults[p] = q[0], q[1:]
	}
	data, ok := s.files[p]
	mod := s.mod[p]
	stream := s.stream
	s.mu.Unlock()
	if p == "/big" && stream > 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(stream, 10))
		w.Header().Set("ETag", `"big"`)
		io.CopyN(w, &pattern{}, stream)
		return
	}
	switch f {
	case fault404:
		http.NotFound(w, r)
		return
	case fault500:
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	case faultHTML:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><body>Sign in</body></html>")
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("ETag", etagOf(data))
	w.Header().Set("Content-Type", "application/octet-stream")
	switch f {
	case faultTruncate:
		w.Header().Set("Last-Modified", mod.Format(http.TimeFormat))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:len(data)/2])
		return // the server closes the connection: the client sees a short body
	case faultIgnoreRange:
		w.Header().Set("Last-Modified", mod.Format(http.TimeFormat))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data)
		return
	}
	http.ServeContent(w, r, "", mod, bytes.NewReader(data))
}

// pattern is an endless deterministic byte stream.
type pattern struct{ n uint64 }

func (p *pattern) Read(b []byte) (int, error) {
	for i := range b {
		p.n = p.n*6364136223846793005 + 1442695040888963407
		b[i] = byte(p.n >> 56)
	}
	return len(b), nil
}

// fakeIngester records the inputs it is given and fails when told.
type fakeIngester struct {
	checks, ingests int
	inputs          [][]string // base names per ingest
	contents        []map[string]string
	checkErr        error
	ingestErr       error
}

func (f *fakeIngester) Check(_ context.Context, _ datafetch.Ingest, in datafetch.Input) error {
	f.checks++
	return f.checkErr
}

func (f *fakeIngester) Ingest(_ context.Context, _ datafetch.Ingest, in datafetch.Input) error {
	f.ingests++
	var names []string
	c := map[string]string{}
	for _, p := range in.Files {
		names = append(names, filepath.Base(p))
		b, _ := os.ReadFile(p)
		c[filepath.Base(p)] = string(b)
	}
	f.inputs = append(f.inputs, names)
	f.contents = append(f.contents, c)
	return f.ingestErr
}

func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// entry is a one-source dataset read by an energy ingest.
func entry(key, path string, files ...string) datafetch.Entry {
	return datafetch.Entry{Key: key, Publisher: "test", Product: "test", Ingest: datafetch.Ingest{Kind: "energy"},
		Sources: []datafetch.Source{{URL: "https://publisher.example" + path, Files: files}}}
}

func newFetcher(t *testing.T, ts *httptest.Server, dir string) *datafetch.Fetcher {
	return datafetch.New(datafetch.Options{Dir: dir, BaseURL: ts.URL, RetryDelay: time.Millisecond,
		Now: func() time.Time { return time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC) }})
}

func runOne(t *testing.T, f *datafetch.Fetcher, e datafetch.Entry, ing datafetch.Ingester) datafetch.Result {
	t.Helper()
	rs := f.Run(context.Background(), []datafetch.Entry{e}, []datafetch.Entry{e}, ing)
	if len(rs) != 1 {
		t.Fatalf("Run returned %d results, want 1", len(rs))
	}
	return rs[0]
}

func readState(t *testing.T, dir, key string) *datafetch.State {
	t.Helper()
	s, err := datafetch.ReadState(dir, key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestFetchConditionalGet(t *testing.T) {
	srv, ts := newServer(t)
	wells := []byte(strings.Repeat("00/06-06-001-01W4/0\tx\n", 200))
	srv.set("/st37/ST37.zip", zipOf(t, map[string][]byte{"WellList.txt": wells}))
	dir := t.TempDir()
	f := newFetcher(t, ts, dir)
	e := entry("aer-st37", "/st37/ST37.zip", "WellList*.txt")
	ing := &fakeIngester{}

	r := runOne(t, f, e, ing)
	if r.Status != datafetch.StatusUpdated || r.Err != nil {
		t.Fatalf("first run: %s %v, want updated", r.Status, r.Err)
	}
	if ing.checks != 1 || ing.ingests != 1 || ing.contents[0]["WellList.txt"] != string(wells) {
		t.Fatalf("first run: %d checks, %d ingests, input %v; want 1, 1 and WellList.txt unpacked", ing.checks, ing.ingests, ing.inputs)
	}
	st := readState(t, dir, "aer-st37")
	if st == nil || len(st.Files) != 1 || st.Files[0].SHA256 != sha(srv.files["/st37/ST37.zip"]) || st.Files[0].ETag == "" || st.Files[0].LastModified == "" {
		t.Fatalf("state after the first run = %+v, want the archive's SHA-256, ETag and Last-Modified", st)
	}

	// Second run: a conditional GET answered 304, nothing ingested.
	r = runOne(t, f, e, ing)
	if r.Status != datafetch.StatusUnchanged || ing.ingests != 1 {
		t.Fatalf("second run: %s, %d ingests; want unchanged and no new ingest", r.Status, ing.ingests)
	}
	last := srv.requests()[len(srv.requests())-1]
	if !strings.Contains(last, `inm="`+strings.Trim(st.Files[0].ETag, `"`)) && !strings.Contains(last, `inm="\"`) {
		t.Errorf("second request %s: want If-None-Match with the stored ETag", last)
	}
	if !strings.Contains(last, "ims=\""+st.Files[0].LastModified) {
		t.Errorf("second request %s: want If-Modified-Since %s", last, st.Files[0].LastModified)
	}

	// The publisher changes the file: a new version replaces the old.
	wells2 := append(slices.Clone(wells), []byte("F1/06-06-001-01W4/0\ty\n")...)
	srv.set("/st37/ST37.zip", zipOf(t, map[string][]byte{"WellList.txt": wells2}))
	r = runOne(t, f, e, ing)
	if r.Status != datafetch.StatusUpdated || ing.contents[1]["WellList.txt"] != string(wells2) {
		t.Fatalf("third run: %s %v; want updated with the new file", r.Status, r.Err)
	}
	st2 := readState(t, dir, "aer-st37")
	if st2.Version == st.Version {
		t.Fatalf("version %s did not change", st2.Version)
	}
	if _, err := os.Stat(filepath.Join(dir, "aer-st37", st.Version)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the previous version's directory is still there (%v)", err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "aer-st37", st2.Version, "WellList.txt"))
	if err != nil || string(got) != string(wells2) {
		t.Errorf("current WellList.txt = %d bytes (%v), want the new %d", len(got), err, len(wells2))
	}
}

func TestFetchResumesTruncatedBody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults []fault
		// wantRange: the second request asks for the rest
		wantRange bool
		requests  int
	}{
		{"truncated then resumed with 206", []fault{faultTruncate}, true, 2},
		{"truncated then a server that ignores Range", []fault{faultTruncate, faultIgnoreRange}, true, 2},
		{"500 then served", []fault{fault500}, false, 2},
		{"truncated twice, resumed twice", []fault{faultTruncate, faultTruncate}, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, ts := newServer(t)
			body := make([]byte, 300_001)
			(&pattern{}).Read(body)
			srv.set("/vol.csv", body)
			srv.fail("/vol.csv", tc.faults...)
			dir := t.TempDir()
			ing := &fakeIngester{}
			r := runOne(t, newFetcher(t, ts, dir), entry("vol", "/vol.csv", "vol.csv"), ing)
			if r.Status != datafetch.StatusUpdated {
				t.Fatalf("status %s (%v), want updated; requests %v", r.Status, r.Err, srv.requests())
			}
			if got := ing.contents[0]["vol.csv"]; got != string(body) {
				t.Fatalf("ingested %d bytes, want the %d served (same bytes)", len(got), len(body))
			}
			if st := readState(t, dir, "vol"); st.Files[0].SHA256 != sha(body) || st.Files[0].Size != int64(len(body)) {
				t.Errorf("recorded %s %d, want %s %d", st.Files[0].SHA256, st.Files[0].Size, sha(body), len(body))
			}
			reqs := srv.requests()
			if len(reqs) != tc.requests {
				t.Errorf("%d requests, want %d: %v", len(reqs), tc.requests, reqs)
			}
			if tc.wantRange && !strings.Contains(reqs[1], fmt.Sprintf(`range="bytes=%d-"`, len(body)/2)) {
				t.Errorf("second request %s: want Range from %d", reqs[1], len(body)/2)
			}
			if tc.wantRange && !strings.Contains(reqs[1], `if-range="\"`) {
				t.Errorf("second request %s: want If-Range with the ETag", reqs[1])
			}
		})
	}
}

// A failure at any step leaves the previous download as it was.
func TestFetchFailureKeepsPrevious(t *testing.T) {
	good := []byte("BACode,BAName,CorpStatus\nA5D4,Demo,Active\n")
	for _, tc := range []struct {
		name      string
		faults    []fault
		changed   []byte // served after the first run (nil: same)
		checkErr  error
		ingestErr error
		want      string // in the error
	}{
		{"404", []fault{fault404}, []byte("new"), nil, nil, "HTTP 404"},
		{"500 every time", []fault{fault500, fault500, fault500}, []byte("new"), nil, nil, "HTTP 500"},
		{"truncated every time", []fault{faultTruncate, faultTruncate, faultTruncate}, []byte(strings.Repeat("new,", 1000)), nil, nil, "body cut at"},
		{"an HTML page", []fault{faultHTML}, []byte("new"), nil, nil, "HTML page"},
		{"check rejects", nil, []byte("BACode\n"), errors.New("PRABAIdentifiers.csv:1: no BAName column"), nil, "-check rejected the download"},
		{"ingest fails", nil, []byte("BACode,BAName\n"), nil, errors.New("report store locked"), "the data served before is unchanged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, ts := newServer(t)
			srv.set("/bbreports/PRABAIdentifiers.csv", good)
			dir := t.TempDir()
			f := newFetcher(t, ts, dir)
			e := entry("petrinex-ba", "/bbreports/PRABAIdentifiers.csv", "PRABAIdentifiers*.csv")
			if r := runOne(t, f, e, &fakeIngester{}); r.Status != datafetch.StatusUpdated {
				t.Fatalf("first run: %s %v", r.Status, r.Err)
			}
			before := readState(t, dir, "petrinex-ba")
			if tc.changed != nil {
				srv.set("/bbreports/PRABAIdentifiers.csv", tc.changed)
			}
			srv.fail("/bbreports/PRABAIdentifiers.csv", tc.faults...)
			ing := &fakeIngester{checkErr: tc.checkErr, ingestErr: tc.ingestErr}
			r := runOne(t, f, e, ing)
			if r.Status != datafetch.StatusFailed || r.Err == nil {
				t.Fatalf("status %s, want failed", r.Status)
			}
			var fe *datafetch.FetchError
			if !errors.As(r.Err, &fe) || fe.Dataset != "petrinex-ba" || !strings.Contains(r.Err.Error(), tc.want) {
				t.Fatalf("error %v: want a FetchError of petrinex-ba saying %q", r.Err, tc.want)
			}
			if tc.checkErr == nil && tc.ingestErr == nil && !strings.Contains(fe.URL, "PRABAIdentifiers.csv") {
				t.Errorf("error names %q, want the URL", fe.URL)
			}
			if tc.checkErr != nil && ing.ingests != 0 {
				t.Errorf("ingested after a rejected check")
			}
			after := readState(t, dir, "petrinex-ba")
			if after.Version != before.Version || after.Files[0].SHA256 != before.Files[0].SHA256 {
				t.Errorf("state changed: %+v -> %+v", before, after)
			}
			got, err := os.ReadFile(filepath.Join(dir, "petrinex-ba", before.Version, "PRABAIdentifiers.csv"))
			if err != nil || string(got) != string(good) {
				t.Errorf("previous download changed: %q %v", got, err)
			}
			entries, _ := os.ReadDir(filepath.Join(dir, "petrinex-ba"))
			for _, de := range entries {
				if strings.HasPrefix(de.Name(), ".new-") {
					t.Errorf("staging directory %s left behind", de.Name())
				}
			}
		})
	}
}

func TestFetchOptionalSourceNotPublished(t *testing.T) {
	srv, ts := newServer(t)
	srv.set("/cdm/CDM_2610_D0_LR.geojson", []byte(`{"type":"FeatureCollection","features":[]}`))
	e := datafetch.Entry{Key: "aafc-drought", Ingest: datafetch.Ingest{Kind: "ag"}, Period: datafetch.Monthly, Count: 1, Lag: 1, Sources: []datafetch.Source{
		{URL: "https://x.example/cdm/CDM_{yymm}_D0_LR.geojson", Files: []string{"CDM_{yymm}_D0_LR.geojson"}, Optional: true},
		{URL: "https://x.example/cdm/CDM_{yymm}_D1_LR.geojson", Files: []string{"CDM_{yymm}_D1_LR.geojson"}, Optional: true},
	}}
	ing := &fakeIngester{}
	r := runOne(t, newFetcher(t, ts, t.TempDir()), e, ing)
	if r.Status != datafetch.StatusUpdated || !slices.Equal(ing.inputs[0], []string{"CDM_2610_D0_LR.geojson"}) {
		t.Fatalf("%s %v inputs %v: want D0 alone (D1 answers 404: not published)", r.Status, r.Err, ing.inputs)
	}
}

func TestUnpackRefuses(t *testing.T) {
	zeros := make([]byte, 4<<20)
	for _, tc := range []struct {
		name    string
		archive []byte
		want    string
	}{
		{"zip-slip", zipOf(t, map[string][]byte{"../../evil.txt": []byte("x"), "WellList.txt": []byte("y")}), "outside the archive"},
		{"absolute", zipOf(t, map[string][]byte{"/etc/evil.txt": []byte("x")}), "outside the archive"},
		{"ratio", zipOf(t, map[string][]byte{"WellList.txt": zeros}), "ratio over 100"},
		{"duplicate names", zipOf(t, map[string][]byte{"a/WellList.txt": []byte("1"), "b/WellList.txt": []byte("2")}), "two files named"},
		{"missing file", zipOf(t, map[string][]byte{"README.txt": []byte("1")}), "no file matching WellList*.txt"},
		{"not a zip nor the file", []byte("PK\x03\x04garbage"), "unpacking refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, ts := newServer(t)
			srv.set("/ST37.zip", tc.archive)
			dir := t.TempDir()
			f := datafetch.New(datafetch.Options{Dir: filepath.Join(dir, "downloads"), BaseURL: ts.URL, MaxRatio: 100, RetryDelay: time.Millisecond})
			r := runOne(t, f, entry("aer-st37", "/ST37.zip", "WellList*.txt"), &fakeIngester{})
			if r.Status != datafetch.StatusFailed || !strings.Contains(fmt.Sprint(r.Err), tc.want) {
				t.Fatalf("%s %v, want failed saying %q", r.Status, r.Err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "evil.txt")); err == nil {
				t.Fatal("zip-slip wrote outside the download directory")
			}
			if s := readState(t, filepath.Join(dir, "downloads"), "aer-st37"); s != nil {
				t.Errorf("a refused download was recorded: %+v", s)
			}
		})
	}
}

func TestUnpackNestedZip(t *testing.T) {
	srv, ts := newServer(t)
	inner := zipOf(t, map[string][]byte{"Vol_2026-10-AB.csv": []byte("ProductionMonth\n2026-10\n")})
	srv.set("/AB/Vol/2026-10/CSV", zipOf(t, map[string][]byte{"Vol_2026-10-AB.csv.zip": inner}))
	e := datafetch.Entry{Key: "vol", Ingest: datafetch.Ingest{Kind: "energy"}, Period: datafetch.Monthly, Count: 1, Lag: 1,
		Sources: []datafetch.Source{{URL: "https://p.example/AB/Vol/{month}/CSV", Name: "Vol_{month}-AB.zip", Files: []string{"Vol_{month}-AB.csv"}}}}
	ing := &fakeIngester{}
	r := runOne(t, newFetcher(t, ts, t.TempDir()), e, ing)
	if r.Status != datafetch.StatusUpdated || ing.contents[0]["Vol_2026-10-AB.csv"] != "ProductionMonth\n2026-10\n" {
		t.Fatalf("%s %v, inputs %v: want the CSV from the zip inside the zip", r.Status, r.Err, ing.inputs)
	}
}

func TestDryRun(t *testing.T) {
	srv, ts := newServer(t)
	srv.set("/ST37.zip", zipOf(t, map[string][]byte{"WellList.txt": []byte("a")}))
	dir := t.TempDir()
	f := newFetcher(t, ts, dir)
	e := entry("aer-st37", "/ST37.zip", "WellList*.txt")
	action := func() string {
		ps := f.DryRun(context.Background(), []datafetch.Entry{e})
		if len(ps) != 1 {
			t.Fatalf("%d plans", len(ps))
		}
		return ps[0].Action
	}
	if a := action(); a != "new" {
		t.Errorf("before any fetch: %s, want new", a)
	}
	if s := readState(t, dir, "aer-st37"); s != nil {
		t.Fatal("a dry run recorded a download")
	}
	runOne(t, f, e, &fakeIngester{})
	if a := action(); a != "unchanged" {
		t.Errorf("after a fetch: %s, want unchanged", a)
	}
	srv.set("/ST37.zip", zipOf(t, map[string][]byte{"WellList.txt": []byte("b")}))
	if a := action(); a != "changed" {
		t.Errorf("after the publisher's change: %s, want changed", a)
	}
	srv.fail("/ST37.zip", fault500)
	if a := action(); a != "error" {
		t.Errorf("500: %s, want error", a)
	}
	// Every HEAD after the first fetch carries the stored ETag.
	for i, r := range srv.requests() {
		if i > 0 && strings.HasPrefix(r, "HEAD") && strings.Contains(r, `inm=""`) {
			t.Errorf("dry run after a fetch without the stored ETag: %s", r)
		}
	}
}

func TestFetchChecksPublishedSizeAndChecksum(t *testing.T) {
	body := []byte("BACode,BAName,CorpStatus\nA5D4,Demo,Active\n")
	for _, tc := range []struct {
		name   string
		size   int64
		sum    string
		status datafetch.Status
		want   string
	}{
		{"matching", int64(len(body)), sha(body), datafetch.StatusUpdated, ""},
		{"wrong checksum", 0, sha([]byte("other")), datafetch.StatusFailed, "SHA-256"},
		{"wrong size", int64(len(body)) + 1, "", datafetch.StatusFailed, "the publisher states"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, ts := newServer(t)
			srv.set("/PRABAIdentifiers.csv", body)
			e := entry("petrinex-ba", "/PRABAIdentifiers.csv", "PRABAIdentifiers.csv")
			e.Sources[0].Size, e.Sources[0].SHA256 = tc.size, tc.sum
			r := runOne(t, newFetcher(t, ts, t.TempDir()), e, &fakeIngester{})
			if r.Status != tc.status || tc.want != "" && !strings.Contains(fmt.Sprint(r.Err), tc.want) {
				t.Fatalf("%s %v, want %s %q", r.Status, r.Err, tc.status, tc.want)
			}
		})
	}
}

func TestLockRefusesASecondFetch(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	a := datafetch.New(datafetch.Options{Dir: dir})
	b := datafetch.New(datafetch.Options{Dir: dir})
	unlock, err := a.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(); err == nil || !strings.Contains(err.Error(), "another data fetch is running") {
		t.Fatalf("second Lock: %v, want refused", err)
	}
	unlock()
	unlock2, err := b.Lock()
	if err != nil {
		t.Fatalf("Lock after the first was released: %v", err)
	}
	unlock2()
}

// -url: a link copied from the publisher's page replaces the manifest's.
func TestFetchURLOverride(t *testing.T) {
	srv, ts := newServer(t)
	srv.set("/files/Reporting - Full Inventory - 2026-11-01.xlsx", []byte("PK\x03\x04 not really a spreadsheet"))
	dir := t.TempDir()
	link := ts.URL + "/files/Reporting%20-%20Full%20Inventory%20-%202026-11-01.xlsx"
	f := datafetch.New(datafetch.Options{Dir: dir, URLs: map[string]string{"owa-inventory": link}, RetryDelay: time.Millisecond})
	e, _ := datafetch.Lookup("owa-inventory")
	ing := &fakeIngester{}
	r := runOne(t, f, e, ing)
	if r.Status != datafetch.StatusUpdated {
		t.Fatalf("%s %v", r.Status, r.Err)
	}
	// Kept whole: an .xlsx is a zip its reader opens.
	if !slices.Equal(ing.inputs[0], []string{"Reporting - Full Inventory - 2026-11-01.xlsx"}) {
		t.Errorf("inputs %v, want the spreadsheet as one file, under the link's name", ing.inputs[0])
	}
	if st := readState(t, dir, "owa-inventory"); st.Files[0].URL != link {
		t.Errorf("recorded URL %s, want %s", st.Files[0].URL, link)
	}
}
