package gridindex

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// blockOf encodes records as the writer does a block (sorted by key).
func blockOf(t *testing.T, recs []Record) []byte {
	t.Helper()
	var e encoder
	e.uvarint(uint64(len(recs)))
	for i := range recs {
		encodeRecord(&e, &recs[i])
	}
	return e.b
}

func parse(t *testing.T, s string) lld.Location {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The scan of a block gives each record the key, box and centroid that
// decoding it gives, without decoding: polygons (the box is the outer
// ring's, not a hole's), multipolygons (the union of the parts) and
// centroid-only records.
func TestScanBlockMatchesDecode(t *testing.T) {
	t.Parallel()
	square := func(x, y, w float64) orb.Ring {
		return orb.Ring{{x, y}, {x + w, y}, {x + w, y + w}, {x, y + w}, {x, y}}
	}
	recs := []Record{
		{Location: parse(t, "1-1-1-1-W5"), Province: survey.AB, Geometry: orb.Polygon{square(-114.1, 51.0, 0.01)}, Centroid: orb.Point{-114.095, 51.005}, AccuracyM: 5},
		{Location: parse(t, "2-1-1-1-W5"), Province: survey.AB, Geometry: orb.Polygon{square(-114.1, 51.0, 0.01), square(-114.2, 50.0, 0.5)}, Centroid: orb.Point{-114.095, 51.005}, AccuracyM: 5}, // a "hole" outside: not in the box
		{Location: parse(t, "3-1-1-1-W5"), Province: survey.AB, Geometry: orb.MultiPolygon{{square(-114.3, 51.2, 0.01)}, {square(-113.9, 50.9, 0.02)}}, Centroid: orb.Point{-114.1, 51.1}, AccuracyM: 7.5},
		{Location: parse(t, "4-1-1-1-W5"), Province: survey.AB, Centroid: orb.Point{-114.123_456_7, 51.234_567_8}, HasCentroid: true, AccuracyM: 1},
	}
	p, err := scanBlock(blockOf(t, recs))
	if err != nil {
		t.Fatal(err)
	}
	if p.len() != len(recs) {
		t.Fatalf("scanBlock: %d records, want %d", p.len(), len(recs))
	}
	for i := range recs {
		got, err := p.record(i)
		if err != nil {
			t.Fatal(err)
		}
		if want := got.Location.String(); p.key(i) != want {
			t.Errorf("key %d = %q, want %q", i, p.key(i), want)
		}
		want := recordBound(&got)
		if p.bounds[i].bound() != want {
			t.Errorf("%s: bound %v, want %v (decoded)", got.Location, p.bounds[i].bound(), want)
		}
		// The box's own test agrees with orb's on the decoded bound at
		// its corners, its centre and a hair outside each side.
		eps := 1e-9
		for _, pt := range []orb.Point{want.Min, want.Max, {want.Min[0], want.Max[1]}, want.Center(),
			{want.Min[0] - eps, want.Min[1]}, {want.Max[0] + eps, want.Max[1]}, {want.Min[0], want.Min[1] - eps}, {want.Max[0], want.Max[1] + eps},
			{math.NaN(), want.Min[1]}, {want.Min[0], math.NaN()}} {
			if got, want := p.bounds[i].contains(pt), want.Contains(pt); got != want {
				t.Errorf("%s: box contains %v = %v, orb says %v", recs[i].Location, pt, got, want)
			}
		}
		if c, err := p.centroid(i); err != nil || c != got.Centroid {
			t.Errorf("%s: centroid %v (%v), want %v (decoded)", got.Location, c, err, got.Centroid)
		}
		if got.Location != recs[i].Location {
			t.Errorf("record %d = %s, want %s", i, got.Location, recs[i].Location)
		}
	}
	if i, ok := p.find("3-1-1-1-W5"); !ok || i != 2 {
		t.Errorf(`find("3-1-1-1-W5") = %d, %v; want 2, true`, i, ok)
	}
	if _, ok := p.find("5-1-1-1-W5"); ok {
		t.Error(`find("5-1-1-1-W5") found a record the block lacks`)
	}
}

// A damaged block is an error from the scan, never a panic or a block.
func TestScanBlockCorrupt(t *testing.T) {
	t.Parallel()
	raw := blockOf(t, []Record{
		{Location: parse(t, "1-1-1-1-W5"), Geometry: orb.Polygon{{{-114, 51}, {-113.99, 51}, {-113.99, 51.01}, {-114, 51}}}},
		{Location: parse(t, "2-1-1-1-W5"), Geometry: orb.Polygon{{{-114, 51}, {-113.99, 51}, {-113.99, 51.01}, {-114, 51}}}},
	})
	for n := range len(raw) - 1 {
		if p, err := scanBlock(raw[:n]); err == nil {
			t.Errorf("scanBlock(first %d of %d bytes) = %d records, want an error", n, len(raw), p.len())
		}
	}
	extra := append(append([]byte(nil), raw...), 0)
	if _, err := scanBlock(extra); err == nil {
		t.Error("scanBlock with a trailing byte: want an error")
	}
	unsorted := blockOf(t, []Record{{Location: parse(t, "2-1-1-1-W5")}, {Location: parse(t, "1-1-1-1-W5")}})
	if _, err := scanBlock(unsorted); err == nil {
		t.Error("scanBlock of records out of key order: want an error")
	}
}

// FuzzScanBlock: whatever bytes a block inflates to, scanning and then
// reading every record of it returns errors, never panics.
func FuzzScanBlock(f *testing.F) {
	square := orb.Ring{{-114, 51}, {-113.99, 51}, {-113.99, 51.01}, {-114, 51.01}, {-114, 51}}
	var e encoder
	e.uvarint(2)
	for _, r := range []Record{
		{Location: lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W5, Range: 1, Township: 1, Section: 1, LSD: 1}, Geometry: orb.Polygon{square}},
		{Location: lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W5, Range: 1, Township: 1, Section: 1, LSD: 2}, Geometry: orb.MultiPolygon{{square}, {square}}},
	} {
		encodeRecord(&e, &r)
	}
	f.Add(e.b)
	f.Add(e.b[:len(e.b)/2])
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := scanBlock(raw)
		if err != nil {
			return
		}
		for i := range p.len() {
			r, err := p.record(i)
			if j, ok := p.find(p.key(i)); !ok || p.key(j) != p.key(i) {
				t.Fatalf("find(key(%d)) = %d, %v", i, j, ok)
			}
			if err == nil && r.Location.System == lld.DLS {
				p.recordOf(i, r.Location)
			}
			var scratch []orb.Point
			p.contains(i, orb.Point{-113.995, 51.005}, &scratch)
		}
		p.kindsOf()
	})
}

