package convert_test

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"meridian/shared/api"
	"meridian/shared/convert"
	"meridian/shared/survey/datum"
)

// GET /map/nad27 gives the NTv1 grid's NAD27 position of a NAD83 point, and
// refuses points outside the grid with invalid_coordinates.
func TestNAD27Route(t *testing.T) {
	t.Parallel()
	mux := api.NewMux()
	mux.Mount(convert.NAD27Route())
	get := func(target string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		return w
	}
	w := get("/map/nad27?location=-114.07,51.07")
	var got struct {
		Lng, Lat  float64
		Datum     string
		AccuracyM float64 `json:"accuracy_m"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); w.Code != 200 || err != nil {
		t.Fatalf("GET /map/nad27: %d %s", w.Code, w.Body)
	}
	want, err := datum.NAD83ToNAD27([2]float64{-114.07, 51.07})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Lng-want[0]) > 1e-7 || math.Abs(got.Lat-want[1]) > 1e-7 || got.Datum != "NAD27" || got.AccuracyM != datum.AccuracyM {
		t.Errorf("GET /map/nad27 = %+v, want %v NAD27 ±%v m", got, want, datum.AccuracyM)
	}
	// The shift is real: around Calgary NAD27 lies about 100 m from NAD83.
	if d := math.Hypot((got.Lng+114.07)*70000, (got.Lat-51.07)*111000); d < 20 || d > 300 {
		t.Errorf("NAD27 is %.0f m from NAD83 at Calgary; want the datum shift (tens to a few hundred m)", d)
	}
	for _, q := range []string{"location=0,0", "location=nope", ""} {
		if w := get("/map/nad27?" + q); w.Code != 400 || !strings.Contains(w.Body.String(), `"invalid_coordinates"`) {
			t.Errorf("GET /map/nad27?%s: %d %s; want 400 invalid_coordinates", q, w.Code, w.Body)
		}
	}
}
