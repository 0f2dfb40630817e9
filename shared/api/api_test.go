package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"meridian/shared/api"
	"meridian/shared/apierr"
)

func TestStatusCoversEveryKind(t *testing.T) {
	t.Parallel()
	want := map[apierr.Kind]int{
		apierr.Internal: 500, apierr.Invalid: 400, apierr.Unauthorized: 401, apierr.Forbidden: 403,
		apierr.NotFound: 404, apierr.TooLarge: 413, apierr.TooMany: 429, apierr.Unavailable: 503,
		apierr.MethodNotAllowed: 405,
	}
	if len(want) != apierr.NumKinds {
		t.Fatalf("test covers %d kinds, apierr has %d", len(want), apierr.NumKinds)
	}
	for k, status := range want {
		if got := api.Status(k); got != status {
			t.Errorf("Status(%v) = %d, want %d", k, got, status)
		}
	}
}

type body struct {
	Error struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	} `json:"error"`
	Message string `json:"message"`
}

func serve(h http.Handler, logs *bytes.Buffer) *httptest.ResponseRecorder {
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	rec := httptest.NewRecorder()
	api.Middleware(h, api.Options{Logger: logger}).ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	return rec
}

func TestWriteError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		status     int
		code, msg  string
		retryAfter string
		logged     string // in the 5xx log line
	}{
		{"client error", apierr.Invalidf("invalid_parameter", "limit %d is out of range", 11), 400, "invalid_parameter", "limit 11 is out of range", "", ""},
		{"wrapped client error", errors.Join(errors.New("context"), apierr.NotFoundf("No match")), 404, "not_found", "No match", "", ""},
		{"internal error hides its text", errors.New("open /secret/path: permission denied"), 500, "internal", "internal error", "", "/secret/path"},
		{"internal apierr hides its message", &apierr.Error{Kind: apierr.Internal, Code: "oops", Message: "db password wrong"}, 500, "internal", "internal error", "", "db password wrong"},
		{"retry after rounds up", apierr.TooManyf("rate_limited", 1500*time.Millisecond, "slow down"), 429, "rate_limited", "slow down", "2", ""},
		{"unavailable logs its cause", apierr.Unavailablef(errors.New("dynamodb: throttled"), "the report store is busy"), 503, "upstream_unavailable", "the report store is busy", "1", "throttled"},
		{"unavailable keeps its own wait", &apierr.Error{Kind: apierr.Unavailable, Code: "upstream_unavailable", Message: "busy", RetryAfter: 3 * time.Second}, 503, "upstream_unavailable", "busy", "3", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			rec := serve(api.Func(func(w http.ResponseWriter, r *http.Request) error { return tc.err }), &logs)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d", rec.Code, tc.status)
			}
			var b body
			if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
				t.Fatal(err)
			}
			if b.Error.Code != tc.code || b.Error.Message != tc.msg || b.Message != tc.msg || b.Error.RequestID == "" {
				t.Errorf("body = %+v, want code %q message %q and a request id", b, tc.code, tc.msg)
			}
			if b.Error.RequestID != rec.Header().Get("X-Request-Id") {
				t.Errorf("request id %q differs from header %q", b.Error.RequestID, rec.Header().Get("X-Request-Id"))
			}
			if got := rec.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
			if tc.logged != "" && !strings.Contains(logs.String(), tc.logged) {
				t.Errorf("cause %q not logged: %s", tc.logged, logs.String())
			}
			if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "password") {
				t.Errorf("internal detail leaked: %s", rec.Body)
			}
		})
	}
}

