package energyapi

import (
	"cmp"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// MaxSegments is how many segments a pipeline licence detail returns.
const MaxSegments = 200

var (
	expiringSorts = map[string]bool{"expiry": false, "days": false, "area": true, "operator": false, "id": false}
	numberRE      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$`)
	categoryRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 .()&'-]{0,99}$`)
)

// Expiring answers GET /energy/tenure/expiring: one range read of the
// EXPIRING partition from today to the window's end.
func (h *Handler) Expiring(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := pagingParams(r, expiringSorts, "expiry")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	days, err := intParam(q, "expires_within_days", 1, MaxWindowDays, DefaultExpiringDays)
	if err != nil {
		return err
	}
	kind, err := enumParam(q, "tenure_kind", tenureKinds...)
	if err != nil {
		return err
	}
	operator, typ, search := strings.TrimSpace(q.Get("operator")), strings.TrimSpace(q.Get("type")), strings.TrimSpace(q.Get("q"))
	ds, err := h.open(ctx)
	if err != nil {
		return err
	}
	now := h.now().UTC()
	from, to := now.Format("2006-01-02"), now.AddDate(0, 0, days).Format("2006-01-02")
	items, err := queryAll(ctx, ds, kv.Query{PK: energy.PKExpiring, SKFrom: from, SKTo: to + "$"})
	if err != nil {
		return err
	}
	rows, err := decodeAll[energy.TenureRow](items)
	if err != nil {
		return err
	}
	out := rows[:0]
	area, known := 0.0, 0
	for _, t := range rows {
		t = withExpiry(t, now)
		if !withinDays(t, &days) || !tenureKind(t, kind) || !typeMatch(t, typ) ||
			(operator != "" && !containsFold(partyName(t.Holder), operator)) ||
			(search != "" && !containsFold(t.DispositionNumber, search) && !containsFold(partyName(t.Holder), search)) {
			continue
		}
		t.LSDCoveragePct = nil
		if t.AreaHa != nil {
			area += *t.AreaHa
			known++
		}
		out = append(out, t)
	}
	sortRows(out, tenureCmp(p.Sort), p.Desc)
	meta := listMeta(len(out), p, map[string]any{"expires_within_days": days, "operator": echo(operator), "type": echo(typ),
		"tenure_kind": echo(kind), "q": echo(search)})
	meta["total_area_ha"], meta["area_ha_known_count"], meta["area_ha_unknown_count"] = round(area, 2), known, len(out)-known
	api.WriteJSON(w, http.StatusOK, list[energy.TenureRow]{pageOf(out, p), meta})
	return nil
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
	ctx := r.Context()
	id, err := dispositionID(r.PathValue("number"))
	if err != nil {
		return err
	}
	ds, err := h.open(ctx)
	if err != nil {
		return err
	}
	it, ok, err := ds.Get(ctx, energy.DispositionKey(id), energy.SKInfo)
	if err != nil {
		return err
	}
	if !ok {
		return apierr.NotFoundf("no disposition '%s'", id)
	}
	var t energy.TenureRow
	if err := json.Unmarshal(it.Data, &t); err != nil {
		return err
	}
	t = withExpiry(t, h.now())
	if t.LSDs == nil {
		t.LSDs = []string{}
	}
	api.WriteJSON(w, http.StatusOK, t)
	return nil
}

type pipelineLicence struct {
	LicenceNumber string               `json:"licence_number"`
	Operator      energy.Party         `json:"operator"`
	Rows          []energy.PipelineRow `json:"rows"`
	Meta          struct {
		Total     int  `json:"total"`
		Returned  int  `json:"returned"`
		Truncated bool `json:"truncated"`
	} `json:"meta"`
}

// PipelineLicence answers GET /energy/pipelines/{licence}.
func (h *Handler) PipelineLicence(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	licence := strings.TrimSpace(r.PathValue("licence"))
	if !numberRE.MatchString(licence) {
		return apierr.Invalidf("invalid_parameter", "pipeline licence '%s' is not valid: use the regulator's licence number, e.g. 40137", r.PathValue("licence"))
	}
	ds, err := h.open(ctx)
	if err != nil {
		return err
	}
	items, err := queryAll(ctx, ds, kv.Query{PK: energy.PipelineKey(licence), SKPrefix: "SEG#"})
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return apierr.NotFoundf("no pipeline licence '%s'", licence)
	}
	rows, err := decodeAll[energy.PipelineRow](items)
	if err != nil {
		return err
	}
	// The licence's operator: the one of most segments, first seen on ties.
	counts := map[string]int{}
	best := 0
	for i, s := range rows {
		k := keyOf(s)
		counts[k]++
		if counts[k] > counts[keyOf(rows[best])] || (counts[k] == counts[keyOf(rows[best])] && cmp.Less(i, best)) {
			best = i
		}
	}
	out := pipelineLicence{LicenceNumber: rows[0].LicenceNumber, Operator: rows[best].Operator, Rows: rows[:min(len(rows), MaxSegments)]}
	out.Meta.Total, out.Meta.Returned = len(rows), len(out.Rows)
	out.Meta.Truncated = out.Meta.Returned < out.Meta.Total
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

func keyOf(s energy.PipelineRow) string {
	if s.Operator.BACode != nil {
		return *s.Operator.BACode
	}
	return partyName(s.Operator)
}
