package fps_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/datum"
	"meridian/shared/survey/fps"
)

func parse(t *testing.T, s string) lld.Location {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return l
}

// dms is degrees, minutes, seconds in degrees.
func dms(d, m, s float64) float64 { return d + m/60 + s/3600 }

// TestWorkedExamples checks the NAD27 boxes of fps-grid.md §5, exactly.
func TestWorkedExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in                 string
		south, north       float64 // degrees N
		eastWest, westWest float64 // degrees W
	}{
		{"60-20 N 100-30 W", dms(60, 10, 0), dms(60, 20, 0), dms(100, 30, 0), dms(100, 45, 0)},
		{"48 60-20 N 100-30 W", dms(60, 17, 0), dms(60, 18, 0), dms(100, 37, 30), dms(100, 39, 22.5)},
		{"F 48 60-20 N 100-30 W", dms(60, 17, 15), dms(60, 17, 30), dms(100, 38, 26.25), dms(100, 38, 54.375)},
		{"B 16 46-50 N 48-45 W", dms(46, 45, 0), dms(46, 45, 15), dms(48, 46, 52.5), dms(48, 47, 15)},
		{"M 100 72-00 N 120-00 W", dms(71, 59, 45), dms(72, 0, 0), dms(120, 29, 15), dms(120, 30, 0)},
		{"A 1 80-10 N 90-30 W", dms(80, 0, 0), dms(80, 0, 15), dms(90, 30, 0), dms(90, 31, 15)},
	}
	for _, tc := range tests {
		b, ok := fps.Bound27(parse(t, tc.in))
		if !ok {
			t.Fatalf("Bound27(%s) not ok", tc.in)
		}
		want := orb.Bound{Min: orb.Point{-tc.westWest, tc.south}, Max: orb.Point{-tc.eastWest, tc.north}}
		const eps = 1e-12 // float rounding only
		if !near(b.Min, want.Min, eps) || !near(b.Max, want.Max, eps) {
			t.Errorf("Bound27(%s) = %v, want %v", tc.in, b, want)
		}
	}
	// fps-grid.md §5, row 3 in decimals.
	b, _ := fps.Bound27(parse(t, "F 48 60-20 N 100-30 W"))
	if math.Abs(b.Min[1]-60.2875) > 1e-9 || math.Abs(b.Max[1]-60.291667) > 1e-6 ||
		math.Abs(b.Min[0]+100.648438) > 1e-6 || math.Abs(b.Max[0]+100.640625) > 1e-9 {
		t.Errorf("Bound27(F 48 60-20 N 100-30 W) = %v, want lat [60.2875, 60.291667], lon [-100.648438, -100.640625]", b)
	}
}

func near(a, b orb.Point, eps float64) bool {
	return math.Abs(a[0]-b[0]) <= eps && math.Abs(a[1]-b[1]) <= eps
}

// TestHibernia is fps-grid.md §5 cross-check 1: the Hibernia B-16 2Z well
// (UWI 302B164650048451) at 46°45′02.08″N 48°46′54.45″W lies in
// B 16 46-50 N 48-45 W. Its datum is uncertain (the column says NAD83), so
// the point is read both ways and must land in B-16 either way, and the
// margins to the unit's south and east lines are reported.
func TestHibernia(t *testing.T) {
	t.Parallel()
	pt := orb.Point{-dms(48, 46, 54.45), dms(46, 45, 2.08)}
	want := "B 16 46-50 N 48-45 W"
	l, ok := fps.Locate27(pt, lld.FPSUnit)
	if !ok || l.String() != want {
		t.Fatalf("Locate27(Hibernia as NAD27) = %v, %v; want %s", l, ok, want)
	}
	l83, err := fps.Locate(pt, lld.FPSUnit)
	if err != nil || l83.String() != want {
		t.Fatalf("Locate(Hibernia as NAD83) = %v, %v; want %s", l83, err, want)
	}
	b, _ := fps.Bound27(l)
	for _, read := range []struct {
		name string
		p27  orb.Point
	}{{"as NAD27", pt}, {"as NAD83", mustNAD27(t, pt)}} {
		north := geo.Distance(orb.Point{read.p27[0], b.Min[1]}, read.p27)
		west := geo.Distance(orb.Point{b.Max[0], read.p27[1]}, read.p27)
		t.Logf("Hibernia %s: %.0f m north of the unit's south line, %.0f m west of its east line", read.name, north, west)
		if north < 10 || west < 10 {
			t.Errorf("Hibernia %s: margins %.0f m N, %.0f m W; want both ≥ 10 m", read.name, north, west)
		}
	}
}

