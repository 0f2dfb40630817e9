package energyapi

import (
	"net/http"
	"strings"

	"meridian/shared/api"
	"meridian/shared/energy"
)

// parcelList is the envelope of the parcel lists.
type parcelList[T any] struct {
	LegalLocation string         `json:"legal_location"`
	Province      string         `json:"province"`
	Rows          []T            `json:"rows"`
	Meta          map[string]any `json:"meta"`
}

// Wells answers GET /energy/wells.
func (h *Handler) Wells(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, energy.WellSorts, "status")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	status, err := enumParam(q, "status", energy.WellStatuses...)
	if err != nil {
		return err
	}
	operator := strings.TrimSpace(q.Get("operator"))
	page, err := h.rep.Wells(ctx, energy.WellsQuery{LSD: pc.LSD, Paging: p, Status: status, Operator: operator})
	if err != nil {
		return err
	}
	return writeList(w, page.Raw, parcelList[energy.WellRow]{pc.Input, pc.Province, page.Rows,
		listMeta(page.Total, p, map[string]any{"status": echo(status), "operator": echo(operator)})})
}

// Pipelines answers GET /energy/pipelines.
func (h *Handler) Pipelines(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, energy.PipelineSorts, "h2s")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	substance, status, operator := strings.TrimSpace(q.Get("substance")), strings.TrimSpace(q.Get("status")), strings.TrimSpace(q.Get("operator"))
	page, err := h.rep.Pipelines(ctx, energy.PipelinesQuery{LSD: pc.LSD, Paging: p, Substance: substance, Status: status, Operator: operator})
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, parcelList[energy.PipelineRow]{pc.Input, pc.Province, page.Rows,
		listMeta(page.Total, p, map[string]any{"substance": echo(substance), "status": echo(status), "operator": echo(operator)})})
	return nil
}

// Facilities answers GET /energy/facilities.
func (h *Handler) Facilities(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, energy.FacilitySorts, "status")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	category, status, operator := strings.TrimSpace(q.Get("category")), strings.TrimSpace(q.Get("status")), strings.TrimSpace(q.Get("operator"))
	page, err := h.rep.Facilities(ctx, energy.FacilitiesQuery{LSD: pc.LSD, Paging: p, Category: category, Status: status, Operator: operator})
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, parcelList[energy.FacilityRow]{pc.Input, pc.Province, page.Rows,
		listMeta(page.Total, p, map[string]any{"category": echo(category), "status": echo(status), "operator": echo(operator)})})
	return nil
}

// Tenure answers GET /energy/tenure.
func (h *Handler) Tenure(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, energy.TenureSorts, "urgency")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	kind, err := enumParam(q, "tenure_kind", energy.TenureKinds...)
	if err != nil {
		return err
	}
	within, err := optInt(q, "expires_within_days", 1, MaxWindowDays)
	if err != nil {
		return err
	}
	status, operator := strings.TrimSpace(q.Get("status")), strings.TrimSpace(q.Get("operator"))
	page, err := h.rep.Tenure(ctx, energy.TenureQuery{LSD: pc.LSD, Paging: p, Kind: kind, Within: within, Status: status, Operator: operator})
	if err != nil {
		return err
	}
	return writeList(w, page.Raw, parcelList[energy.TenureRow]{pc.Input, pc.Province, page.Rows,
		listMeta(page.Total, p, map[string]any{"tenure_kind": echo(kind), "status": echo(status), "operator": echo(operator),
			"expires_within_days": echoInt(within)})})
}
