package energyapi

import (
	"net/http"

	"meridian/shared/energy"
)

// Report answers GET /energy/report: the report package energy assembles,
// its stored rows passed through.
func (h *Handler) Report(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	rep, err := h.rep.Report(r.Context(), energy.Query{LegalLocation: q.Get("legal_location"), Include: q.Get("include"), PassRows: true})
	if err != nil {
		return err
	}
	return writePooled(w, rep.AppendJSON)
}
