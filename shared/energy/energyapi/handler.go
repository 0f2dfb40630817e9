// Package energyapi serves the energy endpoints (GET /energy/...): it
// reads each request's parameters into the input of one of package
// energy's readers (energy.Reporter: the parcel report, the parcel lists,
// the operators and the cross-parcel views) and writes the answer as
// JSON. Package energy does every store read, the paging over the store
// and the assembly; ACCESS.md there gives, for every endpoint and class
// of parameters, the key read, the items read and the memory.
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
	rep     *energy.Reporter // the report, the lists and the views
	answers *answers         // the province-wide lists' bodies; nil over a store that can change
}

// NewHandler returns the energy handlers over store; svc locates parcels,
// now is the clock expiry states are computed with (time.Now when nil).
func NewHandler(store kv.Store, svc energy.Resolver, now func() time.Time) *Handler {
	if now == nil {
		now = time.Now
	}
	h := &Handler{rep: energy.NewReporter(store, svc, now)}
	if kv.Unchanging(store) {
		h.answers = &answers{m: map[string][]byte{}, now: now}
	}
	return h
}

// parcelParam reads and locates the legal_location parameter: an LSD in
// AB, SK or MB.
func (h *Handler) parcelParam(ctx context.Context, r *http.Request) (energy.LocatedLSD, error) {
	return h.rep.Locate(ctx, r.URL.Query().Get("legal_location"))
}

// pagingParams reads page, per_page, sort and dir. sorts maps each sort to
// whether its default direction is descending; def is the default sort.
func pagingParams(r *http.Request, sorts map[string]bool, def string) (energy.Paging, error) {
	q := r.URL.Query()
	p := energy.Paging{Page: 1, PerPage: DefaultPerPage, Sort: def}
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

// cursorParam reads the opaque cursor parameter (energy.DecodeCursor):
// "" when absent.
func cursorParam(r *http.Request, p energy.Paging) (string, error) {
	return energy.DecodeCursor(r.URL.Query().Get("cursor"), p)
}

// withCursor adds next_cursor to a list's meta: null when no page follows
// in key order.
func withCursor(meta map[string]any, next string) map[string]any {
	meta["next_cursor"] = echo(next)
	return meta
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
func intParam(q getter, name string, lo, hi, def int) (int, error) {
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

// getter is a query's values: url.Values, or api.Params where the map is
// not worth building.
type getter interface{ Get(name string) string }

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
func listMeta(total int, p energy.Paging, filters map[string]any) map[string]any {
	m := map[string]any{"total": total, "page": p.Page, "per_page": p.PerPage, "sort": p.Sort, "dir": p.Dir()}
	for k, v := range filters {
		m[k] = v
	}
	return m
}
