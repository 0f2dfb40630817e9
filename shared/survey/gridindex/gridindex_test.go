package gridindex_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paulmach/orb"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
)

// memFile is an in-memory RangeReader that counts reads.
type memFile struct {
	data  []byte
	reads atomic.Int64
	bytes atomic.Int64 // asked for
}

func (m *memFile) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	m.reads.Add(1)
	m.bytes.Add(n)
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("negative range %d+%d", off, n)
	}
	if off >= int64(len(m.data)) {
		return nil, nil
	}
	end := min(off+n, int64(len(m.data)))
	return m.data[off:end], nil
}

// shift moves a polygon by (dx, dy) degrees: test records differ from the
// model so a test can tell which answered.
func shift(p orb.Polygon, dx, dy float64) orb.Polygon {
	out := make(orb.Polygon, len(p))
	for i, r := range p {
		out[i] = make(orb.Ring, len(r))
		for j, pt := range r {
			out[i][j] = orb.Point{pt[0] + dx, pt[1] + dy}
		}
	}
	return out
}

// dlsRecords returns every section, quarter and LSD of a township, shifted.
func dlsRecords(t testing.TB, twp, rge uint8, m lld.Meridian) []gridindex.Record {
	t.Helper()
	var out []gridindex.Record
	add := func(l lld.Location) {
		b, ok := dls.Resolve(l)
		if !ok {
			t.Fatalf("model has no %v", l)
		}
		out = append(out, gridindex.Record{Location: b.Location, Province: b.Province, Geometry: shift(b.Geometry.(orb.Polygon), 0.0001, 0.00005), AccuracyM: 5})
	}
	base := lld.Location{System: lld.DLS, Meridian: m, Range: rge, Township: twp}
	tw := base
	tw.Unit = lld.Township
	add(tw)
	for s := uint8(1); s <= 36; s++ {
		sec := base
		sec.Unit, sec.Section = lld.Section, s
		add(sec)
		for _, a := range []lld.Aliquot{lld.NE, lld.NW, lld.SW, lld.SE} {
			q := sec
			q.Unit, q.Aliquot = lld.QuarterSection, a
			add(q)
		}
		for v := uint8(1); v <= 16; v++ {
			l := sec
			l.Unit, l.LSD = lld.LSD, v
			add(l)
		}
	}
	return out
}

func lot(t testing.TB, s string, centre orb.Point, poly bool) gridindex.Record {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	r := gridindex.Record{Location: l, Province: survey.MB, Centroid: centre, HasCentroid: true, AccuracyM: 1}
	if l.System == lld.GeoTownship {
		r.Province = survey.ON
	}
	if poly {
		b := orb.Bound{Min: orb.Point{centre[0] - 0.005, centre[1] - 0.002}, Max: orb.Point{centre[0] + 0.005, centre[1] + 0.002}}
		r.Geometry = survey.BoxPolygon(b)
		r.HasCentroid = false
	}
	return r
}

