package datalayers

import (
	"strings"
	"testing"

	"github.com/paulmach/orb"
)

// TestSpoolRecordRoundTrip: a record decodes to the feature spooled, and
// every truncation or corruption of it is an error, never a panic.
func TestSpoolRecordRoundTrip(t *testing.T) {
	sp, err := newSpool(t.TempDir(), "test", 9, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	g := orb.Polygon{{{-113.5, 53.5}, {-113.4, 53.5}, {-113.4, 53.6}, {-113.5, 53.5}}}
	f := feature{geom: g, bound: g.Bound(), keys: []string{"a", "b", "c", "d", "e"}, vals: []any{1, 2.5, "x", true, nil}}
	if err := sp.add("l", "a b c d e", f); err != nil {
		t.Fatal(err)
	}
	l := sp.layers["l"]
	rec := append([]byte(nil), sp.rec...)
	got, err := decodeRecord(l, rec, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.seq != 0 || got.bound != f.bound || !orb.Equal(got.geom, g) || len(got.vals) != 5 ||
		got.vals[0] != 1 || got.vals[1] != 2.5 || got.vals[2] != "x" || got.vals[3] != true || got.vals[4] != nil {
		t.Errorf("decodeRecord = %+v, want %+v", got, f)
	}
	for n := range len(rec) {
		if _, err := decodeRecord(l, rec[:n], true); err == nil {
			t.Errorf("decodeRecord of %d of %d bytes: no error", n, len(rec))
		}
	}
	for i := range rec {
		bad := append([]byte(nil), rec...)
		bad[i] ^= 0xff
		decodeRecord(l, bad, true) // must not panic
	}
}

func TestSpoolRefusesUnknownValues(t *testing.T) {
	sp, err := newSpool(t.TempDir(), "test", 9, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	f := feature{geom: orb.Point{-110, 50}, bound: orb.Point{-110, 50}.Bound(), keys: []string{"a"}, vals: []any{[]int{1}}}
	err = sp.add("l", "a", f)
	if err == nil || !strings.Contains(err.Error(), "[]int") {
		t.Errorf("add of a []int property: %v, want an error naming the type", err)
	}
}
