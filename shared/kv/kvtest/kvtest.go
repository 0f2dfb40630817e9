// Package kvtest is the contract test suite of kv.Store: every
// implementation, and every wrapper, must pass Run.
//
//	func TestMemContract(t *testing.T) {
//		kvtest.Run(t, func(t *testing.T) kv.Store { return kv.NewMem() })
//	}
//
// The contract itself is written down in the doc of package kv.
package kvtest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"meridian/shared/apierr"
	"meridian/shared/kv"
)

// Run checks the contract of kv.Store. newStore must return a new, empty
// store each time it is called (once per subtest; subtests run in
// parallel) and close it when t ends.
func Run(t *testing.T, newStore func(t *testing.T) kv.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s kv.Store)
	}{
		{"Get", testGet},
		{"Invalid", testInvalid},
		{"QueryPrefix", testQueryPrefix},
		{"QueryRange", testQueryRange},
		{"Order", testOrder},
		{"Paging", testPaging},
		{"CursorOutsideRange", testCursorOutsideRange},
		{"BinaryData", testBinaryData},
		{"LargeItems", testLargeItems},
		{"Batches", testBatches},
		{"ScanKeys", testScanKeys},
		{"PublishVisibleOnCommit", testPublishVisibleOnCommit},
		{"PublishFailingWrite", testPublishFailingWrite},
		{"PublishStoreFailure", testPublishStoreFailure},
		{"PublishPointerAmbiguous", testPublishPointerAmbiguous},
		{"PublishIdempotent", testPublishIdempotent},
		{"PublishDeletesOld", testPublishDeletesOld},
		{"Datasets", testDatasets},
		{"DatasetReads", testDatasetReads},
		{"ConcurrentReadersWhilePublishing", testConcurrentPublish},
		{"Swap", testSwap},
		{"SwapAtomic", testSwapAtomic},
		{"PublishRace", testPublishRace},
		{"PublishContention", testPublishContention},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// itemOpts compare items: nil and empty data are equal, and byte slices
// are compared with bytes.Equal (cmp's element-wise reflection is slow on
// 300 KB values).
var itemOpts = cmp.Options{
	cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) }),
	cmp.FilterPath(func(p cmp.Path) bool { return p.Last().Type() != reflect.TypeFor[[]byte]() }, cmpopts.EquateEmpty()),
}

func put(t *testing.T, s kv.Store, items ...kv.Item) {
	t.Helper()
	if err := s.Put(t.Context(), items); err != nil {
		t.Fatalf("Put(%d items): %v", len(items), err)
	}
}

func query(t *testing.T, s kv.Store, q kv.Query) kv.Page {
	t.Helper()
	page, err := s.Query(t.Context(), q)
	if err != nil {
		t.Fatalf("Query(%+v): %v", q, err)
	}
	return page
}

// sks returns the sort keys of items.
func sks(items []kv.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.SK
	}
	return out
}

// queryAll follows the cursors of q to the end and returns every item.
func queryAll(t *testing.T, s kv.Store, q kv.Query) []kv.Item {
	t.Helper()
	var all []kv.Item
	for range 10_000 {
		page := query(t, s, q)
		all = append(all, page.Items...)
		if page.Next == "" {
			return all
		}
		if len(page.Items) == 0 {
			t.Fatalf("Query(%+v) = no items and Next %q", q, page.Next)
		}
		q.After = page.Next
	}
	t.Fatalf("Query(%+v): cursors do not end", q)
	return nil
}

// item returns an item with data naming its key.
func item(pk, sk string) kv.Item {
	return kv.Item{PK: pk, SK: sk, Data: []byte(`{"k":"` + pk + "/" + sk + `"}`)}
}

// CheckUnavailable checks that err is the 503 of package apierr with a
// cause wrapping kv.ErrUnavailable, as every store's own failure must be.
func CheckUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	if e := apierr.As(err); e == nil || e.Kind != apierr.Unavailable || e.Code != "upstream_unavailable" || !errors.Is(err, kv.ErrUnavailable) {
		t.Errorf("%s = %v; want an apierr Unavailable error wrapping kv.ErrUnavailable", what, err)
	}
}

// BenchRecord is a report-like record (a well: about 200 bytes of JSON),
// the item of the stores' write benchmarks.
type BenchRecord struct {
	LSD      string  `json:"lsd"`
	Licence  string  `json:"licence"`
	Operator string  `json:"operator"`
	Status   string  `json:"status"`
	Depth    float64 `json:"depth_m"`
	Spud     string  `json:"spud_date"`
	Fluid    string  `json:"fluid"`
}
