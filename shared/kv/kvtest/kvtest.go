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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

func testGet(t *testing.T, s kv.Store) {
	ctx := t.Context()
	put(t, s, item("LSD#1-2-3-4-W5", "WELL#A"), item("LSD#1-2-3-4-W5", "WELL#B"), item("LSD#1-2-3-4-W5X", "WELL#A"))
	tests := []struct {
		pk, sk string
		ok     bool
	}{
		{"LSD#1-2-3-4-W5", "WELL#A", true},
		{"LSD#1-2-3-4-W5", "WELL#B", true},
		{"LSD#1-2-3-4-W5X", "WELL#A", true},
		{"LSD#1-2-3-4-W5", "WELL#C", false}, // missing SK
		{"LSD#1-2-3-4-W5", "WELL#", false},  // a prefix of an SK
		{"LSD#1-2-3-4-W", "WELL#A", false},  // a prefix of a PK
		{"LSD#9", "WELL#A", false},          // missing PK
	}
	for _, tc := range tests {
		got, ok, err := s.Get(ctx, tc.pk, tc.sk)
		if err != nil || ok != tc.ok {
			t.Errorf("Get(%q, %q) = _, %v, %v; want ok %v", tc.pk, tc.sk, ok, err, tc.ok)
			continue
		}
		want := kv.Item{}
		if tc.ok {
			want = item(tc.pk, tc.sk)
		}
		if diff := cmp.Diff(want, got, itemOpts); diff != "" {
			t.Errorf("Get(%q, %q) (-want +got):\n%s", tc.pk, tc.sk, diff)
		}
	}
	// Put replaces.
	put(t, s, kv.Item{PK: "LSD#1-2-3-4-W5", SK: "WELL#A", Data: []byte("v2")})
	if got, _, _ := s.Get(ctx, "LSD#1-2-3-4-W5", "WELL#A"); string(got.Data) != "v2" {
		t.Errorf("Get after a second Put = %q, want v2", got.Data)
	}
}

func testInvalid(t *testing.T, s kv.Store) {
	ctx := t.Context()
	long := func(n int) string { return strings.Repeat("x", n) }
	badKeys := []kv.Key{
		{PK: "", SK: "sk"},
		{PK: "pk", SK: ""},
		{PK: "p\x00k", SK: "sk"},
		{PK: "p\xffk", SK: "sk"},
		{PK: "pk", SK: "s\xffk"},
		{PK: long(kv.MaxPKBytes + 1), SK: "sk"},
		{PK: "pk", SK: long(kv.MaxSKBytes + 1)},
	}
	for _, k := range badKeys {
		if err := s.Put(ctx, []kv.Item{{PK: k.PK, SK: k.SK}}); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Put(%.20q, %.20q) = %v, want fs.ErrInvalid", k.PK, k.SK, err)
		}
		if _, _, err := s.Get(ctx, k.PK, k.SK); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Get(%.20q, %.20q) = %v, want fs.ErrInvalid", k.PK, k.SK, err)
		}
		if err := s.Delete(ctx, []kv.Key{k}); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Delete(%.20q, %.20q) = %v, want fs.ErrInvalid", k.PK, k.SK, err)
		}
	}
	big := kv.Item{PK: "pk", SK: "sk", Data: make([]byte, kv.MaxItemBytes)}
	if err := s.Put(ctx, []kv.Item{item("pk", "ok"), big}); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Put(item of %d bytes) = %v, want fs.ErrInvalid", kv.MaxItemBytes, err)
	}
	if _, ok, _ := s.Get(ctx, "pk", "ok"); ok {
		t.Errorf("Put with an invalid item wrote the valid one before it")
	}
	for _, q := range []kv.Query{{}, {PK: "p\x00k"}, {PK: "pk", SKPrefix: "\xff"}, {PK: "pk", After: long(kv.MaxSKBytes + 1)}} {
		if _, err := s.Query(ctx, q); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Query(%.40q) = %v, want fs.ErrInvalid", fmt.Sprint(q), err)
		}
	}
	if err := s.ScanKeys(ctx, "a\x00", func([]kv.Key) error { return nil }); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ScanKeys(NUL prefix) = %v, want fs.ErrInvalid", err)
	}
	// The largest valid item and keys are accepted.
	maxItem := kv.Item{PK: long(kv.MaxPKBytes), SK: long(kv.MaxSKBytes)}
	maxItem.Data = bytes.Repeat([]byte{7}, kv.MaxItemBytes-len("pkskdata")-kv.MaxPKBytes-kv.MaxSKBytes)
	put(t, s, maxItem)
	if got, ok, err := s.Get(ctx, maxItem.PK, maxItem.SK); err != nil || !ok || !bytes.Equal(got.Data, maxItem.Data) {
		t.Errorf("Get(largest item) = %d bytes, %v, %v; want %d bytes", len(got.Data), ok, err, len(maxItem.Data))
	}
}

// fixture puts items under pk with the given sort keys, plus neighbours in
// other partitions that no query of pk may return.
func fixture(t *testing.T, s kv.Store, pk string, keys ...string) {
	t.Helper()
	var items []kv.Item
	for _, sk := range keys {
		items = append(items, item(pk, sk), item(pk+"X", sk), item(pk[:len(pk)-1], sk))
	}
	put(t, s, items...)
}

