package energyapi

import (
	"net/http"
	"regexp"
	"strings"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/energy"
)

var (
	numberRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$`)
	categoryRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 .()&'-]{0,99}$`)
)

// expiring answers GET /energy/tenure/expiring.
func (h *Handler) expiring(r *http.Request) ([]byte, error) {
	p, err := pagingParams(r, energy.ExpiringSorts, "expiry")
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	days, err := intParam(q, "expires_within_days", 1, MaxWindowDays, DefaultExpiringDays)
	if err != nil {
		return nil, err
	}
	kind, err := enumParam(q, "tenure_kind", energy.TenureKinds...)
	if err != nil {
		return nil, err
	}
	operator, typ, search := strings.TrimSpace(q.Get("operator")), strings.TrimSpace(q.Get("type")), strings.TrimSpace(q.Get("q"))
	cursor, err := cursorParam(r, p)
	if err != nil {
		return nil, err
	}
	page, err := h.rep.Expiring(r.Context(), energy.ExpiringQuery{Paging: p, Cursor: cursor, Days: days,
		Kind: kind, Operator: operator, Type: typ, Q: search})
	if err != nil {
		return nil, err
	}
	meta := listMeta(page.Total, p, map[string]any{"expires_within_days": days, "operator": echo(operator), "type": echo(typ),
		"tenure_kind": echo(kind), "q": echo(search)})
	meta["total_area_ha"], meta["area_ha_known_count"], meta["area_ha_unknown_count"] = page.AreaHa, page.AreaKnown, page.Total-page.AreaKnown
	return renderList(page.Raw, list[energy.TenureRow]{page.Rows, withCursor(meta, page.Next)})
}

// dispositionID checks and normalises a disposition id: a number, or
// category:number with the category in any spelling of its name.
func dispositionID(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	bad := apierr.Invalidf("invalid_parameter", "disposition '%s' is not valid: use a PNG disposition number (0512345) or category:number for minerals (metallic-and-industrial-minerals-permit:9323060045)", raw)
	cat, num, mineral := strings.Cut(s, ":")
	if !mineral {
		if !numberRE.MatchString(s) {
			return "", bad
		}
		return s, nil
	}
	if !categoryRE.MatchString(cat) || !numberRE.MatchString(num) || energy.Slug(cat) == "" {
		return "", bad
	}
	return energy.Slug(cat) + ":" + num, nil
}

// Disposition answers GET /energy/dispositions/{number}.
func (h *Handler) Disposition(w http.ResponseWriter, r *http.Request) error {
	id, err := dispositionID(r.PathValue("number"))
	if err != nil {
		return err
	}
	t, err := h.rep.Disposition(r.Context(), id)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, t)
	return nil
}

// PipelineLicence answers GET /energy/pipelines/{licence}.
func (h *Handler) PipelineLicence(w http.ResponseWriter, r *http.Request) error {
	licence := strings.TrimSpace(r.PathValue("licence"))
	if !numberRE.MatchString(licence) {
		return apierr.Invalidf("invalid_parameter", "pipeline licence '%s' is not valid: use the regulator's licence number, e.g. 40137", r.PathValue("licence"))
	}
	out, err := h.rep.PipelineLicence(r.Context(), licence)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}
