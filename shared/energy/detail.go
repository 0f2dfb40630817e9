package energy

import (
	"context"
	"encoding/json"
	"time"

	"meridian/shared/apierr"
	"meridian/shared/kv"
	"meridian/shared/report"
)

// MaxSegments is how many segments a pipeline licence detail returns.
const MaxSegments = 200

// ExpiringSorts are the sorts of the expiring tenure list (true:
// descending by default).
var ExpiringSorts = map[string]bool{"expiry": false, "days": false, "area": true, "operator": false, "id": false}

// ExpiringQuery selects a page of the dispositions expiring within Days
// days of the reporter's clock: Type a mineral category or a PNG
// disposition type, Q a substring of the number or holder.
type ExpiringQuery struct {
	Paging
	Cursor                  string
	Days                    int
	Kind, Operator, Type, Q string
}

// ExpiringPage is a page of expiring tenure with the area of every row
// that passed the filters.
type ExpiringPage struct {
	Page[TenureRow]
	AreaHa    float64 // rounded to 2 decimals
	AreaKnown int     // rows with an area
}

// Expiring reads a page of the expiring tenure: one range read of the
// EXPIRING partition from today to the window's end.
func (r *Reporter) Expiring(ctx context.Context, q ExpiringQuery) (ExpiringPage, error) {
	ds, err := Open(ctx, r.store)
	if err != nil {
		return ExpiringPage{}, err
	}
	now := r.now().UTC()
	from, to := now.Format("2006-01-02"), now.AddDate(0, 0, q.Days).Format("2006-01-02")
	l := listing[TenureRow]{
		// The SK range is the window: an item's expiry date starts its sort
		// key, and from today to the window's last day is 0 to days days.
		q: kv.Query{PK: PKExpiring, SKFrom: from, SKTo: to + "$"},
		decode: func(it kv.Item) (TenureRow, error) {
			t, err := decodeJSON[TenureRow](it)
			t = WithExpiry(t, now)
			t.LSDCoveragePct = nil
			return t, err
		},
		cmp:      tenureCmp(q.Sort),
		keySorts: map[string]bool{"expiry": false, "days": false},
		rollup: func(ctx context.Context) (totals, bool, error) {
			return expiringTotals(ctx, ds, now, to)
		},
		add: func(t *totals, row TenureRow) {
			if row.AreaHa != nil {
				t.microHa += MicroHa(*row.AreaHa)
				t.known++
			}
		},
		rank: RankKey(PKExpiring, ""),
		raw:  newExpiryClock(now).tenureRow(true),
	}
	if q.Kind != "" || q.Type != "" || q.Operator != "" || q.Q != "" {
		l.keep = func(t TenureRow) bool {
			return tenureKind(t, q.Kind) && typeMatch(t, q.Type) &&
				(q.Operator == "" || containsFold(partyName(t.Holder), q.Operator)) &&
				(q.Q == "" || containsFold(t.DispositionNumber, q.Q) || containsFold(partyName(t.Holder), q.Q))
		}
	}
	page, err := l.read(ctx, ds, q.Paging, q.Cursor)
	if err != nil {
		return ExpiringPage{}, err
	}
	return ExpiringPage{Page: page, AreaHa: report.Round(float64(page.totals.microHa)/1e6, 2), AreaKnown: page.totals.known}, nil
}

// expiringTotals are the totals of the unfiltered window from now's day to
// the day to, from the EXPIRING#DAYS roll-up: the tally up to the window's
// last day less the tally up to the day before its first. ok == false
// when no tally covers the window's end (no roll-up, or nothing expires
// by then): the caller counts the range, which then holds nothing or a
// dataset published without roll-ups.
func expiringTotals(ctx context.Context, ds kv.Dataset, now time.Time, to string) (totals, bool, error) {
	upTo := func(day string) (ExpiringDay, bool, error) {
		var d ExpiringDay
		pg, err := ds.Query(ctx, kv.Query{PK: PKExpiringDays, SKTo: day, Reverse: true, Limit: 1})
		if err != nil || len(pg.Items) == 0 {
			return d, false, err
		}
		d, err = decodeJSON[ExpiringDay](pg.Items[0])
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

// Disposition reads one Crown disposition by its id (a PNG number, or
// category-slug:number for minerals), its expiry state on the reporter's
// clock.
func (r *Reporter) Disposition(ctx context.Context, id string) (TenureRow, error) {
	var t TenureRow
	ds, err := Open(ctx, r.store)
	if err != nil {
		return t, err
	}
	it, ok, err := ds.Get(ctx, DispositionKey(id), SKInfo)
	if err != nil {
		return t, err
	}
	if !ok {
		return t, apierr.NotFoundf("no disposition '%s'", id)
	}
	if err := json.Unmarshal(it.Data, &t); err != nil {
		return t, err
	}
	t = WithExpiry(t, r.now())
	if t.LSDs == nil {
		t.LSDs = []string{}
	}
	return t, nil
}

// PipelineLicence is a pipeline licence and its first MaxSegments
// segments.
type PipelineLicence struct {
	LicenceNumber string        `json:"licence_number"`
	Operator      Party         `json:"operator"`
	Rows          []PipelineRow `json:"rows"`
	Meta          struct {
		Total     int  `json:"total"`
		Returned  int  `json:"returned"`
		Truncated bool `json:"truncated"`
	} `json:"meta"`
}

// PipelineLicence reads a pipeline licence in one pass over its segments:
// the first MaxSegments rows, the count, and the operator of most
// segments (first to reach the most).
func (r *Reporter) PipelineLicence(ctx context.Context, licence string) (PipelineLicence, error) {
	var out PipelineLicence
	ds, err := Open(ctx, r.store)
	if err != nil {
		return out, err
	}
	counts := map[string]int{}
	best := ""
	err = ds.Each(ctx, kv.Query{PK: PipelineKey(licence), SKPrefix: SKSegmentPrefix}, func(it kv.Item) error {
		s, err := decodeJSON[PipelineRow](it)
		if err != nil {
			return err
		}
		if out.Meta.Total == 0 {
			out.LicenceNumber = s.LicenceNumber
		}
		out.Meta.Total++
		k := operatorOf(s)
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
		return out, err
	}
	if out.Meta.Total == 0 {
		return out, apierr.NotFoundf("no pipeline licence '%s'", licence)
	}
	out.Meta.Returned = len(out.Rows)
	out.Meta.Truncated = out.Meta.Returned < out.Meta.Total
	return out, nil
}

// operatorOf is the key a licence counts a segment's operator by.
func operatorOf(s PipelineRow) string {
	if s.Operator.BACode != nil {
		return *s.Operator.BACode
	}
	return partyName(s.Operator)
}