func testQueryPrefix(t *testing.T, s kv.Store) {
	keys := []string{"2023-12-31#W9", "2024#", "2024-01#W1", "2024-01#W2", "2024-02#W3", "2025-01#W4", "a", "b"} // '#' < '-'
	fixture(t, s, "OP#A1B2", keys...)
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", keys},
		{"2024", []string{"2024#", "2024-01#W1", "2024-01#W2", "2024-02#W3"}},
		{"2024-01#", []string{"2024-01#W1", "2024-01#W2"}},
		{"2024-01#W1", []string{"2024-01#W1"}},
		{"2024#", []string{"2024#"}},
		{"2026", nil},
		{"0", nil},
		{"z", nil},
	}
	for _, tc := range tests {
		for _, reverse := range []bool{false, true} {
			page := query(t, s, kv.Query{PK: "OP#A1B2", SKPrefix: tc.prefix, Reverse: reverse})
			want := slices.Clone(tc.want)
			if reverse {
				slices.Reverse(want)
			}
			if diff := cmp.Diff(want, sks(page.Items), itemOpts); diff != "" || page.Next != "" {
				t.Errorf("Query(prefix %q, reverse %v): Next %q, SKs (-want +got):\n%s", tc.prefix, reverse, page.Next, diff)
			}
			for _, it := range page.Items {
				if want := item("OP#A1B2", it.SK); !cmp.Equal(want, it) {
					t.Errorf("Query(prefix %q) item = %+v, want %+v", tc.prefix, it, want)
				}
			}
		}
	}
}

func testQueryRange(t *testing.T, s kv.Store) {
	keys := []string{"2024-01-01", "2024-03-15", "2024-06-30", "2024-06-30#2", "2024-12-31", "2025-01-01"}
	fixture(t, s, "EXPIRY#AB", keys...)
	tests := []struct {
		from, to string
		want     []string
	}{
		{"2024-03-15", "2024-06-30", []string{"2024-03-15", "2024-06-30"}}, // both ends inclusive
		{"2024-03-16", "2024-06-30#", []string{"2024-06-30"}},
		{"2024-03-16", "2024-06-30#9", []string{"2024-06-30", "2024-06-30#2"}},
		{"2024-06-30", "2024-06-30", []string{"2024-06-30"}},
		{"2024-07", "", []string{"2024-12-31", "2025-01-01"}},    // from only
		{"", "2024-03-15", []string{"2024-01-01", "2024-03-15"}}, // to only
		{"2024-02", "2024-03", nil},
		{"2024-06-30", "2024-03-15", nil}, // from after to
		{"2030", "2031", nil},
		{"2000", "2001", nil},
	}
	for _, tc := range tests {
		for _, reverse := range []bool{false, true} {
			// A prefix is ignored once a range is set.
			page := query(t, s, kv.Query{PK: "EXPIRY#AB", SKFrom: tc.from, SKTo: tc.to, SKPrefix: "ignored", Reverse: reverse})
			want := slices.Clone(tc.want)
			if reverse {
				slices.Reverse(want)
			}
			if diff := cmp.Diff(want, sks(page.Items), itemOpts); diff != "" || page.Next != "" {
				t.Errorf("Query(range [%q, %q], reverse %v): Next %q, SKs (-want +got):\n%s", tc.from, tc.to, reverse, page.Next, diff)
			}
		}
	}
}

func testOrder(t *testing.T, s kv.Store) {
	// Bytewise (UTF-8) order: digits < upper case < '_' < lower case <
	// '~' < multi-byte characters; a prefix sorts before its extensions.
	keys := []string{"b", "a", "a#", "a#b", "aa", "B", "0", "~", "é", "ÿ", "a_", "A", "z", "Z9", "€"}
	put(t, s, func() []kv.Item {
		var items []kv.Item
		for _, k := range keys {
			items = append(items, item("ORDER", k))
		}
		return items
	}()...)
	want := slices.Clone(keys)
	slices.Sort(want) // Go compares strings bytewise
	if got := sks(query(t, s, kv.Query{PK: "ORDER"}).Items); !slices.Equal(got, want) {
		t.Errorf("Query ascending = %q, want %q", got, want)
	}
	slices.Reverse(want)
	if got := sks(query(t, s, kv.Query{PK: "ORDER", Reverse: true}).Items); !slices.Equal(got, want) {
		t.Errorf("Query descending = %q, want %q", got, want)
	}
	// Paging one at a time gives the same order both ways.
	for _, reverse := range []bool{false, true} {
		got := sks(queryAll(t, s, kv.Query{PK: "ORDER", Reverse: reverse, Limit: 1}))
		w := slices.Clone(keys)
		slices.Sort(w)
		if reverse {
			slices.Reverse(w)
		}
		if !slices.Equal(got, w) {
			t.Errorf("Query reverse %v, Limit 1, paged = %q, want %q", reverse, got, w)
		}
	}
}

// many returns n items of pk with sort keys k00000, k00001, ...
func many(pk string, n int) []kv.Item {
	items := make([]kv.Item, n)
	for i := range items {
		sk := fmt.Sprintf("k%05d", i)
		items[i] = kv.Item{PK: pk, SK: sk, Data: []byte(sk)}
	}
	return items
}

