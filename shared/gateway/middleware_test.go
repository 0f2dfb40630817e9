package gateway_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/api"
	"meridian/shared/gateway"
)

func TestMiddlewareChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	searchKey, _ := e.addKey("search-only", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	mapsKey, _ := e.addKey("maps-only", map[gateway.Product]string{gateway.Maps: gateway.DefaultPlan})
	revokedKey, _ := e.addKey("revoked", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	if err := gateway.RevokeKey(e.keysPath(), "revoked"); err != nil {
		t.Fatal(err)
	}
	e.reload()

	ok := result{Status: http.StatusOK}
	tests := []struct {
		name        string
		method      string // GET when empty
		target      string
		header      string // X-API-Key
		want        result
		wantMessage string // substring of the error message
	}{
		{name: "no key", target: "/search/legal-location?location=NW-1-1-1-W5",
			want: result{Status: 401, Code: "missing_api_key"}, wantMessage: "X-API-Key header"},
		{name: "empty query key", target: "/tiles/ab/dls/1/2/3.mvt?api_key=",
			want: result{Status: 401, Code: "missing_api_key"}, wantMessage: "api_key query parameter"},
		{name: "unknown key", target: "/search/legal-location", header: "mk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			want: result{Status: 401, Code: "invalid_api_key"}, wantMessage: "unknown or has been revoked"},
		{name: "tc_ key not in the keys file", target: "/search/legal-location", header: "tc_live_123",
			want: result{Status: 401, Code: "invalid_api_key"}},
		{name: "very long key", target: "/search/legal-location", header: strings.Repeat("k", 4096),
			want: result{Status: 401, Code: "invalid_api_key"}},
		{name: "revoked key", target: "/search/legal-location", header: revokedKey,
			want: result{Status: 401, Code: "invalid_api_key"}},
		{name: "key without the product", target: "/search/legal-location", header: mapsKey,
			want: result{Status: 403, Code: "product_not_in_plan"}, wantMessage: "does not include the search product"},
		{name: "search key on tiles", target: "/tiles/ab/dls/1/2/3.mvt?api_key=" + searchKey,
			want: result{Status: 403, Code: "product_not_in_plan"}, wantMessage: "maps product"},
		{name: "key with the product in the header", target: "/search/legal-location", header: searchKey, want: ok},
		{name: "key in the query on tiles", target: "/tiles/ab/dls/1/2/3.mvt?api_key=" + mapsKey, want: ok},
		// Only tiles and TileJSON take the key in the URL (issue 16).
		{name: "key in the query on a REST route", target: "/search/legal-location?location=x&api_key=" + searchKey, want: result{Status: 401, Code: "missing_api_key"}},
		{name: "escaped key in the query", target: "/tiles/ab/dls/1/2/3.mvt?api_key=" + url.QueryEscape(mapsKey) + "&x=%20", want: ok},
		{name: "header wins over query", target: "/search/legal-location?api_key=wrong", header: searchKey, want: ok},
		{name: "bad header is not rescued by the query", target: "/search/legal-location?api_key=" + searchKey, header: "wrong",
			want: result{Status: 401, Code: "invalid_api_key"}},
		{name: "dot segments are cleaned before the check", target: "/assets/../search/legal-location",
			want: result{Status: 401, Code: "missing_api_key"}},
		{name: "CORS preflight passes", method: http.MethodOptions, target: "/search/legal-location", want: ok},
		{name: "public root", target: "/", want: ok},
		{name: "public openapi", target: "/openapi.json", want: ok},
		{name: "public healthz", target: "/healthz", want: ok},
		{name: "public map page asset", target: "/assets/maplibre-gl.js", want: ok},
		{name: "public path with a bad key", target: "/healthz", header: "wrong", want: ok},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			w := e.doMethod(method, tc.target, tc.header)
			if diff := cmp.Diff(tc.want, resultOf(t, w)); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s\nbody: %s", method, tc.target, diff, w.Body)
			}
			if tc.wantMessage != "" {
				if msg := errorMessage(t, w); !strings.Contains(msg, tc.wantMessage) {
					t.Errorf("message = %q, want it to contain %q", msg, tc.wantMessage)
				}
			}
		})
	}
}

