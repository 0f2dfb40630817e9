package energy

import (
	"cmp"
	"context"
	"strings"

	"meridian/shared/kv"
)

// Sorts of the parcel lists, each with whether it defaults to descending:
// magnitudes (depth, length, H2S, area) default to descending, identifiers,
// states and dates to ascending.
var (
	WellSorts     = map[string]bool{"id": false, "status": false, "operator": false, "depth": true}
	PipelineSorts = map[string]bool{"id": false, "length": true, "h2s": true}
	FacilitySorts = map[string]bool{"id": false, "name": false, "status": false}
	TenureSorts   = map[string]bool{"expiry": false, "urgency": false, "area": true, "id": false}
	// WellStatuses are the values of a wells list's status filter.
	WellStatuses = []string{string(Active), string(Suspended), string(Abandoned),
		string(Orphan), string(ReclamationCertified), string(Unknown)}
	// TenureKinds are the values of the tenure_kind filter.
	TenureKinds = []string{"png", "mineral", "all"}
)

// WellsQuery selects a page of an LSD's wells: Status (one of
// WellStatuses) and Operator (a name substring) filter when set.
type WellsQuery struct {
	LSD string // canonical (LocatedLSD.LSD)
	Paging
	Status, Operator string
}

// PipelinesQuery selects a page of the pipeline segments crossing an LSD.
type PipelinesQuery struct {
	LSD string
	Paging
	Substance, Status, Operator string
}

// FacilitiesQuery selects a page of an LSD's facilities.
type FacilitiesQuery struct {
	LSD string
	Paging
	Category, Status, Operator string
}

// TenureQuery selects a page of the dispositions over an LSD; Within,
// when set, keeps those expiring within that many days.
type TenureQuery struct {
	LSD string
	Paging
	Kind             string
	Within           *int
	Status, Operator string
}

