// Package api adapts error-returning handlers to net/http: one error writer,
// one status table, JSON written only after it is fully encoded, and the
// middleware every entry point shares (request id, panic recovery, logging).
package api

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"meridian/shared/apierr"
)

// Func is an HTTP handler that returns an error instead of writing it.
type Func func(w http.ResponseWriter, r *http.Request) error

func (f Func) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := f(w, r); err != nil {
		WriteError(w, r, err)
	}
}

// status maps apierr.Kind to an HTTP status; a test asserts it covers every kind.
var status = [...]int{
	apierr.Internal:         http.StatusInternalServerError,
	apierr.Invalid:          http.StatusBadRequest,
	apierr.Unauthorized:     http.StatusUnauthorized,
	apierr.Forbidden:        http.StatusForbidden,
	apierr.NotFound:         http.StatusNotFound,
	apierr.TooLarge:         http.StatusRequestEntityTooLarge,
	apierr.TooMany:          http.StatusTooManyRequests,
	apierr.Unavailable:      http.StatusServiceUnavailable,
	apierr.MethodNotAllowed: http.StatusMethodNotAllowed,
}

// Status returns the HTTP status of an error kind.
func Status(k apierr.Kind) int {
	if int(k) < len(status) && status[k] != 0 {
		return status[k]
	}
	return http.StatusInternalServerError
}

type errorBody struct {
	Error   errorDetail `json:"error"`
	Message string      `json:"message"`
}

type errorDetail struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id,omitempty"`
}

// UnavailableRetryAfter is the Retry-After of a 503 whose error names no
// wait of its own: every 503 upstream_unavailable carries one.
const UnavailableRetryAfter = time.Second

// WriteError writes err as the JSON error body. Errors that are not
// *apierr.Error become 500 "internal error"; their text is logged, never sent.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e := apierr.As(err)
	if e == nil {
		e = &apierr.Error{Kind: apierr.Internal, Code: "internal", Message: "internal error", Err: err}
	}
	if e.Kind == apierr.Internal {
		// Whatever the domain wrote, never leak it.
		e = &apierr.Error{Kind: apierr.Internal, Code: "internal", Message: "internal error", Err: err}
	}
	code := Status(e.Kind)
	id := RequestID(r.Context())
	if l := LoggerFrom(r.Context()); code >= 500 {
		l.Error("request failed", "code", e.Code, "cause", err.Error())
	}
	retryAfter := e.RetryAfter
	if retryAfter <= 0 && e.Kind == apierr.Unavailable {
		// A throttled or failing dependency (S3, DynamoDB) says nothing of
		// when it recovers; the SDK already retried, so ask for a short wait.
		retryAfter = UnavailableRetryAfter
	}
	if retryAfter > 0 {
		secs := int64((retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	setErrorCode(r, e.Code)
	WriteJSON(w, code, errorBody{
		Error:   errorDetail{Code: e.Code, Message: e.Message, RequestID: id},
		Message: e.Message,
	})
}

// WriteJSON encodes v and writes it with the given status. Encoding happens
// before anything is written, so a failure is a clean 500.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"code":"internal","message":"internal error"},"message":"internal error"}` + "\n"))
		return
	}
	WriteRaw(w, code, "application/json", buf.Bytes())
}

// AppendJSON appends v encoded as WriteJSON encodes it (no HTML escaping),
// without the encoder's final newline: for answers written by hand around
// stored JSON.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// WriteRaw writes an already encoded body.
func WriteRaw(w http.ResponseWriter, code int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}

type ctxKey int

// stateKey holds the *state of a request served through the Middleware.
const stateKey ctxKey = 0

// state is what the Middleware keeps about one request, in one context
// value (one allocation, one lookup): its id, its logger, and the note
// inner layers add to its log line.
type state struct {
	id   string
	base *slog.Logger
	note note
	// logger is base.With("request_id", id), built on first use: most
	// requests never ask for it (the request line adds the id itself).
	logger *slog.Logger
	rec    recorder
	// attrs is the note's first storage: the gateway's key_id fits.
	attrs [2]slog.Attr
	// value is what an inner layer attached (Attach): the gateway's caller.
	valueKey, value any
}

