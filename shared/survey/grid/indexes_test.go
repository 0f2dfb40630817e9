package grid_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
)

// rangeFile serves an index from memory; fail makes every read fail
// afterwards, as an unreachable S3 would.
type rangeFile struct {
	data []byte
	fail atomic.Bool
}

func (f *rangeFile) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if f.fail.Load() {
		return nil, errors.New("connection refused")
	}
	if off >= int64(len(f.data)) {
		return nil, nil
	}
	return f.data[off:min(off+n, int64(len(f.data)))], nil
}

func moved(p orb.Polygon, dx, dy float64) orb.Polygon {
	r := make(orb.Ring, len(p[0]))
	for i, pt := range p[0] {
		r[i] = orb.Point{pt[0] + dx, pt[1] + dy}
	}
	return orb.Polygon{r}
}

func parse(t testing.TB, s string) lld.Location {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// modelRecord is the model's block of s moved by (dx, dy): the test data
// differs from the model so answers show where they came from.
func modelRecord(t testing.TB, s string, dx, dy float64) gridindex.Record {
	t.Helper()
	b, ok := dls.Resolve(parse(t, s))
	if !ok {
		t.Fatalf("model has no %s", s)
	}
	return gridindex.Record{Location: b.Location, Province: b.Province, Geometry: moved(b.Geometry.(orb.Polygon), dx, dy), AccuracyM: 5}
}

func openIndex(t testing.TB, source string, recs []gridindex.Record) (*gridindex.Index, *rangeFile) {
	t.Helper()
	w := gridindex.NewWriter(gridindex.Meta{Name: source, Source: source}, gridindex.WriterOptions{TempDir: t.TempDir()})
	defer w.Close()
	for _, r := range recs {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	f := &rangeFile{data: buf.Bytes()}
	ix, err := gridindex.Open(context.Background(), f, source, gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ix, f
}

// indexedService has: township 24-1-W5 with all its sections and one
// quarter (NW-25) from "ats-test"; the Manitoba quarter SE-7-5-6-W1 with an
// official centroid from "mb-test"; two Ontario lots and a river lot.
func indexedService(t testing.TB) (*grid.Service, *rangeFile) {
	t.Helper()
	const dx, dy = 0.0002, -0.0001
	ab := []gridindex.Record{modelRecord(t, "24-1-W5", dx, dy), modelRecord(t, "NW-25-24-1-W5", dx, dy)}
	for s := 1; s <= 36; s++ {
		ab = append(ab, modelRecord(t, lld.Location{System: lld.DLS, Unit: lld.Section, Section: uint8(s), Township: 24, Range: 1, Meridian: lld.W5}.String(), dx, dy))
	}
	abIx, abFile := openIndex(t, "ats-test", ab)

	// The official centroid of SE-7-5-6-W1 (ground truth), and the model's
	// quarter moved onto it as its polygon.
	official := orb.Point{-98.25626, 49.373292}
	m, _ := dls.Resolve(parse(t, "SE-7-5-6-W1"))
	mbQuarter := modelRecord(t, "SE-7-5-6-W1", official[0]-m.Centroid[0], official[1]-m.Centroid[1])
	mbQuarter.Province = survey.MB
	mbCentroid := gridindex.Record{Location: mbQuarter.Location, Province: survey.MB, Centroid: official, HasCentroid: true, AccuracyM: 1}
	adj10 := gridindex.Record{Location: parse(t, "Lot 10 Con 1 Adjala"), Province: survey.ON, Geometry: survey.BoxPolygon(orb.Bound{Min: orb.Point{-79.94, 44.16}, Max: orb.Point{-79.92, 44.18}}), AccuracyM: 2}
	adj11 := gridindex.Record{Location: parse(t, "Lot 11 Con 1 Adjala"), Province: survey.ON, Geometry: survey.BoxPolygon(orb.Bound{Min: orb.Point{-79.92, 44.16}, Max: orb.Point{-79.90, 44.18}}), AccuracyM: 2}
	rl := gridindex.Record{Location: parse(t, "RL-22-St. Norbert"), Province: survey.MB, Centroid: orb.Point{-97.142269, 49.678794}, HasCentroid: true, AccuracyM: 1}
	mbIx, _ := openIndex(t, "mb-test", []gridindex.Record{mbQuarter, mbCentroid, adj10, adj11, rl})

	svc := grid.New()
	svc.SetIndexes([]*gridindex.Index{abIx, mbIx})
	return svc, abFile
}

func TestSearchUsesIndexes(t *testing.T) {
	t.Parallel()
	svc, _ := indexedService(t)
	ctx := context.Background()
	tests := []struct {
		in, legal, source, province string
		geometry                    bool
	}{
		{"NW-25-24-1-W5", "NW-25-24-1-W5", "ats-test", "AB", true},
		{"25-24-1-W5", "25-24-1-W5", "ats-test", "AB", true},
		{"SE-25-24-1-W5", "SE-25-24-1-W5", "ats-test (subdivided)", "AB", true},
		{"10-25-24-1-W5", "10-25-24-1-W5", "ats-test (subdivided)", "AB", true},
		{"12-25-24-1-W5", "12-25-24-1-W5", "ats-test (subdivided)", "AB", true},
		{"NW-25-25-1-W5", "NW-25-25-1-W5", "model", "AB", true},
		{"SE-7-5-6W1", "SE-7-5-6-W1", "mb-test", "MB", true},
		{"1-7-5-6-W1", "1-7-5-6-W1", "mb-test (subdivided)", "MB", true},
		{"Lot 10, Concession I, Township of Adjala", "Lot 10 Con 1 Adjala", "mb-test", "ON", true},
		{"River Lot 22, Parish of St Norbert", "RL-22-St. Norbert", "mb-test", "MB", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			b, err := svc.Search(ctx, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if b.Location.String() != tc.legal || b.Source != tc.source || b.Province.Code() != tc.province || (b.Geometry != nil) != tc.geometry {
				t.Errorf("Search(%q) = %s from %q in %s, geometry %v", tc.in, b.Location, b.Source, b.Province.Code(), b.Geometry != nil)
			}
			if b.Geometry != nil && !planar.PolygonContains(b.Geometry.(orb.Polygon), b.Centroid) {
				t.Errorf("centroid %v outside the polygon", b.Centroid)
			}
		})
	}
	// The official Manitoba centroid answers, not the model's.
	b, _ := svc.Search(ctx, "SE-7-5-6-W1")
	if b.Centroid != (orb.Point{-98.25626, 49.373292}) || b.AccuracyM != 5 {
		t.Errorf("SE-7-5-6-W1 centroid %v accuracy %v, want the official centroid", b.Centroid, b.AccuracyM)
	}
	// A subdivided LSD lies in its indexed quarter and is one sixteenth of
	// the section.
	lsd, _ := svc.Search(ctx, "12-25-24-1-W5")
	q, _ := svc.Search(ctx, "NW-25-24-1-W5")
	sec, _ := svc.Search(ctx, "25-24-1-W5")
	if !planar.PolygonContains(q.Geometry.(orb.Polygon), lsd.Centroid) {
		t.Errorf("LSD 12 centroid %v is not in NW-25", lsd.Centroid)
	}
	if r := planar.Area(lsd.Geometry) / planar.Area(sec.Geometry); math.Abs(r-1.0/16) > 0.01 {
		t.Errorf("LSD area is %.4f of the section, want 1/16", r)
	}
	for _, in := range []string{"Lot 12 Con 1 Adjala", "RL-99-St. Norbert"} {
		_, err := svc.Search(ctx, in)
		if e := apierr.As(err); e == nil || e.Code != "not_found" || !strings.Contains(e.Message, "loaded here has no") {
			t.Errorf("Search(%q) = %v, want not_found naming the loaded data", in, err)
		}
	}
}

func TestReverseUsesIndexes(t *testing.T) {
	t.Parallel()
	svc, _ := indexedService(t)
	ctx := context.Background()
	// The middle of NW-25-24-1-W5 as indexed.
	q, _ := svc.Search(ctx, "NW-25-24-1-W5")
	pt := q.Centroid
	blocks, err := svc.Reverse(ctx, grid.ReverseQuery{Point: pt, All: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ unit, source string }{{"Township", "ats-test"}, {"Section", "ats-test"}, {"Quarter Section", "ats-test"}, {"LSD", "ats-test (subdivided)"}}
	for i, b := range blocks {
		if b.Location.Unit.String() != want[i].unit || b.Source != want[i].source {
			t.Errorf("block %d = %s %s from %q, want %+v", i, b.Location.Unit, b.Location, b.Source, want[i])
		}
		if !planar.PolygonContains(b.Geometry.(orb.Polygon), pt) {
			t.Errorf("%s does not contain %v", b.Location, pt)
		}
	}
	// Ontario and river lots without a system.
	for _, tc := range []struct {
		pt    orb.Point
		q     grid.ReverseQuery
		legal string
	}{
		{orb.Point{-79.93, 44.17}, grid.ReverseQuery{}, "Lot 10 Con 1 Adjala"},
		{orb.Point{-79.91, 44.17}, grid.ReverseQuery{System: lld.GeoTownship, Unit: lld.Lot}, "Lot 11 Con 1 Adjala"},
		{orb.Point{-97.1430, 49.6785}, grid.ReverseQuery{}, "RL-22-St. Norbert"},
		{orb.Point{-97.1430, 49.6785}, grid.ReverseQuery{Unit: lld.RiverParishLot}, "RL-22-St. Norbert"},
	} {
		tc.q.Point = tc.pt
		got, err := svc.Reverse(ctx, tc.q)
		if err != nil || len(got) != 1 || got[0].Location.String() != tc.legal {
			t.Errorf("Reverse(%v) = %v, %v, want %s", tc.q, got, err, tc.legal)
		}
	}
	// Away from every index the model answers.
	got, err := svc.Reverse(ctx, grid.ReverseQuery{Point: orb.Point{-113.5, 53.5}})
	if err != nil || got[0].Source != "model" {
		t.Errorf("Reverse near Edmonton = %v, %v, want the model", got, err)
	}
}

// A grid index that cannot be read is the API's 503 upstream_unavailable,
// never a not-found: the answer exists, the store is down.
func TestIndexUnavailable(t *testing.T) {
	t.Parallel()
	svc, f := indexedService(t)
	f.fail.Store(true)
	ctx := context.Background()
	_, searchErr := svc.Search(ctx, "NW-24-24-1-W5")
	_, reverseErr := svc.Reverse(ctx, grid.ReverseQuery{Point: orb.Point{-114.02, 51.04}})
	for name, err := range map[string]error{"Search": searchErr, "Reverse": reverseErr} {
		if e := apierr.As(err); e == nil || e.Kind != apierr.Unavailable || e.Code != "upstream_unavailable" {
			t.Errorf("%s with the index store down: %v, want upstream_unavailable", name, err)
		}
	}
}

func TestAutocompleteLots(t *testing.T) {
	t.Parallel()
	svc, _ := indexedService(t)
	ctx := context.Background()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Lot 1 Con 1 Adj", []string{"Lot 11 Con 1 Adjala", "Lot 10 Con 1 Adjala"}}, // nearest the proximity point first
		{"Lot 11, Concession I, Township of Adjala", []string{"Lot 11 Con 1 Adjala"}},
		{"Lot 10 Con 1", []string{"Lot 10 Con 1 Adjala"}},
		{"RL 2 St Nor", []string{"RL-22-St. Norbert"}},
		{"River Lot 22 Parish of St. N", []string{"RL-22-St. Norbert"}},
		{"Lot 10 Con 1 Osprey", nil},
	} {
		got, err := svc.Autocomplete(ctx, tc.in, 5, &orb.Point{-79.9, 44.2})
		if err != nil {
			t.Fatal(err)
		}
		var legal []string
		for _, b := range got {
			legal = append(legal, b.Location.String())
		}
		if strings.Join(legal, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Autocomplete(%q) = %q, want %q", tc.in, legal, tc.want)
		}
	}
}

// BenchmarkSearchIndexed resolves through the official indexes: a block
// an index holds, one it subdivides, and one no index covers (the model
// answers after each index says no).
func BenchmarkSearchIndexed(b *testing.B) {
	svc, _ := indexedService(b)
	ctx := context.Background()
	for _, in := range []string{"NW-25-24-1-W5", "10-25-24-1-W5", "NW-25-50-1-W5", "Lot 10 Con 1 Adjala"} {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := svc.Search(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReverseIndexed(b *testing.B) {
	svc, _ := indexedService(b)
	ctx := context.Background()
	q, _ := svc.Search(ctx, "NW-25-24-1-W5")
	for name, pt := range map[string]orb.Point{"indexed": q.Centroid, "model": {-113.5, 53.5}, "ontario": {-79.93, 44.17}} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// All units, except Ontario where the test index has lots only.
				if _, err := svc.Reverse(ctx, grid.ReverseQuery{Point: pt, All: name != "ontario"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A reverse lookup without a system reads the records at its point once
// per index: deciding the system (DLS) and answering in it share them. The
// cache's counters show how many entries the lookup asked it for.
func TestReverseReadsIndexOnce(t *testing.T) {
	t.Parallel()
	const dx, dy = 0.0002, -0.0001
	var recs []gridindex.Record
	for s := 1; s <= 36; s++ {
		recs = append(recs, modelRecord(t, lld.Location{System: lld.DLS, Unit: lld.Section, Section: uint8(s), Township: 24, Range: 1, Meridian: lld.W5}.String(), dx, dy))
	}
	recs = append(recs, modelRecord(t, "24-1-W5", dx, dy))
	ix, _ := openIndex(t, "ats-test", recs)
	svc := grid.New()
	svc.SetIndexes([]*gridindex.Index{ix})
	sec, _ := dls.Resolve(parse(t, "10-24-1-W5"))
	q := grid.ReverseQuery{Point: orb.Point{sec.Centroid[0] + dx, sec.Centroid[1] + dy}}
	ctx := context.Background()
	if _, err := svc.Reverse(ctx, q); err != nil { // warm the cache
		t.Fatal(err)
	}
	before := ix.CacheStats()
	got, err := svc.Reverse(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Source != "ats-test (subdivided)" {
		t.Fatalf("Reverse(%v) = %+v, want one LSD subdivided from ats-test", q.Point, got)
	}
	after := ix.CacheStats()
	// One pass over the index for the LSD, which it does not hold (so no
	// block by key): the township page's directory, then its blocks at
	// the point: block 0 (the township and its sections; the test index
	// has no quarters or LSDs), from which the LSD is subdivided. The
	// system is decided by that answer: deciding it first asked for the
	// township by its key as well (3 entries).
	if n := (after.Hits + after.Misses) - (before.Hits + before.Misses); n != 2 {
		t.Errorf("Reverse(%v) asked the index's cache for %d entries, want 2 (directory, block 0)", q.Point, n)
	}
}

// fullTownship is township 24-1-W5 with every section, quarter and LSD,
// each the model's block moved by (dx, dy).
func fullTownship(t testing.TB, dx, dy float64) []gridindex.Record {
	recs := []gridindex.Record{modelRecord(t, "24-1-W5", dx, dy)}
	for s := uint8(1); s <= 36; s++ {
		sec := lld.Location{System: lld.DLS, Unit: lld.Section, Section: s, Township: 24, Range: 1, Meridian: lld.W5}
		recs = append(recs, modelRecord(t, sec.String(), dx, dy))
		for _, q := range []string{"NE", "NW", "SE", "SW"} {
			recs = append(recs, modelRecord(t, q+"-"+sec.String(), dx, dy))
		}
		for d := uint8(1); d <= 16; d++ {
			l := sec
			l.Unit, l.LSD = lld.LSD, d
			recs = append(recs, modelRecord(t, l.String(), dx, dy))
		}
	}
	return recs
}

// A reverse lookup through an index that holds every unit answers from the
// model's blocks looked up by key when they contain the point clearly, and
// from the search around the point otherwise (near an edge, where the
// model and the index disagree): both must give what the search alone
// gives, the last record of each unit containing the point.
func TestReverseCandidatesAgreeWithSearch(t *testing.T) {
	t.Parallel()
	const dx, dy = 0.0002, -0.0001 // about 14 m east, 11 m south
	ix, _ := openIndex(t, "ats-test", fullTownship(t, dx, dy))
	svc := grid.New()
	svc.SetIndexes([]*gridindex.Index{ix})
	ctx := context.Background()
	twp, _ := dls.Resolve(parse(t, "24-1-W5"))
	b := twp.Geometry.Bound()
	var pts []orb.Point
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		pts = append(pts, orb.Point{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])})
	}
	// Points on the index's edges and corners, and on the model's: where
	// two records contain the point, or the model's block is the wrong one.
	for _, r := range fullTownship(t, dx, dy)[1:60] {
		r, ok, err := ix.Lookup(ctx, r.Location) // as stored: its vertices are exactly on its edges
		if err != nil || !ok {
			t.Fatalf("Lookup(%v): %v %v", r.Location, ok, err)
		}
		ring := r.Geometry.(orb.Polygon)[0]
		for i := 0; i+1 < len(ring); i++ {
			mid := orb.Point{(ring[i][0] + ring[i+1][0]) / 2, (ring[i][1] + ring[i+1][1]) / 2}
			pts = append(pts, ring[i], mid, orb.Point{mid[0] - dx, mid[1] - dy}, orb.Point{mid[0] - dx/2, mid[1]})
		}
	}
	units := []lld.Unit{lld.Township, lld.Section, lld.QuarterSection, lld.LSD}
	fast := 0
	for _, pt := range pts {
		hits, err := ix.ContainingHits(ctx, pt)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			var want string
			for i := range hits {
				if hits[i].Unit == u {
					r, err := hits[i].Record()
					if err != nil {
						t.Fatal(err)
					}
					want = r.Location.String()
				}
			}
			if want == "" {
				continue // outside the index's township: the model answers
			}
			got, err := svc.Reverse(ctx, grid.ReverseQuery{Point: pt, System: lld.DLS, Unit: u})
			if err != nil {
				t.Fatalf("Reverse(%v, %v): %v", pt, u, err)
			}
			if len(got) != 1 || got[0].Location.String() != want || got[0].Source != "ats-test" {
				t.Fatalf("Reverse(%v, %v) = %v, want %s from ats-test", pt, u, got, want)
			}
			if l, ok := dls.Locate(pt, u); ok {
				if _, ok, _ := ix.ContainingAt(ctx, l, pt); ok {
					fast++
				}
			}
		}
	}
	// Most random points are clearly inside the model's block and the
	// index's (they differ by about 14 m): the key lookups answer them.
	if fast < 2*len(pts) {
		t.Errorf("only %d of the answers came from the model's blocks by key, want most of %d points x 4 units", fast, len(pts))
	}
}

// A reverse lookup in every unit at a point clearly inside its blocks asks
// the cache for one block per unit, found by key: no page directory, no
// search of the blocks around the point.
func TestReverseByKey(t *testing.T) {
	t.Parallel()
	ix, _ := openIndex(t, "ats-test", fullTownship(t, 0.0002, -0.0001))
	svc := grid.New()
	svc.SetIndexes([]*gridindex.Index{ix})
	ctx := context.Background()
	lsd, _ := dls.Resolve(parse(t, "6-10-24-1-W5"))
	q := grid.ReverseQuery{Point: lsd.Centroid, All: true}
	if _, err := svc.Reverse(ctx, q); err != nil { // warm the cache
		t.Fatal(err)
	}
	before := ix.CacheStats()
	got, err := svc.Reverse(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range got {
		names = append(names, b.Location.String()+" "+b.Source)
	}
	want := []string{"24-1-W5 ats-test", "10-24-1-W5 ats-test", "SW-10-24-1-W5 ats-test", "6-10-24-1-W5 ats-test"}
	if !slices.Equal(names, want) {
		t.Fatalf("Reverse(%v) = %q, want %q", q.Point, names, want)
	}
	after := ix.CacheStats()
	// Answering in DLS decides the system too: four blocks by key, one a
	// unit (deciding first asked for the township once more: five).
	if n := (after.Hits + after.Misses) - (before.Hits + before.Misses); n != 4 || after.Misses != before.Misses {
		t.Errorf("Reverse asked the cache for %d entries (%d misses), want 4 block hits", n, after.Misses-before.Misses)
	}
}
