package energyapi_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/energy/energyapi"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/kv/dynamokv/dynamokvtest"
)

const bigBA = "Z9BIG"

// bigData is a synthetic energy dataset with n rows in each big partition:
// one operator's wells, dispositions and footprint, the operators list and
// the expiring partition. It keeps the rows to compute the answers by
// brute force.
type bigData struct {
	now   time.Time
	wells []energy.WellRow
	disps []energy.TenureRow
	lsds  []energy.FootprintRow
	ops   []energy.OperatorRow
}

var holders = []string{"Alpha Energy (demo)", "beta oil (demo)", "Gamma Gas (demo)", "Delta Resources (demo)"}

func ptr[T any](v T) *T { return &v }

func newBigData(n int, seed uint64) bigData {
	r := rand.New(rand.NewPCG(seed, 17))
	d := bigData{now: demodata.AsOf().UTC()}
	buckets := []energy.Bucket{energy.Active, energy.Suspended, energy.Abandoned, energy.Orphan, energy.ReclamationCertified}
	for i := range n {
		uwi := fmt.Sprintf("1%02d/%02d-%02d-%03d-%02dW4/0", r.IntN(100), 1+r.IntN(16), 1+r.IntN(36), 1+r.IntN(126), 1+r.IntN(30))
		uwi += fmt.Sprint(i) // unique
		d.wells = append(d.wells, energy.WellRow{ID: uwi, UWI: uwi, WellName: "DEMO WELL " + fmt.Sprint(i), LicenceNumber: fmt.Sprintf("%07d", r.IntN(1e7)),
			Status: buckets[r.IntN(len(buckets))], Operator: energy.NewParty(bigBA, holders[0]), TotalDepthM: float64(r.IntN(40000)) / 10,
			LSD: fmt.Sprintf("%d-%d-%d-%d-W4", 1+r.IntN(16), 1+r.IntN(36), 1+r.IntN(126), 1+r.IntN(30))})
		id := fmt.Sprintf("05%08d", r.IntN(1e8)) + fmt.Sprintf("-%d", i)
		t := energy.TenureRow{ID: id, Href: "/energy/dispositions/" + id, TenureKind: []string{"png", "mineral"}[r.IntN(2)], Province: "AB",
			DispositionNumber: id, DispositionType: []string{"lease", "licence", "permit"}[r.IntN(3)], Holder: energy.NewParty("", holders[r.IntN(len(holders))]),
			Status: []string{"active", "cancelled"}[r.IntN(2)], IsTransferPending: r.IntN(10) == 0}
		t.DispositionTypeRaw = strings.ToUpper(t.DispositionType)
		if r.IntN(10) > 0 {
			t.ExpiryDate = ptr(d.now.AddDate(0, 0, r.IntN(4400)-400).Format("2006-01-02"))
		}
		if r.IntN(10) > 0 {
			t.AreaHa = ptr(float64(r.IntN(1_000_000)) / 1e4) // four decimals, as published
		}
		d.disps = append(d.disps, t)
		d.lsds = append(d.lsds, energy.FootprintRow{LegalLocation: fmt.Sprintf("%d-%d-%d-%d-W4", 1+i%16, 1+(i/16)%36, 1+(i/576)%126, 1+(i/72576)%30),
			Province: "AB", TotalWells: r.IntN(50), ActiveWells: r.IntN(20), OrphanWells: r.IntN(5)})
		d.ops = append(d.ops, energy.OperatorRow{BACode: fmt.Sprintf("Z9%05d", i), Name: fmt.Sprintf("%s %d", holders[r.IntN(len(holders))], i),
			OrphanWells: r.IntN(30), ActiveWells: r.IntN(300), DispositionsCount: r.IntN(100)})
	}
	return d
}

// store publishes d the way the ingest does: rows under their access
// patterns' keys and the roll-ups of package energy, rank items included.
func (d bigData) store(t testing.TB) *kv.Mem {
	t.Helper()
	store := kv.NewMem()
	d.publish(t, store)
	return store
}

func (d bigData) publish(t testing.TB, store kv.Store) {
	t.Helper()
	d.publishWith(t, store, true)
}

