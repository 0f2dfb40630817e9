package gateway_test

import (
	"bytes"
	"errors"
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
	"meridian/shared/apierr"
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

// step is one request in a scripted sequence: advance the clock, send, check.
type step struct {
	advance       time.Duration
	want          result
	wantRemaining string // X-RateLimit-Remaining; "" means absent
}

func runSteps(t *testing.T, e *env, target, key string, steps []step) {
	t.Helper()
	for i, s := range steps {
		e.clock.Advance(s.advance)
		w := e.do(target, key)
		got := resultOf(t, w)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("step %d (at %s): GET %s (-want +got):\n%s\nbody: %s", i, e.clock.Now().Format(time.RFC3339Nano), target, diff, w.Body)
		}
		if got := w.Header().Get("X-RateLimit-Remaining"); got != s.wantRemaining {
			t.Errorf("step %d: X-RateLimit-Remaining = %q, want %q", i, got, s.wantRemaining)
		}
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	ok := result{Status: 200}
	limited := func(retry string) result { return result{Status: 429, Code: "rate_limited", RetryAfter: retry} }
	tests := []struct {
		name    string
		product gateway.Product
		plan    gateway.Plan // replaces the default plan; zero keeps DefaultPlans
		target  string
		steps   []step
	}{
		{
			name: "search default: burst of 5 then 1 per second", product: gateway.Search, target: "/search/legal-location",
			steps: []step{
				{want: ok, wantRemaining: "999"}, {want: ok, wantRemaining: "998"}, {want: ok, wantRemaining: "997"},
				{want: ok, wantRemaining: "996"}, {want: ok, wantRemaining: "995"},
				{want: limited("1"), wantRemaining: "995"}, // refused requests do not count
				{advance: 999 * time.Millisecond, want: limited("1"), wantRemaining: "995"},
				{advance: time.Millisecond, want: ok, wantRemaining: "994"},
				{want: limited("1"), wantRemaining: "994"},
				{advance: 3 * time.Second, want: ok, wantRemaining: "993"},
				{want: ok, wantRemaining: "992"}, {want: ok, wantRemaining: "991"},
				{want: limited("1"), wantRemaining: "991"},
			},
		},
		{
			name: "batch default: burst of 2", product: gateway.Batch, target: "/batch/legal-location",
			steps: []step{
				{want: ok, wantRemaining: "999"}, {want: ok, wantRemaining: "998"},
				{want: limited("1"), wantRemaining: "998"},
			},
		},
		{
			name: "slow plan: Retry-After is the time to the next token", product: gateway.Ag, target: "/ag/report",
			plan: gateway.Plan{Name: "default", RatePerSecond: 0.1, Burst: 1},
			steps: []step{
				{want: ok},
				{want: limited("10")},
				{advance: 2500 * time.Millisecond, want: limited("8")}, // 7.5 s rounded up
				{advance: 7500 * time.Millisecond, want: ok},
			},
		},
		{
			name: "maps default has no rate limit", product: gateway.Maps, target: "/tiles/ab/dls/1/2/3.mvt",
			steps: []step{
				{want: ok, wantRemaining: "9999"}, {want: ok, wantRemaining: "9998"}, {want: ok, wantRemaining: "9997"},
				{want: ok, wantRemaining: "9996"}, {want: ok, wantRemaining: "9995"}, {want: ok, wantRemaining: "9994"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var plans gateway.Plans
			if tc.plan.Name != "" {
				plans = plansWith(tc.product, tc.plan)
			}
			e := newEnv(t, plans)
			key, k := e.addKey("k", map[gateway.Product]string{tc.product: gateway.DefaultPlan})
			runSteps(t, e, tc.target, key, tc.steps)
			admitted := 0
			for _, s := range tc.steps {
				if s.want.Status == 200 {
					admitted++
				}
			}
			if got := e.gw.Usage(k.ID)[tc.product]; got != int64(admitted) {
				t.Errorf("Usage(%s)[%v] = %d, want %d (admitted requests only)", k.ID, tc.product, got, admitted)
			}
		})
	}
}

func TestRateLimitPerKeyAndProduct(t *testing.T) {
	t.Parallel()
	e := newEnv(t, plansWith(gateway.Search, gateway.Plan{Name: "default", RatePerSecond: 1, Burst: 1}))
	both := map[gateway.Product]string{gateway.Search: "default", gateway.Autocomplete: "default"}
	a, _ := e.addKey("a", both)
	b, _ := e.addKey("b", both)
	steps := []struct {
		target, key string
		want        int
	}{
		{"/search/legal-location", a, 200},
		{"/search/legal-location", a, 429},
		{"/search/legal-location", b, 200},       // another key has its own bucket
		{"/autocomplete/legal-location", a, 200}, // another product has its own bucket
	}
	for i, s := range steps {
		if w := e.do(s.target, s.key); w.Code != s.want {
			t.Errorf("step %d: GET %s = %d, want %d", i, s.target, w.Code, s.want)
		}
	}
}

func TestQuota(t *testing.T) {
	t.Parallel()
	// Three requests a month and no rate limit, 1 minute before December.
	plans := plansWith(gateway.Search, gateway.Plan{Name: "default", MonthlyQuota: 3})
	e := newEnv(t, plans)
	e.clock.ns.Store(time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC).UnixNano())
	key, k := e.addKey("k", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	exceeded := func(retry string) result { return result{Status: 429, Code: "quota_exceeded", RetryAfter: retry} }
	runSteps(t, e, "/search/legal-location", key, []step{
		{want: result{Status: 200}, wantRemaining: "2"},
		{want: result{Status: 200}, wantRemaining: "1"},
		{want: result{Status: 200}, wantRemaining: "0"},
		{want: exceeded("60"), wantRemaining: "0"},
		{advance: 59*time.Second + 500*time.Millisecond, want: exceeded("1"), wantRemaining: "0"}, // 0.5 s rounds up
		{advance: 500 * time.Millisecond, want: result{Status: 200}, wantRemaining: "2"},          // December
	})
	if diff := cmp.Diff(map[gateway.Product]int64{gateway.Search: 1}, e.gw.Usage(k.ID)); diff != "" {
		t.Errorf("Usage in December (-want +got):\n%s", diff)
	}
	w := e.do("/search/legal-location", key)
	if got := w.Header().Get("X-RateLimit-Limit"); got != "3" {
		t.Errorf("X-RateLimit-Limit = %q, want 3", got)
	}
	e.do("/search/legal-location", key)
	w = e.do("/search/legal-location", key)
	if msg := errorMessage(t, w); !strings.Contains(msg, "resets at 2027-01-01 00:00 UTC") {
		t.Errorf("quota message = %q, want it to name the reset time 2027-01-01 00:00 UTC", msg)
	}
}

func TestQuotaDefaultPlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key, _ := e.addKey("k", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	for i := range 1000 {
		e.clock.Advance(time.Second)
		if w := e.do("/search/legal-location", key); w.Code != 200 {
			t.Fatalf("request %d = %d, want 200: %s", i+1, w.Code, w.Body)
		}
	}
	e.clock.Advance(time.Second)
	w := e.do("/search/legal-location", key)
	if got := resultOf(t, w); got.Code != "quota_exceeded" {
		t.Errorf("request 1001 = %+v, want quota_exceeded", got)
	}
	next := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	want := int64(next.Sub(e.clock.Now()).Seconds())
	if got, _ := strconv.ParseInt(w.Header().Get("Retry-After"), 10, 64); got != want {
		t.Errorf("Retry-After = %d, want %d (seconds to %s)", got, want, next)
	}
}

func TestQuotaSurvivesRestart(t *testing.T) {
	t.Parallel()
	plans := plansWith(gateway.Search, gateway.Plan{Name: "default", MonthlyQuota: 3})
	e := newEnv(t, plans)
	key, k := e.addKey("k", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan, gateway.Maps: gateway.DefaultPlan})
	e.do("/search/legal-location", key)
	e.do("/search/legal-location", key)
	e.do("/tiles/ab/dls/1/1/1.mvt", key)
	if err := e.gw.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	log, err := gateway.ReadUsage(e.usagePath())
	if err != nil {
		t.Fatalf("ReadUsage: %v", err)
	}
	want := map[gateway.Product]int64{gateway.Search: 2, gateway.Maps: 1}
	if diff := cmp.Diff(want, log.Month(k.ID, e.clock.Now())); diff != "" {
		t.Errorf("usage file after Close (-want +got):\n%s", diff)
	}

	e.start(plans) // restart on the same files
	if diff := cmp.Diff(want, e.gw.Usage(k.ID)); diff != "" {
		t.Errorf("Usage after restart (-want +got):\n%s", diff)
	}
	runSteps(t, e, "/search/legal-location", key, []step{
		{want: result{Status: 200}, wantRemaining: "0"},
		{want: result{Status: 429, Code: "quota_exceeded", RetryAfter: strconv.Itoa(int(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Sub(e.clock.Now()).Seconds()))}, wantRemaining: "0"},
	})
}

func TestFlushOnlyWhenChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key, _ := e.addKey("k", map[gateway.Product]string{gateway.Maps: gateway.DefaultPlan})
	if err := e.gw.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.usagePath()); !os.IsNotExist(err) {
		t.Errorf("usage file written before any request (stat err = %v)", err)
	}
	e.do("/tiles/a/b.json", key)
	if err := e.gw.Flush(); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(e.usagePath())
	if err != nil {
		t.Fatalf("usage file after a request and Flush: %v", err)
	}
	if err := e.gw.Flush(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(e.usagePath())
	if !os.SameFile(before, after) {
		t.Errorf("Flush without new requests rewrote the usage file")
	}
	if before.Mode().Perm() != 0o600 {
		t.Errorf("usage file mode = %v, want 0600", before.Mode().Perm())
	}
}

func TestUnlimitedNeverRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	all := make(map[gateway.Product]string)
	for _, p := range gateway.Products() {
		all[p] = gateway.UnlimitedPlan
	}
	key, k := e.addKey("load-test", all)
	targets := map[gateway.Product]string{
		gateway.Search: "/search/legal-location", gateway.Autocomplete: "/autocomplete/legal-location",
		gateway.Batch: "/batch/legal-location", gateway.Maps: "/tiles/ab/dls/1/2/3.mvt",
		gateway.Ag: "/ag/report", gateway.Energy: "/energy/wells",
	}
	const n = 3000 // three times the largest default quota of these, all in one instant
	for p, target := range targets {
		for i := range n {
			w := e.do(target, key)
			if w.Code != http.StatusOK {
				t.Fatalf("%v request %d = %d, want 200: %s", p, i, w.Code, w.Body)
			}
			if h := w.Header().Get("X-RateLimit-Limit"); h != "" {
				t.Fatalf("X-RateLimit-Limit = %q on an unlimited plan, want none", h)
			}
		}
	}
	for _, p := range gateway.Products() {
		if got := e.gw.Usage(k.ID)[p]; got != n {
			t.Errorf("Usage[%v] = %d, want %d (unlimited plans are counted too)", p, got, n)
		}
	}
}

