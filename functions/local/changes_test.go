package main

import (
	"encoding/json"

	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/demo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy"
	"meridian/shared/lld"
)

type changesAnswer struct {
	LegalLocation string          `json:"legal_location"`
	Province      string          `json:"province"`
	Unit          string          `json:"unit"`
	Rows          []energy.Change `json:"rows"`
	Meta          struct {
		Total      *int    `json:"total"`
		NextCursor *string `json:"next_cursor"`
	} `json:"meta"`
}

// The test: the server serves the demo, a second demo version with
// four known differences is ingested while it runs, and GET /energy/changes
// answers exactly those, on every LSD each touches, whatever the area,
// kinds, since and paging asked.
func TestEnergyChangesAfterARefresh(t *testing.T) {
	dir := t.TempDir()
	srv, key := newTestServerIn(t, dir)
	get := func(q url.Values) (int, changesAnswer, string) {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/energy/changes?"+q.Encode(), nil)
		req.Header.Set("X-API-Key", key)
		srv.handler.ServeHTTP(rec, req)
		var a changesAnswer
		if rec.Code == http.StatusOK {
			if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
				t.Fatalf("%s: %v", q.Encode(), err)
			}
		}
		return rec.Code, a, rec.Body.String()
	}
	twp := url.Values{"legal_location": {"24-1-W5"}}
	if code, a, body := get(twp); code != 200 || len(a.Rows) != 0 || a.Meta.Total == nil || *a.Meta.Total != 0 {
		t.Fatalf("before a second version: %d %s, want 200 with no changes", code, body)
	}

	src := t.TempDir()
	if err := energydemo.Write(src); err != nil {
		t.Fatal(err)
	}
	next, err := energydemo.WriteNext(src)
	if err != nil {
		t.Fatal(err)
	}
	r := dataingest.Reports{Domain: energy.Dataset, Dir: src, Invented: true, AsOf: demo.AsOf()}
	if _, err := dataingest.IngestReports(t.Context(), datadir.Dir(dir), r); err != nil {
		t.Fatal(err)
	}
	srv.reloadReports() // what serve's watch does every second
	_, a, _ := get(url.Values{"legal_location": {"24-1-W5"}, "per_page": {"200"}})
	_, b, _ := get(url.Values{"legal_location": {"5-6-W1"}, "per_page": {"200"}})
	all := append(a.Rows, b.Rows...)
	byKind := map[energy.ChangeKind][]energy.Change{}
	for _, c := range all {
		byKind[c.Kind] = append(byKind[c.Kind], c)
		if c.Version != 2 || !c.Demo || c.Source == "" || c.AsOf != demo.AsOf().Format("2006-01-02") {
			t.Errorf("change %s: version %d, demo %v, source %q, as of %s", c.ID, c.Version, c.Demo, c.Source, c.AsOf)
		}
	}
	kinds := slices.Sorted(maps.Keys(byKind))
	if want := []energy.ChangeKind{energy.DispositionExpired, energy.DispositionTransferred, energy.WellLicensed, energy.WellStatusChanged}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds of the changes: %v, want %v", kinds, want)
	}
	if c := byKind[energy.WellStatusChanged]; len(c) != 1 || c[0].EntityID != next.StatusChanged || c[0].LegalLocation != next.StatusChangedLSD || c[0].After["licence_status_raw"] != "Abandoned" {
		t.Errorf("status change: %+v", c)
	}
	if c := byKind[energy.WellLicensed]; len(c) != 1 || c[0].EntityID != next.Licensed || c[0].LegalLocation != next.LicensedLSD || c[0].Before != nil {
		t.Errorf("new licence: %+v", c)
	}
	for _, c := range byKind[energy.DispositionTransferred] {
		if c.EntityID != next.Transferred || c.Before["holder_name"] != next.TransferredFrom || c.After["holder_name"] != next.TransferredTo {
			t.Errorf("transfer: %+v", c)
		}
	}
	for _, c := range byKind[energy.DispositionExpired] {
		if c.EntityID != next.Expired || c.After["status"] != "expired" {
			t.Errorf("expiry: %+v", c)
		}
	}
	if len(byKind[energy.DispositionTransferred]) < 2 || len(byKind[energy.DispositionExpired]) < 2 {
		t.Errorf("the dispositions' changes are on %d and %d LSDs, want every LSD each covers", len(byKind[energy.DispositionTransferred]), len(byKind[energy.DispositionExpired]))
	}

	// Each area answers the changes of the LSDs in it, newest first (one
	// version here: by LSD, kind, entity), and nothing else.
	in := func(c energy.Change, area lld.Location) bool {
		l, err := lld.Parse(c.LegalLocation)
		if err != nil {
			t.Fatal(err)
		}
		same := l.Meridian == area.Meridian && l.Range == area.Range && l.Township == area.Township
		switch area.Unit {
		case lld.Section:
			return same && l.Section == area.Section
		case lld.QuarterSection:
			return same && l.Section == area.Section && lld.QuarterOfLSD(int(l.LSD)) == area.Aliquot
		case lld.LSD:
			return same && l.Section == area.Section && l.LSD == area.LSD
		}
		return same
	}
	status, _ := lld.Parse(next.StatusChangedLSD)
	sec, quarter := status, status
	sec.Unit, sec.LSD = lld.Section, 0
	quarter.Unit, quarter.LSD, quarter.Aliquot = lld.QuarterSection, 0, lld.QuarterOfLSD(int(status.LSD))
	for _, area := range []lld.Location{status, quarter, sec} {
		var want []string
		for _, c := range all {
			if in(c, area) {
				want = append(want, c.ID)
			}
		}
		code, a, body := get(url.Values{"legal_location": {area.String()}})
		var got []string
		for _, c := range a.Rows {
			got = append(got, c.ID)
		}
		if code != 200 || !slices.Equal(got, want) || len(want) == 0 || a.Unit == "" || a.Province != "AB" {
			t.Errorf("%s: %d %v, want %v (%.200s)", area, code, got, want, body)
		}
	}

	// kinds, since and paging.
	if _, a, _ := get(url.Values{"legal_location": {"24-1-W5"}, "kinds": {"well"}}); len(a.Rows) != 2 {
		t.Errorf("kinds=well: %d rows, want the status change and the licence", len(a.Rows))
	}
	if _, a, _ := get(url.Values{"legal_location": {"24-1-W5"}, "kinds": {"well_licensed,disposition_expired"}}); len(a.Rows) != 1 || a.Rows[0].Kind != energy.WellLicensed {
		t.Errorf("kinds=well_licensed,disposition_expired in 24-1-W5: %+v", a.Rows)
	}
	future := demo.AsOf().AddDate(0, 0, 1).Format("2006-01-02")
	if _, a, _ := get(url.Values{"legal_location": {"24-1-W5"}, "since": {future}}); len(a.Rows) != 0 {
		t.Errorf("since %s: %d rows, want none", future, len(a.Rows))
	}
	if _, a, _ := get(url.Values{"legal_location": {"24-1-W5"}, "since": {demo.AsOf().Format("2006-01-02")}}); len(a.Rows) == 0 {
		t.Error("since the version's own as-of date: no rows")
	}
	_, whole, _ := get(url.Values{"legal_location": {"24-1-W5"}, "per_page": {"200"}})
	var walked []string
	cursor := ""
	for i := 0; ; i++ {
		q := url.Values{"legal_location": {"24-1-W5"}, "per_page": {"5"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		} else if i > 0 {
			t.Fatal("a page ended without a cursor before the end")
		}
		code, a, body := get(q)
		if code != 200 {
			t.Fatalf("page %d: %d %s", i+1, code, body)
		}
		for _, c := range a.Rows {
			walked = append(walked, c.ID)
		}
		if i == 1 { // page=2 answers what the cursor's second page does
			_, p2, _ := get(url.Values{"legal_location": {"24-1-W5"}, "per_page": {"5"}, "page": {"2"}})
			if len(p2.Rows) != len(a.Rows) || p2.Rows[0].ID != a.Rows[0].ID {
				t.Errorf("page=2 starts at %v, the cursor's second page at %s", p2.Rows, a.Rows[0].ID)
			}
		}
		if a.Meta.NextCursor == nil {
			break
		}
		cursor = *a.Meta.NextCursor
	}
	var wholeIDs []string
	for _, c := range whole.Rows {
		wholeIDs = append(wholeIDs, c.ID)
	}
	if !slices.Equal(walked, wholeIDs) || whole.Meta.Total == nil || *whole.Meta.Total != len(wholeIDs) {
		t.Errorf("pages of 5 by cursor: %d rows %v\nwant the one page of 200: %v (total %v)", len(walked), walked, wholeIDs, whole.Meta.Total)
	}

	// Bad input: the documented codes.
	for q, want := range map[string]string{
		"":                                       "invalid_parameter",
		"legal_location=A-2-F/93-P-8":            "bc_not_supported",
		"legal_location=Lot 10 Con 1 Adjala":     "invalid_legal_location",
		"legal_location=N-25-24-1-W5":            "invalid_legal_location",
		"legal_location=nowhere":                 "invalid_legal_location",
		"legal_location=24-1-W5&kinds=volcano":   "invalid_parameter",
		"legal_location=24-1-W5&since=2026-13-1": "invalid_parameter",
		"legal_location=24-1-W5&cursor=garbage":  "invalid_parameter",
		"legal_location=24-1-W5&per_page=201":    "invalid_parameter",
	} {
		vals, _ := url.ParseQuery(q)
		code, _, body := get(vals)
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		json.Unmarshal([]byte(body), &e)
		if code != 400 || e.Error.Code != want {
			t.Errorf("%s: %d %s, want 400 %s", q, code, body, want)
		}
	}
}
