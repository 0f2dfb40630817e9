package energyapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/energy/energyapi"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
)

// TestListReadCounts: an unfiltered page in key order reads its page, one
// item more and the roll-ups, and page N also one rank item and fewer
// than energy.RankEvery rows before the page (not the N-1 pages before
// it); a filtered or otherwise sorted one reads its partition, not more.
func TestListReadCounts(t *testing.T) {
	t.Parallel()
	const n, per = 3000, 50
	d := newBigData(n, 1)
	store := &meteredStore{Store: d.store(t)}
	h := mux(store, d.now)
	for _, c := range listCases {
		body, items, _ := store.request(t, h, pagePath(c.path, per), false)
		const overhead = 3 // pointer, INFO or COUNTS, the second EXPIRING#DAYS item
		switch {
		case c.keyed:
			want := int64(per + 1 + overhead)
			if strings.Contains(c.path, "page=3") {
				want += 1 + energy.RankEvery - 1
			}
			if items > want {
				t.Errorf("%s: read %d items, want at most %d (page, one more, roll-ups, the rank item and the rows after it)", c.name, items, want)
			}
			if at(body, "meta", "next_cursor") == nil {
				t.Errorf("%s: no next_cursor on a key-order page of %d rows", c.name, n)
			}
		default:
			if items > n+overhead+10 { // the summary reads its 10 first footprint rows too
				t.Errorf("%s: read %d items of a partition of %d", c.name, items, n)
			}
			if c.other && at(body, "meta", "next_cursor") != nil {
				t.Errorf("%s: next_cursor %v on a page that is not in key order", c.name, at(body, "meta", "next_cursor"))
			}
		}
		t.Logf("%-32s %6d items read of %d", c.name, items, n)
	}
	// An operator's dispositions in a window read the window's keys (a
	// day of margin each side), not the partition, and count exactly the
	// dispositions due in 0 to 365 days.
	inWindow, inRange := 0, 0
	for _, ds := range d.disps {
		if ds.ExpiryDate == nil {
			continue
		}
		exp, _ := time.Parse("2006-01-02", *ds.ExpiryDate)
		days := int(exp.Sub(d.now.Truncate(24*time.Hour)).Hours() / 24)
		if days >= 0 && days <= 365 {
			inWindow++
		}
		if days >= -1 && days <= 366 {
			inRange++
		}
	}
	body, items, _ := store.request(t, h, pagePath("/energy/operators/"+bigBA+"?view=dispositions&expires_within_days=365", per), false)
	if total := at(body, "meta", "total"); total != float64(inWindow) {
		t.Errorf("operator dispositions in 365 days: meta.total %v, want %d", total, inWindow)
	}
	if items > int64(inRange)+3 {
		t.Errorf("operator dispositions in 365 days read %d items, want at most the %d in the window's key range and the roll-ups", items, inRange)
	}
	t.Logf("operator dispositions in 365 days: %d items read for %d rows in the window of a partition of %d", items, inWindow, n)
	// A cursor page reads as little as the first page.
	body, _, _ = store.request(t, h, pagePath("/energy/operators/"+bigBA+"?view=wells", per), false)
	next := str(at(body, "meta", "next_cursor"))
	_, items, _ = store.request(t, h, pagePath("/energy/operators/"+bigBA+"?view=wells&cursor="+url.QueryEscape(next), per), false)
	if items > per+1+3 {
		t.Errorf("cursor page read %d items, want at most %d", items, per+4)
	}
}

// TestPagingFigures prints items read and heap per request at 100,000 rows
// per partition (MERIDIAN_PAGING_FIGURES=1; slow).
func TestPagingFigures(t *testing.T) {
	if os.Getenv("MERIDIAN_PAGING_FIGURES") == "" {
		t.Skip("MERIDIAN_PAGING_FIGURES=1 prints the figures at 100,000 rows")
	}
	const n = 100_000
	d := newBigData(n, 3)
	store := &meteredStore{Store: d.store(t), every: 10} // a GC of the 100,000-row store per read would take minutes
	h := mux(store, d.now)
	for _, c := range listCases {
		start := time.Now()
		_, items, _ := store.request(t, h, pagePath(c.path, 50), false)
		el := time.Since(start)
		_, _, peak := store.request(t, h, pagePath(c.path, 50), true)
		t.Logf("FIGURE %-32s items %7d  peak heap %7d KiB  time %v", c.name, items, peak>>10, el.Round(time.Microsecond))
	}
}

