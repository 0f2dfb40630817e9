package kv_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"meridian/shared/kv"
)

// KeySort gives back every key once, in the store's key order (PK, then
// SK, bytewise), through spilled runs when the keys exceed its budget,
// and leaves no temporary file behind.
func TestKeySort(t *testing.T) {
	for _, budget := range []int{1 << 10, 1 << 20} {
		dir := t.TempDir()
		s := kv.NewKeySort(context.Background(), dir, budget)
		rng := rand.New(rand.NewPCG(1, 2))
		type key struct{ pk, sk string }
		var want []key
		seen := map[key]bool{}
		for i := range 5000 {
			k := key{fmt.Sprintf("P#%d", rng.IntN(7)), fmt.Sprintf("%d#%x", rng.IntN(300), i%4000)}
			if err := s.Add(k.pk, k.sk); err != nil {
				t.Fatal(err)
			}
			if !seen[k] {
				seen[k] = true
				want = append(want, k)
			}
		}
		// "P#1" < "P#1\x00..." bytewise: the PK ends before its NUL.
		slices.SortFunc(want, func(a, b key) int {
			return slices.Compare([]byte(a.pk+"\x00"+a.sk), []byte(b.pk+"\x00"+b.sk))
		})
		var got []key
		if err := s.Each(func(pk, sk string) error { got = append(got, key{pk, sk}); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("budget %d: %d keys back, want %d in order (first %v, want %v)", budget, len(got), len(want), got[:min(3, len(got))], want[:3])
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("budget %d: %d files left in the sort's directory", budget, len(ents))
		}
		if err := s.Add("", "x"); err == nil {
			t.Error("an empty PK was accepted")
		}
	}
}