// decodedContains is what Containing answered before it tested points on
// the encoded rings: orb's planar test on the decoded geometry.
func decodedContains(g orb.Geometry, pt orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return planar.PolygonContains(g, pt)
	case orb.MultiPolygon:
		return planar.MultiPolygonContains(g, pt)
	}
	return false
}

// block.contains answers what planar.PolygonContains on the decoded record
// answers, for polygons with and without holes, multipolygons, a
// triangle, records without a polygon, and points inside, outside, on
// edges and on vertices (the boundary counts as inside).
func TestBlockContainsMatchesDecoded(t *testing.T) {
	t.Parallel()
	square := func(x, y, w float64) orb.Ring {
		return orb.Ring{{x, y}, {x + w, y}, {x + w, y + w}, {x, y + w}, {x, y}}
	}
	recs := []Record{
		{Location: parse(t, "1-1-1-1-W5"), Geometry: orb.Polygon{square(-114.1, 51.0, 0.04)}, Centroid: orb.Point{-114.08, 51.02}},
		{Location: parse(t, "2-1-1-1-W5"), Geometry: orb.Polygon{square(-114.1, 51.0, 0.04), square(-114.09, 51.01, 0.01)}, Centroid: orb.Point{-114.08, 51.02}},
		{Location: parse(t, "3-1-1-1-W5"), Geometry: orb.MultiPolygon{{square(-114.1, 51.0, 0.01)}, {square(-114.07, 51.03, 0.02), square(-114.065, 51.035, 0.005)}}, Centroid: orb.Point{-114.08, 51.02}},
		{Location: parse(t, "4-1-1-1-W5"), Geometry: orb.Polygon{{{-114.1, 51.0}, {-114.06, 51.0}, {-114.1, 51.04}, {-114.1, 51.0}}}, Centroid: orb.Point{-114.09, 51.01}},
		{Location: parse(t, "5-1-1-1-W5"), Centroid: orb.Point{-114.08, 51.02}, HasCentroid: true},
	}
	p, err := scanBlock(blockOf(t, recs))
	if err != nil {
		t.Fatal(err)
	}
	var pts []orb.Point
	for i := range 21 { // a lattice through edges and vertices
		for j := range 21 {
			pts = append(pts, orb.Point{-114.105 + float64(i)*0.0025, 50.995 + float64(j)*0.0025})
		}
	}
	decoded := make([]Record, len(recs))
	for i := range recs {
		if decoded[i], err = p.record(i); err != nil {
			t.Fatal(err)
		}
		if g := decoded[i].Geometry; g != nil {
			pts = append(pts, g.Bound().ToRing()...) // every corner of every box, exactly
		}
	}
	var scratch []orb.Point
	ins := 0
	for i, r := range decoded {
		for _, pt := range pts {
			want := r.Geometry != nil && decodedContains(r.Geometry, pt)
			got, err := p.contains(i, pt, &scratch)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("record %s, point %v: contains %v, the decoded polygon says %v", r.Location, pt, got, want)
			}
			if got {
				ins++
			}
		}
	}
	if ins == 0 || ins == len(recs)*len(pts) {
		t.Fatalf("%d of %d answers inside: the points do not test both sides", ins, len(recs)*len(pts))
	}
}

