package energyapi

import (
	"net/http"

	"meridian/shared/api"
	"meridian/shared/energy"
)

// Report answers GET /energy/report: the report package energy assembles.
func (h *Handler) Report(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	rep, err := h.rep.Report(r.Context(), energy.Query{LegalLocation: q.Get("legal_location"), Include: q.Get("include")})
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, rep)
	return nil
}
