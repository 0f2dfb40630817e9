package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/demo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy"
	"meridian/shared/gateway"
	"meridian/shared/watch"
)

// receiver is a webhook endpoint that checks every delivery's signature
// and answers 500 to its first fail requests.
type receiver struct {
	mu       sync.Mutex
	secret   string
	fail     int
	now      func() time.Time
	got      []watch.Payload // the deliveries it accepted
	attempts map[string]int  // by Idempotency-Key
	badSigs  int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err := watch.Verify(rc.secret, r.Header.Get(watch.SignatureHeader), body, rc.now(), 5*time.Minute); err != nil {
		rc.badSigs++
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	rc.attempts[r.Header.Get("Idempotency-Key")]++
	if rc.fail > 0 {
		rc.fail--
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	var p watch.Payload
	if err := json.Unmarshal(body, &p); err != nil || p.DeliveryID != r.Header.Get("Idempotency-Key") {
		http.Error(w, "bad payload", http.StatusBadRequest)
		return
	}
	rc.got = append(rc.got, p)
	w.WriteHeader(http.StatusNoContent)
}

// The test of watches: a watch made by one key is invisible to
// another; after the demo's next version is ingested, its changes in the
// watched township reach a receiver that verifies every signature, which
// answers 500 twice and sees the same delivery retried, across a restart
// of the server, then accepted once; the deliveries list every attempt.
func TestWatchDeliversSignedChanges(t *testing.T) {
	dir := t.TempDir()
	other, _, err := gateway.AddKey(datadir.Dir(dir).Keys(), "other customer", map[gateway.Product]string{gateway.Changes: gateway.DefaultPlan})
	if err != nil {
		t.Fatal(err)
	}
	clock := demo.AsOf().Add(12 * time.Hour)
	var clockMu sync.Mutex
	now := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return clock }
	advance := func(d time.Duration) { clockMu.Lock(); clock = clock.Add(d); clockMu.Unlock() }
	rc := &receiver{fail: 2, now: now, attempts: map[string]int{}}
	ts := httptest.NewTLSServer(rc)
	defer ts.Close()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	start := func() (*server, string) {
		srv, key := newTestServerIn(t, dir, func(c *serverConfig) {
			c.allowPrivateWebhooks, c.webhookTLS = true, &tls.Config{RootCAs: pool}
		})
		srv.watches.Sender.Now, srv.watches.Sender.Rand = now, func() float64 { return 0.5 }
		return srv, key
	}
	srv, key := start()
	do := func(srv *server, method, target, key, body string) (int, string) {
		t.Helper()
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		srv.handler.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}

	code, body := do(srv, "POST", "/watches", key, `{"url":"`+ts.URL+`/hook","areas":["24-1-W5","NW-25-24-1-W5"],"kinds":["well","disposition"],"description":"home quarter"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /watches: %d %s", code, body)
	}
	var made struct {
		ID, Secret string
		Areas      []string
	}
	json.Unmarshal([]byte(body), &made)
	if made.ID == "" || !strings.HasPrefix(made.Secret, "whsec_") || len(made.Areas) != 2 {
		t.Fatalf("POST /watches answered %s", body)
	}
	rc.secret = made.Secret
	if code, body := do(srv, "GET", "/watches/"+made.ID, key, ""); code != 200 || strings.Contains(body, made.Secret) {
		t.Errorf("GET own watch: %d %s (the secret is shown once, at creation)", code, body)
	}
	for _, c := range []struct{ method, target string }{{"GET", "/watches/" + made.ID}, {"DELETE", "/watches/" + made.ID}, {"GET", "/watches/" + made.ID + "/deliveries"}} {
		if code, body := do(srv, c.method, c.target, other, ""); code != 404 || !strings.Contains(body, `"code":"not_found"`) {
			t.Errorf("%s %s with another key: %d %s, want 404", c.method, c.target, code, body)
		}
	}
	if code, body := do(srv, "GET", "/watches", other, ""); code != 200 || !strings.Contains(body, `"rows":[]`) {
		t.Errorf("GET /watches with another key: %d %s, want none", code, body)
	}

	// The demo is dispatched first: no changes, no delivery.
	if err := srv.watches.Once(t.Context()); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if err := energydemo.Write(src); err != nil {
		t.Fatal(err)
	}
	if _, err := energydemo.WriteNext(src); err != nil {
		t.Fatal(err)
	}
	if _, err := dataingest.IngestReports(t.Context(), datadir.Dir(dir), dataingest.Reports{Domain: energy.Dataset, Dir: src, Invented: true, AsOf: demo.AsOf()}); err != nil {
		t.Fatal(err)
	}
	srv.reloadReports()
	_, feed := do(srv, "GET", "/energy/changes?legal_location=24-1-W5&per_page=200", key, "")
	var want changesAnswer
	json.Unmarshal([]byte(feed), &want)

	if err := srv.watches.Once(t.Context()); err != nil { // dispatch, first attempt: 500
		t.Fatal(err)
	}
	srv.Close()
	srv, _ = start() // a restart between attempts loses nothing
	for range 3 {
		advance(time.Hour)
		if err := srv.watches.Once(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.badSigs != 0 || len(rc.got) != 1 || len(rc.attempts) != 1 {
		t.Fatalf("receiver: %d bad signatures, %d deliveries accepted, %d delivery ids; want 0, 1, 1", rc.badSigs, len(rc.got), len(rc.attempts))
	}
	for id, n := range rc.attempts {
		if n != 3 {
			t.Errorf("delivery %s attempted %d times, want 3 (500, 500, 204)", id, n)
		}
	}
	got := map[string]int{}
	for _, c := range rc.got[0].Changes {
		got[c.ID]++
	}
	if len(want.Rows) == 0 || len(got) != len(want.Rows) {
		t.Errorf("delivered %d changes, GET /energy/changes has %d in the township", len(got), len(want.Rows))
	}
	for _, c := range want.Rows {
		if got[c.ID] != 1 {
			t.Errorf("change %s delivered %d times, want once", c.ID, got[c.ID])
		}
	}
	code, body = do(srv, "GET", "/watches/"+made.ID+"/deliveries", key, "")
	var ds struct{ Rows []watch.Delivery }
	json.Unmarshal([]byte(body), &ds)
	if code != 200 || len(ds.Rows) != 1 || ds.Rows[0].State != watch.Delivered || len(ds.Rows[0].Attempts) != 3 ||
		ds.Rows[0].Attempts[0].Status != 500 || ds.Rows[0].Attempts[2].Status != 204 {
		t.Errorf("deliveries: %d %s", code, body)
	}
	// Nothing is sent again: a delivered delivery is done, and the
	// version is dispatched.
	rc.mu.Unlock()
	advance(24 * time.Hour)
	err = srv.watches.Once(t.Context())
	rc.mu.Lock()
	if err != nil || rc.attempts[rc.got[0].DeliveryID] != 3 {
		t.Errorf("after delivery: %v, %d attempts", err, rc.attempts[rc.got[0].DeliveryID])
	}
	if code, _ := do(srv, "DELETE", "/watches/"+made.ID, key, ""); code != 204 {
		t.Errorf("DELETE own watch: %d", code)
	}
	if code, _ := do(srv, "GET", "/watches/"+made.ID, key, ""); code != 404 {
		t.Errorf("GET a deleted watch: %d", code)
	}
}

// Webhook URLs to loopback, private and link-local addresses are refused
// unless the server allows them; http only with that flag.
func TestWatchURLsMustBePublic(t *testing.T) {
	t.Parallel()
	srv, key := newTestServer(t)
	for _, u := range []string{"https://127.0.0.1/hook", "https://localhost/hook", "https://10.1.2.3/hook", "https://169.254.169.254/latest",
		"https://[::1]/hook", "https://192.168.0.10/", "https://100.64.0.1/", "http://203.0.113.9/hook", "ftp://x.example/", "https://user:pw@203.0.113.9/"} {
		req := httptest.NewRequest("POST", "/watches", strings.NewReader(`{"url":"`+u+`","areas":["24-1-W5"]}`))
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		srv.handler.ServeHTTP(rec, req)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"invalid_parameter"`) {
			t.Errorf("%s: %d %s, want 400", u, rec.Code, rec.Body)
		}
	}
	for body, want := range map[string]string{
		`{"url":"https://203.0.113.9/hook","areas":[]}`:                        "invalid_parameter",
		`{"url":"https://203.0.113.9/hook","areas":["A-2-F/93-P-8"]}`:          "bc_not_supported",
		`{"url":"https://203.0.113.9/hook","areas":["Lot 10 Con 1 Adjala"]}`:   "invalid_legal_location",
		`{"url":"https://203.0.113.9/hook","areas":["24-1-W5"],"kinds":["x"]}`: "invalid_parameter",
		`{"url":"https://203.0.113.9/hook","areas":["24-1-W5"],"extra":1}`:     "invalid_parameter",
		`not json`: "invalid_parameter",
	} {
		req := httptest.NewRequest("POST", "/watches", strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		srv.handler.ServeHTTP(rec, req)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"`+want+`"`) {
			t.Errorf("%s: %d %s, want 400 %s", body, rec.Code, rec.Body, want)
		}
	}
	req := httptest.NewRequest("POST", "/watches", strings.NewReader(`{"url":"https://203.0.113.9/hook","areas":["24-1-W5","9-10-60-22-W5"]}`))
	req.Header.Set("X-API-Key", key)
	rec := httptest.NewRecorder()
	srv.handler.ServeHTTP(rec, req)
	if rec.Code != 201 {
		t.Errorf("a public address: %d %s, want 201", rec.Code, rec.Body)
	}
	allowed, key2 := newTestServerIn(t, t.TempDir(), func(c *serverConfig) { c.allowPrivateWebhooks = true })
	req = httptest.NewRequest("POST", "/watches", strings.NewReader(`{"url":"http://127.0.0.1:9/hook","areas":["24-1-W5"]}`))
	req.Header.Set("X-API-Key", key2)
	rec = httptest.NewRecorder()
	allowed.handler.ServeHTTP(rec, req)
	if rec.Code != 201 {
		t.Errorf("127.0.0.1 with -allow-private-webhooks: %d %s, want 201", rec.Code, rec.Body)
	}
}

// A second server over the same data directory (the load test's logged
// and quiet pair) starts, serves everything else, and answers 503 on the
// watches, which the first one holds and delivers.
func TestSecondServerLeavesWatchesToTheFirst(t *testing.T) {
	dir := t.TempDir()
	first, key := newTestServerIn(t, dir)
	second, _ := newTestServerIn(t, dir)
	for _, c := range []struct {
		srv  *server
		want int
	}{{first, 200}, {second, 503}} {
		req := httptest.NewRequest("GET", "/watches", nil)
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		c.srv.handler.ServeHTTP(rec, req)
		if rec.Code != c.want || (c.want == 503 && rec.Header().Get("Retry-After") == "") {
			t.Errorf("GET /watches: %d %s, want %d", rec.Code, rec.Body, c.want)
		}
	}
	if second.watches != nil {
		t.Error("the second server runs a webhook runner")
	}
}
