// Package energyapi serves the energy endpoints (GET /energy/...) from the
// energy dataset of the report store: the parcel report (package energy
// assembles it; here it is only read from the request and written as
// JSON), the parcel lists (wells, pipelines, facilities, tenure), the
// operators and the cross-parcel views (expiring tenure, disposition and
// pipeline licence detail). Every read is one of the access patterns of
// package energy's keys. Lists page in the store: the default sort of a
// list is its partition's key order, so a page is a range read (page
// numbers or an opaque cursor) and its totals come from roll-up items;
// filters and other sorts stream the partition and keep at most page ×
// per_page rows (paging.go). ACCESS.md gives, for every endpoint and class
// of parameters, the key read, the items read and the memory. Expiry
// states are recomputed with the handler's clock, never taken from the
// store.
package energyapi

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// Paging limits of every list endpoint.
const (
	DefaultPerPage = 50
	MaxPerPage     = 200
	MaxWindowDays  = 3650
	// DefaultExpiringDays is the window of GET /energy/tenure/expiring.
	DefaultExpiringDays = 365
)

// Handler serves the energy endpoints.
type Handler struct {
	store kv.Store
	rep   *energy.Reporter // the report, and the LSD of the parcel lists
	now   func() time.Time
}

// NewHandler returns the energy handlers over store; svc locates parcels,
// now is the clock expiry states are computed with (time.Now when nil).
func NewHandler(store kv.Store, svc energy.Resolver, now func() time.Time) *Handler {
	if now == nil {
		now = time.Now
	}
	return &Handler{store: store, rep: energy.NewReporter(store, svc, now), now: now}
}

// parcelParam reads and locates the legal_location parameter: an LSD in
// AB, SK or MB.
func (h *Handler) parcelParam(ctx context.Context, r *http.Request) (energy.LocatedLSD, error) {
	return h.rep.Locate(ctx, r.URL.Query().Get("legal_location"))
}

// paging is a list request's page, size, sort and direction.
type paging struct {
	Page    int
	PerPage int
	Sort    string
	Desc    bool
}

// pagingParams reads page, per_page, sort and dir. sorts maps each sort to
// whether its default direction is descending; def is the default sort.
func pagingParams(r *http.Request, sorts map[string]bool, def string) (paging, error) {
	q := r.URL.Query()
	p := paging{Page: 1, PerPage: DefaultPerPage, Sort: def}
	var err error
	if p.Page, err = intParam(q, "page", 1, math.MaxInt32, 1); err != nil {
		return p, err
	}
	if p.PerPage, err = intParam(q, "per_page", 1, MaxPerPage, DefaultPerPage); err != nil {
		return p, err
	}
	if s := strings.ToLower(strings.TrimSpace(q.Get("sort"))); s != "" {
		if _, ok := sorts[s]; !ok {
			return p, apierr.Invalidf("invalid_parameter", "sort '%s' is not valid: use %s", q.Get("sort"), choices(sorts))
		}
		p.Sort = s
	}
	p.Desc = sorts[p.Sort]
	switch d := strings.ToLower(strings.TrimSpace(q.Get("dir"))); d {
	case "":
	case "asc":
		p.Desc = false
	case "desc":
		p.Desc = true
	default:
		return p, apierr.Invalidf("invalid_parameter", "dir '%s' is not valid: use asc or desc", q.Get("dir"))
	}
	return p, nil
}

func (p paging) dir() string {
	if p.Desc {
		return "desc"
	}
	return "asc"
}

// choices lists the keys of a set in a stable order, for messages.
func choices[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// intParam reads an optional integer parameter in [lo, hi].
func intParam(q url.Values, name string, lo, hi, def int) (int, error) {
	s := strings.TrimSpace(q.Get(name))
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		if hi == math.MaxInt32 {
			return 0, apierr.Invalidf("invalid_parameter", "%s '%s' is out of range: %s is an integer of at least %d", name, q.Get(name), name, lo)
		}
		return 0, apierr.Invalidf("invalid_parameter", "%s '%s' is out of range: %s is an integer from %d to %d", name, q.Get(name), name, lo, hi)
	}
	return n, nil
}

// optInt reads an optional integer parameter in [lo, hi]: nil when absent.
func optInt(q url.Values, name string, lo, hi int) (*int, error) {
	if strings.TrimSpace(q.Get(name)) == "" {
		return nil, nil
	}
	n, err := intParam(q, name, lo, hi, 0)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// enumParam reads an optional parameter that takes one of values (case
// insensitive); "" when absent.
func enumParam(q url.Values, name string, values ...string) (string, error) {
	s := strings.ToLower(strings.TrimSpace(q.Get(name)))
	if s == "" {
		return "", nil
	}
	for _, v := range values {
		if s == v {
			return s, nil
		}
	}
	return "", apierr.Invalidf("invalid_parameter", "%s '%s' is not valid: use %s", name, q.Get(name), strings.Join(values, ", "))
}

// echo is a filter's value in meta: null when unused.
func echo(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func echoInt(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

// listMeta is the meta of a paged list: total, page, per_page, sort, dir
// and the filters' echo.
func listMeta(total int, p paging, filters map[string]any) map[string]any {
	m := map[string]any{"total": total, "page": p.Page, "per_page": p.PerPage, "sort": p.Sort, "dir": p.dir()}
	for k, v := range filters {
		m[k] = v
	}
	return m
}

// containsFold reports whether s contains sub, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func partyName(p energy.Party) string {
	if p.Name == nil {
		return ""
	}
	return *p.Name
}
