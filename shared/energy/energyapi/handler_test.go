package energyapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"meridian/shared/api"
	demodata "meridian/shared/demo"
	"meridian/shared/energy/energyapi"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
	"meridian/shared/report"
	"meridian/shared/survey/grid"
)

var svc = grid.New()

// demo returns the shared store holding the demo energy data.
func demo(t testing.TB) *kv.Mem { return energytest.DemoStore(t) }

func mux(store kv.Store, now time.Time) http.Handler {
	m := api.NewMux()
	m.Mount(energyapi.NewHandler(store, svc, func() time.Time { return now }).Routes()...)
	return m
}

// get runs a request and decodes the JSON body.
func get(t testing.TB, h http.Handler, path string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("GET %s: %d %q: %v", path, rec.Code, rec.Body.String(), err)
	}
	return rec.Code, body
}

func mustOK(t testing.TB, h http.Handler, path string) map[string]any {
	t.Helper()
	code, body := get(t, h, path)
	if code != 200 {
		t.Fatalf("GET %s = %d %v, want 200", path, code, body)
	}
	return body
}

// at walks a decoded body: at(b, "meta", "total"), at(b, "rows", 0, "id").
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string { return fmt.Sprint(v) }

const lsd = "9-10-60-22-W5"

func TestListsDemo(t *testing.T) {
	t.Parallel()
	h := mux(demo(t), demodata.AsOf())
	w := mustOK(t, h, "/energy/wells?legal_location=09-10-060-22W5")
	want := map[string]string{
		"legal_location": "09-10-060-22W5", "province": "AB", "meta.total": "1", "meta.sort": "status", "meta.dir": "asc",
		"meta.page": "1", "meta.per_page": "50", "meta.status": "<nil>", "meta.operator": "<nil>",
	}
	for k, v := range want {
		parts := []any{}
		for _, p := range strings.Split(k, ".") {
			parts = append(parts, p)
		}
		if got := str(at(w, parts...)); got != v {
			t.Errorf("wells %s = %s, want %s", k, got, v)
		}
	}
	row := at(w, "rows", 0).(map[string]any)
	if row["id"] != "02/09-10-060-22W5/0" || row["status"] != "active" || at(row, "operator", "ba_code") != "Z9A1" || row["total_depth_m"] != 5289.1 {
		t.Errorf("well row %v", row)
	}
	if _, ok := row["lsd"]; ok {
		t.Errorf("well row carries the stored lsd: %v", row)
	}

	p := mustOK(t, h, "/energy/pipelines?legal_location="+lsd)
	if at(p, "meta", "total") != 1.0 || at(p, "rows", 0, "id") != "900196" || at(p, "rows", 0, "h2s_pct") != 0.05 ||
		at(p, "meta", "sort") != "h2s" || at(p, "meta", "dir") != "desc" || at(p, "rows", 0, "href") != "/energy/pipelines/40822" {
		t.Errorf("pipelines %v", p)
	}
	f := mustOK(t, h, "/energy/facilities?legal_location="+lsd+"&category=BATTERY&operator=aspen")
	if at(f, "meta", "total") != 1.0 || at(f, "rows", 0, "id") != "ABBT0905005" || at(f, "meta", "category") != "BATTERY" {
		t.Errorf("facilities %v", f)
	}
	// Tenure: urgency, then soonest; days recomputed for the clock.
	ten := mustOK(t, h, "/energy/tenure?legal_location="+lsd)
	ids := []string{str(at(ten, "rows", 0, "id")), str(at(ten, "rows", 1, "id")), str(at(ten, "rows", 2, "id"))}
	if strings.Join(ids, " ") != "metallic-and-industrial-minerals-permit:9323060045 0519080035 0514110015" {
		t.Errorf("tenure order %v", ids)
	}
	if at(ten, "rows", 0, "days_to_expiry") != 1297.0 || at(ten, "rows", 2, "expiry_state") != "perpetual" || at(ten, "rows", 2, "days_to_expiry") != nil {
		t.Errorf("tenure rows %v", at(ten, "rows"))
	}
	later := mux(demo(t), demodata.AsOf().AddDate(0, 0, 1300))
	ten = mustOK(t, later, "/energy/tenure?legal_location="+lsd)
	if at(ten, "rows", 0, "id") != "0519080035" || at(ten, "rows", 0, "expiry_state") != "expiring_soon" ||
		at(ten, "rows", 1, "expiry_state") != "expired" || at(ten, "rows", 1, "days_to_expiry") != -3.0 {
		t.Errorf("tenure 1300 days later %v", at(ten, "rows"))
	}
	ten = mustOK(t, h, "/energy/tenure?legal_location="+lsd+"&tenure_kind=png&expires_within_days=3650")
	if at(ten, "meta", "total") != 1.0 || at(ten, "rows", 0, "id") != "0519080035" || at(ten, "meta", "expires_within_days") != 3650.0 {
		t.Errorf("tenure filtered %v", ten)
	}
}