// Attach keeps v under key for the rest of the request when it came
// through the Middleware, in the state the Middleware already made, and
// reports whether it could (false: there is no such state, or it holds a
// value already; use context.WithValue). It saves a layer that adds one
// value to every request a context and a copy of the *http.Request (the
// gateway's caller: a third of the bytes its layer allocated). Attach
// before handing the request on; Attached reads it after.
func Attach(ctx context.Context, key, v any) bool {
	s := stateFrom(ctx)
	if s == nil || (s.valueKey != nil && s.valueKey != key) {
		return false
	}
	s.valueKey, s.value = key, v
	return true
}

// Attached returns what Attach kept under key, or nil.
func Attached(ctx context.Context, key any) any {
	if s := stateFrom(ctx); s != nil && s.valueKey == key {
		return s.value
	}
	return nil
}

// note is what the Middleware's log line says about a request beyond what
// the Middleware sees itself: the route the Mux matched and attributes
// added by the layers inside (the gateway's key id). There is one per
// request, shared by the copies inner layers make with WithContext (the
// route cannot be read from the Middleware's own *http.Request: ServeMux
// sets Pattern on the copy it is given).
type note struct {
	mu    sync.Mutex
	route string
	attrs []slog.Attr
}

func stateFrom(ctx context.Context) *state {
	s, _ := ctx.Value(stateKey).(*state)
	return s
}

func noteFrom(ctx context.Context) *note {
	if s := stateFrom(ctx); s != nil {
		return &s.note
	}
	return nil
}

// NoteRoute records pattern as the route serving the request; Mux does it
// for every route it mounts.
func NoteRoute(ctx context.Context, pattern string) {
	if n := noteFrom(ctx); n != nil {
		n.mu.Lock()
		n.route = pattern
		n.mu.Unlock()
	}
}

