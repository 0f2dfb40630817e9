package convert_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/convert"
	"meridian/shared/lld"
	"meridian/shared/survey/datum"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/nts"
)

func TestParseDatum(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want convert.Datum
		ok   bool
	}{
		{"", convert.NAD83, true},
		{"NAD83", convert.NAD83, true},
		{"nad83", convert.NAD83, true},
		{" Nad27 ", convert.NAD27, true},
		{"NAD27", convert.NAD27, true},
		{"NAD 27", 0, false},
		{"WGS84", 0, false},
		{"NAD83(CSRS)", 0, false},
		{"27", 0, false},
	}
	for _, tc := range tests {
		got, err := convert.ParseDatum(tc.in)
		if tc.ok {
			if err != nil || got != tc.want {
				t.Errorf("ParseDatum(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
			}
			continue
		}
		e := apierr.As(err)
		if e == nil || e.Code != "invalid_parameter" || !strings.Contains(e.Message, "NAD83") || !strings.Contains(e.Message, "NAD27") {
			t.Errorf("ParseDatum(%q) = %v, want invalid_parameter naming NAD83 and NAD27", tc.in, err)
		}
	}
}

// nad27Box is the exact NAD27 box of A-2-F/93-P-8 (§4).
var nad27Box = nts.Bound(lld.Location{System: lld.NTS, Unit: lld.QuarterUnit, Series: 93, Area: 'P', Sheet: 8, Block: 'F', UnitNo: 2, Quarter: 'A'})

// TestSearchCoordinatesDatum: with datum=NAD27 the location is read as
// NAD27 and the answer is in NAD27, where the NTS grid is defined: the
// quarter unit is its §4 box and accuracy_m 0. The same numbers read as
// NAD83 (the default) name a point about 90 m east in NAD27 terms.
func TestSearchCoordinatesDatum(t *testing.T) {
	t.Parallel()
	// 40 m west of the quarter unit's east edge, in NAD27.
	pt := orb.Point{nad27Box.Max[0] - 40.0/63000, nad27Box.Center()[1]}
	loc := appendPair(pt)
	for _, tc := range []struct {
		datum, want, wantDatum string
	}{
		{"NAD27", "A-2-F/93-P-8", "NAD27"},
		{"nad27", "A-2-F/93-P-8", "NAD27"},
		{"", "B-1-F/93-P-8", "NAD83"},
		{"NAD83", "B-1-F/93-P-8", "NAD83"},
	} {
		params := []string{"location", loc, "unit", "Quarter Unit"}
		if tc.datum != "" {
			params = append(params, "datum", tc.datum)
		}
		rec := get(t, "/search/coordinates", params...)
		if rec.Code != 200 {
			t.Fatalf("datum %q: status %d: %s", tc.datum, rec.Code, rec.Body)
		}
		fc := decode[collection](t, rec)
		grid, cent := fc.Features[0], fc.Features[1]
		checkPair(t, grid, cent, loc)
		if grid.prop("legal_location") != tc.want || grid.prop("datum") != tc.wantDatum || cent.prop("datum") != tc.wantDatum {
			t.Errorf("datum %q: %s in %s, want %s in %s", tc.datum, grid.prop("legal_location"), grid.prop("datum"), tc.want, tc.wantDatum)
		}
		if tc.wantDatum != "NAD27" {
			if grid.Properties["accuracy_m"] != 2.0 {
				t.Errorf("datum %q: accuracy_m = %v, want 2 (the NTv1 transformation)", tc.datum, grid.Properties["accuracy_m"])
			}
			continue
		}
		// In NAD27 the answer is the exact box (to the 6 decimals written).
		ring := grid.polygon(t)[0]
		if b := ring.Bound(); math.Abs(b.Min[0]-nad27Box.Min[0]) > 1e-6 || math.Abs(b.Max[0]-nad27Box.Max[0]) > 1e-6 ||
			math.Abs(b.Min[1]-nad27Box.Min[1]) > 1e-6 || math.Abs(b.Max[1]-nad27Box.Max[1]) > 1e-6 {
			t.Errorf("NAD27 polygon bound %v, want the §4 box %v", b, nad27Box)
		}
		if c := cent.point(t); geo.Distance(c, nad27Box.Center()) > 0.2 {
			t.Errorf("NAD27 centroid %v, want %v", c, nad27Box.Center())
		}
		if grid.Properties["accuracy_m"] != 0.0 {
			t.Errorf("NAD27 accuracy_m = %v, want 0 (the grid is exact in NAD27)", grid.Properties["accuracy_m"])
		}
	}
}

// appendPair writes pt as lng,lat with 9 decimals.
func appendPair(pt orb.Point) string {
	return strconv.FormatFloat(pt[0], 'f', 9, 64) + "," + strconv.FormatFloat(pt[1], 'f', 9, 64)
}

