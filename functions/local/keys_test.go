package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"meridian/shared/datadir"
	"meridian/shared/gateway"
)

var (
	spaces    = regexp.MustCompile(` +`)
	keyFormat = regexp.MustCompile(`^mk_[a-z2-7]{32}$`) // as gateway writes keys
)

// keysRun runs `meridian keys args...` on dir.
func keysRun(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runKeys(args, datadir.Dir(dir), &out, &errOut)
	return code, out.String(), errOut.String()
}

// listRow returns the `keys list` row of the key with the given id.
func listRow(t *testing.T, dir, id string) string {
	t.Helper()
	code, out, stderr := keysRun(t, dir, "list")
	if code != 0 {
		t.Fatalf("keys list = %d, stderr %q", code, stderr)
	}
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, id+" ") {
			return strings.TrimSpace(line)
		}
	}
	t.Fatalf("keys list has no row for %s:\n%s", id, out)
	return ""
}

func TestKeysCommandEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	code, out, stderr := keysRun(t, dir, "list")
	if code != 0 || !strings.Contains(out, "No keys") {
		t.Errorf("keys list on an empty directory = %d, %q, %q; want 0 and a hint", code, out, stderr)
	}

	// add
	code, out, stderr = keysRun(t, dir, "add", "-name", "acme corp", "-products", "search,batch")
	if code != 0 {
		t.Fatalf("keys add = %d, stderr %q", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^key: +(\S+)$`).FindStringSubmatch(out)
	if m == nil || !keyFormat.MatchString(m[1]) {
		t.Fatalf("keys add output has no key line:\n%s", out)
	}
	key := m[1]
	id := key[3:11]
	for _, want := range []string{"id:       " + id, "name:     acme corp", "products: search:default, batch:default", "shown again"} {
		if !strings.Contains(out, want) {
			t.Errorf("keys add output lacks %q:\n%s", want, out)
		}
	}

	// list shows it, with this month's usage from a server's usage file
	gw, err := gateway.New(gateway.Options{
		KeysPath:     datadir.Dir(dir).Keys(),
		UsagePath:    datadir.Dir(dir).Usage(),
		Logger:       slog.New(slog.DiscardHandler),
		SyncInterval: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	h := gw.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for range 2 {
		r := httptest.NewRequest("GET", "/search/legal-location", nil)
		r.Header.Set("X-API-Key", key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("request with the new key = %d: %s", w.Code, w.Body)
		}
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	row := listRow(t, dir, id)
	wantRow := regexp.MustCompile(`^` + id + ` +acme corp +search:default,batch:default +\d{4}-\d\d-\d\d \d\d:\d\dZ +- +search=2 batch=0$`)
	if !wantRow.MatchString(row) {
		t.Errorf("keys list row = %q, want it to match %s", row, wantRow)
	}
	_, out, _ = keysRun(t, dir, "list")
	if header := "USAGE " + time.Now().UTC().Format("2006-01"); !strings.Contains(out, header) {
		t.Errorf("keys list header lacks %q:\n%s", header, out)
	}

	// revoke, by name
	code, out, stderr = keysRun(t, dir, "revoke", "acme corp")
	if code != 0 || !strings.Contains(out, "Revoked") {
		t.Fatalf("keys revoke = %d, %q, %q", code, out, stderr)
	}
	row = listRow(t, dir, id)
	if !regexp.MustCompile(`Z +\d{4}-\d\d-\d\d \d\d:\d\dZ +search=2`).MatchString(row) {
		t.Errorf("keys list row after revoke = %q, want a revoked time", row)
	}

	// revoke again fails; the name can be reused
	if code, _, stderr = keysRun(t, dir, "revoke", id); code != 1 || !strings.Contains(stderr, "already revoked") {
		t.Errorf("second revoke = %d, %q; want 1 and already revoked", code, stderr)
	}
	if code, _, stderr = keysRun(t, dir, "add", "-name", "acme corp", "-products", "all", "-plan", "unlimited"); code != 0 {
		t.Errorf("add with a revoked key's name = %d, %q; want 0", code, stderr)
	}
}

func TestKeysCommandExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := keysRun(t, dir, "add", "-name", "taken", "-products", "maps"); code != 0 {
		t.Fatalf("setup add = %d: %s", code, stderr)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string // substring; "" checks nothing
		wantStdout string // substring, with runs of spaces as one
	}{
		{name: "no command", args: nil, wantCode: 2, wantStderr: "missing command"},
		{name: "unknown command", args: []string{"rotate"}, wantCode: 2, wantStderr: `unknown command "rotate"`},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: "meridian keys add"},
		{name: "add -h", args: []string{"add", "-h"}, wantCode: 0, wantStderr: "-products"},
		{name: "add without name", args: []string{"add", "-products", "search"}, wantCode: 2, wantStderr: "-name is required"},
		{name: "add without products", args: []string{"add", "-name", "x"}, wantCode: 2, wantStderr: "-products is required"},
		{name: "add unknown product", args: []string{"add", "-name", "x", "-products", "search,weather"}, wantCode: 2, wantStderr: `unknown product "weather"`},
		{name: "add empty product list", args: []string{"add", "-name", "x", "-products", ","}, wantCode: 2, wantStderr: "names no product"},
		{name: "add unknown plan", args: []string{"add", "-name", "x", "-products", "search", "-plan", "gold"}, wantCode: 2, wantStderr: `unknown plan "gold" for search (plans: default, unlimited)`},
		{name: "add unknown per-product plan", args: []string{"add", "-name", "x", "-products", "maps:gold"}, wantCode: 2, wantStderr: `unknown plan "gold" for maps`},
		{name: "add reserved name", args: []string{"add", "-name", "demo", "-products", "search"}, wantCode: 2, wantStderr: "reserved"},
		{name: "add bad name", args: []string{"add", "-name", "a\tb", "-products", "search"}, wantCode: 2, wantStderr: "control character"},
		{name: "add unknown flag", args: []string{"add", "-nmae", "x"}, wantCode: 2, wantStderr: "flag provided but not defined"},
		{name: "add extra argument", args: []string{"add", "-name", "x", "-products", "search", "extra"}, wantCode: 2, wantStderr: `unexpected argument "extra"`},
		{name: "add taken name", args: []string{"add", "-name", "taken", "-products", "search"}, wantCode: 1, wantStderr: `active key named "taken" exists`},
		{name: "add per-product plans", args: []string{"add", "-name", "mixed", "-products", "search, maps:unlimited"}, wantCode: 0, wantStdout: "products: search:default, maps:unlimited"},
		{name: "list extra argument", args: []string{"list", "x"}, wantCode: 2, wantStderr: "unexpected argument"},
		{name: "revoke without argument", args: []string{"revoke"}, wantCode: 2, wantStderr: "want exactly one key id or name"},
		{name: "revoke two arguments", args: []string{"revoke", "a", "b"}, wantCode: 2, wantStderr: "got 2 arguments"},
		{name: "revoke unknown key", args: []string{"revoke", "nobody"}, wantCode: 1, wantStderr: `meridian keys revoke: key not found: no key has the id or name "nobody"`},
		{name: "plans", args: []string{"plans"}, wantCode: 0, wantStdout: "search default 1 5 1000\nsearch unlimited unlimited - unlimited\n"},
	}
	for _, tc := range tests { // not parallel: "taken" and "mixed" share dir
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := keysRun(t, dir, tc.args...)
			if code != tc.wantCode {
				t.Errorf("keys %q = exit %d, want %d\nstdout: %s\nstderr: %s", tc.args, code, tc.wantCode, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("keys %q stderr = %q, want it to contain %q", tc.args, stderr, tc.wantStderr)
			}
			if !strings.Contains(spaces.ReplaceAllString(stdout, " "), tc.wantStdout) {
				t.Errorf("keys %q stdout = %q, want it to contain %q", tc.args, stdout, tc.wantStdout)
			}
		})
	}
}

func TestKeysCommandPlansFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plans := `{"search": [{"name": "pro", "rate_per_second": 10, "burst": 20, "monthly_quota": 100000}]}`
	if err := os.WriteFile(datadir.Dir(dir).Plans(), []byte(plans), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := keysRun(t, dir, "add", "-name", "big", "-products", "search:pro"); code != 0 || !strings.Contains(out, "search:pro") {
		t.Errorf("add with a plan from plans.json = %d, %q, %q", code, out, stderr)
	}
	if _, out, _ := keysRun(t, dir, "plans"); !strings.Contains(out, "pro") {
		t.Errorf("keys plans lacks the plan from plans.json:\n%s", out)
	}
	os.WriteFile(datadir.Dir(dir).Plans(), []byte("{"), 0o600)
	if code, _, stderr := keysRun(t, dir, "add", "-name", "x", "-products", "search"); code != 1 || !strings.Contains(stderr, "parse plans") {
		t.Errorf("add with a broken plans.json = %d, %q; want 1 and parse plans", code, stderr)
	}
}