// RouteOf returns the pattern of the route serving the request, or "" when
// no mounted route matched (an unknown path or method). known is false
// outside the Middleware, where nothing is noted.
func RouteOf(ctx context.Context) (route string, known bool) {
	n := noteFrom(ctx)
	if n == nil {
		return "", false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.route, true
}

// Annotate adds key and value to the request's log line (never a secret:
// the gateway logs a key's public id, not the key).
func Annotate(ctx context.Context, key string, value any) {
	if n := noteFrom(ctx); n != nil {
		n.mu.Lock()
		n.attrs = append(n.attrs, slog.Any(key, value))
		n.mu.Unlock()
	}
}

// RequestID returns the request id stored by the Middleware, or "".
func RequestID(ctx context.Context) string {
	if s := stateFrom(ctx); s != nil {
		return s.id
	}
	return ""
}

// LoggerFrom returns the request-scoped logger (it carries request_id), or
// slog.Default() outside the Middleware.
func LoggerFrom(ctx context.Context) *slog.Logger {
	s := stateFrom(ctx)
	if s == nil {
		return slog.Default()
	}
	s.note.mu.Lock()
	defer s.note.mu.Unlock()
	if s.logger == nil {
		s.logger = s.base.With("request_id", s.id)
	}
	return s.logger
}

// setErrorCode records the error code for the request line. It goes
// through the request's state, not the ResponseWriter: layers between the
// Middleware and the handler (the gateway's charge writer) wrap the writer.
func setErrorCode(r *http.Request, code string) {
	if s := stateFrom(r.Context()); s != nil {
		s.rec.code = code
	}
}

// recorder remembers the status a handler wrote.
type recorder struct {
	http.ResponseWriter
	status int
	code   string
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Options configure Middleware.
type Options struct {
	Logger *slog.Logger
	// RequestID returns the platform's id for r (API Gateway's
	// requestContext.requestId on Lambda); empty means generate one.
	RequestID func(r *http.Request) string
	// Route returns the pattern of the route that would serve r, or ""
	// (Mux.Pattern). The Middleware asks it only for a request no route
	// noted (refused before routing, by the gateway or a readiness check,
	// or an unknown path), so that the line of a 401 or 429 still names
	// the route that was hit. Nil: such lines have route "".
	Route func(r *http.Request) string
	// LinesPerSecond, when above 0, samples the request lines: the first
	// LinesPerSecond of each second are written, then one in
	// LinesPerSecond, and a line of their own counts the others by status
	// (lineSampler). 5xx lines are always written. 0 writes every line.
	LinesPerSecond int
}

// maxLoggedPath bounds the path logged for an unknown route: the path is
// the client's, and a request line should not grow with it.
const maxLoggedPath = 256

// Middleware gives each request an id and a logger, turns panics into 500s
// with a logged stack, and logs one line per request with request_id,
// method, route (the Mux pattern, also for a request refused before the Mux
// when Options.Route is set; "" for an unknown path or method, whose line
// also has path: the URL path without the query, at most 256 bytes),
// status, code, duration and what inner layers added with Annotate (the
// gateway's key_id), 4xx at Info, 5xx at Error; with
// Options.LinesPerSecond, sampled past that rate.
func Middleware(next http.Handler, o Options) http.Handler {
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	var sampler *lineSampler
	if o.LinesPerSecond > 0 {
		sampler = newLineSampler(o.LinesPerSecond, logger)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := ""
		if o.RequestID != nil {
			id = o.RequestID(r)
		}
		if id == "" {
			id = newID()
		}
		st := &state{id: id, base: logger}
		st.note.attrs = st.attrs[:0]
		r = r.WithContext(context.WithValue(r.Context(), stateKey, st))
		rec := &st.rec
		rec.ResponseWriter = w
		w.Header()["X-Request-Id"] = []string{id} // canonical already: no Set, no canonicalizing
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				LoggerFrom(r.Context()).Error("panic", "panic", p, "stack", string(stack()))
				if rec.status == 0 {
					WriteError(rec, r, errPanic)
				}
			}
			code := rec.status
			if code == 0 {
				code = http.StatusOK
			}
			level := slog.LevelInfo
			if code >= 500 {
				level = slog.LevelError
			}
			ctx := r.Context()
			if !logger.Enabled(ctx, level) {
				return // nothing to build: the line would be dropped
			}
			if sampler != nil && !sampler.write(start, code) {
				return // counted in the second's summary
			}
			n := &st.note
			n.mu.Lock()
			route, noted := n.route, n.attrs // appends after this do not touch noted's elements
			n.mu.Unlock()
			if route == "" && o.Route != nil {
				route = o.Route(r) // refused before routing, or no route
			}
			var buf [9]slog.Attr
			attrs := append(buf[:0], slog.String("request_id", id), slog.String("method", r.Method), slog.String("route", route))
			if route == "" {
				attrs = append(attrs, slog.String("path", loggedPath(r.URL.Path)))
			}
			attrs = append(attrs, slog.Int("status", code), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
			if rec.code != "" {
				attrs = append(attrs, slog.String("code", rec.code))
			}
			attrs = append(attrs, noted...)
			if jh, ok := logger.Handler().(*jsonHandler); ok {
				jh.requestLine(level, "request", attrs)
				return
			}
			logger.LogAttrs(ctx, level, "request", attrs...)
		}()
		next.ServeHTTP(rec, r)
	})
}

// loggedPath is p cut to maxLoggedPath bytes, on a character boundary.
func loggedPath(p string) string {
	if len(p) <= maxLoggedPath {
		return p
	}
	i := maxLoggedPath
	for i > 0 && !utf8.RuneStart(p[i]) {
		i--
	}
	return p[:i] + "…"
}

type panicError struct{}

func (panicError) Error() string { return "api: handler panicked" }

var errPanic error = panicError{}

// newID is a request id: 64 random bits from math/rand/v2's generator
// (ChaCha8, seeded from the system's randomness), which needs no system
// call; an id names a request in the logs and is no secret.
func newID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}