func testPaging(t *testing.T, s kv.Store) {
	const n = 2500
	all := many("BIG", n)
	put(t, s, all...)
	put(t, s, many("BIG2", 10)...)
	allSKs := sks(all)
	rev := slices.Clone(allSKs)
	slices.Reverse(rev)

	// The default page is 1000 items; Limit above 1000 is 1000.
	for _, limit := range []int{0, -1, 1000, 5000} {
		for _, reverse := range []bool{false, true} {
			want := allSKs
			if reverse {
				want = rev
			}
			q := kv.Query{PK: "BIG", Limit: limit, Reverse: reverse}
			var sizes []int
			var got []string
			for {
				page := query(t, s, q)
				sizes = append(sizes, len(page.Items))
				got = append(got, sks(page.Items)...)
				if page.Next == "" {
					break
				}
				if last := page.Items[len(page.Items)-1].SK; page.Next != last {
					t.Fatalf("Next = %q, want the last SK of the page %q", page.Next, last)
				}
				q.After = page.Next
			}
			if !slices.Equal(sizes, []int{1000, 1000, 500}) || !slices.Equal(got, want) {
				t.Errorf("paging Limit %d reverse %v: page sizes %v (want [1000 1000 500]), %d items in order %v", limit, reverse, sizes, len(got), slices.Equal(got, want))
			}
		}
	}
	// Next is "" exactly when nothing follows.
	if page := query(t, s, kv.Query{PK: "BIG", After: "k01499"}); len(page.Items) != 1000 || page.Next != "" {
		t.Errorf("last full page: %d items, Next %q; want 1000 and \"\"", len(page.Items), page.Next)
	}
	// Small pages within a prefix and a range, both ways.
	for _, q := range []kv.Query{
		{PK: "BIG", SKPrefix: "k012", Limit: 7},
		{PK: "BIG", SKPrefix: "k012", Limit: 7, Reverse: true},
		{PK: "BIG", SKFrom: "k00995", SKTo: "k01010", Limit: 3},
		{PK: "BIG", SKFrom: "k00995", SKTo: "k01010", Limit: 3, Reverse: true},
	} {
		var want []string
		for _, sk := range allSKs {
			if q.SKFrom != "" && sk >= q.SKFrom && sk <= q.SKTo || q.SKFrom == "" && strings.HasPrefix(sk, q.SKPrefix) {
				want = append(want, sk)
			}
		}
		if q.Reverse {
			slices.Reverse(want)
		}
		if got := sks(queryAll(t, s, q)); !slices.Equal(got, want) {
			t.Errorf("paging %+v = %q, want %q", q, got, want)
		}
	}
}

// testCursorOutsideRange checks cursors that lie before the start of a
// query (ignored) or past its end (no items).
func testCursorOutsideRange(t *testing.T, s kv.Store) {
	put(t, s, many("CUR", 20)...) // k00000 .. k00019
	tests := []struct {
		name string
		q    kv.Query
		want []string
	}{
		{"prefix, before", kv.Query{PK: "CUR", SKPrefix: "k0001", After: "a"}, []string{"k00010", "k00011", "k00012", "k00013", "k00014", "k00015", "k00016", "k00017", "k00018", "k00019"}},
		{"prefix, past", kv.Query{PK: "CUR", SKPrefix: "k0000", After: "k0001"}, nil},
		{"prefix reverse, before", kv.Query{PK: "CUR", SKPrefix: "k0000", After: "z", Reverse: true}, []string{"k00009", "k00008", "k00007", "k00006", "k00005", "k00004", "k00003", "k00002", "k00001", "k00000"}},
		{"prefix reverse, past", kv.Query{PK: "CUR", SKPrefix: "k0001", After: "k0000", Reverse: true}, nil},
		{"range, before", kv.Query{PK: "CUR", SKFrom: "k00018", SKTo: "k00030", After: "k"}, []string{"k00018", "k00019"}},
		{"range, past", kv.Query{PK: "CUR", SKFrom: "k00001", SKTo: "k00003", After: "k00003"}, nil},
		{"range reverse, before", kv.Query{PK: "CUR", SKFrom: "k00001", SKTo: "k00002", After: "z", Reverse: true}, []string{"k00002", "k00001"}},
		{"range reverse, past", kv.Query{PK: "CUR", SKFrom: "k00001", SKTo: "k00003", After: "k00001", Reverse: true}, nil},
		{"all, after the last", kv.Query{PK: "CUR", After: "k00019"}, nil},
		{"all reverse, after the first", kv.Query{PK: "CUR", After: "k00000", Reverse: true}, nil},
	}
	for _, tc := range tests {
		page := query(t, s, tc.q)
		if diff := cmp.Diff(tc.want, sks(page.Items), itemOpts); diff != "" || page.Next != "" {
			t.Errorf("%s: Query(%+v): Next %q, SKs (-want +got):\n%s", tc.name, tc.q, page.Next, diff)
		}
	}
}

func testBinaryData(t *testing.T, s kv.Store) {
	allBytes := make([]byte, 512)
	for i := range allBytes {
		allBytes[i] = byte(i)
	}
	big := bytes.Repeat([]byte{0, 0xff, 0x80, '\n', '"'}, 60_000) // 300,000 bytes
	items := []kv.Item{
		{PK: "BIN", SK: "all", Data: allBytes},
		{PK: "BIN", SK: "big", Data: big},
		{PK: "BIN", SK: "empty", Data: nil},
		{PK: "BIN", SK: "empty2", Data: []byte{}},
		{PK: "BIN", SK: "nul", Data: []byte{0}},
		{PK: "BIN", SK: "utf8", Data: []byte("Île-à-la-Crosse ✓")},
	}
	put(t, s, items...)
	for _, want := range items {
		got, ok, err := s.Get(t.Context(), want.PK, want.SK)
		if err != nil || !ok || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("Get(%s) = %d bytes, %v, %v; want %d bytes", want.SK, len(got.Data), ok, err, len(want.Data))
		}
	}
	page := query(t, s, kv.Query{PK: "BIN"})
	if diff := cmp.Diff(items, page.Items, itemOpts); diff != "" {
		t.Errorf("Query(BIN) (-want +got):\n%.2000s", diff)
	}
	// The store keeps its own copy, and returns one.
	items[0].Data[0] = 'X'
	page.Items[1].Data[0] = 'X'
	if got, _, _ := s.Get(t.Context(), "BIN", "all"); got.Data[0] != 0 {
		t.Errorf("modifying the slice given to Put changed the stored item")
	}
	if got, _, _ := s.Get(t.Context(), "BIN", "big"); got.Data[0] != 0 {
		t.Errorf("modifying a slice returned by Query changed the stored item")
	}
}

