// Package datafetchtest serves the manifest's URLs from the project's demo
// files, packed as each publisher packs them, for tests of what fetches
// them (meridian data fetch, the refresh job) and for make test-lambda,
// which runs the refresh job's Lambda against them (PublisherFiles).
package datafetchtest

import (
	"archive/zip"
	"bytes"
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

	"meridian/shared/datafetch"
	"meridian/shared/demo/agdemo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/demo/griddemo"
)

// DemoFiles returns every file the project's generators write in the
// publishers' layouts, by base name: the grid fixtures, the energy and the
// agriculture demo data (grid fixtures by format, energy and ag in one
// pool), plus the two the manifest names that no
// generator writes under that name (PRABAIdentifiers.csv from the demo BA
// codes; the drought files of the month the manifest asks for, from the
// demo's latest month).
func DemoFiles(t testing.TB) map[string]map[string][]byte {
	t.Helper()
	pools, err := demoFiles()
	if err != nil {
		t.Fatal(err)
	}
	return pools
}

func demoFiles() (map[string]map[string][]byte, error) {
	pools := map[string]map[string][]byte{}
	grid, err := griddemo.Files()
	if err != nil {
		return nil, err
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
	en, err := energydemo.Generate()
	if err != nil {
		return nil, err
	}
	for _, f := range en {
		out[f.Name] = f.Data
	}
	dir, err := os.MkdirTemp("", "datafetchtest-ag-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := agdemo.Write(dir); err != nil {
		return nil, err
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
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
	return pools, nil
}

// Publisher serves each manifest URL from the demo files, packed as the
// publisher packs them (a zip when the download is one, a zip of zips for
// Petrinex), with ETag and Last-Modified (304 and 206 through
// http.ServeContent).
// Lock it to read or change its fields while it serves.
type Publisher struct {
	sync.Mutex
	Files  map[string][]byte // by URL path
	Served map[string]int    // requests by URL path
	Cond   int               // conditional requests seen
}

func (p *Publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.Lock()
	b, ok := p.Files[r.URL.Path]
	if r.Header.Get("If-None-Match") != "" {
		p.Cond++
	}
	p.Served[r.URL.Path]++
	p.Unlock()
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
func pack(demo map[string][]byte, x datafetch.Expanded) ([]byte, bool, error) {
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
		return nil, false, nil
	}
	lname := strings.ToLower(x.Name)
	if !strings.HasSuffix(lname, ".zip") {
		if len(picked) != 1 {
			return nil, false, fmt.Errorf("%s: %d demo files for a plain download", x.URL, len(picked))
		}
		for _, b := range picked {
			return b, true, nil
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
			return nil, false, err
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), true, nil
}

// NewPublisher starts a Publisher of every manifest URL as of now (closed
// when the test ends) and returns it, its server and the number of files
// it serves.
func NewPublisher(t testing.TB, now time.Time) (*Publisher, *httptest.Server, int) {
	t.Helper()
	files, err := PublisherFiles(now)
	if err != nil {
		t.Fatal(err)
	}
	p := &Publisher{Files: files, Served: map[string]int{}}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	return p, ts, len(files)
}

// PublisherFiles returns the body of every manifest URL as of now, by URL
// path, from the demo files packed as each publisher packs them: what a
// Publisher serves.
func PublisherFiles(now time.Time) (map[string][]byte, error) {
	demo, err := demoFiles()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range datafetch.Manifest() {
		for _, x := range e.Expand(now) {
			u, err := url.Parse(x.URL)
			if err != nil {
				return nil, err
			}
			pool := demo[e.Ingest.Kind]
			if e.Ingest.Kind == "grid" {
				pool = demo[e.Ingest.Format]
			}
			b, ok, err := pack(pool, x)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Key, err)
			}
			if !ok {
				if !x.Optional {
					return nil, fmt.Errorf("%s: no demo file for %s (%v)", e.Key, x.URL, x.Files)
				}
				continue
			}
			files[u.Path] = b
		}
	}
	return files, nil
}
