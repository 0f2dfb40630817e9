package energyapi_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"meridian/shared/api"
	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// demoLSDs are the LSDs the demo energy data has a partition for.
func demoLSDs(t *testing.T, store kv.Store) []string {
	ctx := context.Background()
	ds, ok, err := kv.Open(ctx, store, energy.Dataset)
	if err != nil || !ok {
		t.Fatalf("open: %v %v", ok, err)
	}
	var out []string
	prefix := energy.LSDKey("")
	err = ds.ScanKeys(ctx, prefix, func(keys []kv.Key) error {
		for _, k := range keys {
			id := strings.TrimPrefix(k.PK, prefix)
			if len(out) == 0 || out[len(out)-1] != id {
				out = append(out, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The report's answer, its stored rows passed through and its JSON
// written by hand (Report.AppendJSON), is byte for byte what
// encoding/json writes of the report with every row decoded, on every
// LSD of the demo data, for every section alone and together; the same
// answers come from data stored HTML-escaped and from data every row of
// which must be decoded.
func TestReportAppendJSON(t *testing.T) {
	t.Parallel()
	store := demo(t)
	now := demodata.AsOf()
	clock := func() time.Time { return now }
	h := mux(store, now)
	decoded := energy.NewReporter(store, svc, clock)
	htmlEscaped := strings.NewReplacer("&", `\u0026`, "<", `\u003c`, ">", `\u003e`)
	others := map[string]kv.Store{
		"html-escaped": rewrittenStore{store, func(b []byte) []byte { return []byte(htmlEscaped.Replace(string(b))) }},
		"all-decoded":  rewrittenStore{store, func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("o"), []byte(`\u006f`)) }},
	}
	includes := append([]string{"", "wells,pipelines,facilities,geometry"}, energy.ReportSections...)
	lsds := demoLSDs(t, store)
	if len(lsds) < 50 {
		t.Fatalf("%d demo LSDs", len(lsds))
	}
	passed := 0
	for _, lsd := range lsds {
		for _, inc := range includes {
			path := "/energy/report?legal_location=" + url.QueryEscape(lsd) + "&include=" + inc
			got := httptest.NewRecorder()
			h.ServeHTTP(got, httptest.NewRequest("GET", path, nil))
			rep, err := decoded.Report(context.Background(), energy.Query{LegalLocation: lsd, Include: inc})
			if err != nil {
				if got.Code == 200 {
					t.Fatalf("GET %s = 200, decoded: %v", path, err)
				}
				continue
			}
			want, err := api.AppendJSON(nil, rep)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			if got.Code != 200 || !bytes.Equal(got.Body.Bytes(), want) {
				t.Fatalf("GET %s:\n got %d %s\nwant %s", path, got.Code, got.Body, want)
			}
			if bytes.Contains(want, []byte(`"rows":[{`)) {
				passed++
			}
			if inc != "" || len(lsd)%3 != 0 { // the other stores on a third of the full reports
				continue
			}
			for name, s := range others {
				o := httptest.NewRecorder()
				mux(s, now).ServeHTTP(o, httptest.NewRequest("GET", path, nil))
				if !bytes.Equal(o.Body.Bytes(), want) {
					t.Fatalf("GET %s on the %s store:\n got %d %s\nwant %s", path, name, o.Code, o.Body, want)
				}
			}
		}
	}
	if passed < 100 {
		t.Fatalf("only %d answers had rows", passed)
	}
	// Other days: the tenure rows' states and order move with the clock.
	for _, day := range []time.Time{now.AddDate(0, 7, 3), now.AddDate(2, 0, 0), now.AddDate(6, 1, 0), now.AddDate(-3, 0, 0)} {
		h := mux(store, day)
		decoded := energy.NewReporter(store, svc, func() time.Time { return day })
		for _, lsd := range lsds {
			path := "/energy/report?legal_location=" + url.QueryEscape(lsd) + "&include=tenure"
			rep, err := decoded.Report(context.Background(), energy.Query{LegalLocation: lsd, Include: "tenure"})
			if err != nil {
				continue
			}
			want, _ := api.AppendJSON(nil, rep)
			got := httptest.NewRecorder()
			h.ServeHTTP(got, httptest.NewRequest("GET", path, nil))
			if !bytes.Equal(got.Body.Bytes(), append(want, '\n')) {
				t.Fatalf("GET %s on %s:\n got %s\nwant %s", path, day.Format("2006-01-02"), got.Body, want)
			}
		}
	}
}

// The tenure list in its default sort, urgency, and the wells list in
// its default sort, status, without filters, sort the stored bytes and
// pass them through: byte for byte the answers of a store every row of
// which must be decoded, on every demo LSD, pages and direction, on
// several days.
func TestParcelListsPassRowsAsDecoded(t *testing.T) {
	t.Parallel()
	store := demo(t)
	allDecoded := rewrittenStore{store, func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("o"), []byte(`\u006f`)) }}
	lsds := demoLSDs(t, store)
	withRows := 0
	for _, day := range []time.Time{demodata.AsOf(), demodata.AsOf().AddDate(1, 2, 0), demodata.AsOf().AddDate(-2, 0, 5)} {
		h, decoded := mux(store, day), mux(allDecoded, day)
		for _, lsd := range lsds {
			q := url.QueryEscape(lsd)
			for _, path := range []string{"/energy/tenure?legal_location=" + q, "/energy/tenure?dir=desc&legal_location=" + q,
				"/energy/tenure?per_page=1&page=2&legal_location=" + q, "/energy/tenure?sort=urgency&per_page=2&legal_location=" + q,
				"/energy/wells?legal_location=" + q, "/energy/wells?dir=desc&per_page=2&legal_location=" + q,
				"/energy/wells?sort=status&per_page=1&page=3&legal_location=" + q} {
				want, got := httptest.NewRecorder(), httptest.NewRecorder()
				decoded.ServeHTTP(want, httptest.NewRequest("GET", path, nil))
				h.ServeHTTP(got, httptest.NewRequest("GET", path, nil))
				if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
					t.Fatalf("GET %s on %s:\n got %d %s\nwant %d %s", path, day.Format("2006-01-02"), got.Code, got.Body, want.Code, want.Body)
				}
				if bytes.Contains(want.Body.Bytes(), []byte(`"rows":[{`)) {
					withRows++
				}
			}
		}
	}
	if withRows < 100 {
		t.Fatalf("only %d answers had rows", withRows)
	}
}