// testLargeItems: answers larger than DynamoDB's 1 MB per call still fill
// their pages.
func testLargeItems(t *testing.T, s kv.Store) {
	var items []kv.Item
	for i := range 8 {
		items = append(items, kv.Item{PK: "LARGE", SK: fmt.Sprintf("%02d", i), Data: bytes.Repeat([]byte{byte(i)}, 300_000)})
	}
	put(t, s, items...) // 2.4 MB
	for _, reverse := range []bool{false, true} {
		want := sks(items)
		if reverse {
			slices.Reverse(want)
		}
		page := query(t, s, kv.Query{PK: "LARGE", Reverse: reverse})
		if got := sks(page.Items); !slices.Equal(got, want) || page.Next != "" {
			t.Errorf("Query(LARGE, reverse %v) = %q, Next %q; want %q in one page", reverse, got, page.Next, want)
		}
		for _, it := range page.Items {
			if len(it.Data) != 300_000 || it.Data[0] != it.SK[1]-'0' {
				t.Errorf("Query(LARGE) item %s: %d bytes of %d", it.SK, len(it.Data), it.Data[0])
			}
		}
		if got := sks(queryAll(t, s, kv.Query{PK: "LARGE", Reverse: reverse, Limit: 3})); !slices.Equal(got, want) {
			t.Errorf("Query(LARGE, reverse %v, Limit 3), paged = %q, want %q", reverse, got, want)
		}
	}
	n := 0
	if err := s.ScanKeys(t.Context(), "LARGE", func(keys []kv.Key) error { n += len(keys); return nil }); err != nil || n != 8 {
		t.Errorf("ScanKeys(LARGE) = %d keys, %v; want 8", n, err)
	}
}

func testBatches(t *testing.T, s kv.Store) {
	ctx := t.Context()
	items := many("BATCH", 60) // more than two DynamoDB batches
	put(t, s, items...)
	if got := len(queryAll(t, s, kv.Query{PK: "BATCH"})); got != 60 {
		t.Fatalf("after Put of 60 items, Query finds %d", got)
	}
	// Delete 37 keys, with repeats and missing keys among them.
	var keys []kv.Key
	for i := range 37 {
		keys = append(keys, kv.Key{PK: "BATCH", SK: items[i].SK})
	}
	keys = append(keys, keys[3], kv.Key{PK: "BATCH", SK: "missing"}, kv.Key{PK: "NOPE", SK: "missing"})
	if err := s.Delete(ctx, keys); err != nil {
		t.Fatalf("Delete(%d keys): %v", len(keys), err)
	}
	got := sks(queryAll(t, s, kv.Query{PK: "BATCH"}))
	if want := sks(items[37:]); !slices.Equal(got, want) {
		t.Errorf("after Delete, Query = %q, want %q", got, want)
	}
	// Within one Put, the last item with a key wins, in any batch.
	dup := many("DUP", 30)
	dup = append(dup, kv.Item{PK: "DUP", SK: "k00001", Data: []byte("second")}, kv.Item{PK: "DUP", SK: "k00029", Data: []byte("second")})
	put(t, s, dup...)
	for _, sk := range []string{"k00001", "k00029"} {
		if got, _, err := s.Get(ctx, "DUP", sk); err != nil || string(got.Data) != "second" {
			t.Errorf("Get(DUP, %s) = %q, %v; want the last Put of the key", sk, got.Data, err)
		}
	}
	// Empty calls do nothing.
	if err := s.Put(ctx, nil); err != nil {
		t.Errorf("Put(nil) = %v", err)
	}
	if err := s.Delete(ctx, nil); err != nil {
		t.Errorf("Delete(nil) = %v", err)
	}
}

func testScanKeys(t *testing.T, s kv.Store) {
	ctx := t.Context()
	put(t, s, many("ds@1#A", 1200)...)
	put(t, s, many("ds@1#B", 5)...)
	put(t, s, many("ds@12#A", 3)...)
	put(t, s, many("ds@2#A", 4)...)
	put(t, s, many("other", 2)...)
	count := func(prefix string) int {
		n := 0
		err := s.ScanKeys(ctx, prefix, func(keys []kv.Key) error {
			for _, k := range keys {
				if !strings.HasPrefix(k.PK, prefix) {
					t.Errorf("ScanKeys(%q) gave %v", prefix, k)
				}
			}
			n += len(keys)
			return nil
		})
		if err != nil {
			t.Fatalf("ScanKeys(%q): %v", prefix, err)
		}
		return n
	}
	for prefix, want := range map[string]int{"ds@1#": 1205, "ds@1": 1208, "ds@": 1212, "ds@2#": 4, "x": 0, "": 1214} {
		if got := count(prefix); got != want {
			t.Errorf("ScanKeys(%q) found %d keys, want %d", prefix, got, want)
		}
	}
	// The callback may delete what it is given.
	err := s.ScanKeys(ctx, "ds@1#", func(keys []kv.Key) error { return s.Delete(ctx, keys) })
	if err != nil {
		t.Fatalf("ScanKeys with Delete: %v", err)
	}
	if got := count("ds@"); got != 7 {
		t.Errorf("after deleting ds@1#*, ScanKeys(ds@) found %d keys, want 7", got)
	}
	// The callback's error stops the scan and is returned.
	errStop := errors.New("stop")
	if err := s.ScanKeys(ctx, "", func([]kv.Key) error { return errStop }); !errors.Is(err, errStop) {
		t.Errorf("ScanKeys with a failing callback = %v, want it", err)
	}
}

