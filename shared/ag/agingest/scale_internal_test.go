package agingest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// TestBucketIndexNear: near returns exactly the features whose bound
// meets the box (and possibly some whose bound only shares a cell), each
// once, in ascending order; never misses one.
func TestBucketIndexNear(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	box := func(w float64) orb.Bound { return randomBox(r, w) }
	var fs []orb.Bound
	for range 2000 {
		fs = append(fs, box(0.5))
	}
	fs = append(fs, box(40), orb.Bound{}) // wide: checked on every query
	x := newBucketIndex(len(fs), func(i int) orb.Bound { return fs[i] })
	for range 500 {
		q := box(0.3)
		got := slices.Clone(x.near(q))
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("near(%v) = %v: not ascending and distinct", q, got)
		}
		for i, f := range fs {
			if f.Intersects(q) && !slices.Contains(got, i) {
				t.Fatalf("near(%v) misses feature %d %v", q, i, f)
			}
		}
	}
}

// randomBox is a box over the prairies up to w degrees wide and high.
func randomBox(r *rand.Rand, w float64) orb.Bound {
	x, y := -120+20*r.Float64(), 49+10*r.Float64()
	return orb.Bound{Min: orb.Point{x, y}, Max: orb.Point{x + w*r.Float64(), y + w*r.Float64()}}
}

// TestTally: pixels of one quarter and year read from two files add up,
// shares are recomputed, years stay apart; the packed key round-trips.
func TestTally(t *testing.T) {
	l, err := lld.Parse("NE-12-34-5-W4")
	if err != nil {
		t.Fatal(err)
	}
	if got := qloc(qkey(l)); got.String() != l.String() || qkey(got) != qkey(l) {
		t.Fatalf("qloc(qkey(%s)) = %s", l, got)
	}
	var tl []classPx
	tl = addClasses(tl, QuarterYear{Location: l, Year: 2024, Classes: []ClassShare{{Code: 153, Pixels: 300}, {Code: 146, Pixels: 100}}})
	tl = addClasses(tl, QuarterYear{Location: l, Year: 2024, Classes: []ClassShare{{Code: 146, Pixels: 100}}})
	tl = addClasses(tl, QuarterYear{Location: l, Year: 2025, Classes: []ClassShare{{Code: 146, Pixels: 7}}})
	ys := tallyYears(l, tl)
	if len(ys) != 2 || ys[0].Year != 2024 || ys[1].Year != 2025 {
		t.Fatalf("years %+v", ys)
	}
	want := []ClassShare{{Code: 146, Pixels: 200, Pct: 40}, {Code: 153, Pixels: 300, Pct: 60}}
	if !slices.Equal(ys[0].Classes, want) {
		t.Errorf("2024 = %+v, want %+v", ys[0].Classes, want)
	}
	if m, _ := ys[0].Majority(); m.Code != 153 {
		t.Errorf("majority %d", m.Code)
	}
}

// TestBucketIndexContaining: containing returns exactly the features whose
// bound holds the point, wide ones included, in ascending order.
func TestBucketIndexContaining(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	box := func(w float64) orb.Bound { return randomBox(r, w) }
	var fs []orb.Bound
	for range 2000 {
		fs = append(fs, box(1))
	}
	fs = append(fs, box(40), orb.Bound{Min: orb.Point{-130, 40}, Max: orb.Point{-90, 70}})
	x := newBucketIndex(len(fs), func(i int) orb.Bound { return fs[i] })
	hits := 0
	for range 500 {
		pt := orb.Point{-120 + 20*r.Float64(), 49 + 10*r.Float64()}
		var want []int
		for i, f := range fs {
			if f.Contains(pt) {
				want = append(want, i)
			}
		}
		if got := x.containing(pt); !slices.Equal(got, want) {
			t.Fatalf("containing(%v) = %v, want %v", pt, got, want)
		}
		hits += len(want)
	}
	if hits < 1000 {
		t.Fatalf("only %d hits over 500 points: the test checks too little", hits)
	}
}