func TestReportDemo(t *testing.T) {
	t.Parallel()
	h := mux(demo(t), demodata.AsOf())
	r := mustOK(t, h, "/energy/report?legal_location="+lsd)
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"province"}, "AB"},
		{[]any{"summary", "wells", "total"}, 1.0},
		{[]any{"summary", "wells", "active"}, 1.0},
		{[]any{"summary", "wells", "primary_source"}, "regulator"},
		{[]any{"summary", "pipelines", "segment_count"}, 1.0},
		{[]any{"summary", "pipelines", "length_m_on_parcel"}, 201.0},
		{[]any{"summary", "facilities", "categories", 0}, "battery"},
		{[]any{"summary", "operators", "dominant", "ba_code"}, "Z9A1"},
		{[]any{"summary", "operators", "dominant", "well_share_pct"}, 100.0},
		{[]any{"summary", "last_activity_date"}, "2019-12-11"},
		{[]any{"production", "last_producing_month"}, "2026-10"},
		{[]any{"production", "dominant_product"}, "oil"},
		{[]any{"production", "volumes", "oil_m3"}, 6300.2},
		{[]any{"production", "producing_well_count"}, 1.0},
		{[]any{"tenure", "total"}, 3.0},
		{[]any{"tenure", "truncated"}, false},
		{[]any{"tenure", "more"}, "/energy/tenure?legal_location=9-10-60-22-W5"},
		{[]any{"wells", "rows", 0, "uwi"}, "02/09-10-060-22W5/0"},
		{[]any{"pipelines", "returned"}, 1.0},
		{[]any{"facilities", "rows", 0, "id"}, "ABBT0905005"},
		{[]any{"alternative_energy"}, nil},
		{[]any{"meta", "unavailable", 0, "section"}, "alternative_energy"},
		{[]any{"meta", "sources", "production", "name"}, "Meridian demo data (invented): Petrinex conventional volumetrics"},
		{[]any{"units", "gas"}, "e3m3"},
		{[]any{"parcel", "geometry"}, nil}, // only when include names geometry
	}
	for _, c := range checks {
		if got := at(r, c.path...); got != c.want {
			t.Errorf("report %v = %v, want %v", c.path, got, c.want)
		}
	}
	// area_ha on the ellipsoid, as the ag report computes it (it was
	// spherical here, 0.3% off, one parcel with two areas).
	b, err := grid.New().Search(t.Context(), lsd)
	if err != nil {
		t.Fatal(err)
	}
	if a, want := at(r, "parcel", "area_ha").(float64), math.Round(report.AreaM2(b.Geometry)/100)/100; a != want || a < 14 || a > 18 {
		t.Errorf("area_ha %v, want %v (ellipsoidal)", a, want)
	}
	// Projection: only the sections asked for.
	r = mustOK(t, h, "/energy/report?legal_location="+lsd+"&include=wells")
	for _, k := range []string{"summary", "production", "tenure", "pipelines", "facilities", "alternative_energy"} {
		if _, ok := r[k]; ok {
			t.Errorf("include=wells has %s", k)
		}
	}
	if at(r, "parcel", "geometry") != nil || at(r, "wells", "total") != 1.0 || at(r, "meta", "sources", "tenure") != nil || at(r, "meta", "sources", "wells") == nil {
		t.Errorf("include=wells: %v", r)
	}
	// The polygon only when include names geometry.
	r = mustOK(t, h, "/energy/report?legal_location="+lsd+"&include=wells,geometry")
	if at(r, "parcel", "geometry", "type") != "Polygon" {
		t.Errorf("include=wells,geometry: parcel %v", r["parcel"])
	}
}

