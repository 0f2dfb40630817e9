package convert_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/convert"
	"meridian/shared/lld"
	"meridian/shared/survey/fps"
	"meridian/shared/survey/grid"
)

// fpsCentroid is the NAD83 centroid the model gives an FPS description.
func fpsCentroid(t *testing.T, s string) orb.Point {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fps.Resolve(l)
	if err != nil {
		t.Fatal(err)
	}
	return b.Centroid
}

func TestSearchFPS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, legal, unit string
		accLo, accHi    float64
	}{
		{"60-20 N 100-30 W", "60-20 N 100-30 W", "Grid", 8, 9},
		{"48 60-20 N 100-30 W", "48 60-20 N 100-30 W", "Section", 8, 9},
		{"f-48 60-20n 100-30w", "F 48 60-20 N 100-30 W", "Unit", 8, 9},
		{"B 16 46-50 N 48-45 W", "B 16 46-50 N 48-45 W", "Unit", 2, 9},
		{"302B164650048451", "B 16 46-50 N 48-45 W", "Unit", 2, 9},         // Hibernia B-16's UWI
		{"M 100 72-00 N 120-00 W", "M 100 72-00 N 120-00 W", "Unit", 3, 4}, // west edge of a 30′ grid: bow 1.7 m
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			rec := get(t, "/search/legal-location", "location", tc.in)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			fc := decode[collection](t, rec)
			if len(fc.Features) != 2 {
				t.Fatalf("%d features, want grid and centroid", len(fc.Features))
			}
			checkPair(t, fc.Features[0], fc.Features[1], tc.in)
			f := fc.Features[1]
			if f.prop("legal_location") != tc.legal || f.prop("unit") != tc.unit || f.prop("survey_system") != "FPS" ||
				f.prop("province") != "Canada Lands" || f.prop("source") != "model" {
				t.Errorf("properties %v, want %s %s FPS Canada Lands model", f.Properties, tc.legal, tc.unit)
			}
			if a, _ := f.Properties["accuracy_m"].(float64); a < tc.accLo || a > tc.accHi {
				t.Errorf("accuracy_m = %v, want %v-%v", f.Properties["accuracy_m"], tc.accLo, tc.accHi)
			}
			if d := geo.Distance(f.point(t), fpsCentroid(t, tc.legal)); d > 0.2 {
				t.Errorf("centroid %v is %.2f m from the model's", f.point(t), d)
			}
		})
	}
}

func TestSearchFPSErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		status int
		code   string
		msg    string
	}{
		{"70-10 N 133-45 W", 400, "invalid_legal_location", "longitude minutes are 00 or 30"},
		{"81 60-20 N 100-30 W", 400, "invalid_legal_location", "sections 1-80"},
		{"84-10 N 90-00 W", 404, "not_found", "outside the NAD27 to NAD83 grid"},
		{"60-20 N 43-45 W", 404, "not_found", "outside the NAD27 to NAD83 grid"},
	}
	for _, tc := range tests {
		rec := get(t, "/search/legal-location", "location", tc.in)
		e := decode[errorBody](t, rec)
		if rec.Code != tc.status || e.Error.Code != tc.code || !strings.Contains(e.Error.Message, tc.msg) {
			t.Errorf("%s: %d %s %q, want %d %s containing %q", tc.in, rec.Code, e.Error.Code, e.Error.Message, tc.status, tc.code, tc.msg)
		}
	}
}