func buildIndex(t testing.TB, recs []gridindex.Record, opts gridindex.WriterOptions) []byte {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	w := gridindex.NewWriter(gridindex.Meta{Name: "test", Source: "test data", Fixture: true}, opts)
	defer w.Close()
	for _, r := range recs {
		if err := w.Add(r); err != nil {
			t.Fatalf("Add(%v): %v", r.Location, err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testRecords(t testing.TB) []gridindex.Record {
	recs := dlsRecords(t, 24, 1, lld.W5)
	recs = append(recs, dlsRecords(t, 50, 26, lld.W4)...)
	recs = append(recs,
		lot(t, "RL-22-St. Norbert", orb.Point{-97.142269, 49.678794}, false), // published centroid
		lot(t, "RL-23-Fictive Creek", orb.Point{-97.1400, 49.6770}, false),   // invented parish
		lot(t, "Lot 10 Con 1 Adjala", orb.Point{-79.93, 44.17}, true),
		lot(t, "Lot 11 Con 1 Adjala", orb.Point{-79.92, 44.17}, true),
	)
	return recs
}

func equalGeometry(a, b orb.Geometry) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	pa, pb := a.(orb.Polygon), b.(orb.Polygon)
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if len(pa[i]) != len(pb[i]) {
			return false
		}
		for j := range pa[i] {
			if math.Abs(pa[i][j][0]-pb[i][j][0]) > 0.6e-7 || math.Abs(pa[i][j][1]-pb[i][j][1]) > 0.6e-7 {
				return false
			}
		}
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	recs := testRecords(t)
	for _, limit := range []int{0, 20 << 10} { // one run; many spilled runs
		t.Run(fmt.Sprintf("memory limit %d", limit), func(t *testing.T) {
			f := &memFile{data: buildIndex(t, recs, gridindex.WriterOptions{MemoryLimit: limit})}
			ix, err := gridindex.Open(context.Background(), f, "test.mgix", gridindex.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m := ix.Meta(); m.Records != uint64(len(recs)) || m.Groups != 5 || m.Source != "test data" || !m.Fixture {
				t.Errorf("meta = %+v", m)
			}
			for _, want := range recs {
				got, ok, err := ix.Lookup(context.Background(), want.Location)
				if err != nil || !ok {
					t.Fatalf("Lookup(%v) = %v, %v", want.Location, ok, err)
				}
				if got.Location != want.Location || got.Province != want.Province || got.AccuracyM != want.AccuracyM || !equalGeometry(got.Geometry, want.Geometry) {
					t.Fatalf("Lookup(%v) = %+v, want %+v", want.Location, got, want)
				}
				if want.HasCentroid && (got.Centroid != want.Centroid || !got.HasCentroid) {
					t.Errorf("Lookup(%v) centroid %v, want official %v", want.Location, got.Centroid, want.Centroid)
				}
			}
		})
	}
}

func TestLookupMisses(t *testing.T) {
	t.Parallel()
	f := &memFile{data: buildIndex(t, testRecords(t), gridindex.WriterOptions{})}
	ix, err := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"NW-25-25-1-W5", "NW-25-24-2-W5", "RL-99-St. Norbert", "Lot 10 Con 1 Osprey", "A-2-F/93-P-8"} {
		l, _ := lld.Parse(s)
		if _, ok, err := ix.Lookup(context.Background(), l); ok || err != nil {
			t.Errorf("Lookup(%s) = %v, %v, want not found", s, ok, err)
		}
	}
	l, _ := lld.Parse("SE-1-24-1-W5")
	if ok, _ := ix.HasGroup(context.Background(), l); !ok {
		t.Error("HasGroup(24-1-W5) = false")
	}
}

func TestReadsPerLookup(t *testing.T) {
	t.Parallel()
	f := &memFile{data: buildIndex(t, testRecords(t), gridindex.WriterOptions{})}
	ctx := context.Background()
	ix, err := gridindex.Open(ctx, f, "k", gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The header, metadata, root and directory leaves in the first 16
	// KiB: one read; leaves past it: a second read, of all of them.
	leavesEnd := binary.LittleEndian.Uint64(f.data[32:]) + binary.LittleEndian.Uint64(f.data[40:])
	want := int64(1)
	if leavesEnd > 16<<10 {
		want = 2
	}
	if n := f.reads.Load(); n != want {
		t.Errorf("Open made %d range reads, want %d (header, metadata, root and leaves ending at byte %d)", n, want, leavesEnd)
	}
	l, _ := lld.Parse("10-36-24-1-W5")
	before := f.reads.Load()
	if _, ok, _ := ix.Lookup(ctx, l); !ok {
		t.Fatal("not found")
	}
	if n := f.reads.Load() - before; n != 1 {
		t.Errorf("cold lookup by id made %d range reads, want 1 (the page: the leaves were read at open)", n)
	}
	before = f.reads.Load()
	ix.Lookup(ctx, l)
	if n := f.reads.Load() - before; n != 0 {
		t.Errorf("warm lookup made %d range reads, want 0", n)
	}
	if int64(len(f.data)) < 100<<10 {
		t.Logf("index is %d bytes", len(f.data))
	}
}

// Once a township's directory is cached, a lookup in another of its
// sections reads that section's block alone, a small part of the page;
// a point lookup inflates the blocks at the point, not the township.
func TestBlockReads(t *testing.T) {
	t.Parallel()
	f := &memFile{data: buildIndex(t, dlsRecords(t, 20, 1, lld.W4), gridindex.WriterOptions{})}
	ctx := context.Background()
	ix, err := gridindex.Open(ctx, f, "k", gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(s string) (reads, bytes int64) {
		t.Helper()
		r0, b0 := f.reads.Load(), f.bytes.Load()
		l, _ := lld.Parse(s)
		if r, ok, err := ix.Lookup(ctx, l); err != nil || !ok || r.Location != l {
			t.Fatalf("Lookup(%s) = %s, %v, %v", s, r.Location, ok, err)
		}
		return f.reads.Load() - r0, f.bytes.Load() - b0
	}
	lookup("3-7-20-1-W4") // key leaf and the page
	page := f.bytes.Load()
	reads, bytes := lookup("NE-30-20-1-W4")
	if reads != 1 || bytes*10 > page {
		t.Errorf("lookup in another section: %d reads of %d bytes; want 1 read of under a tenth of the %d bytes read so far", reads, bytes, page)
	}
	if reads, _ := lookup("20-1-W4"); reads != 1 {
		t.Errorf("the township's own record: %d reads, want 1 (block 0)", reads)
	}
	if reads, _ := lookup("36-20-1-W4"); reads != 0 {
		t.Errorf("a section: %d reads, want 0 (block 0, read for the township)", reads)
	}
	if reads, _ := lookup("14-30-20-1-W4"); reads != 0 {
		t.Errorf("an LSD of a section read before: %d reads, want 0", reads)
	}
	st := ix.CacheStats()
	if st.Blocks != 3 || st.Dirs != 1 {
		t.Errorf("cache holds %d blocks and %d directories, want 3 and 1", st.Blocks, st.Dirs)
	}

	// A point inside section 12 (LSD 3's centre) needs block 0 (township
	// and sections) and section 12's (read by the lookup of LSD 3), no
	// other.
	lsd3, _ := lld.Parse("3-12-20-1-W4")
	r, _, err := ix.Lookup(ctx, lsd3)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.Containing(ctx, r.Centroid)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 { // township, section, quarter, LSD
		t.Errorf("Containing(centre of 3-12-20-1-W4) = %d records, want 4", len(got))
	}
	if st := ix.CacheStats(); st.Blocks != 4 {
		t.Errorf("after a point lookup the cache holds %d blocks, want 4 (section 12's added, no other)", st.Blocks)
	}
}

func TestContaining(t *testing.T) {
	t.Parallel()
	recs := testRecords(t)
	f := &memFile{data: buildIndex(t, recs, gridindex.WriterOptions{})}
	ix, _ := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	for _, want := range recs {
		if want.Location.Unit != lld.LSD && want.Location.Unit != lld.Lot {
			continue
		}
		c, _ := want.Geometry.(orb.Polygon)
		pt := c.Bound().Center()
		got, err := ix.Containing(context.Background(), pt)
		if err != nil {
			t.Fatal(err)
		}
		units := map[lld.Unit]string{}
		for _, r := range got {
			units[r.Location.Unit] = r.Location.String()
		}
		if units[want.Location.Unit] != want.Location.String() {
			t.Errorf("Containing(%v) = %v, want %s among them", pt, units, want.Location)
		}
		if want.Location.System == lld.DLS && len(got) != 4 {
			t.Errorf("Containing(%v) gave %d records, want township, section, quarter, LSD: %v", pt, len(got), units)
		}
	}
	if got, _ := ix.Containing(context.Background(), orb.Point{-100, 55}); len(got) != 0 {
		t.Errorf("a point far away is in %v", got)
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	f := &memFile{data: buildIndex(t, testRecords(t), gridindex.WriterOptions{})}
	ix, _ := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	r, d, ok, err := ix.Nearest(context.Background(), orb.Point{-97.1430, 49.6785}, lld.RiverParishLot, 1000)
	if err != nil || !ok || r.Location.String() != "RL-22-St. Norbert" || d > 100 {
		t.Errorf("Nearest = %v %.0f m %v %v, want RL-22-St. Norbert within 100 m", r.Location, d, ok, err)
	}
	if _, _, ok, _ := ix.Nearest(context.Background(), orb.Point{-97.0, 49.9}, lld.RiverParishLot, 1000); ok {
		t.Error("Nearest found a lot 24 km away within 1000 m")
	}
}

func TestGroupKeys(t *testing.T) {
	t.Parallel()
	f := &memFile{data: buildIndex(t, testRecords(t), gridindex.WriterOptions{})}
	ix, _ := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	got, err := ix.GroupKeys(context.Background(), "MB:ST", 10)
	if err != nil || fmt.Sprint(got) != "[MB:ST. NORBERT]" {
		t.Errorf("GroupKeys(MB:ST) = %v, %v", got, err)
	}
	got, _ = ix.GroupKeys(context.Background(), "DLS:", 10)
	if fmt.Sprint(got) != "[DLS:24-1-W5 DLS:50-26-W4]" {
		t.Errorf("GroupKeys(DLS:) = %v", got)
	}
}

func TestMergeAndDerive(t *testing.T) {
	t.Parallel()
	centroid := lot(t, "Lot 10 Con 1 Adjala", orb.Point{-79.931, 44.171}, false)
	polygon := lot(t, "Lot 10 Con 1 Adjala", orb.Point{-79.93, 44.17}, true)
	derived := 0
	f := &memFile{data: buildIndex(t, []gridindex.Record{polygon, centroid}, gridindex.WriterOptions{
		Derive: func(group []gridindex.Record) ([]gridindex.Record, error) {
			derived++
			if len(group) != 1 {
				t.Errorf("Derive got %d records, want the 2 merged into 1", len(group))
			}
			con, _ := lld.Parse("Con 1 Adjala")
			return []gridindex.Record{{Location: con, Province: survey.ON, Geometry: group[0].Geometry, AccuracyM: 2}}, nil
		},
	})}
	ix, _ := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	r, ok, _ := ix.Lookup(context.Background(), polygon.Location)
	if !ok || r.Geometry == nil || !r.HasCentroid || r.Centroid != centroid.Centroid {
		t.Errorf("merged record = %+v: want the polygon with the official centroid", r)
	}
	con, _ := lld.Parse("Con 1 Adjala")
	if _, ok, _ := ix.Lookup(context.Background(), con); !ok || derived != 1 {
		t.Errorf("derived concession found %v, Derive called %d times", ok, derived)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	good := dlsRecords(t, 24, 1, lld.W5)[0]
	cw := good
	cw.Geometry = orb.Polygon{reverse(good.Geometry.(orb.Polygon)[0])}
	utm := good
	utm.Geometry = shift(good.Geometry.(orb.Polygon), 114+600000, 0) // metres mistaken for degrees
	open := good
	open.Geometry = orb.Polygon{good.Geometry.(orb.Polygon)[0][:4]}
	nts, _ := lld.Parse("A-2-F/93-P-8")
	bare := lot(t, "RL-22-St. Norbert", orb.Point{-97.1, 49.7}, false)
	bare.HasCentroid = false
	for name, tc := range map[string]struct {
		r    gridindex.Record
		want string
	}{
		"clockwise":   {cw, "oriented"},
		"projection":  {utm, "outside Canada"},
		"open ring":   {open, "not closed"},
		"NTS":         {gridindex.Record{Location: nts, Geometry: good.Geometry}, "cannot be indexed"},
		"no centroid": {bare, "neither geometry nor centroid"},
	} {
		err := gridindex.Validate(&tc.r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate = %v, want %q", name, err, tc.want)
		}
	}
	if err := gridindex.Validate(&good); err != nil {
		t.Errorf("good record: %v", err)
	}
}

func reverse(r orb.Ring) orb.Ring {
	out := make(orb.Ring, len(r))
	for i := range r {
		out[i] = r[len(r)-1-i]
	}
	return out
}

// An index of the first format (a page one gzip member) is refused with
// what to do, not read as garbage.
func TestOpenRefusesFormat1(t *testing.T) {
	t.Parallel()
	data := buildIndex(t, dlsRecords(t, 20, 1, lld.W4), gridindex.WriterOptions{})
	old := append([]byte("MRDNGIX1"), data[8:]...)
	_, err := gridindex.Open(context.Background(), &memFile{data: old}, "k", gridindex.Options{})
	if err == nil || !strings.Contains(err.Error(), "format 1") || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("Open(format 1) = %v, want a refusal saying to rebuild", err)
	}
}

// FuzzOpen: any bytes, opened and queried, give errors, never panics.
func FuzzOpen(f *testing.F) {
	valid := buildIndex(f, []gridindex.Record{lot(f, "Lot 10 Con 1 Adjala", orb.Point{-79.93, 44.17}, true)}, gridindex.WriterOptions{})
	f.Add(valid)
	f.Add(valid[:100])
	f.Add([]byte("MRDNGIX1"))
	dls := buildIndex(f, dlsRecords(f, 20, 1, lld.W4), gridindex.WriterOptions{}) // a page of 37 blocks
	f.Add(dls)
	l, _ := lld.Parse("Lot 10 Con 1 Adjala")
	lsd, _ := lld.Parse("3-7-20-1-W4")
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := gridindex.Open(context.Background(), &memFile{data: data}, "k", gridindex.Options{})
		if err != nil {
			return
		}
		ix.Lookup(context.Background(), l)
		ix.Lookup(context.Background(), lsd)
		ix.GroupByKey(context.Background(), "DLS:20-1-W4")
		ix.Containing(context.Background(), orb.Point{-79.93, 44.17})
		ix.Nearest(context.Background(), orb.Point{-79.93, 44.17}, lld.Lot, 1000)
		ix.GroupKeys(context.Background(), "ON:", 10)
	})
}

func BenchmarkLookup(b *testing.B) {
	f := &memFile{data: buildIndex(b, testRecords(b), gridindex.WriterOptions{})}
	ix, _ := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	l, _ := lld.Parse("10-36-24-1-W5")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := ix.Lookup(context.Background(), l); !ok {
			b.Fatal("not found")
		}
	}
}

func BenchmarkContaining(b *testing.B) {
	f := &memFile{data: buildIndex(b, testRecords(b), gridindex.WriterOptions{})}
	ix, _ := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	pt := orb.Point{-114.0192, 51.0779}
	b.ReportAllocs()
	for b.Loop() {
		if got, _ := ix.Containing(context.Background(), pt); len(got) != 4 {
			b.Fatalf("%d records", len(got))
		}
	}
}

// Within yields exactly the records of the unit whose boxes meet the bound.
func TestWithin(t *testing.T) {
	t.Parallel()
	recs := testRecords(t)
	f := &memFile{data: buildIndex(t, recs, gridindex.WriterOptions{})}
	ix, _ := gridindex.Open(context.Background(), f, "k", gridindex.Options{})
	sec, _ := lld.Parse("10-24-1-W5")
	var secBox orb.Bound
	for _, r := range recs {
		if r.Location == sec {
			secBox = r.Geometry.Bound()
		}
	}
	for _, c := range []struct {
		b    orb.Bound
		unit lld.Unit
	}{
		{secBox.Pad(-1e-4), lld.LSD},
		{secBox.Pad(-1e-4), lld.Section},
		{ix.Bound(), lld.Township},
		{ix.Bound(), lld.Lot},
		{orb.Bound{Min: orb.Point{-100, 55}, Max: orb.Point{-99, 56}}, lld.Section},
	} {
		want := map[string]bool{}
		for _, r := range recs {
			var rb orb.Bound
			if r.Geometry != nil {
				rb = r.Geometry.Bound()
			} else {
				rb = orb.Bound{Min: r.Centroid, Max: r.Centroid}
			}
			if r.Location.Unit == c.unit && rb.Intersects(c.b) {
				want[r.Location.String()] = true
			}
		}
		got := map[string]bool{}
		err := ix.Within(context.Background(), c.b, c.unit, func(r *gridindex.Record) error {
			got[r.Location.String()] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("Within(%v, %v) = %v, want %v", c.b, c.unit, got, want)
		}
	}
	n := 0
	_ = ix.Within(context.Background(), ix.Bound(), lld.LSD, func(*gridindex.Record) error { n++; return nil })
	if n != 2*576 {
		t.Errorf("Within(all, LSD) = %d records, want the 576 LSDs of each of the 2 townships", n)
	}
}

// An index of thousands of townships has directory leaves past its first
// 16 KiB: Open reads them all in one more read, and every cold lookup by
// id then reads its page alone, in whichever leaf its township is.
func TestLeavesReadAtOpen(t *testing.T) {
	t.Parallel()
	var recs []gridindex.Record
	for twp := uint8(1); twp <= 100; twp++ {
		for rge := uint8(1); rge <= 28; rge++ {
			l := lld.Location{System: lld.DLS, Meridian: lld.W4, Range: rge, Township: twp, Unit: lld.Section, Section: 1}
			if b, ok := dls.Resolve(l); ok { // ranges end short of 28 in the north
				recs = append(recs, gridindex.Record{Location: b.Location, Province: b.Province, Geometry: b.Geometry, AccuracyM: 5})
			}
		}
	}
	f := &memFile{data: buildIndex(t, recs, gridindex.WriterOptions{})}
	if leavesEnd := binary.LittleEndian.Uint64(f.data[32:]) + binary.LittleEndian.Uint64(f.data[40:]); leavesEnd <= 16<<10 {
		t.Fatalf("the leaves end at byte %d, within the first read: the test needs more townships", leavesEnd)
	}
	ctx := context.Background()
	ix, err := gridindex.Open(ctx, f, "k", gridindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.reads.Load(); n != 2 {
		t.Errorf("Open made %d range reads, want 2 (the first 16 KiB, then the rest of the leaves)", n)
	}
	for i := 0; i < len(recs); i += len(recs) / 40 {
		r := recs[i]
		before := f.reads.Load()
		got, ok, err := ix.Lookup(ctx, r.Location)
		if err != nil || !ok || got.Location != r.Location {
			t.Fatalf("Lookup(%s) = %s, %v, %v", r.Location, got.Location, ok, err)
		}
		if n := f.reads.Load() - before; n != 1 {
			t.Errorf("cold lookup of %s made %d range reads, want 1 (its page)", r.Location, n)
		}
	}
}
