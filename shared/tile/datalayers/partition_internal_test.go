package datalayers

import (
	"slices"
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

// A spool over its limit writes its largest buffers first and keeps at
// most half the limit buffered; whatever it flushed when, each partition
// reads back its records in sequence, as a spool that never flushed
// before the end.
func TestSpoolPartialFlush(t *testing.T) {
	const limit = 64 << 10
	small, err := newSpool(t.TempDir(), "test", 9, limit)
	if err != nil {
		t.Fatal(err)
	}
	big, err := newSpool(t.TempDir(), "test", 9, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	flushes := 0
	for i := range 5000 {
		// Uneven partitions: most records in a few zoom-9 tiles.
		x := -114.0 + float64(i%7)*0.8
		if i%3 == 0 {
			x = -113.0 + float64(i%97)*0.05
		}
		y := 50.0 + float64(i%11)*0.3
		g := orb.Polygon{{{x, y}, {x + 0.01, y}, {x + 0.01, y + 0.01}, {x, y}}}
		f := feature{geom: g, bound: g.Bound(), keys: []string{"n"}, vals: []any{i}}
		for _, sp := range []*spool{small, big} {
			before := sp.pending
			if err := sp.add("l", "n", f); err != nil {
				t.Fatal(err)
			}
			if sp == small && sp.pending < before {
				flushes++
				if sp.pending > limit/2 {
					t.Fatalf("after a flush %d bytes stay buffered, more than half the limit %d", sp.pending, limit)
				}
			}
		}
	}
	if flushes == 0 {
		t.Fatal("the small spool never flushed")
	}
	for _, sp := range []*spool{small, big} {
		if err := sp.flush(true); err != nil {
			t.Fatal(err)
		}
	}
	ls, lb := small.layers["l"], big.layers["l"]
	if len(ls.parts) != len(lb.parts) {
		t.Fatalf("%d partitions, want %d", len(ls.parts), len(lb.parts))
	}
	for p := range lb.parts {
		var a, b []uint64
		small.read(ls, p, false, func(r record) error { a = append(a, r.seq); return nil })
		big.read(lb, p, false, func(r record) error { b = append(b, r.seq); return nil })
		if !slices.Equal(a, b) || len(a) == 0 || !slices.IsSorted(a) {
			t.Fatalf("partition %v: %d records %v..., want %d in sequence", p, len(a), a[:min(5, len(a))], len(b))
		}
	}
	t.Logf("%d partial flushes, %d partitions", flushes, len(lb.parts))
}