func mustNAD27(t *testing.T, p orb.Point) orb.Point {
	t.Helper()
	q, err := datum.NAD83ToNAD27(p)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// randomUnit returns a random valid FPS unit whose NE corner lies in
// [latLo, latHi) minutes and whose grid lies inside the datum grid.
func randomUnit(r *rand.Rand, latLo, latHi int) lld.Location {
	lat := latLo + 10 + 10*r.IntN((latHi-latLo)/10)
	ref := lld.FPSRef{Lat: uint16(lat)}
	w := ref.WidthMin()
	ref.Lng = uint16((44*60 + w*r.IntN((142-44)*60/w)))
	ref.Section = uint8(1 + r.IntN(10*ref.Columns()))
	ref.Unit = byte('A' + r.IntN(16))
	return lld.Location{System: lld.FPS, Unit: lld.FPSUnit, FPS: ref}
}

// bands are the latitude bands of the regulation (south edges, minutes),
// capped at the datum grid's 84° N.
var bands = [][2]int{{40 * 60, 60 * 60}, {60 * 60, 68 * 60}, {68 * 60, 70 * 60}, {70 * 60, 75 * 60}, {75 * 60, 78 * 60}, {78 * 60, 84 * 60}}

// TestRoundTrip resolves random units, sections and grids in every band
// and locates the NAD83 centroid back (Resolve then Locate), and checks
// that the centroid is inside the NAD83 polygon.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 6))
	n := 0
	for _, band := range bands {
		for range 1000 {
			u := randomUnit(r, band[0], band[1])
			for _, l := range []lld.Location{u, parent(u), parent(parent(u))} {
				b, err := fps.Resolve(l)
				if err != nil {
					t.Fatalf("Resolve(%s): %v", l, err)
				}
				got, err := fps.Locate(b.Centroid, l.Unit)
				if err != nil || got != l {
					t.Fatalf("Locate(centroid of %s = %v) = %v, %v", l, b.Centroid, got, err)
				}
				poly := b.Geometry.(orb.Polygon)
				if !planar.PolygonContains(poly, b.Centroid) {
					t.Fatalf("centroid %v of %s outside its polygon %v", b.Centroid, l, poly)
				}
				if b.Province != survey.CanadaLands || b.Source != survey.SourceModel || b.Location.System != lld.FPS {
					t.Fatalf("Resolve(%s) = province %v, source %q, system %v", l, b.Province, b.Source, b.Location.System)
				}
				n++
			}
		}
	}
	t.Logf("%d blocks resolved and located back", n)
}

func parent(l lld.Location) lld.Location {
	p, _ := l.Parent()
	return p
}

// TestLocateRandomPoints: random NAD27 points land in the unit whose box
// holds them, and the unit's section and grid hold them too.
func TestLocateRandomPoints(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 14))
	for range 100000 {
		p := orb.Point{-(44 + r.Float64()*98), 40 + r.Float64()*45}
		for _, u := range []lld.Unit{lld.FPSUnit, lld.FPSSection, lld.Grid} {
			l, ok := fps.Locate27(p, u)
			if !ok {
				t.Fatalf("Locate27(%v, %v) not ok", p, u)
			}
			b, ok := fps.Bound27(l)
			if !ok || p[0] < b.Min[0] || p[0] >= b.Max[0]+1e-12 || p[1] < b.Min[1] || p[1] >= b.Max[1] {
				t.Fatalf("Locate27(%v, %v) = %s, whose box %v does not hold it", p, u, l, b)
			}
		}
	}
}

