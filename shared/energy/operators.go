package energy

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"

	"meridian/shared/apierr"
	"meridian/shared/kv"
	"meridian/shared/report"
)

// Sorts of the operator lists (true: descending by default).
var (
	OperatorListSorts        = map[string]bool{"orphan": true, "active": true, "abandoned": true, "name": false, "dispositions": true}
	OperatorDispositionSorts = map[string]bool{"expiry": false, "days": false, "area": true, "id": false, "type": false, "status": false}
	OperatorWellSorts        = map[string]bool{"uwi": false, "status": false, "licence": false, "lsd": false}
	OperatorLSDSorts         = map[string]bool{"total": true, "lsd": false, "active": true, "orphan": true}
)

const (
	summaryTopRows   = 5
	summaryFootprint = 10
)

// mineralWords are the mineral categories the type filter recognises; any
// other type is a PNG disposition type.
var mineralWords = []string{"metallic", "industrial", "coal", "potash", "salt", "oil sands", "quarry", "ammonite", "mineral"}

// OperatorsQuery selects a page of the operators: Q is a substring of the
// name or BA code, Cursor a decoded cursor (DecodeCursor).
type OperatorsQuery struct {
	Paging
	Cursor, Q string
}

// OperatorDispositionsQuery selects a page of an operator's dispositions.
// Status is a registry status, "expired" or "expiring"; Type a mineral
// category or a PNG disposition type; Q a substring of the number or type.
type OperatorDispositionsQuery struct {
	Name string // BA code, display name, kebab slug or squashed name
	Paging
	Cursor          string
	Kind            string
	Within          *int
	Type, Status, Q string
}

// OperatorWellsQuery selects a page of an operator's wells: Status one of
// WellStatuses, Q a substring of the UWI or licence.
type OperatorWellsQuery struct {
	Name string
	Paging
	Cursor, Status, Q string
}

// OperatorLSDsQuery selects a page of the LSDs an operator's wells are
// on: Q a substring of the LSD.
type OperatorLSDsQuery struct {
	Name string
	Paging
	Cursor, Q string
}

// findOperator resolves a BA code, display name, kebab slug or squashed
// name to the operator's INFO item.
func findOperator(ctx context.Context, ds kv.Dataset, name string) (OperatorInfo, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return OperatorInfo{}, apierr.Invalidf("invalid_parameter", "operator name must be 1 to 200 characters")
	}
	if !strings.ContainsAny(name, " #") {
		if info, ok, err := ReadOperatorInfo(ctx, ds, name); err != nil || ok {
			return info, err
		}
	}
	for _, key := range []string{Slug(name), Squash(name)} {
		if key == "" {
			continue
		}
		p, err := ds.Query(ctx, kv.Query{PK: OperatorNameKey(key), Limit: 1})
		if err != nil {
			return OperatorInfo{}, err
		}
		if len(p.Items) == 0 {
			continue
		}
		var ref struct {
			BA string `json:"ba_code"`
		}
		if err := json.Unmarshal(p.Items[0].Data, &ref); err != nil {
			return OperatorInfo{}, err
		}
		if info, ok, err := ReadOperatorInfo(ctx, ds, ref.BA); err != nil || ok {
			return info, err
		}
	}
	return OperatorInfo{}, apierr.NotFoundf("no operator '%s': use a BA code, name or slug from GET /energy/operators", name)
}

// openOperator opens the dataset and finds the operator name names.
func (r *Reporter) openOperator(ctx context.Context, name string) (kv.Dataset, OperatorInfo, error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return ds, OperatorInfo{}, err
	}
	info, err := findOperator(ctx, ds, name)
	return ds, info, err
}