// record is the JSON of the items the Publish tests write.
type record struct {
	Name string `json:"name"`
	Gen  int    `json:"gen"`
}

// publish publishes dataset name with n items per partition in the
// partitions pks, all of generation gen.
func publish(t *testing.T, s kv.Store, name string, gen, n int, pks ...string) kv.Version {
	t.Helper()
	v, err := kv.Publish(t.Context(), s, kv.DatasetInfo{Name: name, Source: "test"}, writeRecords(gen, n, pks...))
	if err != nil {
		t.Fatalf("Publish(%s, gen %d): %v", name, gen, err)
	}
	return v
}

func writeRecords(gen, n int, pks ...string) func(w *kv.Writer) error {
	return func(w *kv.Writer) error {
		for _, pk := range pks {
			for i := range n {
				if err := w.Put(pk, fmt.Sprintf("%05d", i), record{Name: pk, Gen: gen}); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func open(t *testing.T, s kv.Store, name string) kv.Dataset {
	t.Helper()
	d, ok, err := kv.Open(t.Context(), s, name)
	if err != nil || !ok {
		t.Fatalf("Open(%s) = _, %v, %v", name, ok, err)
	}
	return d
}

// gens returns the generations of the items of d in pk, and how many.
func gens(t *testing.T, d kv.Dataset, pk string) (map[int]int, int) {
	t.Helper()
	out := map[int]int{}
	n := 0
	q := kv.Query{PK: pk}
	for {
		page, err := d.Query(t.Context(), q)
		if err != nil {
			t.Fatalf("Dataset.Query(%s): %v", pk, err)
		}
		for _, it := range page.Items {
			var r record
			if err := json.Unmarshal(it.Data, &r); err != nil || it.PK != pk || r.Name != pk {
				t.Fatalf("Dataset.Query(%s) item %+v: %v", pk, it, err)
			}
			out[r.Gen]++
			n++
		}
		if page.Next == "" {
			return out, n
		}
		q.After = page.Next
	}
}

// versionKeys counts the stored items of a dataset by version prefix.
func versionKeys(t *testing.T, s kv.Store, name string) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := s.ScanKeys(t.Context(), name+"@", func(keys []kv.Key) error {
		for _, k := range keys {
			out[k.PK[:strings.IndexByte(k.PK, '#')+1]]++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("ScanKeys(%s@): %v", name, err)
	}
	return out
}

func testPublishVisibleOnCommit(t *testing.T, s kv.Store) {
	ctx := t.Context()
	if _, ok, err := kv.Open(ctx, s, "wells"); ok || err != nil {
		t.Fatalf("Open before any Publish = %v, %v; want not found", ok, err)
	}
	if v := publish(t, s, "wells", 1, 1200, "LSD#1", "OP#X"); v != 1 {
		t.Errorf("first Publish = version %d, want 1", v)
	}
	v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
		if err := writeRecords(2, 1200, "LSD#1", "OP#X", "NEW")(w); err != nil {
			return err
		}
		// Everything is written (more than one buffer's worth has reached
		// the store), and readers still see version 1 only.
		d := open(t, s, "wells")
		if d.Version != 1 {
			t.Errorf("Open during Publish = version %d, want 1", d.Version)
		}
		for _, pk := range []string{"LSD#1", "OP#X"} {
			if g, n := gens(t, d, pk); n != 1200 || g[1] != 1200 {
				t.Errorf("during Publish, %s holds generations %v (%d items), want 1200 of 1", pk, g, n)
			}
		}
		if _, n := gens(t, d, "NEW"); n != 0 {
			t.Errorf("during Publish, a partition of the new version is visible (%d items)", n)
		}
		if ds, err := kv.Datasets(ctx, s); err != nil || len(ds) != 1 || ds[0].Version != 1 {
			t.Errorf("Datasets during Publish = %+v, %v; want version 1", ds, err)
		}
		return nil
	})
	if err != nil || v != 2 {
		t.Fatalf("second Publish = %d, %v; want version 2", v, err)
	}
	d := open(t, s, "wells")
	for _, pk := range []string{"LSD#1", "OP#X", "NEW"} {
		if g, n := gens(t, d, pk); d.Version != 2 || n != 1200 || g[2] != 1200 {
			t.Errorf("after Publish, version %d, %s holds generations %v (%d items), want 1200 of 2", d.Version, pk, g, n)
		}
	}
	if d.Items != 3600 {
		t.Errorf("Dataset.Items = %d, want 3600", d.Items)
	}
}

func testPublishFailingWrite(t *testing.T, s kv.Store) {
	ctx := t.Context()
	publish(t, s, "wells", 1, 10, "A", "B")
	errBoom := errors.New("bad line 12")
	for _, n := range []int{0, 5, 2500} { // nothing written, buffered only, flushed
		v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
			if err := writeRecords(9, n, "A", "C")(w); err != nil {
				return err
			}
			return errBoom
		})
		if !errors.Is(err, errBoom) || v != 0 {
			t.Errorf("Publish with a failing write (%d items) = %d, %v; want 0 and the write's error", n, v, err)
		}
		checkServes(t, s, "wells", 1, 10, "A", "B")
	}
	// A later Publish works and its version is above the failed ones'.
	v := publish(t, s, "wells", 2, 3, "A")
	if v <= 1 {
		t.Errorf("Publish after failures = version %d, want above 1", v)
	}
	if got := versionKeys(t, s, "wells"); len(got) != 2 || got[fmt.Sprintf("wells@%d#", v)] != 3 || got["wells@1#"] != 20 {
		t.Errorf("stored versions after a successful Publish = %v, want %d and the one it replaced, 1 (no failed version's leftovers)", got, v)
	}
	// Invalid keys and values are the callback's errors.
	v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
		if err := w.Put("", "sk", 1); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Writer.Put with an empty PK = %v, want fs.ErrInvalid", err)
		}
		return w.Put("A", "sk", func() {})
	})
	if err == nil || v != 0 {
		t.Errorf("Publish of an unencodable value = %d, %v; want an error", v, err)
	}
	checkServes(t, s, "wells", 2, 3, "A")
}

