package kvtest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/kv"
)

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