func TestReload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	plain, k, err := gateway.AddKey(e.keysPath(), "late", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	if err != nil {
		t.Fatal(err)
	}
	if w := e.do("/search/legal-location", plain); w.Code != 401 {
		t.Errorf("before reload: %d, want 401", w.Code)
	}
	e.reload()
	if w := e.do("/search/legal-location", plain); w.Code != 200 {
		t.Errorf("after reload: %d, want 200", w.Code)
	}
	if err := gateway.RevokeKey(e.keysPath(), k.ID); err != nil {
		t.Fatal(err)
	}
	e.reload()
	if got := resultOf(t, e.do("/search/legal-location", plain)); got.Code != "invalid_api_key" {
		t.Errorf("after revoke and reload: %+v, want invalid_api_key", got)
	}
}

func TestReloadKeepsRateState(t *testing.T) {
	t.Parallel()
	e := newEnv(t, plansWith(gateway.Search, gateway.Plan{Name: "default", RatePerSecond: 1, Burst: 1}))
	key, _ := e.addKey("a", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan})
	e.do("/search/legal-location", key)
	e.addKey("b", map[gateway.Product]string{gateway.Search: gateway.DefaultPlan}) // reloads
	if w := e.do("/search/legal-location", key); w.Code != 429 {
		t.Errorf("after an unrelated reload: %d, want 429 (the bucket survives)", w.Code)
	}
}

func TestReloadBadFileKeepsKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key, _ := e.addKey("a", map[gateway.Product]string{gateway.Maps: gateway.DefaultPlan})
	if err := os.WriteFile(e.keysPath(), []byte(`{"keys": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.gw.Reload(); err == nil {
		t.Errorf("Reload of a broken keys file = nil, want an error")
	}
	if w := e.do("/tiles/x.json", key); w.Code != 200 {
		t.Errorf("after a failed reload: %d, want 200 (previous keys stay)", w.Code)
	}
}

func TestBackgroundReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keysPath := dir + "/" + gateway.KeysFile
	var logs bytes.Buffer
	var logMu sync.Mutex
	gw, err := gateway.New(gateway.Options{
		KeysPath:     keysPath,
		SyncInterval: 10 * time.Millisecond,
		Logger:       slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	h := gw.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	status := func(key string) int {
		r := httptest.NewRequest("GET", "/energy/wells", nil)
		r.Header.Set("X-API-Key", key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	waitFor := func(key string, want int) {
		t.Helper()
		// The sync runs every 10 ms; the deadline only stops a test
		// that would otherwise hang (a loaded machine can starve it for
		// seconds).
		deadline := time.Now().Add(time.Minute)
		for status(key) != want {
			if time.Now().After(deadline) {
				t.Fatalf("status stayed %d, want %d within a minute", status(key), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// The keys file does not exist when the server starts.
	plain, _, err := gateway.AddKey(keysPath, "cli", map[gateway.Product]string{gateway.Energy: gateway.DefaultPlan})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(plain, 200)
	if err := gateway.RevokeKey(keysPath, "cli"); err != nil {
		t.Fatal(err)
	}
	waitFor(plain, 401)
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "keys loaded") {
		t.Errorf("log %q does not mention the reload", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
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

// What costs quota: an answer below 500 from a mounted route. Unknown
// paths, methods a path does not allow, 5xx answers and panics are
// refunded, and X-RateLimit-Remaining says so; the log line names the
// route and the key's public id, never the key.
func TestQuotaChargesAnsweredRoutesOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	plain, k := e.addKey("metered", map[gateway.Product]string{gateway.Energy: gateway.DefaultPlan})
	quota := gateway.DefaultPlans()[gateway.Energy][0].MonthlyQuota
	mux := api.NewMux()
	mux.Mount(
		api.Route{Pattern: "GET /energy/ok", Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
			api.WriteJSON(w, 200, map[string]int{"n": 1})
			return nil
		})},
		api.Route{Pattern: "GET /energy/bad", Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
			return apierr.Invalidf("invalid_parameter", "bad")
		})},
		api.Route{Pattern: "GET /energy/fail", Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
			return apierr.Unavailablef(errors.New("store down"), "try again")
		})},
		api.Route{Pattern: "GET /energy/panic", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			panic("boom")
		})},
	)
	var logs bytes.Buffer
	h := api.Middleware(e.gw.Middleware(mux), api.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	send := func(method, path string) (int, string) {
		r := httptest.NewRequest(method, path, nil)
		r.Header.Set("X-API-Key", plain)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Header().Get("X-RateLimit-Remaining")
	}
	for _, c := range []struct {
		method, path string
		status       int
		charged      bool
	}{
		{"GET", "/energy/ok", 200, true},
		{"GET", "/energy/bad", 400, true},
		{"GET", "/energy/nope", 404, false},
		{"DELETE", "/energy/ok", 405, false},
		{"GET", "/energy/fail", 503, false},
		{"GET", "/energy/panic", 500, false},
		{"GET", "/energy/ok", 200, true},
	} {
		before := e.gw.Usage(k.ID)[gateway.Energy]
		status, remaining := send(c.method, c.path)
		after := e.gw.Usage(k.ID)[gateway.Energy]
		want := before
		if c.charged {
			want++
		}
		if status != c.status || after != want || remaining != strconv.FormatInt(quota-after, 10) {
			t.Errorf("%s %s: status %d, usage %d → %d, X-RateLimit-Remaining %s; want %d, usage %d, remaining %d",
				c.method, c.path, status, before, after, remaining, c.status, want, quota-want)
		}
	}
	out := logs.String()
	if !strings.Contains(out, `"route":"GET /energy/ok"`) || !strings.Contains(out, `"key_id":"`+k.ID+`"`) {
		t.Errorf("request log lacks the route or the key id:\n%s", out)
	}
	if strings.Contains(out, plain) {
		t.Errorf("the key itself is in the log")
	}
}
