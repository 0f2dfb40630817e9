package kv

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestPrefixEnd(t *testing.T) {
	tests := []struct {
		p, want string
		ok      bool
	}{
		{"a", "b", true},
		{"2024#", "2024$", true},
		{"a\xff", "b", true},
		{"a\xff\xff", "b", true},
		{"\xff", "", false},
		{"é", "é"[:1] + "\xaa", true},
	}
	for _, tc := range tests {
		got, ok := prefixEnd(tc.p)
		if got != tc.want || ok != tc.ok {
			t.Errorf("prefixEnd(%q) = %q, %v; want %q, %v", tc.p, got, ok, tc.want, tc.ok)
		}
	}
}

func TestQueryBounds(t *testing.T) {
	tests := []struct {
		name      string
		q         Query
		want      bounds
		afterUsed bool
		empty     bool
	}{
		{"all", Query{}, bounds{}, false, false},
		{"prefix", Query{SKPrefix: "ab"}, bounds{lo: "ab", hasLo: true, hi: "ac", hasHi: true, hiExcl: true}, false, false},
		{"range", Query{SKFrom: "a", SKTo: "c"}, bounds{lo: "a", hasLo: true, hi: "c", hasHi: true}, false, false},
		{"range wins over prefix", Query{SKPrefix: "x", SKTo: "c"}, bounds{hi: "c", hasHi: true}, false, false},
		{"inverted range", Query{SKFrom: "c", SKTo: "a"}, bounds{lo: "c", hasLo: true, hi: "a", hasHi: true}, false, true},
		{"after in prefix", Query{SKPrefix: "ab", After: "ab1"}, bounds{lo: "ab1", hasLo: true, loExcl: true, hi: "ac", hasHi: true, hiExcl: true}, true, false},
		{"after before prefix", Query{SKPrefix: "ab", After: "aa"}, bounds{lo: "ab", hasLo: true, hi: "ac", hasHi: true, hiExcl: true}, false, false},
		{"after past prefix", Query{SKPrefix: "ab", After: "ac"}, bounds{lo: "ac", hasLo: true, loExcl: true, hi: "ac", hasHi: true, hiExcl: true}, true, true},
		{"reverse after in prefix", Query{SKPrefix: "ab", After: "ab1", Reverse: true}, bounds{lo: "ab", hasLo: true, hi: "ab1", hasHi: true, hiExcl: true}, true, false},
		{"reverse after beyond prefix", Query{SKPrefix: "ab", After: "b", Reverse: true}, bounds{lo: "ab", hasLo: true, hi: "ac", hasHi: true, hiExcl: true}, false, false},
		{"reverse after below prefix", Query{SKPrefix: "ab", After: "ab", Reverse: true}, bounds{lo: "ab", hasLo: true, hi: "ab", hasHi: true, hiExcl: true}, true, true},
		{"reverse after at range end", Query{SKFrom: "a", SKTo: "c", After: "c", Reverse: true}, bounds{lo: "a", hasLo: true, hi: "c", hasHi: true, hiExcl: true}, true, false},
	}
	for _, tc := range tests {
		got, afterUsed, empty := queryBounds(tc.q)
		if got != tc.want || afterUsed != tc.afterUsed || empty != tc.empty {
			t.Errorf("%s: queryBounds(%+v) = %+v, %v, %v; want %+v, %v, %v", tc.name, tc.q, got, afterUsed, empty, tc.want, tc.afterUsed, tc.empty)
		}
	}
}

// consistentLog records Query.Consistent of each query.
type consistentLog struct {
	Store
	got []bool
}

func (c *consistentLog) Query(ctx context.Context, q Query) (Page, error) {
	c.got = append(c.got, q.Consistent)
	return c.Store.Query(ctx, q)
}

func (c *consistentLog) Get(ctx context.Context, pk, sk string) (Item, bool, error) {
	c.got = append(c.got, ConsistentRead(ctx))
	return c.Store.Get(ctx, pk, sk)
}

// A Dataset asks for consistent reads during SettleWindow after its
// version's flip, and not after.
func TestDatasetSettles(t *testing.T) {
	ctx := t.Context()
	log := &consistentLog{Store: NewMem()}
	if _, err := Publish(ctx, log, DatasetInfo{Name: "d"}, func(w *Writer) error { return w.Put("P", "s", 1) }); err != nil {
		t.Fatal(err)
	}
	d, _, err := Open(ctx, log, "d")
	if err != nil {
		t.Fatal(err)
	}
	log.got = nil
	d.Query(ctx, Query{PK: "P"})
	d.Get(ctx, "P", "s")
	d.Published = d.Published.Add(-SettleWindow - time.Second)
	d.Query(ctx, Query{PK: "P"})
	d.Get(ctx, "P", "s")
	if want := []bool{true, true, false, false}; !slices.Equal(log.got, want) {
		t.Errorf("consistent reads of Query, Get fresh, then settled = %v; want %v", log.got, want)
	}
}

func TestKeyVersion(t *testing.T) {
	for _, tc := range []struct {
		pk   string
		want Version
		ok   bool
	}{
		{"wells@12#LSD#1", 12, true},
		{"wells@1#", 1, true},
		{"wells@x#A", 0, false},
		{"wells@0#A", 0, false},
		{"wells@12", 0, false},
		{"other@3#A", 0, false},
	} {
		if got, ok := keyVersion(tc.pk, "wells@"); got != tc.want || ok != tc.ok {
			t.Errorf("keyVersion(%q) = %d, %v; want %d, %v", tc.pk, got, ok, tc.want, tc.ok)
		}
	}
}