// TestBandEdges: the rows at 60-00, 68-00 and 70-00 N take the band of
// their south edge (the error of libraries that read the NE corner).
func TestBandEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lat      float64 // NAD27 latitude of a point just inside the row
		wantGrid string
		sections int
	}{
		{dms(59, 55, 0), "60-00 N 110-00 W", 100},
		{dms(60, 5, 0), "60-10 N 110-00 W", 80},
		{dms(67, 55, 0), "68-00 N 110-00 W", 80},
		{dms(68, 5, 0), "68-10 N 110-00 W", 60},
		{dms(69, 55, 0), "70-00 N 110-00 W", 60}, // still 15′ wide
		{dms(70, 5, 0), "70-10 N 110-00 W", 100}, // 30′ wide
	}
	for _, tc := range tests {
		l, ok := fps.Locate27(orb.Point{-110.1, tc.lat}, lld.Grid)
		if !ok || l.String() != tc.wantGrid || 10*l.FPS.Columns() != tc.sections {
			t.Errorf("Locate27(lat %v) = %s (%d sections), %v; want %s (%d)", tc.lat, l, 10*l.FPS.Columns(), ok, tc.wantGrid, tc.sections)
		}
	}
	// 70-00 N 133-45 W is a valid 15′ grid; 70-10 N 133-45 W is not.
	if _, err := fps.Resolve(parse(t, "60 70-00 N 133-45 W")); err != nil {
		t.Errorf("Resolve(60 70-00 N 133-45 W): %v", err)
	}
	if _, err := lld.Parse("70-10 N 133-45 W"); err == nil {
		t.Error("Parse(70-10 N 133-45 W) ok, want an error (30′ grids north of 70°)")
	}
	// Half-open: a point on a section line belongs to the section north of
	// it; on a grid's east meridian, to that grid.
	l, _ := fps.Locate27(orb.Point{-100.5, dms(60, 17, 0)}, lld.FPSSection)
	if l.String() != "8 60-20 N 100-30 W" {
		t.Errorf("Locate27(on the 60°17′ line at the east edge) = %s, want 8 60-20 N 100-30 W", l)
	}
}

// TestShiftedPolygon: the NAD83 ring's vertices are the NAD27 box's,
// moved by the datum grid (tens of metres, never zero), and a 30′ grid's
// north and south edges carry a vertex at the 15′ node line.
func TestShiftedPolygon(t *testing.T) {
	t.Parallel()
	l := parse(t, "72-00 N 120-00 W")
	b, err := fps.Resolve(l)
	if err != nil {
		t.Fatal(err)
	}
	ring := b.Geometry.(orb.Polygon)[0]
	if len(ring) != 7 { // 4 corners, 2 node crossings (at 120°15′), closing point
		t.Errorf("ring of %s has %d points, want 7: %v", l, len(ring), ring)
	}
	for _, p := range ring {
		back := mustNAD27(t, p)
		d := geo.Distance(back, p)
		if d < 1 || d > 300 {
			t.Errorf("vertex %v moved %.1f m by the datum, want 1-300 m", p, d)
		}
	}
	if planar.Area(ring) <= 0 {
		t.Errorf("ring of %s is not counter-clockwise", l)
	}
	// The example grid of fps-grid.md lies ~100 m from its NAD27 place.
	g, _ := fps.Resolve(parse(t, "F 48 60-20 N 100-30 W"))
	b27, _ := fps.Bound27(g.Location)
	d := geo.Distance(g.Centroid, b27.Center())
	t.Logf("F 48 60-20 N 100-30 W: NAD83 centroid %v, %.1f m from the NAD27 one", g.Centroid, d)
	if d < 20 || d > 200 {
		t.Errorf("datum shift at F 48 60-20 N 100-30 W is %.1f m, want 20-200 m", d)
	}
}

