package energyapi_test

import (
	"net/http/httptest"
	"testing"

	demodata "meridian/shared/demo"
	"meridian/shared/golden"
)

// The energy answers over the demo data, whole, against the goldens in
// testdata/golden/energy (go test -run TestGolden -update rewrites them),
// which the energy Lambda's tests check too: a change to
// any field of the report or a list shows up as a diff here, as it does for
// the agriculture report.
func TestGolden(t *testing.T) {
	t.Parallel()
	h := mux(demo(t), demodata.AsOf())
	for name, target := range map[string]string{
		"report-full":           "/energy/report?legal_location=" + lsd,
		"report-wells-geometry": "/energy/report?legal_location=" + lsd + "&include=wells,geometry",
		"report-summary":        "/energy/report?legal_location=" + lsd + "&include=summary,production",
		"wells":                 "/energy/wells?legal_location=" + lsd,
		"tenure":                "/energy/tenure?legal_location=" + lsd + "&limit=2",
		"operators":             "/energy/operators?limit=3",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
			if rec.Code != 200 {
				t.Fatalf("GET %s = %d %s", target, rec.Code, rec.Body)
			}
			if err := golden.Compare("energy/"+name, rec.Body.Bytes()); err != nil {
				t.Errorf("GET %s: %v", target, err)
			}
		})
	}
}
