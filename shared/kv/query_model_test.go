package kv_test

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/kv"
)

// TestQueryModel compares Query on Mem and Bolt with a brute-force model
// on random sort keys and random queries, cursors that are no stored key
// included (DynamoDB accepts those; minidyn does not, so it is left out).
func TestQueryModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	alphabet := []string{"a", "b", "#", "-", "0", "z", "é"}
	word := func() string {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	var stored []string
	seen := map[string]bool{}
	for len(stored) < 300 {
		if w := word(); !seen[w] {
			seen[w] = true
			stored = append(stored, w)
		}
	}
	slices.Sort(stored)
	var items []kv.Item
	for _, sk := range stored {
		items = append(items, kv.Item{PK: "M", SK: sk, Data: []byte(sk)}, kv.Item{PK: "M2", SK: sk})
	}
	stores := map[string]kv.Store{
		"Mem":  kv.NewMem(),
		"Bolt": openBolt(t, filepath.Join(t.TempDir(), "model.db"), kv.BoltOptions{}),
	}
	for _, s := range stores {
		if err := s.Put(t.Context(), items); err != nil {
			t.Fatal(err)
		}
	}
	for range 2000 {
		q := kv.Query{PK: "M", Reverse: r.IntN(2) == 0, Limit: r.IntN(12)}
		switch r.IntN(4) {
		case 0:
			q.SKPrefix = word()
		case 1:
			q.SKFrom, q.SKTo = word(), word()
		case 2:
			q.SKFrom = word()
		case 3:
			q.SKTo = word()
		}
		if r.IntN(2) == 0 {
			q.After = word()
		}
		want := model(stored, q)
		for name, s := range stores {
			page, err := s.Query(t.Context(), q)
			if err != nil {
				t.Fatalf("%s: Query(%+v): %v", name, q, err)
			}
			var got []string
			for _, it := range page.Items {
				got = append(got, it.SK)
			}
			if diff := cmp.Diff(want, page, cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
				t.Fatalf("%s: Query(%+v) = %q, Next %q (-want +got):\n%s", name, q, got, page.Next, diff)
			}
		}
		// View walks every item Query would page through (Limit ignored),
		// and stops where its function says.
		all := q
		all.Limit = len(stored) + 1
		wantAll := model(stored, all).Items
		stop := r.IntN(len(wantAll) + 1)
		var seen []string
		err := stores["Bolt"].(kv.Viewer).View(t.Context(), q, func(sk string, data []byte) error {
			if sk != string(data) {
				t.Fatalf("View(%+v): %q holds %q", q, sk, data)
			}
			if len(seen) == stop {
				return kv.ErrStopView
			}
			seen = append(seen, strings.Clone(sk))
			return nil
		})
		var wantSeen []string
		for _, it := range wantAll[:stop] {
			wantSeen = append(wantSeen, it.SK)
		}
		if err != nil || !slices.Equal(seen, wantSeen) {
			t.Fatalf("View(%+v) stopped after %d: %q, %v; want %q", q, stop, seen, err, wantSeen)
		}
	}
}

// model answers q by filtering and sorting all sort keys.
func model(stored []string, q kv.Query) kv.Page {
	var sel []string
	for _, sk := range stored {
		in := strings.HasPrefix(sk, q.SKPrefix)
		if q.SKFrom != "" || q.SKTo != "" {
			in = (q.SKFrom == "" || sk >= q.SKFrom) && (q.SKTo == "" || sk <= q.SKTo)
		}
		if q.After != "" && (!q.Reverse && sk <= q.After || q.Reverse && sk >= q.After) {
			in = false
		}
		if in {
			sel = append(sel, sk)
		}
	}
	if q.Reverse {
		slices.Reverse(sel)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = kv.DefaultLimit
	}
	var page kv.Page
	for i, sk := range sel {
		if i == limit {
			page.Next = sel[i-1]
			break
		}
		page.Items = append(page.Items, kv.Item{PK: "M", SK: sk, Data: []byte(sk)})
	}
	return page
}

// An error of View's function is returned as it is: it is the caller's,
// not a store failure (503).
func TestViewReturnsFunctionError(t *testing.T) {
	s := openBolt(t, filepath.Join(t.TempDir(), "v.db"), kv.BoltOptions{})
	if err := s.Put(t.Context(), []kv.Item{{PK: "P", SK: "a", Data: []byte("1")}, {PK: "P", SK: "b", Data: []byte("2")}}); err != nil {
		t.Fatal(err)
	}
	mine := errors.New("mine")
	n := 0
	err := s.View(t.Context(), kv.Query{PK: "P"}, func(string, []byte) error { n++; return mine })
	if err != mine || n != 1 {
		t.Fatalf("View = %v after %d items, want the function's own error after 1", err, n)
	}
}
