package api

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"meridian/shared/apierr"
)

// Route is one endpoint: its Go 1.22 mux pattern ("GET /search/coordinates"),
// its handler and its OpenAPI description.
type Route struct {
	Pattern string
	Handler http.Handler
	Op      Operation
}

// Method and Path split the pattern.
func (r Route) Method() string { m, _, _ := strings.Cut(r.Pattern, " "); return m }
func (r Route) Path() string   { _, p, _ := strings.Cut(r.Pattern, " "); return p }

// Mux is an http.ServeMux that remembers what is mounted on it, so the
// OpenAPI document can be checked against the routes really served, and that
// answers unknown paths and methods with the JSON error body.
type Mux struct {
	mux      *http.ServeMux
	routes   []Route
	patterns []string
}

// NewMux returns an empty Mux.
func NewMux() *Mux {
	m := &Mux{mux: http.NewServeMux()}
	m.mux.Handle("/", Func(m.notFound))
	return m
}

// Mount registers documented routes.
func (m *Mux) Mount(routes ...Route) {
	for _, r := range routes {
		m.Handle(r.Pattern, r.Handler)
		m.routes = append(m.routes, r)
	}
}

// Handle registers an undocumented handler; Patterns still reports it, so a
// test can tell it is missing from the OpenAPI document.
func (m *Mux) Handle(pattern string, h http.Handler) {
	m.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		NoteRoute(r.Context(), pattern)
		if err := checkText(r); err != nil {
			WriteError(w, r, err)
			return
		}
		h.ServeHTTP(w, r)
	}))
	m.patterns = append(m.patterns, pattern)
}

// Routes returns the documented routes in mount order.
func (m *Mux) Routes() []Route { return m.routes }

// Patterns returns every pattern mounted, documented or not.
func (m *Mux) Patterns() []string { return m.patterns }

// Pattern returns the pattern of the mounted route that would serve r,
// without serving it, or "" when none would (an unknown path, or a method
// the path does not allow). It is Options.Route for a Middleware around
// layers that may refuse a request before it reaches the Mux.
func (m *Mux) Pattern(r *http.Request) string {
	if _, p := m.mux.Handler(r); p != "/" {
		return p
	}
	return ""
}

func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }

var probeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}

func (m *Mux) notFound(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, method := range probeMethods {
		if method == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, p := m.mux.Handler(probe); p != "/" && p != "" {
			allow = append(allow, method)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return &apierr.Error{Kind: apierr.MethodNotAllowed, Code: "method_not_allowed",
			Message: r.Method + " is not allowed on " + r.URL.Path + ": use " + strings.Join(allow, " or ")}
	}
	return apierr.NotFoundf("No route %s %s: see /openapi.json for the routes this server answers", r.Method, r.URL.Path)
}

// checkText refuses a request whose path or query parameters, decoded,
// hold a NUL byte or bytes that are not UTF-8: no route has a use for
// them, and they reach store keys, file names and logs otherwise.
func checkText(r *http.Request) error {
	if !cleanText(r.URL.Path) {
		return apierr.Invalidf("invalid_parameter", "the path holds a NUL byte or bytes that are not UTF-8")
	}
	raw := r.URL.RawQuery
	if !strings.Contains(raw, "%") && cleanText(raw) {
		return nil // the common case: nothing escaped, nothing to decode
	}
	q, _ := url.ParseQuery(raw) // pairs that do not decode are dropped, as r.URL.Query() does for the handlers
	for k, vs := range q {
		if !cleanText(k) {
			return apierr.Invalidf("invalid_parameter", "a query parameter name holds a NUL byte or bytes that are not UTF-8")
		}
		for _, v := range vs {
			if !cleanText(v) {
				return apierr.Invalidf("invalid_parameter", "parameter %s holds a NUL byte or bytes that are not UTF-8", k)
			}
		}
	}
	return nil
}

func cleanText(s string) bool { return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) }
