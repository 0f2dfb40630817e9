package convert_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
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

func TestSearchLegalLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, legal, unit, system, province string
	}{
		{"NW-25-24-1-W5", "NW-25-24-1-W5", "Quarter Section", "DLS", "Alberta"},
		{"NW 25-24-1 W5M", "NW-25-24-1-W5", "Quarter Section", "DLS", "Alberta"},
		{"nw-25-024-01-w5", "NW-25-24-1-W5", "Quarter Section", "DLS", "Alberta"},
		{"10-36-42-3-W5", "10-36-42-3-W5", "LSD", "DLS", "Alberta"},
		{"LSD 06-32-048-07W5", "6-32-48-7-W5", "LSD", "DLS", "Alberta"},
		{"100/06-32-048-07W5/00", "6-32-48-7-W5", "LSD", "DLS", "Alberta"},
		{"25-24-1-W5", "25-24-1-W5", "Section", "DLS", "Alberta"},
		{"24-1-W5", "24-1-W5", "Township", "DLS", "Alberta"},
		{"SW-10-20-15-W2", "SW-10-20-15-W2", "Quarter Section", "DLS", "Saskatchewan"},
		{"SW-14-8-2E1", "SW-14-8-2-E1", "Quarter Section", "DLS", "Manitoba"},
		{"SE-7-5-6W1", "SE-7-5-6-W1", "Quarter Section", "DLS", "Manitoba"},
		{"06-24-085-14W6", "6-24-85-14-W6", "LSD", "DLS", "British Columbia"},
		{"A-2-F/93-P-8", "A-2-F/93-P-8", "Quarter Unit", "NTS", "British Columbia"},
		{"D-080-H/092-G-03", "D-80-H/92-G-3", "Quarter Unit", "NTS", "British Columbia"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			rec := get(t, "/search/legal-location", "location", tc.in)
			if rec.Code != 200 {
				t.Fatalf("status %d, want 200: %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/geo+json" {
				t.Errorf("Content-Type = %q", ct)
			}
			fc := decode[collection](t, rec)
			if fc.Type != "FeatureCollection" || len(fc.Features) != 2 {
				t.Fatalf("got %s with %d features, want a FeatureCollection of 2", fc.Type, len(fc.Features))
			}
			checkPair(t, fc.Features[0], fc.Features[1], tc.in)
			f := fc.Features[0]
			got := [4]string{f.prop("legal_location"), f.prop("unit"), f.prop("survey_system"), f.prop("province")}
			want := [4]string{tc.legal, tc.unit, tc.system, tc.province}
			if got != want {
				t.Errorf("properties = %v, want %v", got, want)
			}
		})
	}
}

// The one real published API output: NW-25-24-1-W5 has its centre at
// 51.077932, -114.01924 (api-reference.md §11). The model must land within
// its stated accuracy of it.
func TestSearchMatchesPublishedCentroid(t *testing.T) {
	t.Parallel()
	fc := decode[collection](t, get(t, "/search/legal-location", "location", "NW-25-24-1-W5"))
	c := fc.Features[1].point(t)
	d := geo.Distance(c, orb.Point{-114.01924, 51.077932})
	acc, _ := fc.Features[1].Properties["accuracy_m"].(float64)
	if d > 250 || d > acc+200 {
		t.Errorf("centroid %v is %.0f m from the published 51.077932,-114.01924 (accuracy_m %v)", c, d, acc)
	}
}

func TestSearchErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in   string
		status     int
		code, part string
	}{
		{"missing", "", 400, "invalid_parameter", "location is required"},
		{"section 37", "NW-37-24-1-W5", 400, "invalid_legal_location", "37"},
		{"LSD 17", "17-36-42-3-W5", 400, "invalid_legal_location", "17"},
		{"township 0", "NW-25-0-1-W5", 400, "invalid_legal_location", "township"},
		{"township 127", "NW-25-127-1-W5", 400, "invalid_legal_location", "127"},
		{"quarter XX", "XX-25-24-1-W5", 400, "invalid_legal_location", "XX"},
		{"meridian W8", "NW-25-24-1-W8", 400, "invalid_legal_location", "W8"},
		{"gibberish", "hello world", 400, "invalid_legal_location", "hello world"},
		{"west of the divide", "NW-25-10-30-W5", 404, "not_found", "NW-25-10-30-W5"},
		{"Ontario without data", "Lot 10 Con 1 Adjala", 404, "not_found", "not loaded"},
		{"river lot without data", "RL-22-St. Norbert", 404, "not_found", "not loaded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rec *httptest.ResponseRecorder
			if tc.in == "" {
				rec = get(t, "/search/legal-location")
			} else {
				rec = get(t, "/search/legal-location", "location", tc.in)
			}
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			e := decode[errorBody](t, rec)
			if e.Error.Code != tc.code || e.Message != e.Error.Message || !strings.Contains(e.Error.Message, tc.part) {
				t.Errorf("error = %+v, want code %s and a message naming %q", e, tc.code, tc.part)
			}
		})
	}
}

