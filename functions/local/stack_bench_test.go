package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"meridian/shared/api"
	"meridian/shared/datadir"
	"meridian/shared/gateway"
)

// discardResponse is a ResponseWriter that costs nothing, so the benchmark
// measures the handler stack, not a recorder.
type discardResponse struct{ h http.Header }

func (w *discardResponse) Header() http.Header         { return w.h }
func (w *discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardResponse) WriteHeader(int)             {}

// BenchmarkStack runs the scenarios of `meridian-bench load` through the
// whole handler stack of the local server (api.Middleware, the gateway, the
// Mux, the conversion handlers) without the network: what a request costs
// the server beyond what net/http costs. "discard" logs nothing
// (slog.DiscardHandler), "json" as serve does (a JSON handler, here to
// io.Discard).
// logDiscard is the buffered writer meridian serve logs through, in front
// of io.Discard.
var logDiscard = api.NewLogWriter(io.Discard, 0)

func BenchmarkStack(b *testing.B) {
	lls := make([]string, 100)
	for i := range lls {
		lls[i] = fmt.Sprintf("%s-%d-%d-%d-W5", []string{"NE", "NW", "SE", "SW"}[i%4], 1+i%36, 1+i%90, 1+i%25)
	}
	batch, _ := json.Marshal(lls)
	for _, logging := range []struct {
		name   string
		logger *slog.Logger
	}{
		{"discard", slog.New(slog.DiscardHandler)},
		{"json", slog.New(slog.NewJSONHandler(io.Discard, nil))},
		{"serve", api.NewJSONLogger(logDiscard, nil)}, // as meridian serve logs
	} {
		dir := b.TempDir()
		key, err := gateway.EnsureDemoKey(dir)
		if err != nil {
			b.Fatal(err)
		}
		srv, err := newServer(b.Context(), serverConfig{data: datadir.Dir(dir), logger: logging.logger})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { srv.Close() })
		run := func(b *testing.B, method, target, body string) {
			w := &discardResponse{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				r, _ := http.NewRequest(method, "http://127.0.0.1"+target, strings.NewReader(body))
				r.Header.Set("X-API-Key", key)
				clear(w.h)
				srv.handler.ServeHTTP(w, r)
			}
		}
		b.Run(logging.name+"/search", func(b *testing.B) {
			run(b, "GET", "/search/legal-location?location=NW-25-24-1-W5", "")
		})
		b.Run(logging.name+"/reverse", func(b *testing.B) {
			run(b, "GET", "/search/coordinates?location=-114.019240,51.077932", "")
		})
		b.Run(logging.name+"/batch100", func(b *testing.B) {
			run(b, "POST", "/batch/legal-location", string(batch))
		})
	}
}