func TestAccuracy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		lo, hi float64
	}{
		{"60-20 N 100-30 W", 2 + 6.0, 2 + 7.0},   // 15′ grid at 60°: bow 6.6 m
		{"72-00 N 120-00 W", 2 + 17.0, 2 + 18.5}, // 30′ grid at 72°: bow 17.8 m
		{"A 1 60-20 N 100-30 W", 2, 2 + 1.5},     // at the east edge
	}
	for _, tc := range tests {
		a := fps.AccuracyM(parse(t, tc.in))
		if a < tc.lo || a > tc.hi {
			t.Errorf("AccuracyM(%s) = %.2f, want %.1f-%.1f", tc.in, a, tc.lo, tc.hi)
		}
	}
	// Every unit's accuracy is within the bounds of the package doc.
	r := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		for _, band := range bands {
			a := fps.AccuracyM(randomUnit(r, band[0], band[1]))
			if a < datum.AccuracyM || a > datum.AccuracyM+19.6 {
				t.Fatalf("AccuracyM = %.2f, outside [2, 21.6]", a)
			}
		}
	}
}

// TestOutside: the datum grid ends at 84° N, 44° W and 142° W; FPS blocks
// beyond it are refused, as are points outside the FPS latitudes.
func TestOutside(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"84-10 N 90-00 W", "A 1 85-00 N 90-00 W", "60-20 N 43-45 W", "60-20 N 142-00 W"} {
		if _, err := fps.Resolve(parse(t, in)); !errors.Is(err, fps.ErrOutside) {
			t.Errorf("Resolve(%s) error %v, want ErrOutside", in, err)
		}
	}
	if _, err := fps.Resolve(parse(t, "84-00 N 141-30 W")); err != nil {
		t.Errorf("Resolve(84-00 N 141-30 W) (inside the datum grid at its corner): %v", err)
	}
	for _, p := range []orb.Point{{-100, 39.9}, {-100, 84.5}, {-43, 50}, {-150, 60}} {
		if l, err := fps.Locate(p, lld.FPSUnit); !errors.Is(err, fps.ErrOutside) {
			t.Errorf("Locate(%v) = %v, %v; want ErrOutside", p, l, err)
		}
	}
	if _, err := fps.Resolve(lld.Location{System: lld.FPS, Unit: lld.FPSUnit, FPS: lld.FPSRef{Lat: 3620, Lng: 6030, Section: 81, Unit: 'A'}}); !errors.Is(err, fps.ErrInvalid) {
		t.Errorf("Resolve(section 81 of an 80-section grid) error %v, want ErrInvalid", err)
	}
	if _, err := fps.Locate(orb.Point{-100, 60}, lld.LSD); !errors.Is(err, fps.ErrInvalid) {
		t.Errorf("Locate(unit LSD) error %v, want ErrInvalid", err)
	}
}

// TestDatumStepMatters measures what the NAD27 to NAD83 step buys: random
// units in each band computed the naive way (NAD27 numbers read as NAD83)
// against the shifted model, by the distance between the two centroids
// and how many naive centroids fall outside the unit's NAD83 polygon; and
// random NAD83 points, located the naive way, against the shifted lookup.
func TestDatumStepMatters(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(27, 83))
	names := []string{"40-60°", "60-68°", "68-70°", "70-75°", "75-78°", "78-84°"}
	for i, band := range bands {
		const n = 2000
		var dists []float64
		outside, wrong := 0, 0
		for range n {
			u := randomUnit(r, band[0], band[1])
			b, err := fps.Resolve(u)
			if err != nil {
				t.Fatal(err)
			}
			b27, _ := fps.Bound27(u)
			naive := b27.Center()
			dists = append(dists, geo.Distance(naive, b.Centroid))
			if !planar.PolygonContains(b.Geometry.(orb.Polygon), naive) {
				outside++
			}
			p := orb.Point{b27.Min[0] + r.Float64()*(b27.Max[0]-b27.Min[0]), b27.Min[1] + r.Float64()*(b27.Max[1]-b27.Min[1])}
			naiveUnit, _ := fps.Locate27(p, lld.FPSUnit)
			if l, err := fps.Locate(p, lld.FPSUnit); err != nil || l != naiveUnit {
				wrong++
			}
		}
		slices.Sort(dists)
		t.Logf("band %s: naive NAD27-as-NAD83 centroid off by median %.0f m, max %.0f m; outside its unit %d of %d; random points in the wrong unit %d of %d",
			names[i], dists[n/2], dists[n-1], outside, n, wrong, n)
		if dists[n/2] < 1 {
			t.Errorf("band %s: median shift %.2f m, want a real datum shift", names[i], dists[n/2])
		}
	}
}

