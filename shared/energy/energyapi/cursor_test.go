package energyapi_test

import (
	"cmp"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"meridian/shared/energy"
	"meridian/shared/kv"
)

// walk follows next_cursor from path to the end and returns the ids of
// every row, in order.
func walk(t *testing.T, h http.Handler, path, idField string) []string {
	t.Helper()
	var ids []string
	next := ""
	for pages := 0; ; pages++ {
		p := path
		if next != "" {
			p += "&cursor=" + url.QueryEscape(next)
		}
		b := mustOK(t, h, p)
		for _, row := range at(b, "rows").([]any) {
			ids = append(ids, str(row.(map[string]any)[idField]))
		}
		c := at(b, "meta", "next_cursor")
		if c == nil {
			return ids
		}
		next = str(c)
		if pages > 10_000 {
			t.Fatal("cursor never ends")
		}
	}
}

// TestCursorVisitsEveryRow: following next_cursor visits every row of a
// list once, in the list's order, in both directions, and agrees with page
// numbers.
func TestCursorVisitsEveryRow(t *testing.T) {
	t.Parallel()
	d := newBigData(613, 5)
	h := mux(d.store(t), d.now)
	rows, _, _ := d.window(3650, nil)
	var want []string
	for _, r := range rows {
		want = append(want, r.ID)
	}
	got := walk(t, h, "/energy/tenure/expiring?expires_within_days=3650&per_page=37", "id")
	if diff := slices.Compare(got, want); diff != 0 || len(got) != len(want) {
		t.Errorf("expiring by cursor: %d rows, want %d in expiry order", len(got), len(want))
	}
	slices.Reverse(want)
	if got := walk(t, h, "/energy/tenure/expiring?expires_within_days=3650&per_page=41&dir=desc", "id"); !slices.Equal(got, want) {
		t.Errorf("expiring desc by cursor: %d rows, want %d in reverse expiry order", len(got), len(want))
	}
	// A filter pages by cursor too (it counts the whole partition).
	png, _, _ := d.window(3650, func(t energy.TenureRow) bool { return t.TenureKind == "png" })
	if got := walk(t, h, "/energy/tenure/expiring?expires_within_days=3650&per_page=29&tenure_kind=png", "id"); len(got) != len(png) || got[0] != png[0].ID || got[len(got)-1] != png[len(png)-1].ID {
		t.Errorf("png by cursor: %d rows, want %d", len(got), len(png))
	}

	ops := slices.Clone(d.ops)
	slices.SortFunc(ops, func(a, b energy.OperatorRow) int {
		return cmp.Or(cmp.Compare(b.OrphanWells, a.OrphanWells), cmp.Compare(a.BACode, b.BACode))
	})
	got = walk(t, h, "/energy/operators?per_page=50", "ba_code")
	for i, o := range ops {
		if i >= len(got) || got[i] != o.BACode {
			t.Fatalf("operators by cursor: row %d = %v, want %s (%d rows, want %d)", i, got[min(i, len(got)-1)], o.BACode, len(got), len(ops))
		}
	}
	// Page numbers give the same rows as the cursor.
	for _, page := range []int{1, 2, 7} {
		b := mustOK(t, h, fmt.Sprintf("/energy/operators?per_page=50&page=%d", page))
		rows := at(b, "rows").([]any)
		if len(rows) == 0 || str(rows[0].(map[string]any)["ba_code"]) != got[(page-1)*50] {
			t.Errorf("operators page %d starts with %v, cursor walk row %d is %s", page, rows, (page-1)*50, got[(page-1)*50])
		}
	}

	wells := slices.Clone(d.wells)
	slices.SortFunc(wells, func(a, b energy.WellRow) int { return cmp.Compare(a.UWI, b.UWI) })
	got = walk(t, h, "/energy/operators/"+bigBA+"?view=wells&per_page=200", "uwi")
	if len(got) != len(wells) || got[0] != wells[0].UWI || got[len(got)-1] != wells[len(wells)-1].UWI {
		t.Errorf("wells by cursor: %d rows, want %d", len(got), len(wells))
	}
}