// checkServes checks that dataset name serves a version with n items of
// generation gen in each of pks, and that no other version's items remain
// but those of the version it replaced.
func checkServes(t *testing.T, s kv.Store, name string, gen, n int, pks ...string) {
	t.Helper()
	d := open(t, s, name)
	for _, pk := range pks {
		if g, got := gens(t, d, pk); got != n || g[gen] != n {
			t.Errorf("%s version %d serves %s: generations %v (%d items); want %d of %d", name, d.Version, pk, g, got, n, gen)
		}
	}
	// Besides the served version, the one it replaced may remain (whole;
	// testPublishDeletesOld checks it), never more.
	served := fmt.Sprintf("%s@%d#", name, d.Version)
	got := versionKeys(t, s, name)
	others := 0
	for prefix := range got {
		var v kv.Version
		if prefix != served {
			others++
			if _, err := fmt.Sscanf(strings.TrimPrefix(prefix, name+"@"), "%d#", &v); err != nil || v >= d.Version {
				t.Errorf("stored items of %s: version %s is not older than the one served (%d)", name, prefix, d.Version)
			}
		}
	}
	if got[served] != n*len(pks) || others > 1 {
		t.Errorf("stored items of %s by version = %v, want %d under %s and at most the version it replaced", name, got, n*len(pks), served)
	}
}

// faultStore makes a Store fail writes: Put of dataset items after
// okPuts calls, or of the dataset pointer.
type faultStore struct {
	kv.Store
	okPuts      int64
	puts        atomic.Int64
	failPointer bool
	applyFirst  bool // write the pointer, then report a failure
	applyFalse  bool // with applyFirst: report a failed condition instead of an error
}

var errInjected = errors.New("kvtest: injected failure")

func (f *faultStore) Put(ctx context.Context, items []kv.Item) error {
	injected := apierr.Unavailablef(fmt.Errorf("%w: %w", kv.ErrUnavailable, errInjected), "unavailable")
	if len(items) == 1 && items[0].PK == kv.DatasetPK && f.failPointer {
		if f.applyFirst {
			if err := f.Store.Put(ctx, items); err != nil {
				return err
			}
		}
		return injected
	}
	if len(items) > 0 && strings.Contains(items[0].PK, "@") && f.puts.Add(1) > f.okPuts {
		return injected
	}
	return f.Store.Put(ctx, items)
}

// Swap fails the dataset pointer's flip (after applying it when
// applyFirst is set), as Put does.
func (f *faultStore) Swap(ctx context.Context, item kv.Item, expect []byte) (bool, error) {
	if item.PK == kv.DatasetPK && f.failPointer {
		if f.applyFirst {
			if _, err := f.Store.Swap(ctx, item, expect); err != nil {
				return false, err
			}
			if f.applyFalse {
				// An SDK retry of an attempt the server applied: the
				// retry's condition fails against its own write.
				return false, nil
			}
		}
		return false, apierr.Unavailablef(fmt.Errorf("%w: %w", kv.ErrUnavailable, errInjected), "unavailable")
	}
	return f.Store.Swap(ctx, item, expect)
}

func testPublishStoreFailure(t *testing.T, s kv.Store) {
	ctx := t.Context()
	publish(t, s, "leases", 1, 20, "A", "B")
	for _, f := range []*faultStore{
		{Store: s, okPuts: 0},
		{Store: s, okPuts: 2},
		{Store: s, okPuts: 1 << 40, failPointer: true},
	} {
		v, err := kv.Publish(ctx, f, kv.DatasetInfo{Name: "leases"}, writeRecords(2, 1500, "A", "C"))
		if e := apierr.As(err); v != 0 || !errors.Is(err, errInjected) || e == nil || e.Kind != apierr.Unavailable {
			t.Errorf("Publish with a store failing (okPuts %d, pointer %v) = %d, %v; want 0 and an Unavailable error", f.okPuts, f.failPointer, v, err)
		}
		checkServes(t, s, "leases", 1, 20, "A", "B")
	}
	// A store error the callback ignores still fails the Publish.
	f := &faultStore{Store: s, okPuts: 1}
	v, err := kv.Publish(ctx, f, kv.DatasetInfo{Name: "leases"}, func(w *kv.Writer) error {
		for i := range 3000 {
			w.Put("A", fmt.Sprintf("%05d", i), record{Name: "A", Gen: 3})
		}
		return nil
	})
	if v != 0 || !errors.Is(err, errInjected) {
		t.Errorf("Publish whose callback ignored a store error = %d, %v; want 0 and the error", v, err)
	}
	checkServes(t, s, "leases", 1, 20, "A", "B")
}