// TestSearchLegalLocationDatum: a DLS answer (computed in NAD83) given in
// NAD27 is the NAD83 answer moved vertex by vertex, about 70 m east near
// Calgary, with the transformation's 2 m added to accuracy_m.
func TestSearchLegalLocationDatum(t *testing.T) {
	t.Parallel()
	nad83 := decode[collection](t, get(t, "/search/legal-location", "location", "NW-25-24-1-W5"))
	rec := get(t, "/search/legal-location", "location", "NW-25-24-1-W5", "datum", "NAD27")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	nad27 := decode[collection](t, rec)
	checkPair(t, nad27.Features[0], nad27.Features[1], "NW-25-24-1-W5")
	if nad83.Features[0].prop("datum") != "NAD83" || nad27.Features[0].prop("datum") != "NAD27" || nad27.Features[1].prop("datum") != "NAD27" {
		t.Errorf("datum properties %q, %q, want NAD83, NAD27", nad83.Features[0].prop("datum"), nad27.Features[0].prop("datum"))
	}
	c83, c27 := nad83.Features[1].point(t), nad27.Features[1].point(t)
	want, err := datum.NAD83ToNAD27(c83)
	if err != nil {
		t.Fatal(err)
	}
	if d := geo.Distance(c27, want); d > 0.2 {
		t.Errorf("NAD27 centroid %v is %.2f m from the NAD83 centroid moved to NAD27 %v", c27, d, want)
	}
	if d := geo.Distance(c83, c27); d < 50 || d > 100 || c27[0] <= c83[0] {
		t.Errorf("NAD27 centroid %v is %.0f m from NAD83's %v, want 50–100 m east", c27, d, c83)
	}
	a83, _ := nad83.Features[0].Properties["accuracy_m"].(float64)
	a27, _ := nad27.Features[0].Properties["accuracy_m"].(float64)
	if a27 != a83+2 {
		t.Errorf("accuracy_m NAD27 %v, NAD83 %v: want NAD83's + 2", a27, a83)
	}
}

func TestDatumErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, target, body string
		status                     int
		code                       string
	}{
		{"unknown datum", "GET", "/search/coordinates?location=-114,51&datum=WGS84", "", 400, "invalid_parameter"},
		{"unknown datum, legal location", "GET", "/search/legal-location?location=NW-25-24-1-W5&datum=NAD1927", "", 400, "invalid_parameter"},
		{"unknown datum, autocomplete", "GET", "/autocomplete/legal-location?location=NW-25&datum=x", "", 400, "invalid_parameter"},
		{"unknown datum, batch", "POST", "/batch/legal-location?datum=ED50", `["NW-25-24-1-W5"]`, 400, "invalid_parameter"},
		{"unknown datum in the body", "POST", "/batch/coordinates", `{"coordinates":[[-114,51]],"datum":"NAD84"}`, 400, "invalid_parameter"},
		{"body and query disagree", "POST", "/batch/coordinates?datum=NAD83", `{"coordinates":[[-114,51]],"datum":"NAD27"}`, 400, "invalid_parameter"},
		{"NAD27 outside the grid (Hawaii)", "GET", "/search/coordinates?location=-155.5,19.6&datum=NAD27", "", 400, "invalid_coordinates"},
		{"NAD27 outside the grid (west of 142°W)", "GET", "/search/coordinates?location=-150,61&datum=NAD27", "", 400, "invalid_coordinates"},
		{"NAD27 proximity outside the grid", "GET", "/autocomplete/legal-location?location=NW-25&proximity=-150,61&datum=NAD27", "", 400, "invalid_coordinates"},
		{"NAD27 in the grid, outside coverage (Lake Ontario)", "GET", "/search/coordinates?location=-77.8,43.6&datum=NAD27", "", 404, "not_found"},
	}
	for _, tc := range tests {
		rec := do(t, tc.method, tc.target, tc.body)
		e := decode[errorBody](t, rec)
		if tc.status == 404 && !strings.Contains(e.Error.Message, "sent as -77.8,43.6 in NAD27") {
			t.Errorf("%s: message %q does not quote the NAD27 point sent", tc.name, e.Error.Message)
		}
		if rec.Code != tc.status || e.Error.Code != tc.code {
			t.Errorf("%s: %d %+v, want %d %s", tc.name, rec.Code, e, tc.status, tc.code)
		}
		if tc.code == "invalid_parameter" && (!strings.Contains(e.Error.Message, "NAD83") || !strings.Contains(e.Error.Message, "NAD27")) {
			t.Errorf("%s: message %q does not name the accepted datums", tc.name, e.Error.Message)
		}
	}
}

