package gateway_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"meridian/shared/api"
	"meridian/shared/gateway"
)

// logEnv is the local server's stack in small: api.Middleware (with the
// Mux's patterns as Options.Route) around the gateway around a Mux, logging
// JSON lines with the production logger.
type logEnv struct {
	*env
	h    http.Handler
	logs bytes.Buffer
}

func newLogEnv(t *testing.T) *logEnv {
	t.Helper()
	plans := plansWith(gateway.Search, gateway.Plan{Name: "one-a-second", RatePerSecond: 1, Burst: 1})
	plans[gateway.Search] = append(plans[gateway.Search], gateway.Plan{Name: "one-a-month", MonthlyQuota: 1})
	le := &logEnv{env: newEnv(t, plans)}
	ok := api.Func(func(w http.ResponseWriter, r *http.Request) error {
		api.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
		return nil
	})
	mux := api.NewMux()
	mux.Mount(
		api.Route{Pattern: "GET /search/legal-location", Handler: ok},
		api.Route{Pattern: "GET /tiles/{z}/{x}/{y}", Handler: ok},
		api.Route{Pattern: "GET /healthz", Handler: ok},
	)
	le.h = api.Middleware(le.gw.Middleware(mux), api.Options{Logger: api.NewJSONLogger(&le.logs, nil), Route: mux.Pattern})
	return le
}

// send serves one request and returns its status and its log line, decoded.
func (le *logEnv) send(target string, header http.Header) (int, map[string]any, string) {
	le.t.Helper()
	le.logs.Reset()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	le.h.ServeHTTP(w, r)
	line := le.logs.String()
	if strings.Count(line, "\n") != 1 {
		le.t.Fatalf("%s: want one log line, got %q", target, line)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		le.t.Fatalf("%s: log line %q: %v", target, line, err)
	}
	return w.Code, m, line
}

func keyHeader(key string) http.Header { return http.Header{"X-Api-Key": {key}} }