func wellCmp(sort string) func(a, b WellRow) int {
	return func(a, b WellRow) int {
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

// Wells reads a page of an LSD's wells.
func (r *Reporter) Wells(ctx context.Context, q WellsQuery) (Page[WellRow], error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return Page[WellRow]{}, err
	}
	if q.Sort == "status" && q.Status == "" && q.Operator == "" {
		if page, ok, err := statusPage(ctx, ds, q.LSD, q.Paging); err != nil || ok {
			return page, err
		}
	}
	l := parcelListing(q.LSD, SKWellPrefix, decodeWell, wellCmp(q.Sort))
	if q.Status != "" || q.Operator != "" {
		l.keep = func(row WellRow) bool {
			return (q.Status == "" || string(row.Status) == q.Status) && (q.Operator == "" || containsFold(partyName(row.Operator), q.Operator))
		}
	}
	return l.read(ctx, ds, q.Paging, "")
}

// parcelListing reads one kind of an LSD's rows: tens of rows, sorted in
// memory whatever the sort (no cursor), within the bound of any sorted list.
func parcelListing[T any](lsd, prefix string, decode func(kv.Item) (T, error), by func(a, b T) int) listing[T] {
	return listing[T]{q: kv.Query{PK: LSDKey(lsd), SKPrefix: prefix}, decode: decode, cmp: by}
}

func pipelineCmp(sort string) func(a, b PipelineRow) int {
	return func(a, b PipelineRow) int {
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

// Pipelines reads a page of the pipeline segments crossing an LSD.
func (r *Reporter) Pipelines(ctx context.Context, q PipelinesQuery) (Page[PipelineRow], error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return Page[PipelineRow]{}, err
	}
	l := parcelListing(q.LSD, SKPipePrefix, decodeJSON[PipelineRow], pipelineCmp(q.Sort))
	if q.Substance != "" || q.Status != "" || q.Operator != "" {
		l.keep = func(row PipelineRow) bool {
			return (q.Substance == "" || containsFold(row.Substance, q.Substance)) &&
				(q.Status == "" || strings.EqualFold(row.Status, q.Status) || strings.EqualFold(row.SegmentStatusRaw, q.Status)) &&
				(q.Operator == "" || containsFold(partyName(row.Operator), q.Operator))
		}
	}
	return l.read(ctx, ds, q.Paging, "")
}

func facilityCmp(sort string) func(a, b FacilityRow) int {
	return func(a, b FacilityRow) int {
		var c int
		switch sort {
		case "name":
			c = foldCmp(a.FacilityName, b.FacilityName)
		case "status":
			c = cmp.Compare(FacilityRank(a.FacilityStatusRaw), FacilityRank(b.FacilityStatusRaw))
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
}

// Facilities reads a page of an LSD's facilities.
func (r *Reporter) Facilities(ctx context.Context, q FacilitiesQuery) (Page[FacilityRow], error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return Page[FacilityRow]{}, err
	}
	l := parcelListing(q.LSD, SKFacilityPrefix, decodeJSON[FacilityRow], facilityCmp(q.Sort))
	if q.Category != "" || q.Status != "" || q.Operator != "" {
		l.keep = func(row FacilityRow) bool {
			return (q.Category == "" || strings.EqualFold(row.Category, q.Category)) &&
				(q.Status == "" || strings.EqualFold(row.Status, q.Status)) &&
				(q.Operator == "" || containsFold(partyName(row.Operator), q.Operator))
		}
	}
	return l.read(ctx, ds, q.Paging, "")
}

func tenureCmp(sort string) func(a, b TenureRow) int {
	return func(a, b TenureRow) int {
		var c int
		switch sort {
		case "urgency":
			c = ByUrgency(a, b)
		case "expiry", "days":
			c = cmp.Compare(ExpiryKey(a), ExpiryKey(b))
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
func tenureKind(t TenureRow, kind string) bool {
	return kind == "" || kind == "all" || t.TenureKind == kind
}

// withinDays reports whether a row expires within n days (perpetual and
// undated dispositions never do; expired ones are past the window).
func withinDays(t TenureRow, n *int) bool {
	return n == nil || (t.DaysToExpiry != nil && *t.DaysToExpiry >= 0 && *t.DaysToExpiry <= *n)
}

// Tenure reads a page of the dispositions over an LSD, their expiry
// states on the reporter's clock.
func (r *Reporter) Tenure(ctx context.Context, q TenureQuery) (Page[TenureRow], error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return Page[TenureRow]{}, err
	}
	now := r.now()
	if q.Sort == "urgency" && q.Kind == "" && q.Within == nil && q.Status == "" && q.Operator == "" {
		c := newExpiryClock(now)
		kq := kv.Query{PK: LSDKey(q.LSD), SKPrefix: SKTenurePrefix}
		if page, ok, err := passedPage(ctx, ds, kq, q.Paging, c.urgencyOf, urgencyKey.cmp, c.tenureRow(false), tenureDecoder(now)); err != nil || ok {
			return page, err
		}
	}
	l := parcelListing(q.LSD, SKTenurePrefix, tenureDecoder(now), tenureCmp(q.Sort))
	if q.Kind != "" || q.Within != nil || q.Status != "" || q.Operator != "" {
		l.keep = func(row TenureRow) bool {
			return tenureKind(row, q.Kind) && withinDays(row, q.Within) &&
				(q.Status == "" || strings.EqualFold(row.Status, q.Status)) &&
				(q.Operator == "" || containsFold(partyName(row.Holder), q.Operator))
		}
	}
	return l.read(ctx, ds, q.Paging, "")
}

// statusPage is a page of an LSD's wells in their default sort, status,
// without filters, sorted from their stored bytes and passed through.
func statusPage(ctx context.Context, ds kv.Dataset, lsd string, p Paging) (Page[WellRow], bool, error) {
	return passedPage(ctx, ds, kv.Query{PK: LSDKey(lsd), SKPrefix: SKWellPrefix}, p, wellStatusOf, wellStatusKey.cmp,
		reportWellRow, decodeWell)
}

// passedPage is a page of a parcel list without filters in a sort whose
// key key reads from a row's stored bytes: the rows are sorted by it and
// the page's passed through (passSorted); ok == false when a row's key
// cannot be read, or the page is past MaxSortedRows: the list's general
// way then answers. Memory: the partition's items (an LSD's: tens).
func passedPage[K, T any](ctx context.Context, ds kv.Dataset, q kv.Query, p Paging, key func([]byte) (K, bool),
	cmp func(a, b K) int, raw rawRow, decode func(kv.Item) (T, error)) (Page[T], bool, error) {
	var out Page[T]
	if p.Page > MaxSortedRows/p.PerPage {
		return out, false, nil
	}
	var items []kv.Item
	if err := ds.Each(ctx, q, func(it kv.Item) error { items = append(items, it); return nil }); err != nil {
		return out, false, err
	}
	start := (p.Page - 1) * p.PerPage
	rows, ok, err := passSorted(items, key, cmp, p.Desc, start, p.PerPage, raw, decode)
	if !ok || err != nil {
		return out, false, err
	}
	out.Total, out.Rows, out.Raw = len(items), []T{}, rows
	return out, true, nil
}

// ptrCmp compares optional numbers, a missing one lowest.
func ptrCmp[N cmp.Ordered](a, b *N) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// foldCmp compares strings ignoring case.
func foldCmp(a, b string) int { return cmp.Compare(strings.ToLower(a), strings.ToLower(b)) }

// containsFold reports whether s contains sub, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func partyName(p Party) string {
	if p.Name == nil {
		return ""
	}
	return *p.Name
}