// TestBatchDatum: datum in the body or the query of /batch/coordinates and
// in the query of /batch/legal-location; a NAD27 pair outside the grid is
// a failed record, not a failed request.
func TestBatchDatum(t *testing.T) {
	t.Parallel()
	pt := orb.Point{nad27Box.Max[0] - 40.0/63000, nad27Box.Center()[1]} // as in TestSearchCoordinatesDatum
	pair := "[" + strings.Replace(appendPair(pt), ",", ", ", 1) + "]"
	for _, target := range []string{"/batch/coordinates", "/batch/coordinates?datum=NAD27", "/batch/coordinates?datum=nad27"} {
		body := `{"coordinates":[` + pair + `,[-150,61],[-77.8,43.6]],"unit":"Quarter Unit"`
		if target == "/batch/coordinates" {
			body += `,"datum":"NAD27"`
		}
		body += "}"
		rec := do(t, "POST", target, body)
		if rec.Code != 200 {
			t.Fatalf("%s: status %d: %s", target, rec.Code, rec.Body)
		}
		fc := decode[collection](t, rec)
		if len(fc.Features) != 2 || fc.Features[0].prop("legal_location") != "A-2-F/93-P-8" || fc.Features[0].prop("datum") != "NAD27" || fc.Features[1].prop("datum") != "NAD27" {
			t.Errorf("%s: features %+v, want A-2-F/93-P-8 in NAD27", target, fc.Features)
		}
		if len(fc.Errors) != 2 || fc.Errors[0].Index != 1 || fc.Errors[0].Code != "invalid_coordinates" ||
			fc.Errors[1].Index != 2 || fc.Errors[1].Code != "not_found" || !strings.Contains(fc.Errors[1].Message, "sent as -77.8,43.6 in NAD27") {
			t.Errorf("%s: errors %+v, want record 1 invalid_coordinates, record 2 not_found quoting the NAD27 point", target, fc.Errors)
		}
	}
	rec := do(t, "POST", "/batch/legal-location?datum=NAD27", `["NW-25-24-1-W5","A-2-F/93-P-8"]`)
	fc := decode[collection](t, rec)
	if rec.Code != 200 || len(fc.Features) != 4 {
		t.Fatalf("batch legal-location: %d, %d features: %s", rec.Code, len(fc.Features), rec.Body)
	}
	for _, f := range fc.Features {
		if f.prop("datum") != "NAD27" {
			t.Errorf("%s %s: datum %q, want NAD27", f.prop("legal_location"), f.prop("shape"), f.prop("datum"))
		}
	}
	if c := fc.Features[3].point(t); geo.Distance(c, nad27Box.Center()) > 0.2 {
		t.Errorf("A-2-F/93-P-8 centroid in NAD27 %v, want §4's %v", c, nad27Box.Center())
	}
	// Default: NAD83, said so on every feature.
	fc = decode[collection](t, do(t, "POST", "/batch/legal-location", `["NW-25-24-1-W5"]`))
	for _, f := range fc.Features {
		if f.prop("datum") != "NAD83" {
			t.Errorf("default datum %q, want NAD83", f.prop("datum"))
		}
	}
}

// TestAutocompleteDatum: suggestions carry the datum and, with NAD27,
// centroids in NAD27.
func TestAutocompleteDatum(t *testing.T) {
	t.Parallel()
	a := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "A-2-F/93-P-8"))
	b := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "A-2-F/93-P-8", "datum", "NAD27"))
	if len(a.Features) == 0 || len(a.Features) != len(b.Features) {
		t.Fatalf("%d and %d suggestions", len(a.Features), len(b.Features))
	}
	for i := range a.Features {
		if a.Features[i].prop("datum") != "NAD83" || b.Features[i].prop("datum") != "NAD27" {
			t.Errorf("suggestion %d: datum %q, %q, want NAD83, NAD27", i, a.Features[i].prop("datum"), b.Features[i].prop("datum"))
		}
	}
	if b.Features[0].prop("legal_location") == "A-2-F/93-P-8" {
		if c := b.Features[0].point(t); geo.Distance(c, nad27Box.Center()) > 0.2 {
			t.Errorf("NAD27 suggestion at %v, want §4's centre %v", c, nad27Box.Center())
		}
	}
}