// Every request line names the route that was hit, also when the gateway
// refused the request before the Mux saw it (401, 403, 429); an unknown
// path is logged with its path and never its query; a request that gave a
// key is logged with the key's id, never the key.
func TestRequestLineOfRefusals(t *testing.T) {
	t.Parallel()
	le := newLogEnv(t)
	full, fullKey := le.addKey("full", map[gateway.Product]string{gateway.Search: gateway.UnlimitedPlan, gateway.Maps: gateway.UnlimitedPlan})
	energy, energyKey := le.addKey("energy only", map[gateway.Product]string{gateway.Energy: gateway.DefaultPlan})
	rated, ratedKey := le.addKey("rated", map[gateway.Product]string{gateway.Search: "one-a-second"})
	monthly, monthlyKey := le.addKey("monthly", map[gateway.Product]string{gateway.Search: "one-a-month"})
	revoked, revokedKey := le.addKey("revoked", map[gateway.Product]string{gateway.Search: gateway.UnlimitedPlan})
	if err := gateway.RevokeKey(le.keysPath(), revokedKey.ID); err != nil {
		t.Fatal(err)
	}
	le.reload()
	unknown := gateway.KeyPrefix + "zzzzzzzz" + strings.Repeat("a", 24)
	foreign := "not-a-meridian-key"
	foreignSum := sha256.Sum256([]byte(foreign))
	// Spend the rated key's burst and the monthly key's quota.
	for _, k := range []string{rated, monthly} {
		if status, _, _ := le.send("/search/legal-location?q=1", keyHeader(k)); status != http.StatusOK {
			t.Fatalf("first request = %d, want 200", status)
		}
	}
	const search = "GET /search/legal-location"
	for _, c := range []struct {
		name   string
		target string
		header http.Header
		status int
		code   string
		route  string
		path   string // want "path" only for an unknown route
		keyID  string // "": no key_id
		secret string // must not be in the line
	}{
		{"no key", "/search/legal-location?q=NW-1-1-1-W4", nil, 401, "missing_api_key", search, "", "", ""},
		{"key in the query of a REST route", "/search/legal-location?q=1&api_key=" + full, nil, 401, "missing_api_key", search, "", fullKey.ID, full},
		{"unknown key", "/search/legal-location?q=1", keyHeader(unknown), 401, "invalid_api_key", search, "", "zzzzzzzz", unknown},
		{"unknown key of another form", "/search/legal-location?q=1", keyHeader(foreign), 401, "invalid_api_key", search, "", hex.EncodeToString(foreignSum[:])[:8], foreign},
		{"key too long to hash", "/search/legal-location?q=1", keyHeader(strings.Repeat("k", 600)), 401, "invalid_api_key", search, "", "-", strings.Repeat("k", 600)},
		{"revoked key", "/search/legal-location?q=1", keyHeader(revoked), 401, "invalid_api_key", search, "", revokedKey.ID, revoked},
		{"product not in plan", "/search/legal-location?q=1", keyHeader(energy), 403, "product_not_in_plan", search, "", energyKey.ID, energy},
		{"rate limited", "/search/legal-location?q=1", keyHeader(rated), 429, "rate_limited", search, "", ratedKey.ID, rated},
		{"quota exceeded", "/search/legal-location?q=1", keyHeader(monthly), 429, "quota_exceeded", search, "", monthlyKey.ID, monthly},
		{"admitted", "/search/legal-location?q=1", keyHeader(full), 200, "", search, "", fullKey.ID, full},
		{"tile key in the query", "/tiles/3/1/2?api_key=" + full, nil, 200, "", "GET /tiles/{z}/{x}/{y}", "", fullKey.ID, full},
		{"tile without a key", "/tiles/3/1/2", nil, 401, "missing_api_key", "GET /tiles/{z}/{x}/{y}", "", "", ""},
		{"unknown product path, no key", "/search/no-such-thing?token=s3cr3t-token", nil, 401, "missing_api_key", "", "/search/no-such-thing", "", "s3cr3t-token"},
		{"unknown product path, with a key", "/search/no-such-thing?token=s3cr3t-token", keyHeader(full), 404, "not_found", "", "/search/no-such-thing", fullKey.ID, "s3cr3t-token"},
		{"unknown public path", "/wp-login.php?pwd=hunter2", nil, 404, "not_found", "", "/wp-login.php", "", "hunter2"},
		{"public route", "/healthz?x=1", nil, 200, "", "GET /healthz", "", "", ""},
	} {
		status, m, line := le.send(c.target, c.header)
		if status != c.status {
			t.Errorf("%s: status %d, want %d", c.name, status, c.status)
		}
		if m["status"] != float64(c.status) || m["route"] != c.route || m["method"] != "GET" {
			t.Errorf("%s: line %s: want status %d, method GET, route %q", c.name, line, c.status, c.route)
		}
		if code, _ := m["code"].(string); code != c.code {
			t.Errorf("%s: line %s: code %q, want %q", c.name, line, code, c.code)
		}
		if path, has := m["path"]; (c.path == "") == has || (has && path != c.path) {
			t.Errorf("%s: line %s: path %v (present %v), want %q", c.name, line, path, has, c.path)
		}
		if id, has := m["key_id"]; (c.keyID == "") == has || (has && id != c.keyID) {
			t.Errorf("%s: line %s: key_id %v (present %v), want %q", c.name, line, id, has, c.keyID)
		}
		if c.secret != "" && strings.Contains(line, c.secret) {
			t.Errorf("%s: line %s holds %q", c.name, line, c.secret)
		}
	}
}

// A long unknown path is logged cut, so a request line stays small.
func TestRequestLineCutsLongPaths(t *testing.T) {
	t.Parallel()
	le := newLogEnv(t)
	long := "/" + strings.Repeat("é", 400)
	_, m, line := le.send(long, nil)
	p, _ := m["path"].(string)
	if !strings.HasPrefix(long, strings.TrimSuffix(p, "…")) || len(p) > 256+len("…") || len(p) < 200 || !strings.HasSuffix(p, "…") {
		t.Errorf("line %s: path %q, want the first 256 bytes of the path, cut between characters, and …", line, p)
	}
}
