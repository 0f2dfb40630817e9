package gateway_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"meridian/shared/gateway"
)

// quiet discards the Gateway's logs in tests.
var quiet = slog.New(slog.DiscardHandler)

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock(t time.Time) *fakeClock {
	c := new(fakeClock)
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// env is a data directory with a Gateway in front of a handler that answers
// 200 "ok" and remembers the Caller it saw.
type env struct {
	t       *testing.T
	dir     string
	clock   *fakeClock
	gw      *gateway.Gateway
	handler http.Handler
	caller  atomic.Pointer[gateway.Caller]
}

func (e *env) keysPath() string  { return filepath.Join(e.dir, gateway.KeysFile) }
func (e *env) usagePath() string { return filepath.Join(e.dir, gateway.UsageFile) }

// newEnv starts a Gateway on a fresh data directory at 2026-11-15 12:00 UTC;
// the Gateway has no background goroutine (tests call Reload and Flush).
func newEnv(t *testing.T, plans gateway.Plans) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), clock: newFakeClock(time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC))}
	e.start(plans)
	return e
}

func (e *env) start(plans gateway.Plans) {
	e.t.Helper()
	gw, err := gateway.New(gateway.Options{
		KeysPath:     e.keysPath(),
		UsagePath:    e.usagePath(),
		Plans:        plans,
		Now:          e.clock.Now,
		Logger:       quiet,
		SyncInterval: -1,
	})
	if err != nil {
		e.t.Fatalf("New: %v", err)
	}
	e.t.Cleanup(func() { gw.Close() })
	e.gw = gw
	e.handler = gw.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := gateway.CallerFrom(r.Context()); ok {
			e.caller.Store(&c)
		}
		w.Write([]byte("ok"))
	}))
}

// addKey adds a key and makes the Gateway see it.
func (e *env) addKey(name string, products map[gateway.Product]string) (string, gateway.Key) {
	e.t.Helper()
	plain, k, err := gateway.AddKey(e.keysPath(), name, products)
	if err != nil {
		e.t.Fatalf("AddKey(%q): %v", name, err)
	}
	e.reload()
	return plain, k
}

func (e *env) reload() {
	e.t.Helper()
	if err := e.gw.Reload(); err != nil {
		e.t.Fatalf("Reload: %v", err)
	}
}

// do sends a GET for target with key in the X-API-Key header (when not "").
func (e *env) do(target, key string) *httptest.ResponseRecorder {
	return e.doMethod(http.MethodGet, target, key)
}

func (e *env) doMethod(method, target, key string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	if key != "" {
		r.Header.Set("X-API-Key", key)
	}
	w := httptest.NewRecorder()
	e.handler.ServeHTTP(w, r)
	return w
}

// errorBody is ARCHITECTURE §4's error body.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

// result is what the tests compare of a response.
type result struct {
	Status     int
	Code       string // error code, "" on success
	RetryAfter string
}

func resultOf(t *testing.T, w *httptest.ResponseRecorder) result {
	t.Helper()
	res := result{Status: w.Code, RetryAfter: w.Header().Get("Retry-After")}
	if w.Code != http.StatusOK {
		var b errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
			t.Fatalf("error body %q: %v", w.Body, err)
		}
		if b.Message != b.Error.Message || b.Message == "" {
			t.Errorf("error body %q: top-level message must repeat error.message", w.Body)
		}
		res.Code = b.Error.Code
	}
	return res
}

func errorMessage(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var b errorBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("error body %q: %v", w.Body, err)
	}
	return b.Message
}

// plansWith returns DefaultPlans with plan replacing product p's plan of
// the same name, or added to p's plans.
func plansWith(p gateway.Product, plan gateway.Plan) gateway.Plans {
	plans := gateway.DefaultPlans()
	for i, pl := range plans[p] {
		if pl.Name == plan.Name {
			plans[p][i] = plan
			return plans
		}
	}
	plans[p] = append(plans[p], plan)
	return plans
}