// TestListTotalsProperty: meta.total and the area sums of every list equal
// a count over the rows, filtered or not, for random data, windows and
// days; an unfiltered list takes them from the roll-ups, a filtered one
// counts them while reading.
func TestListTotalsProperty(t *testing.T) {
	t.Parallel()
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 99))
		d := newBigData(50+r.IntN(700), seed+10)
		store := d.store(t)
		start := d.now
		var h http.Handler
		for i := range 12 {
			// The clock moves, the data stays; every other window starts on
			// a day a disposition expires and ends on another's expiry.
			d.now = start.AddDate(0, 0, r.IntN(800)-400)
			days := 1 + r.IntN(energyapi.MaxWindowDays)
			if a, b := d.disps[r.IntN(len(d.disps))].ExpiryDate, d.disps[r.IntN(len(d.disps))].ExpiryDate; i%2 == 1 && a != nil && b != nil {
				from, _ := time.Parse("2006-01-02", *a)
				to, _ := time.Parse("2006-01-02", *b)
				if n := int(to.Sub(from).Hours() / 24); n >= 1 && n <= energyapi.MaxWindowDays {
					d.now, days = from.Add(13*time.Hour), n
				}
			}
			h = mux(store, d.now)
			holder := []string{"", "alpha", "GAMMA"}[r.IntN(3)]
			kind := []string{"", "png", "mineral"}[r.IntN(3)]
			path := fmt.Sprintf("/energy/tenure/expiring?expires_within_days=%d&per_page=1", days)
			if holder != "" {
				path += "&operator=" + holder
			}
			if kind != "" {
				path += "&tenure_kind=" + kind
			}
			rows, known, area := d.window(days, func(t energy.TenureRow) bool {
				return (kind == "" || t.TenureKind == kind) && strings.Contains(strings.ToLower(*t.Holder.Name), strings.ToLower(holder))
			})
			b := mustOK(t, h, path)
			got := fmt.Sprint(at(b, "meta", "total"), at(b, "meta", "area_ha_known_count"), at(b, "meta", "area_ha_unknown_count"), at(b, "meta", "total_area_ha"))
			want := fmt.Sprint(float64(len(rows)), float64(known), float64(len(rows)-known), math.Round(float64(area)/1e4)/100)
			if got != want {
				t.Errorf("seed %d %s: total, known, unknown, area = %s, want %s", seed, path, got, want)
			}
		}
		status := []string{"", "orphan", "active"}[r.IntN(3)]
		wantWells := 0
		for _, w := range d.wells {
			if status == "" || string(w.Status) == status {
				wantWells++
			}
		}
		b := mustOK(t, h, "/energy/operators/"+bigBA+"?view=wells&status="+status)
		if at(b, "meta", "total") != float64(wantWells) {
			t.Errorf("seed %d wells status=%q: total %v, want %d", seed, status, at(b, "meta", "total"), wantWells)
		}
		for path, want := range map[string]int{
			"/energy/operators": len(d.ops),
			"/energy/operators/" + bigBA + "?view=dispositions": len(d.disps),
			"/energy/operators/" + bigBA + "?view=lsds":         len(d.lsds),
		} {
			if b := mustOK(t, h, path); at(b, "meta", "total") != float64(want) {
				t.Errorf("seed %d %s: total %v, want %d", seed, path, at(b, "meta", "total"), want)
			}
		}
	}
}