func BenchmarkResolveUnit(b *testing.B) {
	l, _ := lld.Parse("F 48 60-20 N 100-30 W")
	for b.Loop() {
		if _, err := fps.Resolve(l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLocateUnit(b *testing.B) {
	p := orb.Point{-100.645, 60.2898}
	for b.Loop() {
		if _, err := fps.Locate(p, lld.FPSUnit); err != nil {
			b.Fatal(err)
		}
	}
}

// clarkeArea is the area in hectares of a latitude/longitude box on the
// Clarke 1866 ellipsoid (NAD27's).
func clarkeArea(b orb.Bound) float64 {
	const a, bb = 6378206.4, 6356583.8
	e := math.Sqrt(1 - bb*bb/(a*a))
	q := func(deg float64) float64 {
		s := math.Sin(deg * math.Pi / 180)
		return s/(1-e*e*s*s) + math.Log((1+e*s)/(1-e*s))/(2*e)
	}
	dl := (b.Max[0] - b.Min[0]) * math.Pi / 180
	return bb * bb * dl / 2 * (q(b.Max[1]) - q(b.Min[1])) / 1e4
}

// TestGazetteAreas is fps-grid.md §5 cross-check 2: the Canada Gazette land
// lists give grid areas a little under the ellipsoid's (NS13-1: grid
// 44-10 N 60-00 W, sections 1-100, 37,050 ha; NS12-1: grids at 42-30,
// 42-40 and 42-50 N, 38,070, 37,970 and 37,870 ha). The boxes must agree
// within 0.15%, and their sections and units must tile them.
func TestGazetteAreas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		grid    string
		gazette float64
	}{
		{"44-10 N 60-00 W", 37050},
		{"42-30 N 60-00 W", 38070},
		{"42-40 N 60-00 W", 37970},
		{"42-50 N 60-00 W", 37870},
	}
	for _, tc := range tests {
		l := parse(t, tc.grid)
		b, _ := fps.Bound27(l)
		got := clarkeArea(b)
		rel := got/tc.gazette - 1
		t.Logf("%s: %.0f ha on Clarke 1866, Gazette %.0f ha (%+.3f%%)", tc.grid, got, tc.gazette, 100*rel)
		if math.Abs(rel) > 0.0015 {
			t.Errorf("%s: %.0f ha, Gazette %.0f ha: %.3f%% apart", tc.grid, got, tc.gazette, 100*rel)
		}
		sum := 0.0
		for s := 1; s <= 10*l.FPS.Columns(); s++ {
			for u := byte('A'); u <= 'P'; u++ {
				ub, ok := fps.Bound27(lld.Location{System: lld.FPS, Unit: lld.FPSUnit, FPS: lld.FPSRef{Lat: l.FPS.Lat, Lng: l.FPS.Lng, Section: uint8(s), Unit: u}})
				if !ok || !b.Contains(ub.Center()) {
					t.Fatalf("%s: unit %c %d outside the grid", tc.grid, u, s)
				}
				sum += clarkeArea(ub)
			}
		}
		if math.Abs(sum-got) > 1e-6*got {
			t.Errorf("%s: its 1,600 units cover %.3f ha, the grid %.3f ha", tc.grid, sum, got)
		}
	}
}
