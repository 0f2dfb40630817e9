package energyapi_test

import (
	"bytes"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"meridian/shared/api"
	demodata "meridian/shared/demo"
	"meridian/shared/energy/energyapi"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
)

// readOnlyDemo is the demo energy data in a bbolt file opened read-only,
// as the local server serves a version: a store that cannot change.
func readOnlyDemo(t *testing.T) *kv.Bolt {
	path := filepath.Join(t.TempDir(), "reports.db")
	w, err := kv.OpenBolt(path, kv.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	energytest.IngestDemo(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := kv.OpenBolt(path, kv.BoltOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// body runs a request and returns its status and body.
func body(h *api.Mux, path string) (int, []byte) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.Bytes()
}

// The province-wide lists' bodies are kept over a store that cannot
// change: a kept answer is the bytes the list would be assembled into
// again, on the day it was asked; the next day's is assembled anew; and a
// kept answer no longer reads the store.
func TestKeptAnswersAreTheAssembledOnes(t *testing.T) {
	paths := []string{
		"/energy/operators",
		"/energy/operators?sort=name&per_page=3",
		"/energy/operators?sort=active&page=2&per_page=2",
		"/energy/operators/Z9A9",
		"/energy/operators/juniper-bend-energy-corp-demo",
		"/energy/operators/Z9A9?view=wells",
		"/energy/operators/Z9A9?view=wells&status=active&per_page=5&page=2",
		"/energy/operators/Z9A9?view=dispositions",
		"/energy/operators/Z9A9?view=lsds&sort=lsd",
		"/energy/tenure/expiring",
		"/energy/tenure/expiring?expires_within_days=3650&per_page=200",
		"/energy/tenure/expiring?expires_within_days=3650&per_page=2&page=3",
	}
	day := demodata.AsOf()
	clock := day
	now := func() time.Time { return clock }
	store := readOnlyDemo(t)
	if !kv.Unchanging(store) {
		t.Fatal("a read-only bolt store is not unchanging")
	}
	kept := api.NewMux()
	kept.Mount(energyapi.NewHandler(store, svc, now).Routes()...)
	assembled := func() *api.Mux { // over a store that can change: nothing kept
		m := api.NewMux()
		m.Mount(energyapi.NewHandler(demo(t), svc, now).Routes()...)
		return m
	}()
	first := map[string][]byte{}
	for _, p := range paths {
		code, want := body(assembled, p)
		if code != 200 {
			t.Fatalf("GET %s: %d %s", p, code, want)
		}
		for i := range 2 { // assembled and kept, then read from what was kept
			if code, got := body(kept, p); code != 200 || !bytes.Equal(got, want) {
				t.Fatalf("GET %s (%d): %d\n%s\nwant\n%s", p, i, code, got, want)
			}
		}
		first[p] = want
	}

	clock = day.AddDate(0, 0, 1)
	changed := 0
	for _, p := range paths {
		_, want := body(assembled, p)
		if _, got := body(kept, p); !bytes.Equal(got, want) {
			t.Fatalf("GET %s the next day:\n%s\nwant\n%s", p, got, want)
		}
		if !bytes.Equal(want, first[p]) {
			changed++ // days_to_expiry counted from the next day
		}
	}
	if changed == 0 {
		t.Fatal("no answer changed the next day: the test does not see the day in the key")
	}

	// Closed, the store answers nothing: what answers now was kept.
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if code, got := body(kept, p); code != 200 || !bytes.Equal(got, body2(assembled, p)) {
			t.Fatalf("GET %s after the store closed: %d %s", p, code, got)
		}
	}
	if code, _ := body(kept, "/energy/operators?sort=dispositions"); code == 200 {
		t.Fatal("a question never asked was answered by a closed store")
	}
}

func body2(h *api.Mux, path string) []byte { _, b := body(h, path); return b }