// testPublishPointerAmbiguous: the pointer write reports a failure, or a
// failed condition, but happened (a timeout after the server applied it,
// an SDK retry whose condition fails against its own first attempt). The
// new version is served, so its items must stay.
func testPublishPointerAmbiguous(t *testing.T, s kv.Store) {
	publish(t, s, "leases", 1, 20, "A")
	f := &faultStore{Store: s, okPuts: 1 << 40, failPointer: true, applyFirst: true}
	v, err := kv.Publish(t.Context(), f, kv.DatasetInfo{Name: "leases"}, writeRecords(2, 30, "A"))
	if err != nil || v != 2 {
		t.Errorf("Publish whose pointer write failed after applying = %d, %v; want version 2", v, err)
	}
	checkServes(t, s, "leases", 2, 30, "A")
	f.applyFalse = true
	v, err = kv.Publish(t.Context(), f, kv.DatasetInfo{Name: "leases"}, writeRecords(3, 35, "A"))
	if err != nil || v != 3 {
		t.Errorf("Publish whose pointer swap reported a failed condition after applying = %d, %v; want version 3", v, err)
	}
	checkServes(t, s, "leases", 3, 35, "A")
}

// visible returns every item a reader of dataset name sees in pks.
func visible(t *testing.T, s kv.Store, name string, pks ...string) []kv.Item {
	t.Helper()
	d := open(t, s, name)
	var out []kv.Item
	for _, pk := range pks {
		q := kv.Query{PK: pk}
		for {
			page, err := d.Query(t.Context(), q)
			if err != nil {
				t.Fatalf("Dataset.Query(%s): %v", pk, err)
			}
			out = append(out, page.Items...)
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	return out
}

func testPublishIdempotent(t *testing.T, s kv.Store) {
	info := kv.DatasetInfo{Name: "dispositions", Source: "AEP", Demo: true, Counts: map[string]int{"dispositions": 900}}
	var versions []kv.Version
	var seen [][]kv.Item
	for range 3 {
		v, err := kv.Publish(t.Context(), s, info, writeRecords(1, 300, "DISP#1", "DISP#2", "EXP#2025"))
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
		versions = append(versions, v)
		seen = append(seen, visible(t, s, "dispositions", "DISP#1", "DISP#2", "EXP#2025"))
	}
	if !slices.Equal(versions, []kv.Version{1, 2, 3}) {
		t.Errorf("versions of three Publish calls = %v, want [1 2 3]", versions)
	}
	if len(seen[0]) != 900 {
		t.Errorf("visible items = %d, want 900", len(seen[0]))
	}
	for i := 1; i < len(seen); i++ {
		if diff := cmp.Diff(seen[0], seen[i], itemOpts); diff != "" {
			t.Errorf("visible items after Publish %d differ from the first (-first +now):\n%.2000s", i+1, diff)
		}
	}
	checkServes(t, s, "dispositions", 1, 300, "DISP#1", "DISP#2", "EXP#2025")
}

// Publish keeps the version it replaces, whole, for readers that opened
// it before the flip, and deletes it at the next Publish.
func testPublishDeletesOld(t *testing.T, s kv.Store) {
	publish(t, s, "pipelines", 1, 700, "LIC#1", "LIC#2")
	publish(t, s, "pipelines2", 1, 5, "LIC#1") // a dataset whose name extends the first
	before := open(t, s, "pipelines")          // a reader in flight
	publish(t, s, "pipelines", 2, 3, "LIC#3")
	checkServes(t, s, "pipelines", 2, 3, "LIC#3")
	checkServes(t, s, "pipelines2", 1, 5, "LIC#1")
	if _, n := gens(t, open(t, s, "pipelines"), "LIC#1"); n != 0 {
		t.Errorf("the new version shows %d items only the old one had", n)
	}
	if g, n := gens(t, before, "LIC#1"); n != 700 || g[1] != 700 {
		t.Errorf("a reader of the replaced version finds %d of its 700 items (%v)", n, g)
	}
	middle := open(t, s, "pipelines")
	publish(t, s, "pipelines", 3, 2, "LIC#3")
	if _, n := gens(t, before, "LIC#1"); n != 0 {
		t.Errorf("two versions back: %d items still stored", n)
	}
	if g, n := gens(t, middle, "LIC#3"); n != 3 || g[2] != 3 {
		t.Errorf("the version just replaced: %d items (%v), want its 3", n, g)
	}
	checkServes(t, s, "pipelines", 3, 2, "LIC#3")
	checkServes(t, s, "pipelines2", 1, 5, "LIC#1")
}

func testDatasets(t *testing.T, s kv.Store) {
	ctx := t.Context()
	if ds, err := kv.Datasets(ctx, s); err != nil || len(ds) != 0 {
		t.Errorf("Datasets of an empty store = %v, %v", ds, err)
	}
	day := time.Date(2026, 10, 31, 0, 0, 0, 0, time.UTC)
	infos := []kv.DatasetInfo{
		{Name: "sk-wells", Source: "Saskatchewan Ministry of Energy and Resources, well list", FileDate: day, Counts: map[string]int{"wells": 3}},
		{Name: "ab-wells", Source: "Alberta Energy Regulator, ST37", FileDate: day.AddDate(0, -1, 0), Demo: true, Counts: map[string]int{"wells": 2, "licences": 2}},
		{Name: "ab-crops", Source: "AFSC", Demo: true},
	}
	start := time.Now().Add(-time.Minute)
	for _, info := range infos {
		if _, err := kv.Publish(ctx, s, info, writeRecords(1, 2, "P")); err != nil {
			t.Fatalf("Publish(%s): %v", info.Name, err)
		}
	}
	if _, err := kv.Publish(ctx, s, infos[0], writeRecords(2, 1, "P")); err != nil {
		t.Fatalf("Publish(%s) again: %v", infos[0].Name, err)
	}
	ds, err := kv.Datasets(ctx, s)
	if err != nil {
		t.Fatalf("Datasets: %v", err)
	}
	var got []kv.DatasetInfo
	for _, d := range ds {
		got = append(got, d.Info)
		wantV, wantItems := kv.Version(1), 2
		if d.Info.Name == "sk-wells" {
			wantV, wantItems = 2, 1
		}
		if d.Version != wantV || d.Items != wantItems || d.Published.Before(start) {
			t.Errorf("Datasets: %s version %d, %d items, published %v; want version %d, %d items, just now", d.Info.Name, d.Version, d.Items, d.Published, wantV, wantItems)
		}
	}
	want := []kv.DatasetInfo{infos[2], infos[1], infos[0]} // by name
	if diff := cmp.Diff(want, got, itemOpts); diff != "" {
		t.Errorf("Datasets (-want +got):\n%s", diff)
	}
	d := open(t, s, "ab-wells")
	if diff := cmp.Diff(infos[1], d.Info, itemOpts); diff != "" {
		t.Errorf("Open(ab-wells).Info (-want +got):\n%s", diff)
	}
	for _, name := range []string{"", "a@b", "a#b", "a\x00b", "\xff", strings.Repeat("n", kv.MaxDatasetNameBytes+1)} {
		if _, _, err := kv.Open(ctx, s, name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want fs.ErrInvalid", name, err)
		}
		if _, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: name}, writeRecords(1, 1, "P")); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Publish(%q) = %v, want fs.ErrInvalid", name, err)
		}
	}
}

