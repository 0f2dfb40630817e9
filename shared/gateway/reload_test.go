package gateway_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"meridian/shared/gateway"
)

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
