package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"meridian/shared/api"
	"meridian/shared/datadir"
	"meridian/shared/gateway"
)

func newTestServer(t *testing.T) (*server, string) {
	t.Helper()
	return newTestServerIn(t, t.TempDir())
}

// newTestServerIn is newTestServer over the data directory dir; configure,
// when given, changes the server's configuration first.
func newTestServerIn(t *testing.T, dir string, configure ...func(*serverConfig)) (*server, string) {
	t.Helper()
	key, err := gateway.EnsureDemoKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := serverConfig{data: datadir.Dir(dir), logger: slog.New(slog.DiscardHandler)}
	for _, c := range configure {
		c(&cfg)
	}
	srv, err := newServer(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, key
}

// Every route the server mounts must be in /openapi.json, and nothing else.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	rec := httptest.NewRecorder()
	srv.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /openapi.json: %d %s", rec.Code, rec.Body)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	patterns := srv.mux.Patterns()
	if len(patterns) < 7 {
		t.Fatalf("only %d patterns mounted: %v", len(patterns), patterns)
	}
	// Each documented route under the path clients call (Op.Path when the
	// mux pattern cannot say it); the map page's routes are not API.
	docOf := map[string]string{}
	for _, r := range srv.mux.Routes() {
		docOf[r.Pattern] = r.Method() + " " + api.DocPath(r)
		if r.Op.Hidden {
			docOf[r.Pattern] = ""
		}
	}
	for _, p := range patterns {
		d, ok := docOf[p]
		switch {
		case !ok:
			t.Errorf("route %s is mounted without an api.Operation", p)
		case d == "":
			if documented[p] {
				t.Errorf("/openapi.json documents %s, which is not API (Hidden)", p)
			}
		case !documented[d]:
			t.Errorf("route %s is mounted but missing from /openapi.json (as %s)", p, d)
		}
		delete(documented, d)
	}
	for p := range documented {
		t.Errorf("/openapi.json documents %s, which is not mounted", p)
	}
}

func TestServerKeys(t *testing.T) {
	t.Parallel()
	srv, demo := newTestServer(t)
	const search = "/search/legal-location?location=NW-25-24-1-W5"
	tests := []struct {
		name, target, key string
		status            int
		code              string
	}{
		{"public openapi without key", "/openapi.json", "", 200, ""},
		{"public healthz", "/healthz", "", 200, ""},
		{"search without key", search, "", 401, "missing_api_key"},
		{"search with unknown key", search, "mk_nope", 401, "invalid_api_key"},
		{"search with demo key", search, demo, 200, ""},
		{"autocomplete with demo key", "/autocomplete/legal-location?location=NW-25", demo, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.target, nil)
			if tc.key != "" {
				req.Header.Set("X-API-Key", tc.key)
			}
			rec := httptest.NewRecorder()
			srv.handler.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.code != "" && !strings.Contains(rec.Body.String(), `"code":"`+tc.code+`"`) {
				t.Errorf("body lacks code %s: %s", tc.code, rec.Body)
			}
			if rec.Header().Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
		})
	}
}

// A key holding only search is refused on batch, and the default search
// plan's rate limit answers 429 with Retry-After.
func TestServerProductsAndLimits(t *testing.T) {
	t.Parallel()
	dir := datadir.Dir(t.TempDir())
	key, _, err := gateway.AddKey(dir.Keys(), "customer", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(t.Context(), serverConfig{data: dir, logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	send := func(method, target, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		srv.handler.ServeHTTP(rec, req)
		return rec
	}
	if rec := send("POST", "/batch/legal-location", `["NW-25-24-1-W5"]`); rec.Code != 403 || !strings.Contains(rec.Body.String(), "product_not_in_plan") {
		t.Errorf("batch with a search-only key: %d %s", rec.Code, rec.Body)
	}
	var limited *httptest.ResponseRecorder
	for range 20 {
		rec := send("GET", "/search/legal-location?location=NW-25-24-1-W5", "")
		if rec.Code == 429 {
			limited = rec
			break
		}
		if rec.Code != 200 {
			t.Fatalf("search: %d %s", rec.Code, rec.Body)
		}
	}
	if limited == nil {
		t.Fatal("20 requests at once never hit the 1 request/s limit")
	}
	if !strings.Contains(limited.Body.String(), `"code":"rate_limited"`) || limited.Header().Get("Retry-After") == "" {
		t.Errorf("429 without rate_limited code or Retry-After: %v %s", limited.Header(), limited.Body)
	}
}

// startServe runs serve with cfg on a free loopback port, reads the lines
// it prints up to and including the one named last, and returns them with
// a function that stops the server and checks it stopped cleanly.
func startServe(t *testing.T, cfg serverConfig, last string) (map[string]string, func()) {
	t.Helper()
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, "127.0.0.1:0", pw)
		pw.Close()
	}()
	lines := map[string]string{}
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		lines[k] = v
		if k == last {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	return lines, func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("serve did not stop")
		}
	}
}