func testDatasetReads(t *testing.T, s kv.Store) {
	ctx := t.Context()
	_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "crops"}, func(w *kv.Writer) error {
		for _, sk := range []string{"2023#WHEAT", "2024#BARLEY", "2024#CANOLA", "2025#PEAS"} {
			if err := w.PutRaw("QS#NW-1-2-3-W4", sk, []byte(sk)); err != nil {
				return err
			}
		}
		if w.Len() != 4 {
			t.Errorf("Writer.Len = %d, want 4", w.Len())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	d := open(t, s, "crops")
	it, ok, err := d.Get(ctx, "QS#NW-1-2-3-W4", "2024#CANOLA")
	if want := (kv.Item{PK: "QS#NW-1-2-3-W4", SK: "2024#CANOLA", Data: []byte("2024#CANOLA")}); err != nil || !ok || !cmp.Equal(want, it) {
		t.Errorf("Dataset.Get = %+v, %v, %v; want %+v", it, ok, err, want)
	}
	if _, ok, err := d.Get(ctx, "QS#NW-1-2-3-W4", "2024#OATS"); ok || err != nil {
		t.Errorf("Dataset.Get(missing) = %v, %v", ok, err)
	}
	page, err := d.Query(ctx, kv.Query{PK: "QS#NW-1-2-3-W4", SKPrefix: "2024#", Reverse: true, Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Items[0].PK != "QS#NW-1-2-3-W4" || page.Items[0].SK != "2024#CANOLA" || page.Next != "2024#CANOLA" {
		t.Errorf("Dataset.Query = %+v, %v; want 2024#CANOLA and a cursor", page, err)
	}
	page, err = d.Query(ctx, kv.Query{PK: "QS#NW-1-2-3-W4", SKPrefix: "2024#", Reverse: true, Limit: 1, After: page.Next})
	if err != nil || len(page.Items) != 1 || page.Items[0].SK != "2024#BARLEY" || page.Next != "" {
		t.Errorf("Dataset.Query page 2 = %+v, %v; want 2024#BARLEY, the last", page, err)
	}
	if _, err := d.Query(ctx, kv.Query{}); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Dataset.Query without PK = %v, want fs.ErrInvalid", err)
	}
	var zero kv.Dataset
	if _, _, err := zero.Get(ctx, "a", "b"); err == nil {
		t.Errorf("Get on a zero Dataset succeeded")
	}
}

// testConcurrentPublish runs readers while a dataset is republished: each
// read sees one version's items only, and a read with fewer items than a
// version has happens only when that version was replaced meanwhile.
func testConcurrentPublish(t *testing.T, s kv.Store) {
	const n, rounds, readers = 150, 4, 4
	pks := []string{"R#1", "R#2"}
	publish(t, s, "live", 0, n, pks...)
	var done atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			for i := 0; !done.Load() || i < 3; i++ {
				d, ok, err := kv.Open(t.Context(), s, "live")
				if err != nil || !ok {
					t.Errorf("reader %d: Open = %v, %v", r, ok, err)
					return
				}
				pk := pks[i%len(pks)]
				page, err := d.Query(t.Context(), kv.Query{PK: pk})
				if err != nil {
					t.Errorf("reader %d: Query: %v", r, err)
					return
				}
				g := map[int]int{}
				for _, it := range page.Items {
					var rec record
					if err := json.Unmarshal(it.Data, &rec); err != nil {
						t.Errorf("reader %d: %v", r, err)
						return
					}
					g[rec.Gen]++
				}
				if len(g) > 1 {
					t.Errorf("reader %d: one query saw generations %v", r, g)
				}
				if len(page.Items) < n {
					if d2, _, err := kv.Open(t.Context(), s, "live"); err == nil && d2.Version == d.Version {
						t.Errorf("reader %d: version %d, still served, shows %d of %d items in %s", r, d.Version, len(page.Items), n, pk)
					}
				}
				reads.Add(1)
			}
		})
	}
	for gen := 1; gen <= rounds; gen++ {
		publish(t, s, "live", gen, n, pks...)
	}
	done.Store(true)
	wg.Wait()
	checkServes(t, s, "live", rounds, n, pks...)
	t.Logf("%d reads during %d publishes", reads.Load(), rounds)
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