// TestConvertCSVDatum: the coordinate columns are read in the datum asked
// for and the lat, lng and datum columns written in it.
func TestConvertCSVDatum(t *testing.T) {
	t.Parallel()
	pt := orb.Point{nad27Box.Max[0] - 40.0/63000, nad27Box.Center()[1]}
	lng, lat, _ := strings.Cut(appendPair(pt), ",")
	in := "lng,lat\n" + lng + "," + lat + "\n-150,61\n"
	for _, tc := range []struct {
		d                   convert.Datum
		want, wantD, errCol string
	}{
		{convert.NAD27, "A-2-F/93-P-8", "NAD27", "invalid_coordinates: "},
		{convert.NAD83, "B-1-F/93-P-8", "NAD83", "not_found: "},
	} {
		var out bytes.Buffer
		if _, err := convert.ConvertCSV(context.Background(), grid.New(), strings.NewReader(in), &out, convert.CSVOptions{Datum: tc.d}); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&out).ReadAll()
		if err != nil || len(rows) != 3 {
			t.Fatalf("%v: %v rows, %v", tc.d, len(rows), err)
		}
		r := rows[1]
		if r[2] != tc.want || r[8] != tc.wantD {
			t.Errorf("%v: row %q, want %s in %s", tc.d, r, tc.want, tc.wantD)
		}
		if tc.d == convert.NAD27 && (r[6] != "55.335417" || r[7] != "-120.265625") {
			t.Errorf("NAD27 centroid %s,%s, want §4's 55.335417,-120.265625", r[6], r[7])
		}
		if !strings.HasPrefix(rows[2][11], tc.errCol) {
			t.Errorf("%v: row outside the grid: error %q, want %s...", tc.d, rows[2][11], tc.errCol)
		}
	}
}

// TestOpenAPIDatum: the OpenAPI document offers datum on every conversion
// route (the query parameter, and a body member of /batch/coordinates) and
// the datum property on features.
func TestOpenAPIDatum(t *testing.T) {
	t.Parallel()
	h := convert.NewHandler(grid.New())
	routes := append(append(h.SearchRoutes(), h.AutocompleteRoutes()...), h.BatchRoutes()...)
	raw, err := api.OpenAPI(api.Info{Title: "t", Version: "1"}, routes)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string         `json:"name"`
				In     string         `json:"in"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]any `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						Properties struct {
							Features struct {
								Items struct {
									Properties struct {
										Properties struct {
											Properties map[string]any `json:"properties"`
										} `json:"properties"`
									} `json:"properties"`
								} `json:"items"`
							} `json:"features"`
						} `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/search/legal-location", "/search/coordinates", "/autocomplete/legal-location", "/batch/legal-location", "/batch/coordinates"} {
		for method, op := range doc.Paths[path] {
			found := false
			for _, p := range op.Parameters {
				if p.Name == "datum" && p.In == "query" && strings.Contains(fmt.Sprint(p.Schema["enum"]), "NAD27") {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s: no datum query parameter offering NAD27", method, path)
			}
			if len(op.Responses["200"].Content) == 0 {
				t.Errorf("%s %s: no 200 response schema", method, path)
			}
			for ct, c := range op.Responses["200"].Content {
				if _, ok := c.Schema.Properties.Features.Items.Properties.Properties.Properties["datum"]; !ok {
					t.Errorf("%s %s: %s features lack the datum property", method, path, ct)
				}
			}
		}
		if len(doc.Paths[path]) == 0 {
			t.Errorf("%s: not in the document", path)
		}
	}
	if _, ok := doc.Paths["/batch/coordinates"]["post"].RequestBody.Content["application/json"].Schema.Properties["datum"]; !ok {
		t.Error("POST /batch/coordinates: the body schema lacks datum")
	}
}

// TestSearchFPSDatum: an FPS unit given in NAD27 is the regulation's
// latitude/longitude box itself (fps-grid.md §5, row 3), and its
// accuracy_m drops the transformation's 2 m, keeping the geodesic bow.
func TestSearchFPSDatum(t *testing.T) {
	t.Parallel()
	nad83 := decode[collection](t, get(t, "/search/legal-location", "location", "F 48 60-20 N 100-30 W"))
	rec := get(t, "/search/legal-location", "location", "F 48 60-20 N 100-30 W", "datum", "NAD27")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	nad27 := decode[collection](t, rec)
	checkPair(t, nad27.Features[0], nad27.Features[1], "F 48 60-20 N 100-30 W")
	c := nad27.Features[1].point(t)
	// 60°17′15″–60°17′30″ N, 100°38′26.25″–100°38′54.375″ W.
	wantLat, wantLng := 60+17.375/60, -(100 + (38+(26.25+54.375)/2/60)/60)
	if math.Abs(c[1]-wantLat) > 1e-6 || math.Abs(c[0]-wantLng) > 1e-6 {
		t.Errorf("NAD27 centroid %v, want the regulation's box centre %.9f, %.9f (to the 6 decimals answers carry)", c, wantLng, wantLat)
	}
	a83, _ := nad83.Features[0].Properties["accuracy_m"].(float64)
	a27, _ := nad27.Features[0].Properties["accuracy_m"].(float64)
	if math.Abs(a83-a27-datum.AccuracyM) > 1e-9 || a27 < 0 {
		t.Errorf("accuracy_m NAD83 %v, NAD27 %v: want NAD27 = NAD83 - %v", a83, a27, datum.AccuracyM)
	}
}
