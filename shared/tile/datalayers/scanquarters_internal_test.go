package datalayers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"meridian/shared/ag"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

// agQuarterStore publishes n quarters of township 40-25-W4 and the ones
// after it, each with a cropping and an LSRS item, and returns their ids in
// grid order (gridOrder's).
func agQuarterStore(t *testing.T, n int) (kv.Store, []string) {
	t.Helper()
	var ids []string
	for twp := 40; len(ids) < n; twp++ {
		for sec := 1; sec <= 36 && len(ids) < n; sec++ {
			for _, qs := range []string{"NE", "NW", "SE", "SW"} {
				if len(ids) < n {
					ids = append(ids, fmt.Sprintf("%s-%d-%d-25-W4", qs, sec, twp))
				}
			}
		}
	}
	slices.SortFunc(ids, func(a, b string) int {
		oa, _ := gridOrder(a)
		ob, _ := gridOrder(b)
		return cmp.Compare(oa, ob)
	})
	store := kv.NewMem()
	_, err := kv.Publish(context.Background(), store, kv.DatasetInfo{Name: ag.Dataset, Source: "test"}, func(w *kv.Writer) error {
		for i, id := range ids {
			c := ag.Cropping{Dominant: ag.Crop{Code: fmt.Sprint(i), Name: "Canola", Category: "Oilseeds"}, YearsCovered: 5}
			if err := w.Put(ag.QuarterKey(id), ag.SKCropping, c); err != nil {
				return err
			}
			if err := w.Put(ag.QuarterKey(id), ag.SKLSRS, ag.Productivity{Score: float64(i), Class: "3"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return store, ids
}

// scanQuarters hands over every quarter once, decoded, in grid order,
// across several batches.
func TestScanQuartersInGridOrder(t *testing.T) {
	n := 3*quarterBatch + 17
	store, ids := agQuarterStore(t, n)
	ld := &loader{ctx: context.Background(), svc: grid.New()}
	var got []*quarter
	if err := ld.scanQuarters(store, func(q *quarter) error { got = append(got, q); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d quarters handed over, want %d", len(got), n)
	}
	// Key order is not grid order (section 10 sorts before section 2),
	// so the ids, made in grid order, check the sort too.
	for i, q := range got {
		if q.id != ids[i] {
			t.Fatalf("quarter %d is %s, want %s (grid order)", i, q.id, ids[i])
		}
		if q.crop == nil || q.lsrs == nil || q.lsrs.Score != float64(i) || q.crop.Dominant.Code != fmt.Sprint(i) {
			t.Fatalf("quarter %s decoded as crop %+v, lsrs %+v", q.id, q.crop, q.lsrs)
		}
	}
}

// An error of fn ends the scan: it is returned, fn is not called again,
// and the scanning goroutine is gone.
func TestScanQuartersStopsOnError(t *testing.T) {
	store, _ := agQuarterStore(t, 8*quarterBatch)
	before := runtime.NumGoroutine()
	ld := &loader{ctx: context.Background(), svc: grid.New()}
	stop := errors.New("stop here")
	calls := 0
	err := ld.scanQuarters(store, func(q *quarter) error {
		calls++
		if calls == quarterBatch+5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("scanQuarters returned %v, want fn's error", err)
	}
	if calls != quarterBatch+5 {
		t.Errorf("fn called %d times, want %d: not again after its error", calls, quarterBatch+5)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after the scan, %d before: the scan did not stop", g, before)
	}
}

// An item that does not decode ends the scan with its key.
func TestScanQuartersDecodeError(t *testing.T) {
	store := kv.NewMem()
	_, err := kv.Publish(context.Background(), store, kv.DatasetInfo{Name: ag.Dataset, Source: "test"}, func(w *kv.Writer) error {
		return w.Put(ag.QuarterKey("NE-1-40-25-W4"), ag.SKCropping, "not a cropping section")
	})
	if err != nil {
		t.Fatal(err)
	}
	ld := &loader{ctx: context.Background(), svc: grid.New()}
	err = ld.scanQuarters(store, func(q *quarter) error { t.Errorf("quarter %s handed over", q.id); return nil })
	if err == nil || !strings.Contains(err.Error(), "QS#NE-1-40-25-W4 CROPPING") {
		t.Fatalf("scanQuarters returned %v, want the item's decode error", err)
	}
}