func TestSearchCoordinatesFPS(t *testing.T) {
	t.Parallel()
	unit := fpsCentroid(t, "F 48 60-20 N 100-30 W")
	loc := trim(unit[0]) + "," + trim(unit[1])
	tests := []struct {
		name, loc, system, unit string
		want                    []string
	}{
		{"FPS smallest", loc, "FPS", "", []string{"F 48 60-20 N 100-30 W"}},
		{"FPS unit", loc, "fps", "Unit", []string{"F 48 60-20 N 100-30 W"}},
		{"FPS section (DLS has a Section too)", loc, "FPS", "Section", []string{"48 60-20 N 100-30 W"}},
		{"FPS grid", loc, "FPS", "Grid", []string{"60-20 N 100-30 W"}},
		{"Grid without system means FPS", loc, "", "Grid", []string{"60-20 N 100-30 W"}},
		{"FPS all", loc, "FPS", "all", []string{"60-20 N 100-30 W", "48 60-20 N 100-30 W", "F 48 60-20 N 100-30 W"}},
		{"default north of 60 is FPS", loc, "", "", []string{"F 48 60-20 N 100-30 W"}},
		{"Iqaluit by default", "-68.52,63.75", "", "Grid", []string{"63-50 N 68-30 W"}},
		{"Alert by default", "-62.35,82.5", "", "Grid", []string{"82-30 N 62-00 W"}},
		{"Grise Fiord by default", "-82.9,76.42", "", "Grid", []string{"76-30 N 82-30 W"}},
		{"Clyde River by default", "-68.6,70.47", "", "Grid", []string{"70-30 N 68-30 W"}},
		{"Hibernia offshore asked in FPS", "-48.781792,46.750578", "FPS", "", []string{"B 16 46-50 N 48-45 W"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
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
			if len(fc.Features) != 2*len(tc.want) {
				t.Fatalf("%d features, want %d", len(fc.Features), 2*len(tc.want))
			}
			for i, w := range tc.want {
				checkPair(t, fc.Features[2*i], fc.Features[2*i+1], tc.loc)
				if got := fc.Features[2*i].prop("legal_location"); got != w || fc.Features[2*i].prop("survey_system") != "FPS" {
					t.Errorf("block %d = %s %s, want FPS %s", i, fc.Features[2*i].prop("survey_system"), got, w)
				}
			}
		})
	}
}

func trim(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func TestSearchCoordinatesFPSErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params []string
		status int
		code   string
	}{
		{"LSD is not an FPS unit", []string{"location", "-100.6,60.3", "survey_system", "FPS", "unit", "LSD"}, 400, "invalid_parameter"},
		{"Grid is not DLS", []string{"location", "-114,51", "survey_system", "DLS", "unit", "Grid"}, 400, "invalid_parameter"},
		{"north of the datum grid", []string{"location", "-90,84.5", "survey_system", "FPS"}, 404, "not_found"},
		{"south of 40", []string{"location", "-60,39.5", "survey_system", "FPS"}, 404, "not_found"},
		{"Nunavik is not FPS by default", []string{"location", "-72,61"}, 404, "not_found"},
		{"south of 60 needs the system", []string{"location", "-48.78,46.75"}, 404, "not_found"},
		{"Nuuk, Greenland", []string{"location", "-51.72,64.18"}, 404, "not_found"},
		{"Pituffik, Greenland", []string{"location", "-68.7,76.53"}, 404, "not_found"},
		{"Qaanaaq, Greenland", []string{"location", "-69.23,77.47"}, 404, "not_found"},
		{"Upernavik, Greenland", []string{"location", "-56.15,72.79"}, 404, "not_found"},
	}
	for _, tc := range tests {
		rec := get(t, "/search/coordinates", tc.params...)
		if e := decode[errorBody](t, rec); rec.Code != tc.status || e.Error.Code != tc.code {
			t.Errorf("%s: %d %s (%s), want %d %s", tc.name, rec.Code, e.Error.Code, e.Error.Message, tc.status, tc.code)
		}
	}
}

func TestAutocompleteFPS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, prefix, unit string
		limit                  string
		prox                   string
		first                  string
	}{
		{"unit, section and latitude", "F 48 60-20", "F 48 60-20 N ", "Unit", "5", "-100.6,60.3", "F 48 60-20 N 100-30 W"},
		{"grid latitude", "60-20 N", "", "Grid", "4", "-100.6,60.3", "60-20 N 100-30 W"},
		{"unfinished longitude", "48 60-20 N 10", "48 60-20 N 10", "Section", "10", "-100.6,60.3", "48 60-20 N 100-30 W"},
		{"unfinished latitude minutes", "B 16 46-5", "B 16 46-50 N ", "Unit", "3", "-48.78,46.75", "B 16 46-50 N 48-45 W"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(t, "/autocomplete/legal-location", "location", tc.in, "limit", tc.limit, "proximity", tc.prox)
			fc := decode[collection](t, rec)
			if rec.Code != 200 || len(fc.Features) == 0 {
				t.Fatalf("status %d, %d suggestions: %s", rec.Code, len(fc.Features), rec.Body)
			}
			if got := fc.Features[0].prop("legal_location"); got != tc.first {
				t.Errorf("first = %s, want %s", got, tc.first)
			}
			prox, _ := convert.ParsePoint(tc.prox)
			last := 0.0
			for _, f := range fc.Features {
				l := f.prop("legal_location")
				if f.prop("survey_system") != "FPS" || f.prop("unit") != tc.unit || !strings.HasPrefix(l, tc.prefix) {
					t.Errorf("suggestion %s %s %s does not complete %q", f.prop("survey_system"), f.prop("unit"), l, tc.in)
				}
				if tc.name == "grid latitude" && !strings.HasPrefix(l, "60-20 N ") {
					t.Errorf("suggestion %s does not complete 60-20 N", l)
				}
				d := geo.Distance(prox, f.point(t))
				if d+1 < last {
					t.Errorf("suggestions are not nearest first: %s at %.0f m after %.0f m", l, d, last)
				}
				last = d
			}
		})
	}
	// Digits alone stay DLS.
	fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "60-20"))
	for _, f := range fc.Features {
		if f.prop("survey_system") != "DLS" {
			t.Errorf("60-20 suggested %s %s, want DLS", f.prop("survey_system"), f.prop("legal_location"))
		}
	}
}