// serve prints base_url= and api_key= lines, answers on that address, and
// stops cleanly when its context ends.
func TestServePrintsURLAndKey(t *testing.T) {
	t.Parallel()
	dir := datadir.Dir(t.TempDir())
	lines, stop := startServe(t, serverConfig{data: dir}, "tiles_url")
	base, key := lines["base_url"], lines["api_key"]
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasPrefix(key, "mk_") || lines["tiles_url"] != base+"/tiles" {
		stop()
		t.Fatalf("printed %v", lines)
	}
	req, _ := http.NewRequest("GET", base+"/search/legal-location?location=NW-25-24-1-W5", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"legal_location":"NW-25-24-1-W5"`)) {
		t.Errorf("search: %d %s", resp.StatusCode, body)
	}
	stop()
	// The demo key is the same on the next start.
	again, err := gateway.EnsureDemoKey(string(dir))
	if err != nil || again != key {
		t.Errorf("demo key changed across restarts: %q then %q (%v)", key, again, err)
	}
	if _, err := os.Stat(dir.Usage()); err != nil {
		t.Errorf("usage counts were not flushed on shutdown: %v", err)
	}
}

// The server listens on loopback unless -public: beyond it, every machine
// that reaches the port would get the map page's key.
func TestCheckListenAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr   string
		public bool
		ok     bool
	}{
		{"127.0.0.1:8080", false, true},
		{"localhost:0", false, true},
		{"[::1]:8080", false, true},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"[::]:8080", false, false},
		{"192.168.1.10:8080", false, false},
		{"example.com:8080", false, false},
		{"0.0.0.0:8080", true, true},
		{"8080", false, false},
	} {
		if err := checkListenAddr(c.addr, c.public); (err == nil) != c.ok {
			t.Errorf("checkListenAddr(%q, public %v) = %v, want ok %v", c.addr, c.public, err, c.ok)
		}
	}
	var stderr strings.Builder
	if code := run([]string{"serve", "-addr", "0.0.0.0:0", "-data", t.TempDir()}, nil, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "-public") {
		t.Errorf("serve -addr 0.0.0.0:0: exit %d, %s", code, stderr.String())
	}
}

// The map page's configuration hands out the map page's own key, not the
// demo key, and only to a loopback Host (DNS rebinding: a page elsewhere
// pointing its own name at 127.0.0.1 must not read it). The key opens what
// the page calls (tiles, search, autocomplete, batch and the two reports)
// on the rate-limited map-page plan, never the key management of the demo key.
func TestMapConfigKey(t *testing.T) {
	t.Parallel()
	srv, demoKey := newTestServer(t)
	config := func(host string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/map/config.json", nil)
		r.Host = host
		w := httptest.NewRecorder()
		srv.handler.ServeHTTP(w, r)
		return w
	}
	for _, host := range []string{"evil.example", "evil.example:8080", "127.0.0.1.nip.io:8080"} {
		if w := config(host); w.Code != 403 || !strings.Contains(w.Body.String(), `"code":"host_not_allowed"`) || strings.Contains(w.Body.String(), "mk_") {
			t.Errorf("Host %s: %d %s", host, w.Code, w.Body)
		}
	}
	w := config("localhost:8080")
	var cfg mapConfig
	if err := json.Unmarshal(w.Body.Bytes(), &cfg); w.Code != 200 || err != nil || cfg.APIKey == "" {
		t.Fatalf("Host localhost:8080: %d %s", w.Code, w.Body)
	}
	if cfg.APIKey == demoKey {
		t.Fatal("the map page hands out the unlimited demo key")
	}
	for path, want := range map[string]int{
		"/search/legal-location?location=NW-25-24-1-W5":  200,
		"/autocomplete/legal-location?location=NW-25-24": 200,
		"/tiles/ab/twp.json":                             200,
		"/energy/report?legal_location=4-27-24-1-W5":     200,
		"/ag/report?legal_location=SW-27-24-1-W5":        200,
	} {
		if w := get(t, srv, path, "X-API-Key", cfg.APIKey); w.Code != want {
			t.Errorf("map key on %s: %d, want %d: %s", path, w.Code, want, w.Body)
		}
	}
}

// The OpenAPI document states what costs quota, as the README does.
func TestOpenAPIStatesQuotaPolicy(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	w := get(t, srv, "/openapi.json")
	var doc struct {
		Info struct {
			Description string `json:"description"`
		} `json:"info"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || !strings.Contains(doc.Info.Description, "5xx answers cost nothing") {
		t.Errorf("openapi.json info.description = %q, %v; want the quota policy", doc.Info.Description, err)
	}
}

// A first start stops when its context ends (serve's is cancelled by
// Ctrl-C): with the context already done, nothing is ingested and
// newServer says why.
func TestNewServerStopsWithItsContext(t *testing.T) {
	t.Parallel()
	dir := datadir.Dir(t.TempDir())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	srv, err := newServer(ctx, serverConfig{data: dir, logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		srv.Close()
		t.Fatal("newServer with a cancelled context started a server")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("newServer with a cancelled context: %v, want context.Canceled", err)
	}
}
