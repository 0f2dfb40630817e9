package convert_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"
)

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
