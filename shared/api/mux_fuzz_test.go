package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"meridian/shared/api"
)

// FuzzMux sends arbitrary paths, query strings and methods to a Mux with a
// wildcard route: the router and its text check never panic or answer 5xx,
// and what they answer themselves is the JSON error body (redirects of
// paths the mux cleans aside).
func FuzzMux(f *testing.F) {
	f.Add("GET", "/energy/operators/Z9A1", "view=wells")
	f.Add("GET", "/energy/operators/%00", "")
	f.Add("POST", "/energy/operators/x", "q=%ff%fe&q=%zz&=&&")
	f.Add("DELETE", "/nothing/here", "a=%c3%28")
	f.Add("GET", "/energy/operators/%2e%2e/x", "\x00")
	mux := api.NewMux()
	mux.Mount(api.Route{Pattern: "GET /energy/operators/{name}", Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
		api.WriteJSON(w, http.StatusOK, map[string]string{"name": r.PathValue("name"), "view": r.URL.Query().Get("view")})
		return nil
	})})
	f.Fuzz(func(t *testing.T, method, path, query string) {
		u, err := url.Parse("http://h" + path)
		if err != nil || u.Host != "h" || !validMethod(method) {
			return
		}
		u.RawQuery = query
		req := &http.Request{Method: method, URL: u, Host: "h", Header: http.Header{}, Body: http.NoBody}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, u, rec.Code, rec.Body)
		}
		if rec.Code/100 != 3 && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: %d, body is not JSON: %s", method, u, rec.Code, rec.Body)
		}
	})
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}
