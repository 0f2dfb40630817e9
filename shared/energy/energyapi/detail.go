package energyapi

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"time"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/report"
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
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	cursor, err := cursorParam(r, p)
	if err != nil {
		return err
	}
	now := h.now().UTC()
	from, to := now.Format("2006-01-02"), now.AddDate(0, 0, days).Format("2006-01-02")
	l := listing[energy.TenureRow]{
		// The SK range is the window: an item's expiry date starts its sort
		// key, and from today to the window's last day is 0 to days days.
		q: kv.Query{PK: energy.PKExpiring, SKFrom: from, SKTo: to + "$"},
		decode: func(it kv.Item) (energy.TenureRow, error) {
			t, err := decodeJSON[energy.TenureRow](it)
			t = energy.WithExpiry(t, now)
			t.LSDCoveragePct = nil
			return t, err
		},
		cmp:      tenureCmp(p.Sort),
		keySorts: map[string]bool{"expiry": false, "days": false},
		rollup: func(ctx context.Context) (totals, bool, error) {
			return expiringTotals(ctx, ds, now, to)
		},
		add: func(t *totals, row energy.TenureRow) {
			if row.AreaHa != nil {
				t.microHa += energy.MicroHa(*row.AreaHa)
				t.known++
			}
		},
		rank: energy.RankKey(energy.PKExpiring, ""),
		raw:  newExpiryClock(now).tenureRow(true),
	}
	if kind != "" || typ != "" || operator != "" || search != "" {
		l.keep = func(t energy.TenureRow) bool {
			return tenureKind(t, kind) && typeMatch(t, typ) &&
				(operator == "" || containsFold(partyName(t.Holder), operator)) &&
				(search == "" || containsFold(t.DispositionNumber, search) || containsFold(partyName(t.Holder), search))
		}
	}
	page, err := l.read(ctx, ds, p, cursor)
	if err != nil {
		return err
	}
	meta := listMeta(page.totals.n, p, map[string]any{"expires_within_days": days, "operator": echo(operator), "type": echo(typ),
		"tenure_kind": echo(kind), "q": echo(search)})
	meta["total_area_ha"], meta["area_ha_known_count"], meta["area_ha_unknown_count"] = report.Round(float64(page.totals.microHa)/1e6, 2), page.totals.known, page.totals.n-page.totals.known
	return writeList(w, page.raw, list[energy.TenureRow]{page.rows, withCursor(meta, page.next)})
}

// expiringTotals are the totals of the unfiltered window from now's day to
// the day to, from the EXPIRING#DAYS roll-up: the tally up to the window's
// last day less the tally up to the day before its first. ok == false
// when no tally covers the window's end (no roll-up, or nothing expires
// by then): the caller counts the range, which then holds nothing or a
// dataset published without roll-ups.
func expiringTotals(ctx context.Context, ds kv.Dataset, now time.Time, to string) (totals, bool, error) {
	upTo := func(day string) (energy.ExpiringDay, bool, error) {
		var d energy.ExpiringDay
		pg, err := ds.Query(ctx, kv.Query{PK: energy.PKExpiringDays, SKTo: day, Reverse: true, Limit: 1})
		if err != nil || len(pg.Items) == 0 {
			return d, false, err
		}
		d, err = decodeJSON[energy.ExpiringDay](pg.Items[0])
		return d, err == nil, err
	}
	end, ok, err := upTo(to)
	if err != nil || !ok {
		return totals{}, false, err
	}
	before, _, err := upTo(now.AddDate(0, 0, -1).Format("2006-01-02"))
	if err != nil {
		return totals{}, false, err
	}
	d := end.Minus(before)
	return totals{n: d.Count, known: d.Known, microHa: d.AreaMicroHa, base: before.Count}, true, nil
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
	ds, err := energy.Open(ctx, h.store)
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
	t = energy.WithExpiry(t, h.now())
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
	ds, err := energy.Open(ctx, h.store)
	if err != nil {
		return err
	}
	// One pass over the licence's segments: the first MaxSegments rows, the
	// count, and the operator of most segments (first to reach the most).
	var out pipelineLicence
	counts := map[string]int{}
	best := ""
	err = ds.Each(ctx, kv.Query{PK: energy.PipelineKey(licence), SKPrefix: energy.SKSegmentPrefix}, func(it kv.Item) error {
		s, err := decodeJSON[energy.PipelineRow](it)
		if err != nil {
			return err
		}
		if out.Meta.Total == 0 {
			out.LicenceNumber = s.LicenceNumber
		}
		out.Meta.Total++
		k := keyOf(s)
		counts[k]++
		if out.Meta.Total == 1 || counts[k] > counts[best] {
			best, out.Operator = k, s.Operator
		}
		if len(out.Rows) < MaxSegments {
			out.Rows = append(out.Rows, s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if out.Meta.Total == 0 {
		return apierr.NotFoundf("no pipeline licence '%s'", licence)
	}
	out.Meta.Returned = len(out.Rows)
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
