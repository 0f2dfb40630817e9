package gateway_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/gateway"
)

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
		gateway.Ag: "/ag/report", gateway.Energy: "/energy/wells", gateway.Changes: "/energy/changes",
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
