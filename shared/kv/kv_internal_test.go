package kv

import "testing"

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
