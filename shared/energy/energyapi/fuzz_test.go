package energyapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// FuzzHandlers sends arbitrary legal locations, path values and query
// values to every energy route over the demo data: no input may produce a
// 5xx or a body that is not JSON (the mux's redirects of paths
// holding . or .. aside).
func FuzzHandlers(f *testing.F) {
	f.Add("9-10-60-22-W5", "Z9A1", "summary", "1")
	f.Add("10-36-42-3-W5", "aspen-coulee-petroleum-ltd-demo", "dispositions", "365")
	f.Add("NW-25-24-1-W5", "metallic-and-industrial-minerals-permit:9323060045", "wells", "-1")
	f.Add("\x00\xff", "..", "lsds", "1e308")
	f.Add("100/06-32-048-07W5/00", "40822", "geometry,production", "99999999999999999999")
	f.Add("", "", "", "")
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	h := mux(demo(f), now)
	f.Fuzz(func(t *testing.T, lsd, name, v1, v2 string) {
		q := url.Values{
			"legal_location": {lsd}, "include": {v1}, "page": {v2}, "per_page": {v1}, "dir": {v2}, "sort": {v1},
			"status": {v2}, "operator": {v1}, "q": {v2}, "view": {v1}, "tenure_kind": {v2}, "type": {v1},
			"expires_within_days": {v2}, "category": {v1}, "substance": {v2},
		}.Encode()
		p := url.PathEscape(name)
		for _, target := range []string{
			"/energy/report?" + q, "/energy/wells?" + q, "/energy/pipelines?" + q, "/energy/facilities?" + q,
			"/energy/tenure?" + q, "/energy/operators?" + q, "/energy/operators/" + p + "?" + q,
			"/energy/tenure/expiring?" + q, "/energy/dispositions/" + p, "/energy/pipelines/" + p, "/energy/changes?" + q,
		} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
			if rec.Code >= 500 {
				t.Fatalf("GET %s: status %d: %s", target, rec.Code, rec.Body)
			}
			if rec.Code/100 != 3 && !json.Valid(rec.Body.Bytes()) { // 3xx: the mux cleaning a path of . or ..
				t.Fatalf("GET %s: body is not JSON: %s", target, rec.Body)
			}
		}
	})
}