func TestSearchCoordinates(t *testing.T) {
	t.Parallel()
	pt := orb.Point{-114.01924, 51.077932}
	tests := []struct {
		name   string
		params []string
		units  []string
		legal  string // of the last block
	}{
		{"smallest block", []string{"location", "-114.01924,51.077932"}, []string{"LSD"}, ""},
		{"lat,lng", []string{"location", "51.077932,-114.01924"}, []string{"LSD"}, ""},
		{"quarter", []string{"location", "-114.01924,51.077932", "unit", "Quarter Section"}, []string{"Quarter Section"}, "NW-25-24-1-W5"},
		{"section lower case", []string{"location", "-114.01924,51.077932", "unit", "section", "survey_system", "dls"}, []string{"Section"}, "25-24-1-W5"},
		{"all", []string{"location", "-114.01924,51.077932", "unit", "all"}, []string{"Township", "Section", "Quarter Section", "LSD"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(t, "/search/coordinates", tc.params...)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			fc := decode[collection](t, rec)
			if len(fc.Features) != 2*len(tc.units) {
				t.Fatalf("%d features, want %d", len(fc.Features), 2*len(tc.units))
			}
			for i, u := range tc.units {
				g, c := fc.Features[2*i], fc.Features[2*i+1]
				checkPair(t, g, c, tc.params[1])
				if g.prop("unit") != u {
					t.Errorf("feature %d unit = %q, want %q", 2*i, g.prop("unit"), u)
				}
				if !planar.PolygonContains(g.polygon(t), pt) {
					t.Errorf("%s %s does not contain %v", u, g.prop("legal_location"), pt)
				}
			}
			if last := fc.Features[len(fc.Features)-1].prop("legal_location"); tc.legal != "" && last != tc.legal {
				t.Errorf("legal_location = %q, want %q", last, tc.legal)
			}
		})
	}
}

func TestSearchCoordinatesSystems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, loc, system, unit string
		wantLegal, wantSystem   string
	}{
		{"NTS in the south", "-123.11478,49.14809", "", "", "D-80-H/92-G-3", "NTS"},
		{"Peace River Block defaults to DLS", "-120.6,56.25", "", "", "", "DLS"},
		{"Peace River Block asked in NTS", "-120.6,56.25", "NTS", "", "", "NTS"},
		{"NTS block", "-120.265625,55.335417", "", "Block", "F/93-P-8", "NTS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := []string{"location", tc.loc}
			if tc.system != "" {
				params = append(params, "survey_system", tc.system)
			}
			if tc.unit != "" {
				params = append(params, "unit", tc.unit)
			}
			rec := get(t, "/search/coordinates", params...)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			fc := decode[collection](t, rec)
			f := fc.Features[0]
			if f.prop("survey_system") != tc.wantSystem || (tc.wantLegal != "" && f.prop("legal_location") != tc.wantLegal) {
				t.Errorf("got %s %s, want %s %s", f.prop("survey_system"), f.prop("legal_location"), tc.wantSystem, tc.wantLegal)
			}
			if f.prop("province") != "British Columbia" {
				t.Errorf("province = %q", f.prop("province"))
			}
		})
	}
}

func TestSearchCoordinatesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params []string
		status int
		code   string
	}{
		{"missing", nil, 400, "invalid_parameter"},
		{"not numbers", []string{"location", "abc,def"}, 400, "invalid_coordinates"},
		{"out of range", []string{"location", "200,100"}, 400, "invalid_coordinates"},
		{"bad unit", []string{"location", "-114,51", "unit", "Acre"}, 400, "invalid_parameter"},
		{"bad system", []string{"location", "-114,51", "survey_system", "PLSS"}, 400, "invalid_parameter"},
		{"unit of another system", []string{"location", "-114,51", "survey_system", "NTS", "unit", "LSD"}, 400, "invalid_parameter"},
		{"half section", []string{"location", "-114,51", "unit", "Half Section"}, 400, "invalid_parameter"},
		{"Ottawa", []string{"location", "-75.69,45.42"}, 404, "not_found"},
		{"Pacific", []string{"location", "-140,50"}, 404, "not_found"},
		{"north of 60 without FPS (Nunavik)", []string{"location", "-72,61"}, 404, "not_found"},
		{"Ontario without data", []string{"location", "-79.93,44.17", "survey_system", "Geographic Township"}, 404, "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(t, "/search/coordinates", tc.params...)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if e := decode[errorBody](t, rec); e.Error.Code != tc.code {
				t.Errorf("code = %q, want %q (%s)", e.Error.Code, tc.code, e.Error.Message)
			}
		})
	}
}

func TestAutocomplete(t *testing.T) {
	t.Parallel()
	t.Run("default ranking", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "NW-25-24"))
		if len(fc.Features) != 3 {
			t.Fatalf("%d suggestions, want the default 3", len(fc.Features))
		}
		if got := fc.Features[0].prop("legal_location"); got != "NW-25-24-1-W5" {
			t.Errorf("first suggestion = %s, want NW-25-24-1-W5 (nearest the default point, Calgary)", got)
		}
		for _, f := range fc.Features {
			if !strings.HasPrefix(f.prop("legal_location"), "NW-25-24-") || f.prop("search_term") != "NW-25-24" {
				t.Errorf("suggestion %v does not complete NW-25-24", f.Properties)
			}
			if _, ok := f.Properties["shape"]; ok || f.Geometry.Type != "Point" {
				t.Errorf("suggestion must be a Point without shape: %+v", f)
			}
		}
	})
	t.Run("proximity", func(t *testing.T) {
		prox := orb.Point{-114.3, 52.66}
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "10-36-42", "limit", "10", "proximity", "-114.3,52.66"))
		if len(fc.Features) != 10 {
			t.Fatalf("%d suggestions, want 10", len(fc.Features))
		}
		if got := fc.Features[0].prop("legal_location"); got != "10-36-42-3-W5" {
			t.Errorf("first = %s, want 10-36-42-3-W5", got)
		}
		last := 0.0
		for _, f := range fc.Features {
			d := geo.Distance(prox, f.point(t))
			if d+1 < last {
				t.Errorf("suggestions are not nearest first: %s at %.0f m after %.0f m", f.prop("legal_location"), d, last)
			}
			last = d
			if f.prop("unit") != "LSD" || !strings.HasPrefix(f.prop("legal_location"), "10-36-42-") {
				t.Errorf("suggestion %s %s does not complete LSD 10-36-42", f.prop("unit"), f.prop("legal_location"))
			}
		}
	})
	t.Run("unfinished number", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "SE-1-12", "limit", "10", "proximity", "-110.5,50.1"))
		for _, f := range fc.Features {
			l := f.prop("legal_location")
			parts := strings.Split(l, "-")
			if parts[0] != "SE" || parts[1] != "1" || !strings.HasPrefix(parts[2], "12") {
				t.Errorf("suggestion %s does not complete SE-1-12", l)
			}
		}
		if len(fc.Features) == 0 {
			t.Error("no suggestions")
		}
	})
	t.Run("NTS", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "A-2-F/93-P", "limit", "5"))
		if len(fc.Features) != 5 {
			t.Fatalf("%d suggestions, want 5", len(fc.Features))
		}
		for _, f := range fc.Features {
			if !strings.HasPrefix(f.prop("legal_location"), "A-2-F/93-P-") || f.prop("survey_system") != "NTS" {
				t.Errorf("suggestion %s does not complete A-2-F/93-P", f.prop("legal_location"))
			}
		}
	})
	t.Run("complete description first", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "NW-36-42-3-W5"))
		if len(fc.Features) == 0 || fc.Features[0].prop("legal_location") != "NW-36-42-3-W5" {
			t.Errorf("first suggestion of a complete description: %+v", fc.Features)
		}
	})
	t.Run("nothing matches", func(t *testing.T) {
		rec := get(t, "/autocomplete/legal-location", "location", "zzzz")
		fc := decode[collection](t, rec)
		if rec.Code != 200 || len(fc.Features) != 0 {
			t.Errorf("status %d, %d features, want 200 and none", rec.Code, len(fc.Features))
		}
	})
}

func TestAutocompleteErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		params []string
		code   string
	}{
		{"missing", nil, "invalid_parameter"},
		{"one character", []string{"location", "N"}, "invalid_parameter"},
		{"limit 0", []string{"location", "NW-25", "limit", "0"}, "invalid_parameter"},
		{"limit 11", []string{"location", "NW-25", "limit", "11"}, "invalid_parameter"},
		{"limit text", []string{"location", "NW-25", "limit", "ten"}, "invalid_parameter"},
		{"bad proximity", []string{"location", "NW-25", "proximity", "north"}, "invalid_coordinates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(t, "/autocomplete/legal-location", tc.params...)
			if e := decode[errorBody](t, rec); rec.Code != 400 || e.Error.Code != tc.code {
				t.Errorf("status %d code %q, want 400 %s", rec.Code, e.Error.Code, tc.code)
			}
		})
	}
}

func TestBatchLegalLocation(t *testing.T) {
	t.Parallel()
	inputs := []any{"NE-7-102-19-W4", "1-24-60-1-W5", "not a location", 42, "7-66-4-W6", "NW-25-10-30-W5"}
	body, _ := json.Marshal(inputs)
	rec := do(t, "POST", "/batch/legal-location", string(body))
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	fc := decode[collection](t, rec)
	wantLegal := []string{"NE-7-102-19-W4", "1-24-60-1-W5", "7-66-4-W6"}
	if len(fc.Features) != 2*len(wantLegal) {
		t.Fatalf("%d features, want %d", len(fc.Features), 2*len(wantLegal))
	}
	for i, want := range wantLegal {
		g, c := fc.Features[2*i], fc.Features[2*i+1]
		checkPair(t, g, c, want)
		if g.prop("legal_location") != want {
			t.Errorf("record %d = %s, want %s (input order)", i, g.prop("legal_location"), want)
		}
	}
	wantErr := []struct {
		index int
		input string
		code  string
	}{{2, `"not a location"`, "invalid_legal_location"}, {3, "42", "invalid_legal_location"}, {5, `"NW-25-10-30-W5"`, "not_found"}}
	if len(fc.Errors) != len(wantErr) {
		t.Fatalf("errors = %+v, want %d", fc.Errors, len(wantErr))
	}
	for i, w := range wantErr {
		e := fc.Errors[i]
		if e.Index != w.index || string(e.Input) != w.input || e.Code != w.code || e.Message == "" {
			t.Errorf("errors[%d] = %+v, want index %d input %s code %s", i, e, w.index, w.input, w.code)
		}
	}
}

func TestBatchLimitsAndBodies(t *testing.T) {
	t.Parallel()
	many := make([]string, 101)
	for i := range many {
		many[i] = "NW-25-24-1-W5"
	}
	hundredOne, _ := json.Marshal(many)
	hundred, _ := json.Marshal(many[:100])
	pairs := make([][2]float64, 101)
	for i := range pairs {
		pairs[i] = [2]float64{-114, 51}
	}
	pairs101, _ := json.Marshal(map[string]any{"coordinates": pairs})
	tests := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"100 records", "/batch/legal-location", string(hundred), 200, ""},
		{"101 records", "/batch/legal-location", string(hundredOne), 413, "batch_too_large"},
		{"malformed", "/batch/legal-location", `["NW-25-24-1-W5",`, 400, "invalid_parameter"},
		{"object", "/batch/legal-location", `{"locations":["NW-25-24-1-W5"]}`, 400, "invalid_parameter"},
		{"empty body", "/batch/legal-location", ` `, 400, "invalid_parameter"},
		{"null", "/batch/legal-location", `null`, 400, "invalid_parameter"},
		{"trailing data", "/batch/legal-location", `[] []`, 400, "invalid_parameter"},
		{"empty array", "/batch/legal-location", `[]`, 200, ""},
		{"101 pairs", "/batch/coordinates", string(pairs101), 413, "batch_too_large"},
		{"no coordinates", "/batch/coordinates", `{"unit":"LSD"}`, 400, "invalid_parameter"},
		{"array body", "/batch/coordinates", `[[-114,51]]`, 400, "invalid_parameter"},
		{"bad unit", "/batch/coordinates", `{"coordinates":[[-114,51]],"unit":"Acre"}`, 400, "invalid_parameter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, "POST", tc.path, tc.body)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %.300s", rec.Code, tc.status, rec.Body)
			}
			if tc.code != "" {
				if e := decode[errorBody](t, rec); e.Error.Code != tc.code {
					t.Errorf("code %q, want %q", e.Error.Code, tc.code)
				}
			}
		})
	}
}