func operatorCmp(sort string) func(a, b OperatorRow) int {
	return func(a, b OperatorRow) int {
		var c int
		switch sort {
		case "orphan":
			c = cmp.Compare(a.OrphanWells, b.OrphanWells)
		case "active":
			c = cmp.Compare(a.ActiveWells, b.ActiveWells)
		case "abandoned":
			c = cmp.Compare(a.AbandonedWells, b.AbandonedWells)
		case "dispositions":
			c = cmp.Compare(a.DispositionsCount, b.DispositionsCount)
		case "name":
			c = foldCmp(a.Name, b.Name)
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(b.BACode, a.BACode) // ties: BA code ascending in the default descending order
	}
}

// Operators reads a page of the operators.
func (r *Reporter) Operators(ctx context.Context, q OperatorsQuery) (Page[OperatorRow], error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return Page[OperatorRow]{}, err
	}
	// Every sort has its partition, in the sort's order (OperatorsKey),
	// whose COUNTS item says it exists: a dataset published before them
	// has the orphan order only, and the other sorts stream it.
	pk := OperatorsKey(q.Sort)
	total, ok, err := countItem(ctx, ds, pk)
	if err != nil {
		return Page[OperatorRow]{}, err
	}
	if !ok {
		pk = PKOperators
	}
	l := listing[OperatorRow]{
		q:        kv.Query{PK: pk},
		decode:   decodeJSON[OperatorRow],
		cmp:      operatorCmp(q.Sort),
		keySorts: map[string]bool{"orphan": true},
		rollup:   func(ctx context.Context) (totals, bool, error) { return countItem(ctx, ds, PKOperators) },
		rank:     RankKey(pk, ""),
		raw:      storedRow,
	}
	if ok {
		l.keySorts = map[string]bool{q.Sort: OperatorListSorts[q.Sort]}
		l.rollup = func(context.Context) (totals, bool, error) { return total, true, nil }
	}
	if q.Q != "" {
		l.keep = func(row OperatorRow) bool { return containsFold(row.Name, q.Q) || containsFold(row.BACode, q.Q) }
	}
	return l.read(ctx, ds, q.Paging, q.Cursor)
}

// countItem is the total of a whole-partition list from its COUNTS item.
func countItem(ctx context.Context, ds kv.Dataset, pk string) (totals, bool, error) {
	it, ok, err := ds.Get(ctx, PKCounts, pk)
	if err != nil || !ok {
		return totals{}, false, err
	}
	c, err := decodeJSON[ListCount](it)
	return totals{n: c.Total}, err == nil, err
}

// OperatorSummary is the summary view of an operator.
type OperatorSummary struct {
	BACode    string `json:"ba_code"`
	Name      string `json:"name"`
	Slug      string `json:"slug"`
	Liability struct {
		Total                int `json:"total_wells"`
		Active               int `json:"active_wells"`
		Suspended            int `json:"suspended_wells"`
		Abandoned            int `json:"abandoned_wells"`
		Orphan               int `json:"orphan_wells"`
		ReclamationCertified int `json:"reclamation_certified_wells"`
	} `json:"liability"`
	Transfers struct {
		In  int `json:"in"`
		Out int `json:"out"`
	} `json:"transfers"`
	Tenure struct {
		PNG             int         `json:"png_dispositions"`
		Mineral         int         `json:"mineral_dispositions"`
		Total           int         `json:"total_dispositions"`
		AreaHa          float64     `json:"total_area_ha"`
		TransferPending int         `json:"transfer_pending"`
		ExpiringSoon    int         `json:"expiring_soon"`
		Top             []TenureRow `json:"top"`
	} `json:"tenure"`
	Footprint      []FootprintRow `json:"footprint"`
	FootprintTotal int            `json:"footprint_total"`
	RefreshedAt    string         `json:"refreshed_at"`
}