// TestSortedPages: a page of another sort is the page of a full sort of
// the partition (a bounded heap keeps the same rows, ties in key order),
// and past MaxSortedRows rows such a sort is refused with a pointer to the
// cursor.
func TestSortedPages(t *testing.T) {
	t.Parallel()
	d := newBigData(400, 6)
	h := mux(d.store(t), d.now)
	rows, _, _ := d.window(3650, nil)
	slices.SortFunc(rows, func(a, b energy.TenureRow) int { // area desc, missing last; ties by id desc
		ac, bc := -1.0, -1.0
		if a.AreaHa != nil {
			ac = *a.AreaHa
		}
		if b.AreaHa != nil {
			bc = *b.AreaHa
		}
		return cmp.Or(cmp.Compare(bc, ac), cmp.Compare(b.ID, a.ID))
	})
	for _, page := range []int{1, 2, 5} {
		b := mustOK(t, h, fmt.Sprintf("/energy/tenure/expiring?expires_within_days=3650&sort=area&per_page=13&page=%d", page))
		got := at(b, "rows").([]any)
		for i, row := range got {
			if w := rows[(page-1)*13+i].ID; str(row.(map[string]any)["id"]) != w {
				t.Errorf("area page %d row %d = %v, want %s", page, i, row.(map[string]any)["id"], w)
			}
		}
		if at(b, "meta", "next_cursor") != nil {
			t.Errorf("area page %d has a next_cursor", page)
		}
	}
	for path, wantCode := range map[string]int{
		"/energy/tenure/expiring?sort=area&per_page=200&page=50":                       200,
		"/energy/tenure/expiring?sort=area&per_page=200&page=51":                       400,
		"/energy/operators?sort=name&per_page=100&page=101":                            200, // its own partition: key order, any page
		"/energy/operators?per_page=100&page=101":                                      200, // key order: any page
		"/energy/operators/" + bigBA + "?view=wells&sort=licence&per_page=200&page=51": 400,
		"/energy/operators?sort=name&cursor=MXxvcnBoYW58ZGVzYwBa":                      400,
		"/energy/operators?cursor=bm90IGEgY3Vyc29y":                                    400,
		"/energy/operators?cursor=%25%25":                                              400,
		"/energy/operators?page=2&cursor=MXxvcnBoYW58ZGVzYwBa":                         400,
		"/energy/operators?cursor=MXxvcnBoYW58ZGVzYwBa":                                200, // "1|orphan|desc\x00Z"
		"/energy/operators/" + bigBA + "?view=wells&cursor=xx":                         400,
		"/energy/tenure/expiring?sort=expiry&cursor=MXxvcnBoYW58ZA":                    400,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != wantCode {
			t.Errorf("GET %s = %d, want %d: %s", path, rec.Code, wantCode, rec.Body.String())
		}
		if wantCode == 400 && !strings.Contains(rec.Body.String(), "invalid_parameter") {
			t.Errorf("GET %s: %s, want invalid_parameter", path, rec.Body.String())
		}
	}
}

// TestPageNumberEqualsCursor: page N by number is page N reached by
// following next_cursor, for every unfiltered list in key order, in both
// directions and at several N (before, at and across the rank items'
// spacing, and past the end), on a dataset with rank items and on one
// published before them (read and skip): the rank items change what a
// page reads, never what it holds.
func TestPageNumberEqualsCursor(t *testing.T) {
	t.Parallel()
	const n = 1234
	d := newBigData(n, 9)
	withRanks := d.store(t)
	without := kv.NewMem()
	d.publishWith(t, without, false)
	handlers := map[string]http.Handler{"ranks": mux(withRanks, d.now), "no ranks": mux(without, d.now)}
	lists := []struct{ path, id string }{
		{"/energy/operators?", "ba_code"},
		{"/energy/operators?sort=active&", "ba_code"},
		{"/energy/operators?sort=abandoned&", "ba_code"},
		{"/energy/operators?sort=name&", "ba_code"},
		{"/energy/operators?sort=dispositions&", "ba_code"},
		{"/energy/operators/" + bigBA + "?view=wells&", "uwi"},
		{"/energy/operators/" + bigBA + "?view=dispositions&", "id"},
		{"/energy/operators/" + bigBA + "?view=lsds&", "legal_location"},
		{"/energy/tenure/expiring?expires_within_days=3650&", "id"},
		{"/energy/tenure/expiring?expires_within_days=30&", "id"},
	}
	for _, l := range lists {
		for _, dir := range []string{"", "dir=asc&", "dir=desc&"} {
			for _, per := range []int{7, 50, 200} {
				base := fmt.Sprintf("%s%sper_page=%d", l.path, dir, per)
				all := walk(t, handlers["ranks"], base, l.id)
				// Without their partitions, the other sorts of the operators
				// have no cursor (a page of a sort of everything): compare
				// their pages below.
				if old := walk(t, handlers["no ranks"], base, l.id); !strings.Contains(l.path, "sort=") && !slices.Equal(all, old) {
					t.Errorf("%s: the cursor walk differs without rank items (%d rows, %d)", base, len(all), len(old))
				}
				last := (len(all) + per - 1) / per
				for _, page := range []int{2, 3, 14, 15, 16, 29, 30, last - 1, last, last + 1, last + 40} {
					if page < 2 {
						continue
					}
					var want []string
					if from := (page - 1) * per; from < len(all) {
						want = all[from:min(from+per, len(all))]
					}
					for name, h := range handlers {
						b := mustOK(t, h, fmt.Sprintf("%s&page=%d", base, page))
						var got []string
						for _, row := range at(b, "rows").([]any) {
							got = append(got, str(row.(map[string]any)[l.id]))
						}
						if !slices.Equal(got, want) {
							t.Errorf("%s, %s: page %d holds %d rows (%.3v), the cursor's page %d rows (%.3v)", name, base, page, len(got), got, len(want), want)
						}
						if total := at(b, "meta", "total"); total != float64(len(all)) {
							t.Errorf("%s, %s page %d: meta.total %v, want %d", name, base, page, total, len(all))
						}
					}
				}
			}
		}
	}
}
