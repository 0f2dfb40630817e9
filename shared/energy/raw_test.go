package energy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
)

// encodeRow is a row as api.WriteJSON writes it inside a response.
func encodeRow(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// checkRaw asserts that raw passes the item through as the decoded row
// would be written, or declines it (then want says whether it should
// not have).
func checkRaw[T any](t *testing.T, raw energy.RawRow, it kv.Item, fix func(T) T, mustPass bool) bool {
	t.Helper()
	row, err := energy.DecodeJSON[T](it)
	if err != nil {
		t.Fatal(err)
	}
	want := encodeRow(t, fix(row))
	scratch := []byte("prefix")
	before := [][]byte{[]byte("before")}
	parts, ok := raw(before, &scratch, it)
	got := bytes.Join(parts[min(1, len(parts)):], nil)
	if len(parts) == 0 || string(parts[0]) != "before" {
		t.Fatalf("%s %s: the parts before were lost: %q", it.PK, it.SK, parts)
	}
	if !ok {
		if len(parts) != 1 {
			t.Errorf("%s %s: declined with parts added: %q", it.PK, it.SK, parts)
		}
		if mustPass {
			t.Errorf("%s %s: not passed through: %s", it.PK, it.SK, it.Data)
		}
		return false
	}
	if !bytes.HasPrefix(scratch, []byte("prefix")) || !bytes.Equal(got, want) {
		t.Errorf("%s %s:\n got %s\nwant %s (scratch %q)", it.PK, it.SK, got, want, scratch)
	}
	return true
}

// TestRawRowsAsDecoded: every stored row the lists pass through is the
// bytes the decoded row gives, on days around every expiry date of the
// demo (the day before, of, after, and the ends of the "expiring soon"
// window).
func TestRawRowsAsDecoded(t *testing.T) {
	ctx := context.Background()
	ds, err := energy.Open(ctx, energytest.DemoStore(t))
	if err != nil {
		t.Fatal(err)
	}
	items := func(q kv.Query) []kv.Item {
		var out []kv.Item
		if err := ds.Each(ctx, q, func(it kv.Item) error { out = append(out, it); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	same := func(r energy.OperatorRow) energy.OperatorRow { return r }
	passed := 0
	var bas []string
	for _, sort := range energy.OperatorSorts {
		for _, it := range items(kv.Query{PK: energy.OperatorsKey(sort)}) {
			if checkRaw(t, energy.StoredRow, it, same, true) {
				passed++
			}
			if sort == "orphan" {
				row, _ := energy.DecodeJSON[energy.OperatorRow](it)
				bas = append(bas, row.BACode)
			}
		}
	}
	var disps []kv.Item
	lsds := map[string]bool{}
	for _, ba := range bas {
		pk := energy.OperatorKey(ba)
		for _, it := range items(kv.Query{PK: pk, SKPrefix: energy.SKWellPrefix}) {
			checkRaw(t, energy.StoredRow, it, func(r energy.WellRow) energy.WellRow { return r }, true)
			passed++
			row, _ := energy.DecodeJSON[energy.WellRow](it)
			lsds[row.LSD] = true
		}
		for _, it := range items(kv.Query{PK: pk, SKPrefix: energy.SKFootprintPrefix}) {
			checkRaw(t, energy.StoredRow, it, func(r energy.FootprintRow) energy.FootprintRow { return r }, true)
			passed++
		}
		disps = append(disps, items(kv.Query{PK: pk, SKPrefix: energy.SKDispositionPrefix})...)
	}
	// The report's rows of an LSD: wells without what the operator views
	// keep (lsd, status_date), pipelines and facilities as stored.
	reported := 0
	for lsd := range lsds {
		pk := energy.LSDKey(lsd)
		for _, it := range items(kv.Query{PK: pk, SKPrefix: energy.SKWellPrefix}) {
			checkRaw(t, energy.ReportWellRow, it, func(r energy.WellRow) energy.WellRow { r.LSD, r.StatusDate = "", ""; return r }, true)
			reported++
		}
		for _, it := range items(kv.Query{PK: pk, SKPrefix: energy.SKPipePrefix}) {
			checkRaw(t, energy.StoredRow, it, func(r energy.PipelineRow) energy.PipelineRow { return r }, true)
			reported++
		}
		for _, it := range items(kv.Query{PK: pk, SKPrefix: energy.SKFacilityPrefix}) {
			checkRaw(t, energy.StoredRow, it, func(r energy.FacilityRow) energy.FacilityRow { return r }, true)
			reported++
		}
	}
	if reported < 100 {
		t.Fatalf("%d report rows of %d LSDs", reported, len(lsds))
	}
	passed += reported
	expiring := items(kv.Query{PK: energy.PKExpiring})
	if len(bas) == 0 || len(disps) == 0 || len(expiring) == 0 {
		t.Fatalf("demo: %d operators, %d dispositions, %d expiring", len(bas), len(disps), len(expiring))
	}
	days := []time.Time{demodata.AsOf(), demodata.AsOf().In(time.FixedZone("MST", -7*3600)).Add(-time.Hour)}
	for _, it := range expiring {
		row, _ := energy.DecodeJSON[energy.TenureRow](it)
		exp, _ := time.Parse("2006-01-02", *row.ExpiryDate)
		days = append(days, exp, exp.AddDate(0, 0, -1), exp.AddDate(0, 0, 1), exp.AddDate(0, -energy.ExpiringWindowMonths, 0),
			exp.AddDate(0, -energy.ExpiringWindowMonths, -1), exp.AddDate(0, -energy.ExpiringWindowMonths, 1))
	}
	// The order of the report's tenure rows, read from their stored bytes,
	// is ByUrgency's on their decoded rows, every day.
	sample := append(slices.Clone(disps[:min(len(disps), 120)]), expiring[:min(len(expiring), 60)]...)
	for _, now := range days {
		rows := make([]energy.TenureRow, len(sample))
		for i, it := range sample {
			row, _ := energy.DecodeJSON[energy.TenureRow](it)
			rows[i] = energy.WithExpiry(row, now)
		}
		for i := range sample {
			for j := range sample {
				got, ok := energy.UrgencyCompare(now, sample[i].Data, sample[j].Data)
				if want := energy.ByUrgency(rows[i], rows[j]); !ok || sign(got) != sign(want) {
					t.Fatalf("%s: %s against %s: %d (ok %v), ByUrgency %d", now.Format("2006-01-02"), rows[i].ID, rows[j].ID, got, ok, want)
				}
			}
		}
	}
	for _, now := range days {
		c := energy.NewExpiryClock(now)
		for _, it := range disps {
			checkRaw(t, c.TenureRow(false), it, func(r energy.TenureRow) energy.TenureRow { return energy.WithExpiry(r, now) }, true)
			passed++
		}
		for _, it := range expiring {
			checkRaw(t, c.TenureRow(true), it, func(r energy.TenureRow) energy.TenureRow {
				r = energy.WithExpiry(r, now)
				r.LSDCoveragePct = nil
				return r
			}, true)
			passed++
		}
	}
	t.Logf("%d rows passed through as decoded, %d days", passed, len(days))
}

// TestRawRowsDeclined: rows whose response differs from their stored JSON
// in more than the recomputed fields are decoded, and the rows the fast
// path computes itself agree with energy.Expiry on awkward dates.
func TestRawRowsDeclined(t *testing.T) {
	name := "Smith & Sons <Oil>"
	op := energy.OperatorRow{BACode: "A1B2", Name: name, Slug: energy.Slug(name)}
	escapedJSON, _ := json.Marshal(op) // HTML-escaped, as every Put wrote before
	if !bytes.Contains(escapedJSON, []byte(`\u0026`)) {
		t.Fatalf("json.Marshal no longer escapes &: %s", escapedJSON)
	}
	if _, ok := energy.StoredRow(nil, nil, kv.Item{Data: escapedJSON}); ok {
		t.Errorf("an HTML-escaped row was passed through: %s", escapedJSON)
	}
	plain := encodeRow(t, op)
	if got, ok := energy.StoredRow(nil, nil, kv.Item{Data: plain}); !ok || len(got) != 1 || !bytes.Equal(got[0], plain) {
		t.Errorf("an unescaped row: %s %v", got, ok)
	}

	// A well row whose lsd or status_date is not a plain string.
	for _, data := range []string{
		`{"id":"W","lsd":"1-2-3-4-W5\"x","status_date":"2020-01-01"}`,
		`{"id":"W","lsd":"1-2-3-4-W5","status_date":"2020\u002d01-01"}`,
		`{"id":"W","lsd":7}`,
	} {
		if got, ok := energy.ReportWellRow(nil, nil, kv.Item{Data: []byte(data)}); ok {
			t.Errorf("well row %s passed through as %q", data, got)
		}
	}

	now := time.Date(2024, 2, 29, 15, 0, 0, 0, time.UTC)
	c := energy.NewExpiryClock(now)
	area, cov := 12.5, 40.0
	for _, tc := range []struct {
		expiry   string // "" = none
		state    energy.ExpiryState
		coverage bool
		pass     bool
	}{
		{"2024-02-29", "", false, true},
		{"2024-02-28", "", false, true},
		{"2026-02-28", "", false, true},
		{"2026-03-01", "", false, true}, // 2024-02-29 + 24 months
		{"2026-03-02", "", false, true},
		{"1900-03-01", "", false, true},
		{"2200-01-01", "", false, true},
		{"", "", false, true},
		{"", energy.Perpetual, false, true},
		{"2030-01-01", energy.Perpetual, false, true},
		{"2030-01-01", energy.Current, true, false}, // coverage sent by the parcel lists only
		{"2025-02-29", "", false, false},            // not a date: time.Parse fails, the state is unknown
		{"2024-13-01", "", false, false},
		{"24-01-01", "", false, false},
		{"9999-12-31", "", false, false}, // past what a time.Duration holds
		{"0001-01-01", "", false, false},
	} {
		row := energy.TenureRow{ID: "X", Holder: energy.NewParty("", "H"), AreaHa: &area, ExpiryState: tc.state, DaysToExpiry: new(int)}
		if tc.expiry != "" {
			row.ExpiryDate = &tc.expiry
		}
		if tc.coverage {
			row.LSDCoveragePct = &cov
		}
		it := kv.Item{PK: "P", SK: tc.expiry, Data: encodeRow(t, row)}
		t.Run(fmt.Sprintf("%s-%s", tc.expiry, tc.state), func(t *testing.T) {
			passed := checkRaw(t, c.TenureRow(true), it, func(r energy.TenureRow) energy.TenureRow {
				r = energy.WithExpiry(r, now)
				r.LSDCoveragePct = nil
				return r
			}, tc.pass)
			if passed != tc.pass {
				t.Errorf("passed through: %v, want %v", passed, tc.pass)
			}
		})
	}
}

func sign(n int) int { return min(max(n, -1), 1) }

func TestDayNumber(t *testing.T) {
	for d := time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2500; d = d.AddDate(0, 0, 13) {
		y, m, dd := d.Date()
		if got, want := energy.DayNumber(y, int(m), dd), int(d.Unix()/86400); got != want {
			t.Fatalf("%s: %d, want %d", d.Format("2006-01-02"), got, want)
		}
	}
}