func TestBatchFPS(t *testing.T) {
	t.Parallel()
	rec := do(t, "POST", "/batch/legal-location", `["F 48 60-20 N 100-30 W","NW-25-24-1-W5","70-10 N 133-45 W","60-20 N 100-30 W"]`)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	fc := decode[collection](t, rec)
	var got []string
	for i := 0; i < len(fc.Features); i += 2 {
		checkPair(t, fc.Features[i], fc.Features[i+1], fc.Features[i].prop("search_term"))
		got = append(got, fc.Features[i].prop("survey_system")+" "+fc.Features[i].prop("legal_location"))
	}
	want := "FPS F 48 60-20 N 100-30 W|DLS NW-25-24-1-W5|FPS 60-20 N 100-30 W"
	if strings.Join(got, "|") != want {
		t.Errorf("batch = %q, want %q", strings.Join(got, "|"), want)
	}
	if len(fc.Errors) != 1 || fc.Errors[0].Index != 2 || fc.Errors[0].Code != "invalid_legal_location" {
		t.Errorf("errors = %+v, want index 2 invalid_legal_location", fc.Errors)
	}

	c := fpsCentroid(t, "F 48 60-20 N 100-30 W")
	body := `{"coordinates":[[` + trim(c[0]) + `,` + trim(c[1]) + `],[-90,84.5]],"survey_system":"FPS","unit":"Section"}`
	rec = do(t, "POST", "/batch/coordinates", body)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	fc = decode[collection](t, rec)
	if len(fc.Features) != 2 || fc.Features[0].prop("legal_location") != "48 60-20 N 100-30 W" || fc.Features[0].prop("unit") != "Section" {
		t.Errorf("batch coordinates = %+v", fc.Features)
	}
	if len(fc.Errors) != 1 || fc.Errors[0].Index != 1 || fc.Errors[0].Code != "not_found" {
		t.Errorf("errors = %+v, want index 1 not_found", fc.Errors)
	}
}

func TestConvertCSVFPS(t *testing.T) {
	t.Parallel()
	in := "lld\nF 48 60-20 N 100-30 W\n60-25 N 100-30 W\n"
	var out bytes.Buffer
	stats, err := convert.ConvertCSV(context.Background(), grid.New(), strings.NewReader(in), &out, convert.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stats != (convert.CSVStats{Rows: 2, Converted: 1, Failed: 1}) {
		t.Errorf("stats %+v", stats)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	if r := rows[1]; r[col["legal_location"]] != "F 48 60-20 N 100-30 W" || r[col["unit"]] != "Unit" || r[col["survey_system"]] != "FPS" || r[col["source"]] != "model" {
		t.Errorf("row 1 = %q (header %q)", r, rows[0])
	}
	if r := rows[2]; !strings.Contains(r[col["error"]], "whole 10′ steps") {
		t.Errorf("row 2 = %q, want the latitude-minutes error", r)
	}

	// Reverse: points to FPS sections.
	c := fpsCentroid(t, "F 48 60-20 N 100-30 W")
	in = "lng,lat\n" + trim(c[0]) + "," + trim(c[1]) + "\n"
	out.Reset()
	_, err = convert.ConvertCSV(context.Background(), grid.New(), strings.NewReader(in), &out, convert.CSVOptions{
		Reverse: grid.ReverseQuery{System: lld.FPS, Unit: lld.Section},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := csv.NewReader(&out).ReadAll(); len(rows) != 2 || rows[1][2] != "48 60-20 N 100-30 W" {
		t.Errorf("reverse CSV = %q", rows)
	}
}