// TestListRollupsDemo: the roll-ups the ingest writes agree with the rows
// they count: the operators' INFO counts with their partitions, COUNTS
// with the operators list, the EXPIRING#DAYS tally with the EXPIRING
// partition for every window.
func TestListRollupsDemo(t *testing.T) {
	t.Parallel()
	store := demo(t)
	ctx := context.Background()
	ds, ok, err := kv.Open(ctx, store, energy.Dataset)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	all := func(q kv.Query) []kv.Item {
		var out []kv.Item
		for {
			p, err := ds.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.Items...)
			if p.Next == "" {
				return out
			}
			q.After = p.Next
		}
	}
	ops := all(kv.Query{PK: energy.PKOperators})
	c, ok, err := ds.Get(ctx, energy.PKCounts, energy.PKOperators)
	if err != nil || !ok || string(c.Data) != fmt.Sprintf(`{"total":%d}`, len(ops)) {
		t.Errorf("COUNTS/OPERATORS = %s %v %v, want total %d", c.Data, ok, err, len(ops))
	}
	for _, it := range ops {
		var row energy.OperatorRow
		if err := json.Unmarshal(it.Data, &row); err != nil {
			t.Fatal(err)
		}
		infoItem, _, _ := ds.Get(ctx, energy.OperatorKey(row.BACode), energy.SKInfo)
		var info energy.OperatorInfo
		if err := json.Unmarshal(infoItem.Data, &info); err != nil {
			t.Fatal(err)
		}
		pk := energy.OperatorKey(row.BACode)
		wells, disps, lsds := len(all(kv.Query{PK: pk, SKPrefix: "WELL#"})), len(all(kv.Query{PK: pk, SKPrefix: "DISP#"})), len(all(kv.Query{PK: pk, SKPrefix: "LSD#"}))
		if info.Liability.Total != wells || info.PNG+info.Mineral != disps || info.Footprint != lsds {
			t.Errorf("%s: INFO counts wells %d, dispositions %d, lsds %d; partition %d, %d, %d",
				row.BACode, info.Liability.Total, info.PNG+info.Mineral, info.Footprint, wells, disps, lsds)
		}
	}
	// Every ranked list has a rank item for each RankEvery-th row naming
	// that row's sort key, and no other; each operators partition holds
	// every operator once.
	ranked := [][2]string{{energy.PKExpiring, ""}}
	for _, sort := range energy.OperatorSorts {
		ranked = append(ranked, [2]string{energy.OperatorsKey(sort), ""})
		if n := len(all(kv.Query{PK: energy.OperatorsKey(sort)})); n != len(ops) {
			t.Errorf("operators by %s: %d rows, want %d", sort, n, len(ops))
		}
	}
	for _, it := range ops[:min(5, len(ops))] {
		var row energy.OperatorRow
		json.Unmarshal(it.Data, &row)
		for _, prefix := range []string{energy.SKWellPrefix, energy.SKDispositionPrefix, energy.SKFootprintPrefix} {
			ranked = append(ranked, [2]string{energy.OperatorKey(row.BACode), prefix})
		}
	}
	for _, l := range ranked {
		rows := all(kv.Query{PK: l[0], SKPrefix: l[1]})
		var want []string
		for i := 0; i < len(rows); i += energy.RankEvery {
			want = append(want, energy.RankSK(i)+"="+rows[i].SK)
		}
		var got []string
		for _, it := range all(kv.Query{PK: energy.RankKey(l[0], l[1])}) {
			var r energy.RankItem
			json.Unmarshal(it.Data, &r)
			got = append(got, it.SK+"="+r.SK)
		}
		if !slices.Equal(got, want) {
			t.Errorf("rank items of %s %s: %.3v, want %.3v (%d rows)", l[0], l[1], got, want, len(rows))
		}
	}
	// Every window of the demo: roll-up (unfiltered) against a filter that
	// keeps every row (counted while reading).
	for _, offset := range []int{-3000, -400, 0, 200, 1300, 4000} {
		h := mux(store, demodata.AsOf().AddDate(0, 0, offset))
		for _, days := range []int{1, 30, 365, 1000, 3650} {
			a := mustOK(t, h, fmt.Sprintf("/energy/tenure/expiring?expires_within_days=%d", days))
			b := mustOK(t, h, fmt.Sprintf("/energy/tenure/expiring?expires_within_days=%d&tenure_kind=all&q=", days))
			for _, k := range []string{"total", "total_area_ha", "area_ha_known_count", "area_ha_unknown_count"} {
				if at(a, "meta", k) != at(b, "meta", k) {
					t.Errorf("offset %d window %d: roll-up %s = %v, counted %v", offset, days, k, at(a, "meta", k), at(b, "meta", k))
				}
			}
		}
	}
}

