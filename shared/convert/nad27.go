package convert

import (
	"net/http"
	"strconv"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/survey/datum"
)

// NAD27Route answers GET /map/nad27?location=lng,lat: a NAD83 point's
// position on NAD27, through NRCan's NTv1 grid. The map page's identify
// panel shows it beside the clicked point (the API's datum parameter moves
// geometries, not the point a user clicked). Hidden from the OpenAPI
// document: it is the page's, not the product's.
func NAD27Route() api.Route {
	return api.Route{
		Pattern: "GET /map/nad27",
		Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
			p, err := ParsePoint(r.URL.Query().Get("location"))
			if err != nil {
				return err
			}
			q, err := datum.NAD83ToNAD27(p)
			if err != nil {
				return apierr.Invalidf("invalid_coordinates", "%s,%s is outside NRCan's NAD27 to NAD83 grid (40° to 84° N, 44° to 142° W)",
					strconv.FormatFloat(p[0], 'f', -1, 64), strconv.FormatFloat(p[1], 'f', -1, 64))
			}
			api.WriteJSON(w, http.StatusOK, map[string]any{
				"lng": round7(q[0]), "lat": round7(q[1]), "datum": "NAD27",
				"accuracy_m": datum.AccuracyM, "source": "NRCan NTv1 NAD27 to NAD83 grid (ntv1_can.dat)",
			})
			return nil
		}),
		Op: api.Operation{Tag: "map", Summary: "A NAD83 point (location=lng,lat) on NAD27, by NRCan's NTv1 grid",
			Response: map[string]any{"type": "object"}, Errors: []int{400}, Public: true, Hidden: true},
	}
}

// round7 rounds to seven decimals (about a centimetre), as JSON numbers.
func round7(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 7, 64), 64)
	return f
}
