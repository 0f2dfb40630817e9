package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
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

// BenchmarkStack runs the scenarios of `meridian loadtest` through the
// whole handler stack of the local server (api.Middleware, the gateway, the
// Mux, the conversion handlers) without the network: what a request costs
// the server beyond what net/http costs. "discard" logs as loadtest does
// (slog.DiscardHandler), "json" as serve does (a JSON handler, here to
// io.Discard).
// logDiscard is the buffered writer meridian serve logs through, in front
// of io.Discard.
var logDiscard = api.NewLogWriter(io.Discard, 0)

func BenchmarkStack(b *testing.B) {
	lls := make([]string, 100)
	for i := range lls {
		lls[i] = fmt.Sprintf("%s-%d-%d-%d-W5", quarters[i%4], 1+i%36, 1+i%90, 1+i%25)
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

// TestLoadtestReportsHelloFractions runs a tiny loadtest (a handful of
// requests, so nothing is timed) and checks the table: the hello-world
// baseline first at 1.00, every scenario with its fraction of it, and the
// batch's locations per second.
func TestLoadtestReportsHelloFractions(t *testing.T) {
	var stdout, stderr strings.Builder
	code := loadtestCommand([]string{"-requests", "20", "-c", "2", "-scenarios", "search,batch100"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("loadtest exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 6 || !strings.Contains(lines[1], "x hello") {
		t.Fatalf("table:\n%s\nwant a header with x hello and rows hello, search, batch100", stdout.String())
	}
	rows := map[string][]string{}
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		rows[f[0]] = f
	}
	if f := rows["hello"]; len(f) < 4 || f[1] != "20" || f[3] != "1.00" {
		t.Errorf("hello row %q: want 20 requests at 1.00", f)
	}
	for _, name := range []string{"search", "batch100"} {
		f := rows[name]
		if len(f) < 8 || f[1] != "20" || f[7] != "0" {
			t.Errorf("%s row %q: want 20 requests, no errors", name, f)
			continue
		}
		if frac, err := strconv.ParseFloat(f[3], 64); err != nil || frac <= 0 {
			t.Errorf("%s row %q: x hello %q, want a positive fraction", name, f, f[3])
		}
	}
	if !strings.Contains(stdout.String(), "batch100: ") || !strings.Contains(stdout.String(), " locations/s") {
		t.Errorf("no batch locations/s line:\n%s", stdout.String())
	}
}