func TestOperatorsDemo(t *testing.T) {
	t.Parallel()
	h := mux(demo(t), demodata.AsOf())
	ops := mustOK(t, h, "/energy/operators")
	if at(ops, "rows", 0, "ba_code") != "Z9X1" || at(ops, "rows", 1, "ba_code") != "Z9X2" || at(ops, "meta", "sort") != "orphan" || at(ops, "meta", "dir") != "desc" {
		t.Errorf("operators %v", at(ops, "rows"))
	}
	ops = mustOK(t, h, "/energy/operators?q=JUNIPER")
	if at(ops, "meta", "total") != 1.0 || at(ops, "rows", 0, "active_wells") != 15.0 {
		t.Errorf("operators q %v", ops)
	}
	for _, name := range []string{"Z9A9", "z9a9", "Juniper%20Bend%20Energy%20Corp.%20(demo)", "juniper-bend-energy-corp-demo", "juniperbendenergycorpdemo"} {
		s := mustOK(t, h, "/energy/operators/"+name)
		if s["ba_code"] != "Z9A9" || at(s, "liability", "active_wells") != 15.0 || at(s, "tenure", "total_dispositions") != 4.0 {
			t.Errorf("operator %s: %v", name, s)
		}
	}
	d := mustOK(t, h, "/energy/operators/Z9A9?view=dispositions&per_page=2")
	if at(d, "meta", "total") != 4.0 || len(at(d, "rows").([]any)) != 2 || d["view"] != "dispositions" {
		t.Errorf("dispositions view %v", d)
	}
	wv := mustOK(t, h, "/energy/operators/Z9A9?view=wells&status=active")
	if at(wv, "meta", "total") != 15.0 {
		t.Errorf("wells view total %v", at(wv, "meta"))
	}
	l := mustOK(t, h, "/energy/operators/Z9A9?view=lsds")
	if at(l, "meta", "total") == 0.0 {
		t.Errorf("lsds view %v", l)
	}
}

