package energyapi

import (
	"cmp"
	"net/http"
	"strings"

	"meridian/shared/api"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// Sorts of the parcel lists, each with whether it defaults to descending:
// magnitudes (depth, length, H2S, area) default to descending, identifiers,
// states and dates to ascending.
var (
	wellSorts     = map[string]bool{"id": false, "status": false, "operator": false, "depth": true}
	pipelineSorts = map[string]bool{"id": false, "length": true, "h2s": true}
	facilitySorts = map[string]bool{"id": false, "name": false, "status": false}
	tenureSorts   = map[string]bool{"expiry": false, "urgency": false, "area": true, "id": false}
	wellStatuses  = []string{string(energy.Active), string(energy.Suspended), string(energy.Abandoned),
		string(energy.Orphan), string(energy.ReclamationCertified), string(energy.Unknown)}
	tenureKinds = []string{"png", "mineral", "all"}
)

// parcelList is the envelope of the parcel lists.
type parcelList[T any] struct {
	LegalLocation string         `json:"legal_location"`
	Province      string         `json:"province"`
	Rows          []T            `json:"rows"`
	Meta          map[string]any `json:"meta"`
}

func wellCmp(sort string) func(a, b energy.WellRow) int {
	return func(a, b energy.WellRow) int {
		var c int
		switch sort {
		case "status":
			c = cmp.Compare(a.Status.Rank(), b.Status.Rank())
		case "operator":
			c = foldCmp(partyName(a.Operator), partyName(b.Operator))
		case "depth":
			c = cmp.Compare(a.TotalDepthM, b.TotalDepthM)
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
}

// Wells answers GET /energy/wells.
func (h *Handler) Wells(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, wellSorts, "status")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	status, err := enumParam(q, "status", wellStatuses...)
	if err != nil {
		return err
	}
	operator := strings.TrimSpace(q.Get("operator"))
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	l := parcelListing(pc.LSD, energy.SKWellPrefix, func(it kv.Item) (energy.WellRow, error) {
		row, err := decodeJSON[energy.WellRow](it)
		row.LSD, row.StatusDate = "", "" // stored for the operator views only
		return row, err
	}, wellCmp(p.Sort))
	if status != "" || operator != "" {
		l.keep = func(row energy.WellRow) bool {
			return (status == "" || string(row.Status) == status) && (operator == "" || containsFold(partyName(row.Operator), operator))
		}
	}
	page, err := l.read(ctx, ds, p, "")
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, parcelList[energy.WellRow]{pc.Input, pc.Province, page.rows,
		listMeta(page.totals.n, p, map[string]any{"status": echo(status), "operator": echo(operator)})})
	return nil
}

// parcelListing reads one kind of an LSD's rows: tens of rows, sorted in
// memory whatever the sort (no cursor), within the bound of any sorted list.
func parcelListing[T any](lsd, prefix string, decode func(kv.Item) (T, error), by func(a, b T) int) listing[T] {
	return listing[T]{q: kv.Query{PK: energy.LSDKey(lsd), SKPrefix: prefix}, decode: decode, cmp: by}
}

func pipelineCmp(sort string) func(a, b energy.PipelineRow) int {
	return func(a, b energy.PipelineRow) int {
		var c int
		switch sort {
		case "length":
			c = ptrCmp(a.LengthMOnParcel, b.LengthMOnParcel)
		case "h2s":
			c = ptrCmp(a.H2SPct, b.H2SPct)
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
}

// Pipelines answers GET /energy/pipelines.
func (h *Handler) Pipelines(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, pipelineSorts, "h2s")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	substance, status, operator := strings.TrimSpace(q.Get("substance")), strings.TrimSpace(q.Get("status")), strings.TrimSpace(q.Get("operator"))
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	l := parcelListing(pc.LSD, energy.SKPipePrefix, decodeJSON[energy.PipelineRow], pipelineCmp(p.Sort))
	if substance != "" || status != "" || operator != "" {
		l.keep = func(row energy.PipelineRow) bool {
			return (substance == "" || containsFold(row.Substance, substance)) &&
				(status == "" || strings.EqualFold(row.Status, status) || strings.EqualFold(row.SegmentStatusRaw, status)) &&
				(operator == "" || containsFold(partyName(row.Operator), operator))
		}
	}
	page, err := l.read(ctx, ds, p, "")
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, parcelList[energy.PipelineRow]{pc.Input, pc.Province, page.rows,
		listMeta(page.totals.n, p, map[string]any{"substance": echo(substance), "status": echo(status), "operator": echo(operator)})})
	return nil
}

func facilityCmp(sort string) func(a, b energy.FacilityRow) int {
	return func(a, b energy.FacilityRow) int {
		var c int
		switch sort {
		case "name":
			c = foldCmp(a.FacilityName, b.FacilityName)
		case "status":
			c = cmp.Compare(energy.FacilityRank(a.FacilityStatusRaw), energy.FacilityRank(b.FacilityStatusRaw))
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
}

// Facilities answers GET /energy/facilities.
func (h *Handler) Facilities(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, facilitySorts, "status")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	category, status, operator := strings.TrimSpace(q.Get("category")), strings.TrimSpace(q.Get("status")), strings.TrimSpace(q.Get("operator"))
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	l := parcelListing(pc.LSD, energy.SKFacilityPrefix, decodeJSON[energy.FacilityRow], facilityCmp(p.Sort))
	if category != "" || status != "" || operator != "" {
		l.keep = func(row energy.FacilityRow) bool {
			return (category == "" || strings.EqualFold(row.Category, category)) &&
				(status == "" || strings.EqualFold(row.Status, status)) &&
				(operator == "" || containsFold(partyName(row.Operator), operator))
		}
	}
	page, err := l.read(ctx, ds, p, "")
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, parcelList[energy.FacilityRow]{pc.Input, pc.Province, page.rows,
		listMeta(page.totals.n, p, map[string]any{"category": echo(category), "status": echo(status), "operator": echo(operator)})})
	return nil
}

func tenureCmp(sort string) func(a, b energy.TenureRow) int {
	return func(a, b energy.TenureRow) int {
		var c int
		switch sort {
		case "urgency":
			c = energy.ByUrgency(a, b)
		case "expiry", "days":
			c = cmp.Compare(energy.ExpiryKey(a), energy.ExpiryKey(b))
		case "area":
			c = ptrCmp(a.AreaHa, b.AreaHa)
		case "operator":
			c = foldCmp(partyName(a.Holder), partyName(b.Holder))
		case "type":
			c = foldCmp(a.DispositionType, b.DispositionType)
		case "status":
			c = foldCmp(a.Status, b.Status)
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
}

// tenureKind matches a row against tenure_kind ("" and "all" match all).
func tenureKind(t energy.TenureRow, kind string) bool {
	return kind == "" || kind == "all" || t.TenureKind == kind
}

// withinDays reports whether a row expires within n days (perpetual and
// undated dispositions never do; expired ones are past the window).
func withinDays(t energy.TenureRow, n *int) bool {
	return n == nil || (t.DaysToExpiry != nil && *t.DaysToExpiry >= 0 && *t.DaysToExpiry <= *n)
}

// Tenure answers GET /energy/tenure.
func (h *Handler) Tenure(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	p, err := pagingParams(r, tenureSorts, "urgency")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	kind, err := enumParam(q, "tenure_kind", tenureKinds...)
	if err != nil {
		return err
	}
	within, err := optInt(q, "expires_within_days", 1, MaxWindowDays)
	if err != nil {
		return err
	}
	status, operator := strings.TrimSpace(q.Get("status")), strings.TrimSpace(q.Get("operator"))
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	now := h.now()
	l := parcelListing(pc.LSD, energy.SKTenurePrefix, func(it kv.Item) (energy.TenureRow, error) {
		t, err := decodeJSON[energy.TenureRow](it)
		return energy.WithExpiry(t, now), err
	}, tenureCmp(p.Sort))
	if kind != "" || within != nil || status != "" || operator != "" {
		l.keep = func(row energy.TenureRow) bool {
			return tenureKind(row, kind) && withinDays(row, within) &&
				(status == "" || strings.EqualFold(row.Status, status)) &&
				(operator == "" || containsFold(partyName(row.Holder), operator))
		}
	}
	page, err := l.read(ctx, ds, p, "")
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, parcelList[energy.TenureRow]{pc.Input, pc.Province, page.rows,
		listMeta(page.totals.n, p, map[string]any{"tenure_kind": echo(kind), "status": echo(status), "operator": echo(operator),
			"expires_within_days": echoInt(within)})})
	return nil
}