func TestBatchCoordinates(t *testing.T) {
	t.Parallel()
	body := `{"coordinates":[[-110.086743843,54.28602155],[54.336941143,-110.011880321],[200,100],[1],"x",[-75.69,45.42]],"survey_system":"DLS","unit":"Quarter Section"}`
	rec := do(t, "POST", "/batch/coordinates", body)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	fc := decode[collection](t, rec)
	if len(fc.Features) != 4 {
		t.Fatalf("%d features, want 4 (two points)", len(fc.Features))
	}
	for i, pt := range []orb.Point{{-110.086743843, 54.28602155}, {-110.011880321, 54.336941143}} {
		g := fc.Features[2*i]
		checkPair(t, g, fc.Features[2*i+1], g.prop("search_term"))
		if g.prop("unit") != "Quarter Section" || !planar.PolygonContains(g.polygon(t), pt) {
			t.Errorf("record %d: %s %s does not contain %v", i, g.prop("unit"), g.prop("legal_location"), pt)
		}
	}
	codes := map[int]string{}
	for _, e := range fc.Errors {
		codes[e.Index] = e.Code
	}
	want := map[int]string{2: "invalid_coordinates", 3: "invalid_coordinates", 4: "invalid_coordinates", 5: "not_found"}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("errors = %v, want %v", codes, want)
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

func BenchmarkSearchHandler(b *testing.B) {
	req := httptest.NewRequest("GET", "/search/legal-location?location=NW-25-24-1-W5", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		testMux.ServeHTTP(rec, req)
	}
}

func BenchmarkReverseHandler(b *testing.B) {
	req := httptest.NewRequest("GET", "/search/coordinates?location=-114.01924,51.077932&unit=all", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		testMux.ServeHTTP(rec, req)
	}
}

func BenchmarkBatch100Handler(b *testing.B) {
	lls := make([]string, 100)
	for i := range lls {
		lls[i] = fmt.Sprintf("%s-%d-%d-%d-W5", []string{"NE", "NW", "SE", "SW"}[i%4], 1+i%36, 1+i%90, 1+i%25)
	}
	body, _ := json.Marshal(lls)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/batch/legal-location", strings.NewReader(string(body)))
		rec := httptest.NewRecorder()
		testMux.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// A batch resolved on many goroutines answers what one goroutine answers:
// the same features in input order, the same errors in index order.
func TestBatchConcurrentMatchesSerial(t *testing.T) {
	t.Parallel()
	var inputs []any
	for i := range 100 {
		switch i % 10 {
		case 3:
			inputs = append(inputs, "not a location")
		case 7:
			inputs = append(inputs, i)
		case 9:
			inputs = append(inputs, "NW-25-10-30-W5") // not found
		default:
			inputs = append(inputs, fmt.Sprintf("%s-%d-%d-%d-W%d", []string{"NE", "NW", "SE", "SW"}[i%4], 1+i%36, 1+i%90, 1+i%25, 4+i%2))
		}
	}
	body, _ := json.Marshal(inputs)
	answer := func(workers int) string {
		h := convert.NewHandler(grid.New())
		h.BatchWorkers = workers
		mux := api.NewMux()
		mux.Mount(h.BatchRoutes()...)
		req := httptest.NewRequest("POST", "/batch/legal-location", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("workers %d: status %d: %s", workers, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	serial := answer(1)
	if !strings.Contains(serial, `"errors":[{"index":3,`) || strings.Count(serial, `"index":`) < 30 {
		t.Fatalf("serial answer lacks the 30 errors (at least) in order: ...%s", serial[max(0, len(serial)-700):])
	}
	for _, w := range []int{2, 8, 100} {
		if got := answer(w); got != serial {
			t.Errorf("%d workers answer differently from one", w)
		}
	}
}