func TestDetailDemo(t *testing.T) {
	t.Parallel()
	h := mux(demo(t), demodata.AsOf())
	e := mustOK(t, h, "/energy/tenure/expiring")
	if at(e, "rows", 0, "id") != "0522020020" || at(e, "rows", 0, "days_to_expiry") != 55.0 || at(e, "rows", 0, "lsd_coverage_pct") != nil ||
		at(e, "meta", "expires_within_days") != 365.0 || at(e, "rows", 0, "issue_date") != "2022-02-26" {
		t.Errorf("expiring %v", e)
	}
	known, unknown := at(e, "meta", "area_ha_known_count").(float64), at(e, "meta", "area_ha_unknown_count").(float64)
	if known+unknown != at(e, "meta", "total").(float64) {
		t.Errorf("expiring area counts %v", at(e, "meta"))
	}
	d := mustOK(t, h, "/energy/dispositions/metallic-and-industrial-minerals-permit%3A9323060045")
	if d["disposition_number"] != "9323060045" || d["expiry_state"] != "active" || d["days_to_expiry"] != 1297.0 || len(d["lsds"].([]any)) == 0 {
		t.Errorf("disposition %v", d)
	}
	d = mustOK(t, h, "/energy/dispositions/0512020016")
	if d["expiry_state"] != "perpetual" || at(d, "holder", "ba_code") != "Z9A8" {
		t.Errorf("perpetual disposition %v", d)
	}
	// Saskatchewan publishes no expiry dates: the state is unknown (null),
	// not perpetual and not an empty string.
	d = mustOK(t, h, "/energy/dispositions/PN00310")
	if state, ok := d["expiry_state"]; !ok || state != nil || d["days_to_expiry"] != nil || d["expiry_date"] != nil || d["province"] != "SK" {
		t.Errorf("SK disposition without expiry: %v", d)
	}
	p := mustOK(t, h, "/energy/pipelines/40137")
	if p["licence_number"] != "40137" || at(p, "operator", "ba_code") != "Z9A1" || at(p, "meta", "total") != 5.0 ||
		at(p, "meta", "truncated") != false || at(p, "rows", 2, "segment_id") != "900021" {
		t.Errorf("pipeline licence %v", p)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	h := mux(demo(t), demodata.AsOf())
	cases := []struct {
		path string
		code int
		err  string
	}{
		{"/energy/wells", 400, "invalid_parameter"},
		{"/energy/wells?legal_location=NW-25-24-1-W5", 400, "invalid_legal_location"},
		{"/energy/wells?legal_location=A-2-F/93-P-8", 400, "bc_not_supported"},
		{"/energy/wells?legal_location=nonsense", 400, "invalid_legal_location"},
		{"/energy/wells?legal_location=" + lsd + "&sort=nope", 400, "invalid_parameter"},
		{"/energy/wells?legal_location=" + lsd + "&dir=up", 400, "invalid_parameter"},
		{"/energy/wells?legal_location=" + lsd + "&page=0", 400, "invalid_parameter"},
		{"/energy/wells?legal_location=" + lsd + "&per_page=201", 400, "invalid_parameter"},
		{"/energy/wells?legal_location=" + lsd + "&status=drilling", 400, "invalid_parameter"},
		{"/energy/pipelines?legal_location=" + lsd + "&sort=diameter", 400, "invalid_parameter"},
		{"/energy/pipelines?legal_location=" + lsd + "&per_page=0", 400, "invalid_parameter"},
		{"/energy/facilities?legal_location=" + lsd + "&page=x", 400, "invalid_parameter"},
		{"/energy/tenure?legal_location=" + lsd + "&expires_within_days=ten", 400, "invalid_parameter"},
		{"/energy/tenure?legal_location=" + lsd + "&expires_within_days=3651", 400, "invalid_parameter"},
		{"/energy/tenure?legal_location=" + lsd + "&tenure_kind=coal", 400, "invalid_parameter"},
		{"/energy/report?legal_location=25-24-1-W5", 400, "invalid_legal_location"},
		{"/energy/report?legal_location=" + lsd + "&include=weather", 400, "invalid_parameter"},
		{"/energy/report?legal_location=1-1-1-1-W4", 404, "not_found"},
		{"/energy/operators?sort=size", 400, "invalid_parameter"},
		{"/energy/operators?per_page=201", 400, "invalid_parameter"},
		{"/energy/operators/nobody-at-all", 404, "not_found"},
		{"/energy/operators/Z9A9?view=map", 400, "invalid_parameter"},
		{"/energy/operators/Z9A9?view=dispositions&expires_within_days=0", 400, "invalid_parameter"},
		{"/energy/operators/Z9A9?view=dispositions&expires_within_days=soon", 400, "invalid_parameter"},
		{"/energy/operators/Z9A9?view=wells&sort=depth", 400, "invalid_parameter"},
		{"/energy/tenure/expiring?expires_within_days=0", 400, "invalid_parameter"},
		{"/energy/tenure/expiring?expires_within_days=x", 400, "invalid_parameter"},
		{"/energy/tenure/expiring?dir=sideways", 400, "invalid_parameter"},
		{"/energy/dispositions/bad%20id", 400, "invalid_parameter"},
		{"/energy/dispositions/a%3Ab%3Ac", 400, "invalid_parameter"},
		{"/energy/dispositions/%3A123", 400, "invalid_parameter"},
		{"/energy/dispositions/0000000", 404, "not_found"},
		{"/energy/pipelines/99999999", 404, "not_found"},
		{"/energy/pipelines/bad%20licence", 400, "invalid_parameter"},
	}
	for _, c := range cases {
		code, body := get(t, h, c.path)
		if code != c.code || at(body, "error", "code") != c.err {
			t.Errorf("GET %s = %d %v, want %d %s", c.path, code, body, c.code, c.err)
		}
	}
}

func TestNotPublished(t *testing.T) {
	t.Parallel()
	h := mux(kv.NewMem(), demodata.AsOf())
	code, body := get(t, h, "/energy/wells?legal_location="+lsd)
	if code != 503 {
		t.Errorf("empty store: %d %v", code, body)
	}
}

func tempDir() (string, error) { return mkdirTemp() }

func mkdirTemp() (string, error) { return os.MkdirTemp("", "energyapi-demo") }
