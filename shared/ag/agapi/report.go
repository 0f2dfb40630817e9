// Package agapi serves the agriculture parcel report, GET /ag/report: it
// reads the request's parameters into an ag.Query and writes the report
// package ag assembles (from the agriculture dataset of the report store
// and the survey grid) as JSON. The report's rules live in package ag.
package agapi

import (
	"net/http"

	"meridian/shared/ag"
	"meridian/shared/api"
	"meridian/shared/kv"
)

// Handler serves the agriculture report.
type Handler struct {
	rep *ag.Reporter
}

// NewHandler returns the report handler over the report store and the grid.
func NewHandler(store kv.Store, svc ag.Resolver) *Handler {
	return &Handler{rep: ag.NewReporter(store, svc)}
}

// ServeReport answers GET /ag/report?legal_location=...&include=...
func (h *Handler) ServeReport(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	rep, err := h.rep.Report(r.Context(), ag.Query{LegalLocation: q.Get("legal_location"), Include: q.Get("include")})
	if err != nil {
		return err
	}
	body, err := appendReport(nil, rep)
	if err != nil {
		return err
	}
	api.WriteRaw(w, http.StatusOK, "application/json", body)
	return nil
}
