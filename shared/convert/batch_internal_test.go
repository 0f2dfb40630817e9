package convert

import (
	"encoding/json"
	"sync/atomic"
	"testing"
)

// TestPlainString checks the batch's fast path against json.Unmarshal: it
// takes the plain strings, and leaves escapes, non-ASCII and non-strings to
// json.
func TestPlainString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw    string
		wantOK bool
	}{
		{`"NW-25-24-1-W5"`, true},
		{`""`, true},
		{`"A-2-F/93-P-11"`, true},
		{`"NW\u002d25"`, false},
		{`"a\"b"`, false},
		{`"é"`, false},
		{"\"\xff\"", false},
		{"\"a\tb\"", false},
		{`12`, false},
		{`null`, false},
		{`"`, false},
		{`["x"]`, false},
	} {
		got, ok := plainString([]byte(tc.raw))
		if ok != tc.wantOK {
			t.Errorf("plainString(%s) ok = %v, want %v", tc.raw, ok, tc.wantOK)
			continue
		}
		if !ok {
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(tc.raw), &want); err != nil || got != want {
			t.Errorf("plainString(%s) = %q; json.Unmarshal = %q, %v", tc.raw, got, want, err)
		}
	}
}

// FuzzPlainString: whatever plainString accepts, json.Unmarshal reads as
// the same string.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"NW-25-24-1-W5"`, `"a\"b"`, `"é"`, "\"\xff\"", `12`, `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := plainString(raw)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil || got != want {
			t.Fatalf("plainString(%q) = %q; json.Unmarshal = %q, %v", raw, got, want, err)
		}
	})
}

// eachConcurrently calls fn once for every index, whatever the number of
// workers, including fewer items than a worker's minimum.
func TestEachConcurrently(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 7, 8, 16, 100, 1000} {
		for _, workers := range []int{0, 1, 2, 8, 200} {
			seen := make([]atomic.Int32, n)
			eachConcurrently(n, workers, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n %d, workers %d: index %d called %d times", n, workers, i, c)
				}
			}
		}
	}
}