// OperatorSummary assembles the summary of the operator name names: it
// streams the dispositions (two counts and the first rows by urgency,
// never the whole list in memory) and reads the first LSDs.
func (r *Reporter) OperatorSummary(ctx context.Context, name string) (OperatorSummary, error) {
	var s OperatorSummary
	ds, info, err := r.openOperator(ctx, name)
	if err != nil {
		return s, err
	}
	pk := OperatorKey(info.BACode)
	var pending, soon int
	top := &bounded[TenureRow]{k: summaryTopRows, by: tenureCmp("urgency")}
	now := r.now()
	err = ds.Each(ctx, kv.Query{PK: pk, SKPrefix: SKDispositionPrefix}, func(it kv.Item) error {
		d, err := decodeJSON[TenureRow](it)
		if err != nil {
			return err
		}
		d = WithExpiry(d, now)
		if d.IsTransferPending {
			pending++
		}
		if expiring(d) {
			soon++
		}
		top.offer(d)
		return nil
	})
	if err != nil {
		return s, err
	}
	fpItems, err := ds.Query(ctx, kv.Query{PK: pk, SKPrefix: SKFootprintPrefix, Limit: summaryFootprint})
	if err != nil {
		return s, err
	}
	fp, err := DecodeRows[FootprintRow](fpItems.Items)
	if err != nil {
		return s, err
	}
	s.BACode, s.Name, s.Slug, s.RefreshedAt = info.BACode, info.Name, info.Slug, info.RefreshedAt
	l := info.Liability
	s.Liability.Total, s.Liability.Active, s.Liability.Suspended = l.Total, l.Active, l.Suspended
	s.Liability.Abandoned, s.Liability.Orphan, s.Liability.ReclamationCertified = l.Abandoned, l.Orphan, l.ReclamationCertified
	s.Transfers.In, s.Transfers.Out = info.In, info.Out
	s.Tenure.PNG, s.Tenure.Mineral, s.Tenure.Total, s.Tenure.AreaHa = info.PNG, info.Mineral, info.PNG+info.Mineral, report.Round(info.AreaHa, 2)
	s.Tenure.TransferPending, s.Tenure.ExpiringSoon, s.Tenure.Top = pending, soon, top.sorted()
	s.Footprint, s.FootprintTotal = fp, info.Footprint
	return s, nil
}

// expiring is the derived status "expiring": within the 24-month window.
func expiring(t TenureRow) bool {
	return t.ExpiryState == ExpiringSoon || t.ExpiryState == ExpiresToday
}

// typeMatch applies the type filter: a mineral category filters the
// mineral registry, any other value the PNG disposition types.
func typeMatch(t TenureRow, typ string) bool {
	if typ == "" {
		return true
	}
	lt := strings.ToLower(typ)
	for _, m := range mineralWords {
		if strings.HasPrefix(lt, m) || strings.HasPrefix(m, lt) {
			return t.TenureKind == "mineral" && t.MineralCategory != nil && containsFold(*t.MineralCategory, typ)
		}
	}
	return t.TenureKind == "png" && (containsFold(t.DispositionType, typ) || containsFold(t.DispositionTypeRaw, typ))
}

// infoTotal is a roll-up read with the operator's INFO item.
func infoTotal(n int) func(context.Context) (totals, bool, error) {
	return func(context.Context) (totals, bool, error) { return totals{n: n}, true, nil }
}

// OperatorDispositions reads a page of an operator's dispositions, their
// expiry states on the reporter's clock.
func (r *Reporter) OperatorDispositions(ctx context.Context, q OperatorDispositionsQuery) (OperatorInfo, Page[TenureRow], error) {
	ds, info, err := r.openOperator(ctx, q.Name)
	if err != nil {
		return info, Page[TenureRow]{}, err
	}
	now := r.now()
	l := listing[TenureRow]{
		q: kv.Query{PK: OperatorKey(info.BACode), SKPrefix: SKDispositionPrefix},
		decode: func(it kv.Item) (TenureRow, error) {
			t, err := decodeJSON[TenureRow](it)
			return WithExpiry(t, now), err
		},
		cmp:      tenureCmp(q.Sort),
		keySorts: map[string]bool{"expiry": false, "days": false},
		rollup:   infoTotal(info.PNG + info.Mineral),
		rank:     RankKey(OperatorKey(info.BACode), SKDispositionPrefix),
		raw:      newExpiryClock(now).tenureRow(false),
	}
	if q.Within != nil {
		// The window is a range of the operator's DISP#<expiry>#<id> keys:
		// read it, not the whole partition. A day of margin on each side
		// covers any time zone of now; withinDays below decides exactly.
		from := now.UTC().AddDate(0, 0, -1).Format("2006-01-02")
		to := now.UTC().AddDate(0, 0, *q.Within+1).Format("2006-01-02")
		l.q = kv.Query{PK: l.q.PK, SKFrom: SKDispositionPrefix + from, SKTo: SKDispositionPrefix + to + "$"}
	}
	if q.Kind != "" || q.Within != nil || q.Type != "" || q.Status != "" || q.Q != "" {
		l.keep = func(t TenureRow) bool {
			if !tenureKind(t, q.Kind) || !withinDays(t, q.Within) || !typeMatch(t, q.Type) {
				return false
			}
			switch {
			case q.Status == "":
			case strings.EqualFold(q.Status, "expired"):
				if t.ExpiryState != Expired {
					return false
				}
			case strings.EqualFold(q.Status, "expiring"):
				if !expiring(t) {
					return false
				}
			case !strings.EqualFold(t.Status, q.Status):
				return false
			}
			return q.Q == "" || containsFold(t.DispositionNumber, q.Q) || containsFold(t.DispositionType, q.Q) || containsFold(t.DispositionTypeRaw, q.Q)
		}
	}
	page, err := l.read(ctx, ds, q.Paging, q.Cursor)
	return info, page, err
}