// TestListsOnStores: on bbolt and on the DynamoDB emulator (minidyn,
// through the SDK), the lists answer exactly what they answer in memory,
// cursor walks included, and an unfiltered page reads its page, one item
// more and the roll-ups: the store's own paging (bbolt cursor seek,
// DynamoDB Limit and ExclusiveStartKey) serves it.
func TestListsOnStores(t *testing.T) {
	t.Parallel()
	d := newBigData(700, 8)
	mem := mux(d.store(t), d.now)
	bolt, err := kv.OpenBolt(filepath.Join(t.TempDir(), "reports.db"), kv.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bolt.Close() })
	client, _ := dynamokvtest.Minidyn(t, "reports")
	for name, store := range map[string]kv.Store{"bolt": bolt, "dynamo": dynamokv.New(client, "reports", dynamokv.Options{})} {
		d.publish(t, store)
		m := &meteredStore{Store: store}
		h := mux(m, d.now)
		for _, c := range listCases {
			for _, path := range []string{pagePath(c.path, 50), pagePath(c.path, 7) + "&page=4", pagePath(c.path, 7) + "&page=40"} { // page 40: past rank items 100 and 200
				want, _ := json.Marshal(mustOK(t, mem, path))
				b, items, _ := m.request(t, h, path, false)
				got, _ := json.Marshal(b)
				if string(got) != string(want) {
					t.Errorf("%s %s: answer differs from memory's:\n got %.300s\nwant %.300s", name, path, got, want)
				}
				if c.keyed && !strings.Contains(path, "page=") && items > 54 {
					t.Errorf("%s %s: read %d items, want at most 54", name, path, items)
				}
			}
		}
		for path, id := range map[string]string{"/energy/tenure/expiring?expires_within_days=3650&per_page=61&dir=desc": "id",
			"/energy/operators?per_page=97": "ba_code", "/energy/operators/" + bigBA + "?view=wells&per_page=200&status=active": "uwi"} {
			if got, want := walk(t, h, path, id), walk(t, mem, path, id); !slices.Equal(got, want) || len(got) < 100 {
				t.Errorf("%s: cursor walk of %s: %d rows, memory's %d", name, path, len(got), len(want))
			}
		}
	}
}

// TestDeepPageRoundTrips: page 20 of every ranked list costs what page 1
// costs plus one store round trip (the rank item), whatever its depth,
// and reads fewer than energy.RankEvery rows besides its own.
func TestDeepPageRoundTrips(t *testing.T) {
	t.Parallel()
	d := newBigData(6000, 3)
	store := &meteredStore{Store: d.store(t)}
	h := mux(store, d.now)
	for _, path := range []string{
		"/energy/operators?per_page=200",
		"/energy/operators?sort=name&per_page=200",
		"/energy/operators?sort=active&dir=asc&per_page=200",
		"/energy/operators/" + bigBA + "?view=wells&per_page=200",
		"/energy/operators/" + bigBA + "?view=dispositions&dir=desc&per_page=200",
		"/energy/operators/" + bigBA + "?view=lsds&per_page=200",
		"/energy/tenure/expiring?expires_within_days=3650&per_page=200",
		"/energy/tenure/expiring?expires_within_days=3650&dir=desc&per_page=200",
	} {
		store.reads.Store(0)
		_, items1, _ := store.request(t, h, path, false)
		reads1 := store.reads.Swap(0)
		b, items20, _ := store.request(t, h, path+"&page=20", false)
		reads20 := store.reads.Load()
		if rows := len(at(b, "rows").([]any)); rows != 200 {
			t.Errorf("%s page 20: %d rows, want 200", path, rows)
		}
		if reads20 != reads1+1 {
			t.Errorf("%s: page 20 made %d store reads, page 1 %d: want one more (the rank item)", path, reads20, reads1)
		}
		if items20 > items1+energy.RankEvery {
			t.Errorf("%s: page 20 read %d items, page 1 %d: want fewer than %d more", path, items20, items1, energy.RankEvery)
		}
		t.Logf("%-75s page 1: %d reads, %d items; page 20: %d reads, %d items", path, reads1, items1, reads20, items20)
	}
}
