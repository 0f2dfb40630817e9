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
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/kv"
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