func TestMiddlewareCaller(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key, k := e.addKey("acme", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan, gateway.Maps: gateway.UnlimitedPlan})
	tests := []struct {
		target string
		want   gateway.Caller
	}{
		{"/search/legal-location", gateway.Caller{KeyID: k.ID, KeyName: "acme", Product: gateway.Search, Plan: "default"}},
		{"/tiles/ab/dls.json", gateway.Caller{KeyID: k.ID, KeyName: "acme", Product: gateway.Maps, Plan: "unlimited"}},
	}
	for _, tc := range tests {
		if w := e.do(tc.target, key); w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d, want 200", tc.target, w.Code)
		}
		if diff := cmp.Diff(&tc.want, e.caller.Load()); diff != "" {
			t.Errorf("CallerFrom after GET %s (-want +got):\n%s", tc.target, diff)
		}
	}
	if _, ok := gateway.CallerFrom(httptest.NewRequest("GET", "/", nil).Context()); ok {
		t.Errorf("CallerFrom(empty context) ok = true, want false")
	}
	ctx := gateway.NewContext(t.Context(), gateway.Caller{KeyID: "aws-key"})
	if c, ok := gateway.CallerFrom(ctx); !ok || c.KeyID != "aws-key" {
		t.Errorf("CallerFrom(NewContext(aws-key)) = %+v, %v, want KeyID aws-key", c, ok)
	}
}

func TestUnknownPlanRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key, _ := e.addKey("gold", map[gateway.Product]string{gateway.Search: "gold", gateway.Maps: gateway.DefaultPlan})
	if got := resultOf(t, e.do("/search/legal-location", key)); got.Code != "product_not_in_plan" {
		t.Errorf("product on an unknown plan: %+v, want product_not_in_plan", got)
	}
	if w := e.do("/tiles/x.json", key); w.Code != 200 {
		t.Errorf("the key's other product: %d, want 200", w.Code)
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := dir + "/" + name
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	badKeys := write("bad-keys.json", "{")
	badUsage := write("bad-usage.json", "[")
	newerKeys := write("newer-keys.json", `{"version": 9, "keys": []}`)
	tests := []struct {
		name    string
		opts    gateway.Options
		wantErr string
	}{
		{"no keys path", gateway.Options{}, "KeysPath is required"},
		{"invalid plans", gateway.Options{KeysPath: dir + "/k.json", Plans: plansWith(gateway.Search, gateway.Plan{Name: "default", RatePerSecond: 1})}, "burst 0"},
		{"broken keys file", gateway.Options{KeysPath: badKeys}, "parse keys file"},
		{"newer keys file", gateway.Options{KeysPath: newerKeys}, "version 9"},
		{"broken usage file", gateway.Options{KeysPath: dir + "/k.json", UsagePath: badUsage}, "parse usage file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.SyncInterval = -1
			tc.opts.Logger = quiet
			gw, err := gateway.New(tc.opts)
			if err == nil {
				gw.Close()
				t.Fatalf("New(%+v) = nil error, want one containing %q", tc.opts, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("New() error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestConcurrent runs under -race: requests on several keys and products
// while keys are added, the file reloaded and counts flushed.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	const quota = 500
	e := newEnv(t, plansWith(gateway.Maps, gateway.Plan{Name: "default", MonthlyQuota: quota}))
	unlimited, _ := e.addKey("unlimited", map[gateway.Product]string{gateway.Search: gateway.UnlimitedPlan})
	limited, lk := e.addKey("limited", map[gateway.Product]string{gateway.Maps: gateway.DefaultPlan})

	const workers, perWorker = 8, 200
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for range workers {
		wg.Go(func() {
			for range perWorker {
				if w := e.do("/search/legal-location", unlimited); w.Code != 200 {
					t.Errorf("unlimited key: %d, want 200", w.Code)
				}
				if w := e.do("/tiles/x.json?api_key="+limited, ""); w.Code == 200 {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 20 {
			if _, _, err := gateway.AddKey(e.keysPath(), "extra-"+strconv.Itoa(i), map[gateway.Product]string{gateway.Ag: gateway.DefaultPlan}); err != nil {
				t.Errorf("AddKey: %v", err)
			}
			if err := e.gw.Reload(); err != nil {
				t.Errorf("Reload: %v", err)
			}
			if err := e.gw.Flush(); err != nil {
				t.Errorf("Flush: %v", err)
			}
		}
	})
	wg.Wait()
	if admitted != quota {
		t.Errorf("limited key admitted %d requests, want exactly the quota %d", admitted, quota)
	}
	if got := e.gw.Usage(lk.ID)[gateway.Maps]; got != quota {
		t.Errorf("Usage(limited)[maps] = %d, want %d", got, quota)
	}
}

// The refusals go through api.WriteError, so api.Middleware logs their codes.
func TestRefusalLoggedWithCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	var logs bytes.Buffer
	h := api.Middleware(e.handler, api.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/search/legal-location", nil))
	if w.Code != 401 || !strings.Contains(logs.String(), "code=missing_api_key") {
		t.Errorf("status %d, log %q: want 401 logged with code=missing_api_key", w.Code, logs.String())
	}
}

// discardWriter is a ResponseWriter that costs nothing, so the benchmark
// measures the middleware.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

func BenchmarkMiddleware(b *testing.B) {
	dir := b.TempDir()
	keysPath := dir + "/" + gateway.KeysFile
	all := make(map[gateway.Product]string)
	for _, p := range gateway.Products() {
		all[p] = gateway.UnlimitedPlan
	}
	unlimited, _, err := gateway.AddKey(keysPath, "unlimited", all)
	if err != nil {
		b.Fatal(err)
	}
	limited, _, err := gateway.AddKey(keysPath, "default", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	if err != nil {
		b.Fatal(err)
	}
	clock := newFakeClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	gw, err := gateway.New(gateway.Options{KeysPath: keysPath, UsagePath: dir + "/" + gateway.UsageFile, Now: clock.Now, Logger: quiet, SyncInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer gw.Close()
	h := gw.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	request := func(target, key string) *http.Request {
		r := httptest.NewRequest("GET", target, nil)
		if key != "" {
			r.Header.Set("X-API-Key", key)
		}
		return r
	}
	run := func(b *testing.B, r *http.Request, tick func(i int)) {
		w := &discardWriter{h: make(http.Header)}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			tick(i)
			h.ServeHTTP(w, r)
		}
	}
	none := func(int) {}

	b.Run("public", func(b *testing.B) { run(b, request("/openapi.json", ""), none) })
	b.Run("unlimited", func(b *testing.B) { run(b, request("/search/legal-location", unlimited), none) })
	b.Run("unlimited_query", func(b *testing.B) { run(b, request("/tiles/ab/dls/1/2/3.mvt?api_key="+unlimited, ""), none) })
	b.Run("default", func(b *testing.B) {
		// One request a second, and a new month every 1,000 requests, so
		// every request passes the rate and quota checks.
		start := clock.Now()
		run(b, request("/search/legal-location", limited), func(i int) {
			clock.ns.Store(start.AddDate(0, i/1000, 0).Add(time.Duration(i%1000) * time.Second).UnixNano())
		})
	})
	b.Run("rate_limited", func(b *testing.B) { run(b, request("/search/legal-location", limited), none) })
	b.Run("unlimited_parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			r := request("/search/legal-location", unlimited)
			w := &discardWriter{h: make(http.Header)}
			for pb.Next() {
				h.ServeHTTP(w, r)
			}
		})
	})
}
