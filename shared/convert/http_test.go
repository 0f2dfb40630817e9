package convert_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/api"
	"meridian/shared/convert"
	"meridian/shared/survey/grid"
)

// collection is a decoded conversion response.
type collection struct {
	Type     string    `json:"type"`
	Features []feature `json:"features"`
	Errors   []struct {
		Index   int             `json:"index"`
		Input   json.RawMessage `json:"input"`
		Code    string          `json:"code"`
		Message string          `json:"message"`
	} `json:"errors"`
}

type feature struct {
	Type     string `json:"type"`
	Geometry struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

func (f feature) prop(name string) string {
	v, _ := f.Properties[name].(string)
	return v
}

func (f feature) point(t *testing.T) orb.Point {
	t.Helper()
	var c [2]float64
	if err := json.Unmarshal(f.Geometry.Coordinates, &c); err != nil {
		t.Fatalf("point coordinates %s: %v", f.Geometry.Coordinates, err)
	}
	return orb.Point(c)
}

func (f feature) polygon(t *testing.T) orb.Polygon {
	t.Helper()
	var c [][][2]float64
	if err := json.Unmarshal(f.Geometry.Coordinates, &c); err != nil {
		t.Fatalf("polygon coordinates %s: %v", f.Geometry.Coordinates, err)
	}
	var p orb.Polygon
	for _, ring := range c {
		var r orb.Ring
		for _, pt := range ring {
			r = append(r, orb.Point(pt))
		}
		p = append(p, r)
	}
	return p
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

func newMux() *api.Mux {
	h := convert.NewHandler(grid.New())
	mux := api.NewMux()
	mux.Mount(h.SearchRoutes()...)
	mux.Mount(h.AutocompleteRoutes()...)
	mux.Mount(h.BatchRoutes()...)
	return mux
}

var testMux = newMux()

func do(t testing.TB, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	rec := httptest.NewRecorder()
	testMux.ServeHTTP(rec, req)
	return rec
}

func get(t *testing.T, path string, params ...string) *httptest.ResponseRecorder {
	t.Helper()
	q := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	target := path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	return do(t, "GET", target, "")
}

func decode[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, rec.Body)
	}
	return v
}

// checkPair checks a grid feature followed by its centroid feature.
func checkPair(t *testing.T, grid, cent feature, searchTerm string) {
	t.Helper()
	if grid.prop("shape") != "grid" || cent.prop("shape") != "centroid" {
		t.Fatalf("shapes = %q, %q, want grid then centroid", grid.prop("shape"), cent.prop("shape"))
	}
	if grid.Geometry.Type != "Polygon" || cent.Geometry.Type != "Point" {
		t.Fatalf("geometry types = %s, %s, want Polygon, Point", grid.Geometry.Type, cent.Geometry.Type)
	}
	for _, name := range []string{"search_term", "legal_location", "unit", "survey_system", "province", "accuracy_m", "source", "datum"} {
		if _, ok := grid.Properties[name]; !ok {
			t.Errorf("grid feature lacks property %s", name)
		}
		if fmt.Sprint(grid.Properties[name]) != fmt.Sprint(cent.Properties[name]) {
			t.Errorf("property %s differs: grid %v, centroid %v", name, grid.Properties[name], cent.Properties[name])
		}
	}
	if got := grid.prop("search_term"); got != searchTerm {
		t.Errorf("search_term = %q, want %q", got, searchTerm)
	}
	poly := grid.polygon(t)
	ring := poly[0]
	if !ring.Closed() {
		t.Errorf("ring is not closed: %v", ring)
	}
	if ring.Orientation() != orb.CCW {
		t.Errorf("ring is not counter-clockwise: %v", ring)
	}
	if c := cent.point(t); !planar.PolygonContains(poly, c) {
		t.Errorf("centroid %v is not inside the grid polygon %v", c, ring)
	}
}

func TestUnknownRouteAndMethod(t *testing.T) {
	t.Parallel()
	rec := do(t, "GET", "/search/nothing", "")
	if e := decode[errorBody](t, rec); rec.Code != 404 || e.Error.Code != "not_found" {
		t.Errorf("unknown route: %d %+v", rec.Code, e)
	}
	rec = do(t, "POST", "/search/legal-location", "{}")
	if e := decode[errorBody](t, rec); rec.Code != 405 || e.Error.Code != "method_not_allowed" || rec.Header().Get("Allow") != "GET" {
		t.Errorf("wrong method: %d %+v Allow=%q", rec.Code, e, rec.Header().Get("Allow"))
	}
}

// FuzzHandlers sends arbitrary inputs to every conversion endpoint: no
// input may produce a 5xx or a body that is not JSON.
func FuzzHandlers(f *testing.F) {
	f.Add("NW-25-24-1-W5", "-114,51", "all", `["NW-25-24-1-W5"]`)
	f.Add("A-2-F/93", "51,-114", "LSD", `{"coordinates":[[-114,51]]}`)
	f.Add("\x00\xff", "1e999,0", "Quarter Unit", `[`)
	f.Add("Lot 5, Con 3, Admaston", `52°17'08"N 113°48'41"W`, "", `[null,{},[]]`)
	f.Add("F 48 60-20", "-100.6,60.3", "Section", `["F 48 60-20 N 100-30 W","84-10 N 90-00 W"]`)
	f.Add("FPS", "-90,84.5", "Grid", `{"coordinates":[[-100.6,60.3]],"survey_system":"FPS","unit":"Unit"}`)
	f.Fuzz(func(t *testing.T, lld, coords, unit, body string) {
		q := url.Values{"location": {lld}}
		reqs := []*http.Request{
			httptest.NewRequest("GET", "/search/legal-location?"+q.Encode(), nil),
			httptest.NewRequest("GET", "/autocomplete/legal-location?"+url.Values{"location": {lld}, "proximity": {coords}, "limit": {unit}}.Encode(), nil),
			httptest.NewRequest("GET", "/search/coordinates?"+url.Values{"location": {coords}, "unit": {unit}, "survey_system": {lld}}.Encode(), nil),
			httptest.NewRequest("GET", "/search/coordinates?"+url.Values{"location": {coords}, "datum": {"NAD27"}}.Encode(), nil),
			httptest.NewRequest("GET", "/search/legal-location?"+url.Values{"location": {lld}, "datum": {unit}}.Encode(), nil),
			httptest.NewRequest("POST", "/batch/coordinates?datum=nad27", strings.NewReader(body)),
			httptest.NewRequest("POST", "/batch/legal-location", strings.NewReader(body)),
			httptest.NewRequest("POST", "/batch/coordinates", strings.NewReader(body)),
		}
		for _, req := range reqs {
			rec := httptest.NewRecorder()
			testMux.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s %s: status %d: %s", req.Method, req.URL, rec.Code, rec.Body)
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s %s: body is not JSON: %s", req.Method, req.URL, rec.Body)
			}
		}
	})
}