// publishWith publishes d, without the rank items and the operators' sort
// partitions when ranks is false (a dataset published before they
// existed).
func (d bigData) publishWith(t testing.TB, store kv.Store, ranks bool) {
	t.Helper()
	rk := energy.NewRanks(context.Background(), 0)
	defer rk.Close()
	_, err := kv.Publish(context.Background(), store, kv.DatasetInfo{Name: energy.Dataset}, func(w *kv.Writer) error {
		pk := energy.OperatorKey(bigBA)
		put := func(pk, prefix, sk string, row any) error {
			if err := w.Put(pk, sk, row); err != nil {
				return err
			}
			return rk.Add(pk, prefix, sk)
		}
		info := energy.OperatorInfo{OperatorRow: energy.OperatorRow{BACode: bigBA, Name: holders[0], Slug: energy.Slug(holders[0])}, Footprint: len(d.lsds)}
		for _, wl := range d.wells {
			info.Liability.Count(wl.Status)
			if err := put(pk, energy.SKWellPrefix, energy.OperatorWellSK(wl.UWI), wl); err != nil {
				return err
			}
		}
		var tally energy.ExpiringTally
		for _, t := range d.disps {
			if t.TenureKind == "png" {
				info.PNG++
			} else {
				info.Mineral++
			}
			exp := ""
			if t.ExpiryDate != nil {
				exp = *t.ExpiryDate
				if err := put(energy.PKExpiring, "", exp+"#"+t.ID, t); err != nil {
					return err
				}
				tally.Add(exp, t.AreaHa)
			}
			if err := put(pk, energy.SKDispositionPrefix, energy.OperatorDispositionSK(exp, t.ID), t); err != nil {
				return err
			}
		}
		for _, f := range d.lsds {
			if err := put(pk, energy.SKFootprintPrefix, energy.FootprintSK(f.TotalWells, f.LegalLocation), f); err != nil {
				return err
			}
		}
		for _, o := range d.ops {
			if !ranks {
				if err := w.Put(energy.PKOperators, energy.OperatorsSK(o.OrphanWells, o.BACode), o); err != nil {
					return err
				}
			} else if err := energy.PutOperatorRow(w, rk, o); err != nil {
				return err
			}
		}
		if err := w.Put(pk, energy.SKInfo, info); err != nil {
			return err
		}
		if ranks {
			if err := energy.PutOperatorCounts(w, len(d.ops)); err != nil {
				return err
			}
		} else if err := w.Put(energy.PKCounts, energy.PKOperators, energy.ListCount{Total: len(d.ops)}); err != nil {
			return err
		}
		if err := tally.Cumulative(func(day string, c energy.ExpiringDay) error { return w.Put(energy.PKExpiringDays, day, c) }); err != nil {
			return err
		}
		if ranks {
			_, err := rk.Write(w)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// meteredStore counts the items a request reads and, when sample is set,
// records the live heap after every store read.
type meteredStore struct {
	kv.Store
	items, reads atomic.Int64
	sample       bool
	every        int64 // measure after every every-th read (1 when 0)
	base, peak   uint64
}

func (s *meteredStore) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	it, ok, err := s.Store.Get(ctx, pk, sk)
	s.reads.Add(1)
	if ok {
		s.items.Add(1)
	}
	return it, ok, err
}

func (s *meteredStore) Query(ctx context.Context, q kv.Query) (kv.Page, error) {
	p, err := s.Store.Query(ctx, q)
	s.reads.Add(1)
	s.items.Add(int64(len(p.Items)))
	if n := s.reads.Load(); s.every <= 1 || n%s.every == 0 || p.Next == "" {
		s.measure()
	}
	return p, err
}

func (s *meteredStore) measure() {
	if !s.sample {
		return
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.peak = max(s.peak, m.HeapAlloc-min(m.HeapAlloc, s.base))
}

// sampledWriter measures the heap when the response is written: the rows
// of the page are live then.
type sampledWriter struct {
	*httptest.ResponseRecorder
	s *meteredStore
}

func (w sampledWriter) Write(b []byte) (int, error) {
	w.s.measure()
	return w.ResponseRecorder.Write(b)
}

// request runs one request and returns its body, the items it read and
// the peak heap growth over the heap before it (when sampled).
func (s *meteredStore) request(t testing.TB, h http.Handler, path string, sample bool) (body map[string]any, items int64, peak uint64) {
	t.Helper()
	s.items.Store(0)
	s.sample, s.peak = sample, 0
	if sample {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.base = m.HeapAlloc
	}
	rec := sampledWriter{httptest.NewRecorder(), s}
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	s.measure()
	s.sample = false
	if rec.Code != 200 {
		t.Fatalf("GET %s = %d %s", path, rec.Code, rec.Body.String())
	}
	return decodeBody(t, rec.Body.Bytes()), s.items.Load(), s.peak
}

func decodeBody(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The requests of the list endpoints whose partitions grow with the data,
// each with how many items it may read beyond its page: the dataset
// pointer and the roll-ups (unfiltered key-order pages), or the whole
// partition (n: filtered or sorted otherwise).
type listCase struct {
	name, path string
	keyed      bool // an unfiltered page in key order
	other      bool // sorted in another order than the key's: no cursor
}

var listCases = []listCase{
	{"operator wells", "/energy/operators/" + bigBA + "?view=wells", true, false},
	{"operator wells desc", "/energy/operators/" + bigBA + "?view=wells&dir=desc", true, false},
	{"operator wells page 3", "/energy/operators/" + bigBA + "?view=wells&page=3", true, false},
	{"operator wells by status", "/energy/operators/" + bigBA + "?view=wells&status=orphan", false, false},
	{"operator wells by licence", "/energy/operators/" + bigBA + "?view=wells&sort=licence", false, true},
	{"operator dispositions", "/energy/operators/" + bigBA + "?view=dispositions", true, false},
	{"operator dispositions 365 days", "/energy/operators/" + bigBA + "?view=dispositions&expires_within_days=365", false, false},
	{"operator dispositions by area", "/energy/operators/" + bigBA + "?view=dispositions&sort=area", false, true},
	{"operator lsds", "/energy/operators/" + bigBA + "?view=lsds", true, false},
	{"operator summary", "/energy/operators/" + bigBA, false, false},
	{"operators", "/energy/operators", true, false},
	{"operators q", "/energy/operators?q=gamma", false, false},
	{"operators by name", "/energy/operators?sort=name", true, false},
	{"operators by name page 3", "/energy/operators?sort=name&page=3", true, false},
	{"operators by active, asc, page 3", "/energy/operators?sort=active&dir=asc&page=3", true, false},
	{"operator dispositions page 3, desc", "/energy/operators/" + bigBA + "?view=dispositions&dir=desc&page=3", true, false},
	{"expiring 3650 page 3", "/energy/tenure/expiring?expires_within_days=3650&page=3", true, false},
	{"expiring 3650", "/energy/tenure/expiring?expires_within_days=3650", true, false},
	{"expiring 3650 by area", "/energy/tenure/expiring?expires_within_days=3650&sort=area", false, true},
	{"expiring 3650 png", "/energy/tenure/expiring?expires_within_days=3650&tenure_kind=png", false, false},
}

// pagePath adds per_page to a case's path.
func pagePath(path string, per int) string {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return fmt.Sprintf("%s%sper_page=%d", path, sep, per)
}

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

// TestListHeapFlat: the live heap during a list request does not grow
// with the partition: a partition 8 times larger adds less than 1 MiB at
// the peak, for every list and sort (the rows decoded at once are a store
// page of 1000 items and the kept rows, page × per_page at most).
func TestListHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two stores of 2,000 and 16,000 rows per partition")
	}
	const n = 2000
	peaks := func(n int) map[string]uint64 {
		d := newBigData(n, 2)
		store := &meteredStore{Store: d.store(t)}
		h := mux(store, d.now)
		out := map[string]uint64{}
		for _, c := range listCases {
			_, _, peak := store.request(t, h, pagePath(c.path, 200), true)
			out[c.name] = peak
		}
		return out
	}
	small, big := peaks(n), peaks(8*n)
	for _, c := range listCases {
		t.Logf("%-32s peak heap growth %5d KiB at %d rows, %5d KiB at %d", c.name, small[c.name]>>10, n, big[c.name]>>10, 8*n)
		if big[c.name] > small[c.name]+1<<20 || big[c.name] > 8<<20 {
			t.Errorf("%s: heap grew by %d KiB with %d rows (%d KiB with %d): not bounded by the page", c.name, big[c.name]>>10, 8*n, small[c.name]>>10, n)
		}
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

// brute-force answers over bigData.

func (d bigData) window(days int, keep func(energy.TenureRow) bool) (rows []energy.TenureRow, known int, microHa int64) {
	from, to := d.now.Format("2006-01-02"), d.now.AddDate(0, 0, days).Format("2006-01-02")
	for _, t := range d.disps {
		if t.ExpiryDate == nil || *t.ExpiryDate < from || *t.ExpiryDate > to || (keep != nil && !keep(t)) {
			continue
		}
		rows = append(rows, t)
		if t.AreaHa != nil {
			known++
			microHa += int64(math.Round(*t.AreaHa * 1e6))
		}
	}
	slices.SortFunc(rows, func(a, b energy.TenureRow) int {
		return cmp.Or(cmp.Compare(*a.ExpiryDate, *b.ExpiryDate), cmp.Compare(a.ID, b.ID))
	})
	return rows, known, microHa
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
