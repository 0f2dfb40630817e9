package api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkMiddlewareLog prices the request line: the Middleware around a
// handler that does nothing, with the line logged as `meridian serve` logs
// it (JSON through a LogWriter) and with logging off.
func BenchmarkMiddlewareLog(b *testing.B) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		NoteRoute(r.Context(), "GET /search/legal-location")
		w.WriteHeader(http.StatusOK)
	})
	lw := NewLogWriter(io.Discard, 100*time.Millisecond)
	defer lw.Close()
	for _, c := range []struct {
		name   string
		logger *slog.Logger
	}{
		{"on", NewJSONLogger(lw, nil)},
		{"on-slog", slog.New(slog.NewJSONHandler(lw, nil))},
		{"off", slog.New(slog.DiscardHandler)},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := Middleware(inner, Options{Logger: c.logger})
			req := httptest.NewRequest("GET", "/search/legal-location?location=NW-25-24-1-W5", nil)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, req)
			}
		})
	}
}
