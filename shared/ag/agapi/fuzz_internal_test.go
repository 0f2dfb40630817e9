package agapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"meridian/shared/api"
	"meridian/shared/survey/grid"
)

// FuzzReport sends arbitrary legal locations and include lists to the
// agriculture report over the demo data: no input may produce a 5xx or a
// body that is not JSON.
func FuzzReport(f *testing.F) {
	f.Add("NE-25-10-14-W2", "")
	f.Add("10-25-24-1-W5", "soil,drought")
	f.Add("NE-19-50-20-W3", "productivity,cropping,drought,geometry")
	f.Add("A-2-F/93-P-8", "hydrology,,wetlands")
	f.Add("\x00\xff", "geometry,geometry,nope")
	f.Add("NW-36-42-3-W5", "parcel_context,provincial_detail,land_use")
	mux := api.NewMux()
	mux.Mount(NewHandler(demoStore(f), grid.New()).Routes()...)
	f.Fuzz(func(t *testing.T, lld, include string) {
		target := "/ag/report?" + url.Values{"legal_location": {lld}, "include": {include}}.Encode()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code >= 500 {
			t.Fatalf("GET %s: status %d: %s", target, rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET %s: body is not JSON: %s", target, rec.Body)
		}
	})
}
