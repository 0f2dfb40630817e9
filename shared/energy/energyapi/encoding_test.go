package energyapi_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	demodata "meridian/shared/demo"
	"meridian/shared/kv"
)

// rewrittenStore serves its store's items with their JSON rewritten by
// fix, which must keep the JSON's meaning.
type rewrittenStore struct {
	kv.Store
	fix func([]byte) []byte
}

func (s rewrittenStore) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	it, ok, err := s.Store.Get(ctx, pk, sk)
	it.Data = s.fix(it.Data)
	return it, ok, err
}

func (s rewrittenStore) Query(ctx context.Context, q kv.Query) (kv.Page, error) {
	p, err := s.Store.Query(ctx, q)
	items := make([]kv.Item, len(p.Items))
	for i, it := range p.Items {
		it.Data = s.fix(it.Data)
		items[i] = it
	}
	p.Items = items
	return p, err
}

// TestStoredEncodingsAnswerAlike: the lists answer the same bytes whether
// the stored rows pass through (data written by kv.Writer.Put, without
// HTML escaping), were written with & < > escaped (datasets published
// before), or must all be decoded (every 'o' escaped as \u006f, which
// only the decoder reads: the answers as they were before rows passed
// through).
func TestStoredEncodingsAnswerAlike(t *testing.T) {
	t.Parallel()
	store := demo(t)
	htmlEscaped := strings.NewReplacer("&", `\u0026`, "<", `\u003c`, ">", `\u003e`)
	stores := map[string]kv.Store{
		"html-escaped": rewrittenStore{store, func(b []byte) []byte { return []byte(htmlEscaped.Replace(string(b))) }},
		// 'o' is in no JSON literal (true, false, null) nor number, so
		// escaping it anywhere keeps the JSON's meaning.
		"all-decoded": rewrittenStore{store, func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("o"), []byte(`\u006f`)) }},
	}
	now := demodata.AsOf()
	h := mux(store, now)
	paths := []string{
		"/energy/operators", "/energy/operators?sort=name&dir=asc", "/energy/operators?sort=active&per_page=2&page=3",
		"/energy/operators?q=a", "/energy/tenure/expiring", "/energy/tenure/expiring?expires_within_days=3650&per_page=7&page=2",
		"/energy/tenure/expiring?expires_within_days=3650&dir=desc", "/energy/tenure/expiring?expires_within_days=3650&sort=area",
		"/energy/tenure?legal_location=" + lsd, "/energy/wells?legal_location=" + lsd,
	}
	_, ops := get(t, h, "/energy/operators?per_page=200")
	for _, r := range at(ops, "rows").([]any) {
		ba := url.PathEscape(str(at(r, "ba_code")))
		for _, v := range []string{"wells", "wells&dir=desc&per_page=3&page=2", "dispositions", "dispositions&per_page=5&page=2",
			"dispositions&dir=desc", "lsds", "lsds&dir=asc&per_page=2"} {
			paths = append(paths, "/energy/operators/"+ba+"?view="+v)
		}
	}
	amp := false
	for _, path := range paths {
		want := httptest.NewRecorder()
		h.ServeHTTP(want, httptest.NewRequest("GET", path, nil))
		if want.Code != 200 {
			t.Fatalf("GET %s = %d %s", path, want.Code, want.Body)
		}
		amp = amp || bytes.Contains(want.Body.Bytes(), []byte("&"))
		for name, s := range stores {
			got := httptest.NewRecorder()
			mux(s, now).ServeHTTP(got, httptest.NewRequest("GET", path, nil))
			if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Errorf("GET %s on the %s store:\n got %d %s\nwant %d %s", path, name, got.Code, got.Body, want.Code, want.Body)
			}
		}
	}
	if !amp {
		t.Error("no answer holds an &: the HTML-escaped store tested nothing")
	}
	t.Logf("%d paths answered alike on %d stores", len(paths), len(stores)+1)
}
