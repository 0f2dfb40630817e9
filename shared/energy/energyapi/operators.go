package energyapi

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/report"
)

// Sorts of the operator endpoints (true: descending by default).
var (
	operatorSorts    = map[string]bool{"orphan": true, "active": true, "abandoned": true, "name": false, "dispositions": true}
	opDispSorts      = map[string]bool{"expiry": false, "days": false, "area": true, "id": false, "type": false, "status": false}
	opWellSorts      = map[string]bool{"uwi": false, "status": false, "licence": false, "lsd": false}
	opLSDSorts       = map[string]bool{"total": true, "lsd": false, "active": true, "orphan": true}
	operatorViews    = []string{"summary", "dispositions", "wells", "lsds"}
	summaryTopRows   = 5
	summaryFootprint = 10
)

// mineralWords are the mineral categories the type filter recognises; any
// other type is a PNG disposition type.
var mineralWords = []string{"metallic", "industrial", "coal", "potash", "salt", "oil sands", "quarry", "ammonite", "mineral"}

// findOperator resolves a BA code, display name, kebab slug or squashed
// name to the operator's INFO item.
func (h *Handler) findOperator(ctx context.Context, ds kv.Dataset, name string) (energy.OperatorInfo, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return energy.OperatorInfo{}, apierr.Invalidf("invalid_parameter", "operator name must be 1 to 200 characters")
	}
	if !strings.ContainsAny(name, " #") {
		if info, ok, err := energy.ReadOperatorInfo(ctx, ds, name); err != nil || ok {
			return info, err
		}
	}
	for _, key := range []string{energy.Slug(name), energy.Squash(name)} {
		if key == "" {
			continue
		}
		p, err := ds.Query(ctx, kv.Query{PK: energy.OperatorNameKey(key), Limit: 1})
		if err != nil {
			return energy.OperatorInfo{}, err
		}
		if len(p.Items) == 0 {
			continue
		}
		var ref struct {
			BA string `json:"ba_code"`
		}
		if err := json.Unmarshal(p.Items[0].Data, &ref); err != nil {
			return energy.OperatorInfo{}, err
		}
		if info, ok, err := energy.ReadOperatorInfo(ctx, ds, ref.BA); err != nil || ok {
			return info, err
		}
	}
	return energy.OperatorInfo{}, apierr.NotFoundf("no operator '%s': use a BA code, name or slug from GET /energy/operators", name)
}