// A block whose coordinates do not fit the format's int32 (the writer
// never makes one: every coordinate goes through e7) is corrupt, for a
// centroid-only record and for a ring that walks out of range.
func TestScanBlockRejectsCoordinatesBeyondInt32(t *testing.T) {
	t.Parallel()
	for name, geom := range map[string]bool{"centroid": false, "ring": true} {
		var e encoder
		e.uvarint(1)
		e.str("1-1-1-1-W5")
		e.byte1(byte(survey.AB))
		cx := int64(-1_141_000_000)
		if geom {
			e.byte1(flagGeometry)
		} else {
			e.byte1(0)
			cx = 1 << 40
		}
		e.varint(cx)
		e.varint(510_000_000)
		e.uvarint(50)
		if geom {
			e.uvarint(1) // one ring of three points, the second far west of int32
			e.uvarint(3)
			for _, dx := range []int64{0, -2_000_000_000, 2_000_000_000} {
				e.varint(dx)
				e.varint(0)
			}
		}
		if _, err := scanBlock(e.b); err != errCorrupt {
			t.Errorf("%s: scanBlock = %v, want errCorrupt", name, err)
		}
	}
}

// A DLS block finds a record by its place as find does by its key: for a
// township's block (the township and its sections) and a section's (its
// quarters and LSDs, sorted by key as the writer sorts them), every
// record, and nothing for a place the block lacks or a key of another
// township. A block mixing two sections, or holding a half section, has
// no places and finds by key.
func TestFindDLSMatchesFind(t *testing.T) {
	t.Parallel()
	rec := func(s string) Record {
		return Record{Location: parse(t, s), Province: survey.AB, Centroid: orb.Point{-114.1, 51.0}, HasCentroid: true, AccuracyM: 5}
	}
	sorted := func(names []string) []Record {
		slices.Sort(names)
		var recs []Record
		for _, n := range names {
			recs = append(recs, rec(n))
		}
		return recs
	}
	twp := []string{"24-1-W5"}
	for s := 1; s <= 36; s++ {
		if s != 17 { // a section the township lacks
			twp = append(twp, fmt.Sprintf("%d-24-1-W5", s))
		}
	}
	sec := []string{"NE-10-24-1-W5", "NW-10-24-1-W5", "SW-10-24-1-W5"} // no SE
	for v := 1; v <= 16; v++ {
		if v != 9 {
			sec = append(sec, fmt.Sprintf("%d-10-24-1-W5", v))
		}
	}
	for _, tc := range []struct {
		name   string
		names  []string
		placed bool
		absent []string
	}{
		{"township", twp, true, []string{"17-24-1-W5", "17-24-2-W5", "10-24-2-W5", "24-2-W5"}},
		{"section", sec, true, []string{"SE-10-24-1-W5", "9-10-24-1-W5", "NE-11-24-1-W5", "6-10-25-1-W5", "N-10-24-1-W5"}},
		{"two sections", append(slices.Clone(sec), "NE-11-24-1-W5"), false, []string{"SE-10-24-1-W5"}},
		{"a half section", append(slices.Clone(sec), "S-10-24-1-W5"), false, []string{"SE-10-24-1-W5"}},
	} {
		p, err := scanBlock(blockOf(t, sorted(slices.Clone(tc.names))))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.placed; got != tc.placed {
			t.Errorf("%s: places %v, want %v", tc.name, got, tc.placed)
		}
		for _, n := range append(slices.Clone(tc.names), tc.absent...) {
			l := parse(t, n)
			wi, wok := p.find(n)
			gi, gok := p.findDLS(l, n)
			if gok != wok || gok && gi != wi {
				t.Errorf("%s: findDLS(%s) = %d, %v; find: %d, %v", tc.name, n, gi, gok, wi, wok)
			}
			if want := slices.Contains(tc.names, n); gok != want {
				t.Errorf("%s: findDLS(%s) found %v, want %v", tc.name, n, gok, want)
			}
		}
	}
	// Every DLS unit with a place has the place its key gives.
	for _, n := range []string{"24-1-W5", "1-24-1-W5", "36-126-34-W6", "NE-1-1-1-W1", "SE-36-24-1-E2", "1-1-1-1-W4", "16-36-126-34-W6"} {
		l := parse(t, n)
		want, ok := dlsPlace(l)
		got, _, kok := keyPlace(l.String())
		if !ok || !kok || got != want {
			t.Errorf("%s: place %d (%v) by its location, %d (%v) by its key", n, want, ok, got, kok)
		}
	}
}
