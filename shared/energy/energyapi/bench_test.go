package energyapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	minidyn "github.com/truora/minidyn/server"

	demodata "meridian/shared/demo"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
)

// benchPaths are the full report of the demo LSD and the first page of
// every list endpoint.
var benchPaths = []struct{ name, path string }{
	{"report", "/energy/report?legal_location=" + lsd},
	{"wells", "/energy/wells?legal_location=" + lsd},
	{"pipelines", "/energy/pipelines?legal_location=" + lsd},
	{"facilities", "/energy/facilities?legal_location=" + lsd},
	{"tenure", "/energy/tenure?legal_location=" + lsd},
	{"operators", "/energy/operators"},
	{"operator_dispositions", "/energy/operators/Z9A9?view=dispositions"},
	{"operator_wells", "/energy/operators/Z9A9?view=wells"},
	{"operator_lsds", "/energy/operators/Z9A9?view=lsds"},
	{"expiring", "/energy/tenure/expiring"},
}

// ingestInto loads the demo energy data into store.
func ingestInto(b *testing.B, store kv.Store) { energytest.IngestDemo(b, store) }

// benchStores are the report stores the endpoints run on, each holding the
// demo data: in memory, a bbolt file (the local server), and DynamoDB as
// the in-process minidyn emulator serves it over HTTP (the Lambda's path,
// with the emulator's cost in place of the network).
var benchStores = []struct {
	name string
	open func(b *testing.B) kv.Store
}{
	{"mem", func(b *testing.B) kv.Store { return demo(b) }},
	{"bolt", func(b *testing.B) kv.Store {
		path := filepath.Join(b.TempDir(), "reports.db")
		w, err := kv.OpenBolt(path, kv.BoltOptions{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		ingestInto(b, w)
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		r, err := kv.OpenBolt(path, kv.BoltOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { r.Close() })
		return r
	}},
	{"minidyn", func(b *testing.B) kv.Store {
		ts := httptest.NewServer(minidyn.NewServer())
		b.Cleanup(ts.Close)
		ctx := context.Background()
		client, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{Region: "us-east-1", Endpoint: ts.URL,
			AccessKeyID: "test", SecretAccessKey: "test", DisableResponseChecksum: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := dynamokv.CreateTable(ctx, client, "reports"); err != nil {
			b.Fatal(err)
		}
		store := dynamokv.New(client, "reports", dynamokv.Options{Timeout: 30 * time.Second})
		ingestInto(b, store)
		return store
	}},
}

// BenchmarkEndpoints serves each endpoint from each store through the
// energy mux, with the clock at the demo's as-of date. Every store must
// answer exactly what the in-memory store does.
func BenchmarkEndpoints(b *testing.B) {
	want := map[string][]byte{} // path -> the mem body
	for _, st := range benchStores {
		b.Run(st.name, func(b *testing.B) {
			h := mux(st.open(b), demodata.AsOf())
			for _, p := range benchPaths {
				b.Run(p.name, func(b *testing.B) {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p.path, nil))
					if rec.Code != http.StatusOK {
						b.Fatalf("GET %s = %d %.300s", p.path, rec.Code, rec.Body.String())
					}
					if w, ok := want[p.path]; !ok {
						want[p.path] = rec.Body.Bytes()
					} else if !bytes.Equal(w, rec.Body.Bytes()) {
						b.Errorf("GET %s on %s differs from the first store:\n%.300s\n%.300s", p.path, st.name, rec.Body.Bytes(), w)
					}
					b.ReportAllocs()
					for b.Loop() {
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p.path, nil))
						if rec.Code != http.StatusOK {
							b.Fatalf("GET %s = %d", p.path, rec.Code)
						}
					}
				})
			}
		})
	}
}