func operatorCmp(sort string) func(a, b energy.OperatorRow) int {
	return func(a, b energy.OperatorRow) int {
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

type list[T any] struct {
	Rows []T            `json:"rows"`
	Meta map[string]any `json:"meta"`
}

// Operators answers GET /energy/operators.
func (h *Handler) Operators(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := pagingParams(r, operatorSorts, "orphan")
	if err != nil {
		return err
	}
	cursor, err := cursorParam(r, p)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	// Every sort has its partition, in the sort's order (energy.OperatorsKey),
	// whose COUNTS item says it exists: a dataset published before them
	// has the orphan order only, and the other sorts stream it.
	pk := energy.OperatorsKey(p.Sort)
	total, ok, err := countItem(ctx, ds, pk)
	if err != nil {
		return err
	}
	if !ok {
		pk = energy.PKOperators
	}
	l := listing[energy.OperatorRow]{
		q:        kv.Query{PK: pk},
		decode:   decodeJSON[energy.OperatorRow],
		cmp:      operatorCmp(p.Sort),
		keySorts: map[string]bool{"orphan": true},
		rollup:   func(ctx context.Context) (totals, bool, error) { return countItem(ctx, ds, energy.PKOperators) },
		rank:     energy.RankKey(pk, ""),
		raw:      storedRow,
	}
	if ok {
		l.keySorts = map[string]bool{p.Sort: operatorSorts[p.Sort]}
		l.rollup = func(context.Context) (totals, bool, error) { return total, true, nil }
	}
	if q != "" {
		l.keep = func(row energy.OperatorRow) bool { return containsFold(row.Name, q) || containsFold(row.BACode, q) }
	}
	page, err := l.read(ctx, ds, p, cursor)
	if err != nil {
		return err
	}
	return writeList(w, page.raw, list[energy.OperatorRow]{page.rows, withCursor(listMeta(page.totals.n, p, map[string]any{"q": echo(q)}), page.next)})
}

// countItem is the total of a whole-partition list from its COUNTS item.
func countItem(ctx context.Context, ds kv.Dataset, pk string) (totals, bool, error) {
	it, ok, err := ds.Get(ctx, energy.PKCounts, pk)
	if err != nil || !ok {
		return totals{}, false, err
	}
	c, err := decodeJSON[energy.ListCount](it)
	return totals{n: c.Total}, err == nil, err
}

type operatorSummary struct {
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
		PNG             int                `json:"png_dispositions"`
		Mineral         int                `json:"mineral_dispositions"`
		Total           int                `json:"total_dispositions"`
		AreaHa          float64            `json:"total_area_ha"`
		TransferPending int                `json:"transfer_pending"`
		ExpiringSoon    int                `json:"expiring_soon"`
		Top             []energy.TenureRow `json:"top"`
	} `json:"tenure"`
	Footprint      []energy.FootprintRow `json:"footprint"`
	FootprintTotal int                   `json:"footprint_total"`
	RefreshedAt    string                `json:"refreshed_at"`
}

type operatorView[T any] struct {
	BACode string         `json:"ba_code"`
	Name   string         `json:"name"`
	Slug   string         `json:"slug"`
	View   string         `json:"view"`
	Rows   []T            `json:"rows"`
	Meta   map[string]any `json:"meta"`
}

// Operator answers GET /energy/operators/{name}.
func (h *Handler) Operator(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	q := r.URL.Query()
	view, err := enumParam(q, "view", operatorViews...)
	if err != nil {
		return err
	}
	if view == "" {
		view = "summary"
	}
	// Validate every parameter before reading.
	var p paging
	switch view {
	case "dispositions":
		p, err = pagingParams(r, opDispSorts, "expiry")
	case "wells":
		p, err = pagingParams(r, opWellSorts, "uwi")
	case "lsds":
		p, err = pagingParams(r, opLSDSorts, "total")
	}
	if err != nil {
		return err
	}
	var cursor string
	if view != "summary" {
		if cursor, err = cursorParam(r, p); err != nil {
			return err
		}
	}
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	info, err := h.findOperator(ctx, ds, r.PathValue("name"))
	if err != nil {
		return err
	}
	pk := energy.OperatorKey(info.BACode)
	switch view {
	case "dispositions":
		return h.operatorDispositions(w, r, ds, info, p, cursor)
	case "wells":
		return h.operatorWells(w, r, ds, info, p, cursor)
	case "lsds":
		return h.operatorLSDs(w, r, ds, info, p, cursor)
	}
	// The summary streams the dispositions: two counts and the first rows
	// by urgency, never the whole list in memory.
	var pending, soon int
	top := &bounded[energy.TenureRow]{k: summaryTopRows, by: tenureCmp("urgency")}
	now := h.now()
	err = ds.Each(ctx, kv.Query{PK: pk, SKPrefix: energy.SKDispositionPrefix}, func(it kv.Item) error {
		d, err := decodeJSON[energy.TenureRow](it)
		if err != nil {
			return err
		}
		d = energy.WithExpiry(d, now)
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
		return err
	}
	fpItems, err := ds.Query(ctx, kv.Query{PK: pk, SKPrefix: energy.SKFootprintPrefix, Limit: summaryFootprint})
	if err != nil {
		return err
	}
	fp, err := energy.DecodeRows[energy.FootprintRow](fpItems.Items)
	if err != nil {
		return err
	}
	var s operatorSummary
	s.BACode, s.Name, s.Slug, s.RefreshedAt = info.BACode, info.Name, info.Slug, info.RefreshedAt
	l := info.Liability
	s.Liability.Total, s.Liability.Active, s.Liability.Suspended = l.Total, l.Active, l.Suspended
	s.Liability.Abandoned, s.Liability.Orphan, s.Liability.ReclamationCertified = l.Abandoned, l.Orphan, l.ReclamationCertified
	s.Transfers.In, s.Transfers.Out = info.In, info.Out
	s.Tenure.PNG, s.Tenure.Mineral, s.Tenure.Total, s.Tenure.AreaHa = info.PNG, info.Mineral, info.PNG+info.Mineral, report.Round(info.AreaHa, 2)
	s.Tenure.TransferPending, s.Tenure.ExpiringSoon, s.Tenure.Top = pending, soon, top.sorted()
	s.Footprint, s.FootprintTotal = fp, info.Footprint
	api.WriteJSON(w, http.StatusOK, s)
	return nil
}

// expiring is the derived status "expiring": within the 24-month window.
func expiring(t energy.TenureRow) bool {
	return t.ExpiryState == energy.ExpiringSoon || t.ExpiryState == energy.ExpiresToday
}

// typeMatch applies the type filter: a mineral category filters the
// mineral registry, any other value the PNG disposition types.
func typeMatch(t energy.TenureRow, typ string) bool {
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

func (h *Handler) operatorDispositions(w http.ResponseWriter, r *http.Request, ds kv.Dataset, info energy.OperatorInfo, p paging, cursor string) error {
	q := r.URL.Query()
	kind, err := enumParam(q, "tenure_kind", tenureKinds...)
	if err != nil {
		return err
	}
	within, err := optInt(q, "expires_within_days", 1, MaxWindowDays)
	if err != nil {
		return err
	}
	typ, status, search := strings.TrimSpace(q.Get("type")), strings.TrimSpace(q.Get("status")), strings.TrimSpace(q.Get("q"))
	now := h.now()
	l := listing[energy.TenureRow]{
		q: kv.Query{PK: energy.OperatorKey(info.BACode), SKPrefix: energy.SKDispositionPrefix},
		decode: func(it kv.Item) (energy.TenureRow, error) {
			t, err := decodeJSON[energy.TenureRow](it)
			return energy.WithExpiry(t, now), err
		},
		cmp:      tenureCmp(p.Sort),
		keySorts: map[string]bool{"expiry": false, "days": false},
		rollup:   infoTotal(info.PNG + info.Mineral),
		rank:     energy.RankKey(energy.OperatorKey(info.BACode), energy.SKDispositionPrefix),
		raw:      newExpiryClock(now).tenureRow(false),
	}
	if within != nil {
		// The window is a range of the operator's DISP#<expiry>#<id> keys:
		// read it, not the whole partition. A day of margin on each side
		// covers any time zone of now; withinDays below decides exactly.
		from := now.UTC().AddDate(0, 0, -1).Format("2006-01-02")
		to := now.UTC().AddDate(0, 0, *within+1).Format("2006-01-02")
		l.q = kv.Query{PK: l.q.PK, SKFrom: energy.SKDispositionPrefix + from, SKTo: energy.SKDispositionPrefix + to + "$"}
	}
	if kind != "" || within != nil || typ != "" || status != "" || search != "" {
		l.keep = func(t energy.TenureRow) bool {
			if !tenureKind(t, kind) || !withinDays(t, within) || !typeMatch(t, typ) {
				return false
			}
			switch {
			case status == "":
			case strings.EqualFold(status, "expired"):
				if t.ExpiryState != energy.Expired {
					return false
				}
			case strings.EqualFold(status, "expiring"):
				if !expiring(t) {
					return false
				}
			case !strings.EqualFold(t.Status, status):
				return false
			}
			return search == "" || containsFold(t.DispositionNumber, search) || containsFold(t.DispositionType, search) || containsFold(t.DispositionTypeRaw, search)
		}
	}
	page, err := l.read(r.Context(), ds, p, cursor)
	if err != nil {
		return err
	}
	return writeList(w, page.raw, operatorView[energy.TenureRow]{info.BACode, info.Name, info.Slug, "dispositions", page.rows,
		withCursor(listMeta(page.totals.n, p, map[string]any{"tenure_kind": echo(kind), "type": echo(typ), "status": echo(status), "q": echo(search),
			"expires_within_days": echoInt(within)}), page.next)})
}

func (h *Handler) operatorWells(w http.ResponseWriter, r *http.Request, ds kv.Dataset, info energy.OperatorInfo, p paging, cursor string) error {
	q := r.URL.Query()
	status, err := enumParam(q, "status", wellStatuses...)
	if err != nil {
		return err
	}
	search := strings.TrimSpace(q.Get("q"))
	l := listing[energy.WellRow]{
		q:      kv.Query{PK: energy.OperatorKey(info.BACode), SKPrefix: energy.SKWellPrefix},
		decode: decodeJSON[energy.WellRow],
		cmp: func(a, b energy.WellRow) int {
			var c int
			switch p.Sort {
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
		rank:     energy.RankKey(energy.OperatorKey(info.BACode), energy.SKWellPrefix),
		raw:      storedRow,
	}
	if status != "" || search != "" {
		l.keep = func(row energy.WellRow) bool {
			return (status == "" || string(row.Status) == status) &&
				(search == "" || containsFold(row.UWI, search) || containsFold(row.LicenceNumber, search))
		}
	}
	page, err := l.read(r.Context(), ds, p, cursor)
	if err != nil {
		return err
	}
	return writeList(w, page.raw, operatorView[energy.WellRow]{info.BACode, info.Name, info.Slug, "wells", page.rows,
		withCursor(listMeta(page.totals.n, p, map[string]any{"status": echo(status), "q": echo(search)}), page.next)})
}

func (h *Handler) operatorLSDs(w http.ResponseWriter, r *http.Request, ds kv.Dataset, info energy.OperatorInfo, p paging, cursor string) error {
	search := strings.TrimSpace(r.URL.Query().Get("q"))
	l := listing[energy.FootprintRow]{
		q:      kv.Query{PK: energy.OperatorKey(info.BACode), SKPrefix: energy.SKFootprintPrefix},
		decode: decodeJSON[energy.FootprintRow],
		cmp: func(a, b energy.FootprintRow) int {
			var c int
			switch p.Sort {
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
		rank:     energy.RankKey(energy.OperatorKey(info.BACode), energy.SKFootprintPrefix),
		raw:      storedRow,
	}
	if search != "" {
		l.keep = func(row energy.FootprintRow) bool { return containsFold(row.LegalLocation, search) }
	}
	page, err := l.read(r.Context(), ds, p, cursor)
	if err != nil {
		return err
	}
	return writeList(w, page.raw, operatorView[energy.FootprintRow]{info.BACode, info.Name, info.Slug, "lsds", page.rows,
		withCursor(listMeta(page.totals.n, p, map[string]any{"q": echo(search)}), page.next)})
}