func TestMiddlewareRecoversPanics(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	rec := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") }), &logs)
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"code":"internal"`) {
		t.Errorf("panic answered %d %s, want a 500 error body", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), `"status":500`) {
		t.Errorf("panic not logged with its value and status: %s", logs.String())
	}
}

func TestMiddlewareLogsOneLinePerRequest(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	serve(api.Func(func(w http.ResponseWriter, r *http.Request) error {
		return apierr.NotFoundf("nothing")
	}), &logs)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1: %s", len(lines), logs.String())
	}
	var line map[string]any
	json.Unmarshal([]byte(lines[0]), &line)
	for _, k := range []string{"request_id", "route", "status", "duration_ms", "code"} {
		if _, ok := line[k]; !ok {
			t.Errorf("log line lacks %s: %s", k, lines[0])
		}
	}
	if line["level"] != "INFO" || line["code"] != "not_found" {
		t.Errorf("a 404 is logged at INFO with its code: %s", lines[0])
	}
}

// TestMiddlewareLogsCarryRequestID: the lines a handler's failure and a
// panic add (through the logger built only when asked for) carry the same
// request_id as the request line.
func TestMiddlewareLogsCarryRequestID(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]http.Handler{
		"internal": api.Func(func(w http.ResponseWriter, r *http.Request) error { return errors.New("disk on fire") }),
		"panic":    http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") }),
	} {
		var logs bytes.Buffer
		rec := serve(h, &logs)
		id := rec.Header().Get("X-Request-Id")
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if id == "" || len(lines) < 2 {
			t.Fatalf("%s: X-Request-Id %q, %d log lines, want an id and 2 lines or more: %s", name, id, len(lines), logs.String())
		}
		for _, l := range lines {
			var line map[string]any
			if err := json.Unmarshal([]byte(l), &line); err != nil || line["request_id"] != id {
				t.Errorf("%s: log line %s: request_id %v, want %q", name, l, line["request_id"], id)
			}
		}
	}
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	mux := api.NewMux()
	mux.Mount(api.Route{
		Pattern: "GET /things/{id}",
		Handler: http.NotFoundHandler(),
		Op:      api.Operation{Summary: "A thing", Params: []api.Param{{Name: "id", In: "path"}, {Name: "q"}}, Errors: []int{404}},
	})
	doc, err := api.OpenAPI(api.Info{Title: "T", Version: "1"}, mux.Routes())
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				Name     string `json:"name"`
				In       string `json:"in"`
				Required bool   `json:"required"`
			} `json:"parameters"`
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	op := d.Paths["/things/{id}"]["get"]
	if d.OpenAPI != "3.1.0" || op.OperationID != "getThingsId" {
		t.Errorf("openapi %q operationId %q", d.OpenAPI, op.OperationID)
	}
	if len(op.Parameters) != 2 || op.Parameters[0].In != "path" || !op.Parameters[0].Required || op.Parameters[1].In != "query" {
		t.Errorf("parameters = %+v", op.Parameters)
	}
	for _, code := range []string{"200", "401", "403", "404", "429"} {
		if _, ok := op.Responses[code]; !ok {
			t.Errorf("no %s response", code)
		}
	}
}

// NUL bytes and invalid UTF-8 in a path or a query parameter are refused
// with 400 invalid_parameter before any handler sees them (a NUL reached
// the report store's keys and answered 500).
func TestMuxRefusesNULAndBadUTF8(t *testing.T) {
	mux := api.NewMux()
	reached := 0
	mux.Mount(api.Route{Pattern: "GET /energy/operators/{name}", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(204)
	})})
	for _, target := range []string{
		"/energy/operators/%00", "/energy/operators/a%00b", "/energy/operators/%ff%fe",
		"/energy/operators/x?view=%00", "/energy/operators/x?q%00=1", "/energy/operators/x?view=%c3%28",
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"invalid_parameter"`) {
			t.Errorf("%s: %d %s, want 400 invalid_parameter", target, rec.Code, rec.Body.String())
		}
	}
	for _, target := range []string{"/energy/operators/Caf%C3%A9%20Oil", "/energy/operators/x?view=wells&q=50%25", "/energy/operators/x?bad=%zz"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 204 {
			t.Errorf("%s: %d, want it to reach the handler", target, rec.Code)
		}
	}
	if reached != 3 {
		t.Errorf("handler reached %d times, want 3", reached)
	}
}

// A value attached inside the Middleware is seen by the handlers after it,
// under its key only; a second key, or a request outside the Middleware,
// is refused (the caller then uses context.WithValue).
func TestAttach(t *testing.T) {
	t.Parallel()
	type keyA struct{}
	type keyB struct{}
	var got []any
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, api.Attached(r.Context(), keyA{}), api.Attached(r.Context(), keyB{}))
	})
	outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, api.Attach(r.Context(), keyA{}, "caller"), api.Attach(r.Context(), keyB{}, "other"), api.Attach(r.Context(), keyA{}, "again"))
		inner.ServeHTTP(w, r)
	})
	serve(outer, &bytes.Buffer{})
	want := []any{true, false, true, "again", nil}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
			break
		}
	}
	if api.Attach(context.Background(), keyA{}, "x") || api.Attached(context.Background(), keyA{}) != nil {
		t.Error("Attach outside the Middleware kept a value")
	}
}