// OperatorWells reads a page of an operator's wells.
func (r *Reporter) OperatorWells(ctx context.Context, q OperatorWellsQuery) (OperatorInfo, Page[WellRow], error) {
	ds, info, err := r.openOperator(ctx, q.Name)
	if err != nil {
		return info, Page[WellRow]{}, err
	}
	l := listing[WellRow]{
		q:      kv.Query{PK: OperatorKey(info.BACode), SKPrefix: SKWellPrefix},
		decode: decodeJSON[WellRow],
		cmp: func(a, b WellRow) int {
			var c int
			switch q.Sort {
			case "status":
				c = cmp.Compare(a.Status.Rank(), b.Status.Rank())
			case "licence":
				c = cmp.Compare(a.LicenceNumber, b.LicenceNumber)
			case "lsd":
				c = cmp.Compare(a.LSD, b.LSD)
			}
			if c != 0 {
				return c
			}
			return cmp.Compare(a.UWI, b.UWI)
		},
		keySorts: map[string]bool{"uwi": false},
		rollup:   infoTotal(info.Liability.Total),
		rank:     RankKey(OperatorKey(info.BACode), SKWellPrefix),
		raw:      storedRow,
	}
	if q.Status != "" || q.Q != "" {
		l.keep = func(row WellRow) bool {
			return (q.Status == "" || string(row.Status) == q.Status) &&
				(q.Q == "" || containsFold(row.UWI, q.Q) || containsFold(row.LicenceNumber, q.Q))
		}
	}
	page, err := l.read(ctx, ds, q.Paging, q.Cursor)
	return info, page, err
}

// OperatorLSDs reads a page of the LSDs an operator's wells are on.
func (r *Reporter) OperatorLSDs(ctx context.Context, q OperatorLSDsQuery) (OperatorInfo, Page[FootprintRow], error) {
	ds, info, err := r.openOperator(ctx, q.Name)
	if err != nil {
		return info, Page[FootprintRow]{}, err
	}
	l := listing[FootprintRow]{
		q:      kv.Query{PK: OperatorKey(info.BACode), SKPrefix: SKFootprintPrefix},
		decode: decodeJSON[FootprintRow],
		cmp: func(a, b FootprintRow) int {
			var c int
			switch q.Sort {
			case "total":
				c = cmp.Compare(a.TotalWells, b.TotalWells)
			case "active":
				c = cmp.Compare(a.ActiveWells, b.ActiveWells)
			case "orphan":
				c = cmp.Compare(a.OrphanWells, b.OrphanWells)
			case "lsd":
				return cmp.Compare(a.LegalLocation, b.LegalLocation)
			}
			if c != 0 {
				return c
			}
			return cmp.Compare(b.LegalLocation, a.LegalLocation) // ties by LSD ascending in the default descending order
		},
		keySorts: map[string]bool{"total": true},
		rollup:   infoTotal(info.Footprint),
		rank:     RankKey(OperatorKey(info.BACode), SKFootprintPrefix),
		raw:      storedRow,
	}
	if q.Q != "" {
		l.keep = func(row FootprintRow) bool { return containsFold(row.LegalLocation, q.Q) }
	}
	page, err := l.read(ctx, ds, q.Paging, q.Cursor)
	return info, page, err
}
