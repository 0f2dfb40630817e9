package convert_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/api"
	"meridian/shared/convert"
	"meridian/shared/survey/grid"
)

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
