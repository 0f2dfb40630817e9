package gridingest_test

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

const atsName = "ATS_V4_1_FIXTURE.SEQ"

func readATSFixture(t testing.TB) []gridindex.Record {
	t.Helper()
	var recs []gridindex.Record
	st, err := gridingest.ReadATS(bytes.NewReader(fixtureFile(t, griddemo.ATSFile)), atsName, collect(&recs), gridingest.ATSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != len(recs) {
		t.Errorf("Stats.Records = %d, emitted %d", st.Records, len(recs))
	}
	return recs
}

func TestReadATSFixture(t *testing.T) {
	t.Parallel()
	recs := readATSFixture(t)
	n := len(griddemo.ATSTownships)
	want := map[lld.Unit]int{lld.Township: n, lld.Section: 36 * n, lld.QuarterSection: 144 * n, lld.LSD: 576 * n}
	got := countUnits(recs)
	for u, w := range want {
		if got[u] != w {
			t.Errorf("%d %s records, want %d", got[u], u, w)
		}
	}
	if len(recs) != 757*n {
		t.Errorf("%d records, want %d", len(recs), 757*n)
	}
	for _, r := range recs {
		checkRecord(t, r, survey.AB)
	}
	byLocation(t, recs) // no duplicates
}

// TestReadATSFixtureCustomPoints: the fixture's P/Q/X points are read,
// counted and reported, and change no polygon (TestReadATSSectionPolygons
// checks the polygons against the standard points alone).
func TestReadATSFixtureCustomPoints(t *testing.T) {
	t.Parallel()
	var ns ingest.Notices
	st, err := gridingest.ReadATS(bytes.NewReader(fixtureFile(t, griddemo.ATSFile)), atsName, func(gridindex.Record) error { return nil }, gridingest.ATSOptions{Notices: &ns})
	if err != nil {
		t.Fatal(err)
	}
	want := griddemo.ATSCustomPoints()
	if want == 0 {
		t.Fatal("the fixture has no custom governing points")
	}
	if got := st.Skipped["custom governing point (P/Q/X), not used for polygons"]; got != want {
		t.Errorf("skipped %d custom governing points, want %d (%s)", got, want, st)
	}
	if ns.Total() != want {
		t.Errorf("%d notices, want %d: %v", ns.Total(), want, ns.Lines())
	}
}

// atsWant is the section polygon the fixture intends: its corners and
// quarter points as the generator placed them (quarter points the file
// leaves out are the mid-points of their side).
func atsWant(t *testing.T, m lld.Meridian, r, tw, s int) orb.Ring {
	t.Helper()
	get := func(code string) orb.Point {
		p, ok := griddemo.ATSPoint(m, r, tw, s, code)
		if !ok {
			t.Fatalf("fixture has no %s of %d-%d-%d-%s", code, s, tw, r, m)
		}
		return p
	}
	sw, se, ne, nw := get("SW"), get("SE"), get("NE"), get("NW")
	q := func(code string, a, b orb.Point) orb.Point {
		if p, ok := griddemo.ATSPoint(m, r, tw, s, code); ok {
			return p
		}
		return orb.Point{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2}
	}
	return orb.Ring{sw, q("S4", sw, se), se, q("E4", se, ne), ne, q("N4", nw, ne), nw, q("W4", sw, nw), sw}
}

func TestReadATSSectionPolygons(t *testing.T) {
	t.Parallel()
	recs := byLocation(t, readATSFixture(t))
	for _, tc := range []struct {
		name     string
		m        lld.Meridian
		r, tw, s int
	}{
		{"interior", lld.W5, 1, 24, 15},
		{"west column: west neighbour in R2", lld.W5, 1, 24, 6},
		{"NW corner of the range", lld.W5, 1, 25, 31},
		{"below the correction line", lld.W5, 1, 26, 36},
		{"above the correction line", lld.W5, 1, 27, 1},
		{"W4, positive longitudes, short lines", lld.W4, 26, 50, 22},
		{"R2, west edge of the fixture", lld.W5, 2, 25, 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := lld.Location{System: lld.DLS, Unit: lld.Section, Meridian: tc.m, Range: uint8(tc.r), Township: uint8(tc.tw), Section: uint8(tc.s)}
			rec, ok := recs[loc.String()]
			if !ok {
				t.Fatalf("no record for %s", loc)
			}
			got := rec.Geometry.(orb.Polygon)[0]
			want := atsWant(t, tc.m, tc.r, tc.tw, tc.s)
			if len(got) != len(want) {
				t.Fatalf("%s: %d vertices, want %d: %v", loc, len(got), len(want), got)
			}
			for i := range want {
				if !near(got[i], want[i], 1e-7) {
					t.Errorf("%s vertex %d = %v, want %v", loc, i, got[i], want[i])
				}
			}
			// Survey noise: the section is not the model's box, but
			// within ±15 m (plus rounding) of it.
			b := dls.Bound(loc)
			model := [4]orb.Point{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}}
			same := 0
			for i, p := range []orb.Point{want[0], want[2], want[4], want[6]} {
				d := metres(p, model[i])
				if d > griddemo.ATSNoiseM*1.5 {
					t.Errorf("%s corner %d is %.1f m from the model", loc, i, d)
				}
				if d < 0.05 {
					same++
				}
			}
			if same == 4 {
				t.Errorf("%s equals the model: no survey noise", loc)
			}
		})
	}
}

func TestReadATSCorrectionLine(t *testing.T) {
	t.Parallel()
	// The NE corner of 36-26-1-W5 (closing corner below the correction
	// line) and the SE corner of 1-27-1-W5 are different points.
	below, _ := griddemo.ATSPoint(lld.W5, 1, 26, 36, "NE")
	above, _ := griddemo.ATSPoint(lld.W5, 1, 27, 1, "SE")
	if below == above {
		t.Fatalf("fixture gives one point for both sides of the correction line")
	}
	recs := byLocation(t, readATSFixture(t))
	s36 := recs["36-26-1-W5"].Geometry.(orb.Polygon)[0]
	s1 := recs["1-27-1-W5"].Geometry.(orb.Polygon)[0]
	if !near(s36[4], below, 1e-7) {
		t.Errorf("NE of 36-26-1-W5 = %v, want %v", s36[4], below)
	}
	if !near(s1[2], above, 1e-7) {
		t.Errorf("SE of 1-27-1-W5 = %v, want %v", s1[2], above)
	}
}

func TestReadATSQuartersAndLSDs(t *testing.T) {
	t.Parallel()
	recs := byLocation(t, readATSFixture(t))
	sec := atsWant(t, lld.W5, 1, 24, 15)
	sw, s, se, e, ne, n, nw, w := sec[0], sec[1], sec[2], sec[3], sec[4], sec[5], sec[6], sec[7]
	// Quarter NE: centre, E quarter point, NE corner, N quarter point.
	q := recs["NE-15-24-1-W5"].Geometry.(orb.Polygon)[0]
	if !near(q[1], e, 1e-7) || !near(q[2], ne, 1e-7) || !near(q[3], n, 1e-7) {
		t.Errorf("NE-15-24-1-W5 = %v, want corners E %v NE %v N %v", q, e, ne, n)
	}
	// LSD 1 is the south-east sixteenth, LSD 4 south-west, 13 north-west,
	// 16 north-east (boustrophedon from the SE).
	for _, tc := range []struct {
		lsd    string
		vertex int
		want   orb.Point
	}{
		{"1-15-24-1-W5", 1, se}, {"4-15-24-1-W5", 0, sw},
		{"13-15-24-1-W5", 3, nw}, {"16-15-24-1-W5", 2, ne},
		{"2-15-24-1-W5", 0, s}, {"12-15-24-1-W5", 0, w},
	} {
		g := recs[tc.lsd].Geometry.(orb.Polygon)[0]
		if !near(g[tc.vertex], tc.want, 1e-7) {
			t.Errorf("%s vertex %d = %v, want %v", tc.lsd, tc.vertex, g[tc.vertex], tc.want)
		}
	}
	if r := recs["1-15-24-1-W5"]; r.AccuracyM != 20 {
		t.Errorf("LSD AccuracyM = %v, want 20", r.AccuracyM)
	}
	if r := recs["15-24-1-W5"]; r.AccuracyM != 5 {
		t.Errorf("section AccuracyM = %v, want 5", r.AccuracyM)
	}
}

func TestReadATSTownship(t *testing.T) {
	t.Parallel()
	recs := byLocation(t, readATSFixture(t))
	g, ok := recs["24-1-W5"].Geometry.(orb.Polygon)
	if !ok || len(g) != 1 {
		t.Fatalf("24-1-W5 geometry = %T with %d rings, want a Polygon without holes", recs["24-1-W5"].Geometry, len(g))
	}
	// 24 boundary sides of sections, each a corner and a quarter point.
	if len(g[0]) != 49 {
		t.Errorf("24-1-W5 has %d vertices, want 49", len(g[0]))
	}
	corners := []struct {
		s    int
		code string
	}{{1, "SE"}, {6, "SW"}, {31, "NW"}, {36, "NE"}}
	for _, c := range corners {
		p, _ := griddemo.ATSPoint(lld.W5, 1, 24, c.s, c.code)
		found := false
		for _, v := range g[0] {
			found = found || v == p
		}
		if !found {
			t.Errorf("township 24-1-W5 lacks the %s corner of section %d %v", c.code, c.s, p)
		}
	}
}

// atsLine formats one ATS record, coordinates only.
func atsLine(m, r, tw, s int, code string, lat, lng float64) string {
	return fmt.Sprintf("%d%02d%03d%02d%-2s%11.7f%12.7f", m, r, tw, s, code, lat, lng)
}

// atsSection writes the four corners of a model section.
func atsSection(m lld.Meridian, r, tw, s int) string {
	b := dls.Bound(lld.Location{System: lld.DLS, Unit: lld.Section, Meridian: m, Range: uint8(r), Township: uint8(tw), Section: uint8(s)})
	var sb strings.Builder
	for _, c := range []struct {
		code string
		p    orb.Point
	}{{"SE", orb.Point{b.Max[0], b.Min[1]}}, {"SW", b.Min}, {"NW", orb.Point{b.Min[0], b.Max[1]}}, {"NE", b.Max}} {
		sb.WriteString(atsLine(int(m), r, tw, s, c.code, c.p[1], c.p[0]) + "\n")
	}
	return sb.String()
}

func TestReadATSVariants(t *testing.T) {
	t.Parallel()
	base := fixtureFile(t, griddemo.ATSFile)
	read := func(b []byte) []gridindex.Record {
		var recs []gridindex.Record
		if _, err := gridingest.ReadATS(bytes.NewReader(b), atsName, collect(&recs), gridingest.ATSOptions{}); err != nil {
			t.Fatal(err)
		}
		return recs
	}
	want := read(base)
	// LF instead of CRLF, trailing spaces and a blank line change nothing.
	lf := bytes.ReplaceAll(base, []byte("\r\n"), []byte("   \n"))
	lf = append([]byte("\n"), lf...)
	got := read(lf)
	if len(got) != len(want) {
		t.Fatalf("LF file: %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Location != want[i].Location || !orb.Equal(got[i].Geometry, want[i].Geometry) {
			t.Fatalf("LF file record %d = %s, want %s", i, got[i].Location, want[i].Location)
		}
	}
}

func TestReadATSSignOfLongitude(t *testing.T) {
	t.Parallel()
	var pos, neg strings.Builder
	for s := 1; s <= 36; s++ {
		sec := atsSection(lld.W5, 3, 30, s)
		neg.WriteString(sec)
		for _, l := range strings.Split(strings.TrimSpace(sec), "\n") {
			pos.WriteString(l[:21] + strings.Replace(l[21:33], "-", " ", 1) + "\n")
		}
	}
	var a, b []gridindex.Record
	if _, err := gridingest.ReadATS(strings.NewReader(pos.String()), "pos.SEQ", collect(&a), gridingest.ATSOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := gridingest.ReadATS(strings.NewReader(neg.String()), "neg.SEQ", collect(&b), gridingest.ATSOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(a) != 757 || len(a) != len(b) {
		t.Fatalf("%d and %d records, want 757", len(a), len(b))
	}
	for i := range a {
		if !orb.Equal(a[i].Geometry, b[i].Geometry) {
			t.Fatalf("record %s differs between positive and negative longitudes", a[i].Location)
		}
	}
}

func TestReadATSErrors(t *testing.T) {
	t.Parallel()
	good := atsSection(lld.W5, 1, 24, 1) // lines 1-4
	lines := strings.Split(strings.TrimSpace(good), "\n")
	tests := []struct {
		name   string
		in     string
		line   int
		reason string
	}{
		{"truncated line", lines[0] + "\n" + lines[1][:25] + "\n", 2, "truncated"},
		{"bad latitude", lines[0] + "\n" + lines[1][:12] + "x" + lines[1][13:] + "\n", 2, "latitude"},
		{"bad longitude", lines[0] + "\n" + lines[1][:25] + "?" + lines[1][26:] + "\n", 2, "longitude"},
		{"bad section", strings.Replace(lines[0], "0101SE", "0199SE", 1) + "\n", 1, "section"},
		{"bad meridian", "7" + lines[0][1:] + "\n", 1, "meridian"},
		{"custom point out of order", good + atsLine(5, 1, 23, 1, "P1", 51.0, -114.0) + "\n", 5, "sorted"},
		{"custom point outside Alberta", lines[0] + "\n" + atsLine(5, 1, 24, 1, "Q1", 45.0, -114.0) + "\n", 2, "not in Alberta"},
		{"outside Alberta", lines[0][:10] + " 45.0000000" + lines[0][21:] + "\n", 1, "not in Alberta"},
		{"bad date", lines[0] + "2005X315\n", 1, "date computed"},
		{"cut date", lines[0] + "2005\n", 1, "cut off"},
		{"bad elevation", lines[0] + fmt.Sprintf("%-27s%6s", "20050315", "12a4.5") + "\n", 1, "elevation"},
		{"too long", lines[0] + strings.Repeat(" ", 80) + "x\n", 1, "108"},
		{"out of order", atsSection(lld.W5, 1, 25, 1) + good, 5, "sorted"},
		{"range out of order", atsSection(lld.W5, 2, 24, 1) + good, 5, "sorted"},
		{"missing corner", lines[0] + "\n", 1, "no SW corner"},
		{"aliases disagree", good + atsLine(5, 1, 24, 2, "SE", 50.1, -114.1) + "\n", 5, "given as"},
		{"empty", "\n\n", 0, "no ATS records"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gridingest.ReadATS(strings.NewReader(tc.in), "x.SEQ", func(gridindex.Record) error { return nil }, gridingest.ATSOptions{})
			if err == nil {
				t.Fatalf("ReadATS(%q) succeeded", tc.in)
			}
			wantError(t, err, "x.SEQ", tc.line, tc.reason)
		})
	}
}

// atsFullLine is atsLine with every field after the coordinates, at the
// published offsets: date computed (33), station, status, class,
// comment (44-55), origin, method, datum, road-allowance code, elevation
// (60), elevation date (66), elevation origin/method/accuracy/datum,
// update timestamp (94-107).
func atsFullLine(m, r, tw, s int, code string, lat, lng float64) string {
	l := atsLine(m, r, tw, s, code, lat, lng) + "20050315" + "1A3" + fmt.Sprintf("%-12s", "MONUMENT") + "GC4 " + fmt.Sprintf("%6.1f", 1062.5) + "19850601" + "GCA2" + strings.Repeat(" ", 16) + "20050315120000"
	if len(l) != 108 {
		panic(fmt.Sprintf("atsFullLine is %d characters", len(l)))
	}
	return l
}

// TestReadATSRealCodes reads one section given with every standard code
// of AltaLIS's file, each on a full-width line, and checks that the quarter
// points and centre are where the file puts them (not the mid-points the
// reader would put in their place).
func TestReadATSRealCodes(t *testing.T) {
	t.Parallel()
	loc := lld.Location{System: lld.DLS, Unit: lld.Section, Meridian: lld.W5, Range: 1, Township: 24, Section: 15}
	b := dls.Bound(loc)
	c := b.Center()
	// Quarter points and centre 30 m (about 0.0003°) off the mid-points.
	const off = 0.0003
	pts := map[string]orb.Point{
		"SE": {b.Max[0], b.Min[1]}, "SW": b.Min, "NW": {b.Min[0], b.Max[1]}, "NE": b.Max,
		"S4": {c[0] + off, b.Min[1]}, "N4": {c[0] - off, b.Max[1]},
		"E4": {b.Max[0], c[1] + off}, "W4": {b.Min[0], c[1] - off},
		"CS": {c[0] + off, c[1] + off},
	}
	var in strings.Builder
	for _, code := range []string{"NE", "NW", "SE", "SW", "CS", "E4", "N4", "S4", "W4"} {
		p := pts[code]
		in.WriteString(atsFullLine(5, 1, 24, 15, code, p[1], p[0]) + "\r\n")
	}
	var recs []gridindex.Record
	st, err := gridingest.ReadATS(strings.NewReader(in.String()), "ATS_V4_1.SEQ", collect(&recs), gridingest.ATSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 9 || len(recs) != 1+1+4+16 {
		t.Fatalf("%d rows, %d records (%s), want 9 rows and 22 records", st.Rows, len(recs), st)
	}
	got := byLocation(t, recs)
	sec := got["15-24-1-W5"].Geometry.(orb.Polygon)[0]
	want := orb.Ring{pts["SW"], pts["S4"], pts["SE"], pts["E4"], pts["NE"], pts["N4"], pts["NW"], pts["W4"], pts["SW"]}
	for i := range want {
		if !near(sec[i], want[i], 1e-7) {
			t.Errorf("section vertex %d = %v, want %v", i, sec[i], want[i])
		}
	}
	// The NE quarter runs from the centre to the E4, NE and N4 points.
	q := got["NE-15-24-1-W5"].Geometry.(orb.Polygon)[0]
	for i, code := range []string{"CS", "E4", "NE", "N4"} {
		if !near(q[i], pts[code], 1e-7) {
			t.Errorf("NE quarter vertex %d = %v, want %s %v", i, q[i], code, pts[code])
		}
	}
	if r := got["NE-15-24-1-W5"]; r.AccuracyM != 5 {
		t.Errorf("quarter AccuracyM = %v, want 5 (its quarter points are in the file)", r.AccuracyM)
	}
}

// TestReadATSCustomGoverningPoints: P, Q and X points are checked and
// counted, reported once per code, and leave the polygons as the standard
// points make them; a section named only by a custom point is not
// emitted (and does not need corners).
func TestReadATSCustomGoverningPoints(t *testing.T) {
	t.Parallel()
	plain := atsSection(lld.W5, 1, 24, 15)
	sw := strings.SplitN(plain, "\n", 3)[1] // SW corner line
	lat, _ := strconv.ParseFloat(strings.TrimSpace(sw[10:21]), 64)
	lng, _ := strconv.ParseFloat(strings.TrimSpace(sw[21:33]), 64)
	// Custom points 300 m and more from any corner: if the reader let
	// them govern a corner, the polygons would move.
	custom := atsLine(5, 1, 24, 15, "P1", lat+0.003, lng+0.004) + "\n" +
		atsLine(5, 1, 24, 15, "Q ", lat+0.004, lng+0.003) + "\n" +
		atsLine(5, 1, 24, 15, "X7", lat+0.005, lng+0.006) + "\n" +
		atsLine(5, 1, 24, 15, "P1", lat+0.006, lng+0.005) + "\n" +
		atsLine(5, 1, 24, 16, "XA", lat+0.003, lng-0.02) + "\n" // section 16 has nothing else
	var want, got []gridindex.Record
	if _, err := gridingest.ReadATS(strings.NewReader(plain), "plain.SEQ", collect(&want), gridingest.ATSOptions{}); err != nil {
		t.Fatal(err)
	}
	var ns ingest.Notices
	st, err := gridingest.ReadATS(strings.NewReader(plain+custom), "custom.SEQ", collect(&got), gridingest.ATSOptions{Notices: &ns})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 9 {
		t.Errorf("Rows = %d, want 9", st.Rows)
	}
	if n := st.Skipped["custom governing point (P/Q/X), not used for polygons"]; n != 5 {
		t.Errorf("skipped %d custom points, want 5 (%s)", n, st)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records with custom points, %d without", len(got), len(want))
	}
	for i := range want {
		if got[i].Location != want[i].Location || !orb.Equal(got[i].Geometry, want[i].Geometry) {
			t.Errorf("record %d = %s %v, want %s %v", i, got[i].Location, got[i].Geometry, want[i].Location, want[i].Geometry)
		}
	}
	if ns.Total() != 5 {
		t.Errorf("%d notices, want 5", ns.Total())
	}
	lines := ns.Lines()
	wantLines := []string{`custom.SEQ:5: column point code: new value "P1"`, `custom.SEQ:6: column point code: new value "Q "`, `custom.SEQ:7: column point code: new value "X7"`, `custom.SEQ:9: column point code: new value "XA"`}
	if len(lines) != len(wantLines) {
		t.Fatalf("notices %q, want %d distinct", lines, len(wantLines))
	}
	for i, w := range wantLines {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("notice %d = %q, want it to start %q", i, lines[i], w)
		}
	}
	if !strings.HasSuffix(lines[0], "(2 rows)") {
		t.Errorf("notice %q does not count P1's two rows", lines[0])
	}
}

// TestReadATSUnknownCode: a code that is not AltaLIS's rejects the file
// with a BadValue naming the file, line, column, value and the accepted
// codes. Our former invented codes ("S ", "C ") are among the rejected.
func TestReadATSUnknownCode(t *testing.T) {
	t.Parallel()
	good := atsSection(lld.W5, 1, 24, 1)
	for _, code := range []string{"S ", "N ", "E ", "W ", "C ", "ZZ", "s4", "ne", "P-", "  ", "4S"} {
		t.Run(code, func(t *testing.T) {
			in := good + atsLine(5, 1, 24, 1, code, 50.95, -114.0) + "\n"
			_, err := gridingest.ReadATS(strings.NewReader(in), "ATS_V4_1.SEQ", func(gridindex.Record) error { return nil }, gridingest.ATSOptions{})
			wantError(t, err, "ATS_V4_1.SEQ", 5, fmt.Sprintf("column point code: value %q is not one of SE, SW, NW, NE, S4, N4, E4, W4, CS, P?, Q?, X?", code))
		})
	}
}

func TestReadATSMissingCornerNamesAliases(t *testing.T) {
	t.Parallel()
	in := atsLine(5, 1, 24, 15, "SE", 51.1, -114.1) + "\n"
	_, err := gridingest.ReadATS(strings.NewReader(in), "x.SEQ", func(gridindex.Record) error { return nil }, gridingest.ATSOptions{})
	wantError(t, err, "x.SEQ", 1, "SE of 16-24-1-W5")
}

func TestReadATSEmitError(t *testing.T) {
	t.Parallel()
	stop := fmt.Errorf("stop")
	_, err := gridingest.ReadATS(bytes.NewReader(fixtureFile(t, griddemo.ATSFile)), atsName, func(gridindex.Record) error { return stop }, gridingest.ATSOptions{})
	if err != stop {
		t.Fatalf("error = %v, want the emitter's", err)
	}
}

// largeATS streams a valid ATS file of ranges × townships W5 townships,
// every section giving its four corners.
func largeATS(ranges, townships int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		var b strings.Builder
		// Townships 1–20 of W5 have no township shifts of their own in
		// the DLS model's correction (dls correction_table.go), so their
		// model sections share corners across townships as a real file's do.
		for r := 1; r <= ranges; r++ {
			for tw := 1; tw <= townships; tw++ {
				b.Reset()
				for s := 1; s <= 36; s++ {
					b.WriteString(atsSection(lld.W5, r, tw, s))
					c := dls.Bound(lld.Location{System: lld.DLS, Unit: lld.Section, Meridian: lld.W5, Range: uint8(r), Township: uint8(tw), Section: uint8(s)}).Center()
					b.WriteString(atsLine(5, r, tw, s, "CS", c[1], c[0]) + "\n")
				}
				if _, err := io.WriteString(pw, b.String()); err != nil {
					return
				}
			}
		}
		pw.Close()
	}()
	return pr
}

func BenchmarkReadATS(b *testing.B) {
	data := fixtureFile(b, griddemo.ATSFile)
	lines := bytes.Count(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	recs := 0
	for b.Loop() {
		recs = 0
		if _, err := gridingest.ReadATS(bytes.NewReader(data), atsName, func(gridindex.Record) error { recs++; return nil }, gridingest.ATSOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(recs)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func FuzzReadATS(f *testing.F) {
	data := fixtureFile(f, griddemo.ATSFile)
	lines := strings.SplitAfter(string(data), "\n")
	f.Add(strings.Join(lines[:40], ""))
	f.Add(strings.Join(lines[100:180], ""))
	f.Add(atsSection(lld.W5, 1, 24, 1))
	f.Add(atsSection(lld.W5, 1, 26, 36) + atsSection(lld.W5, 1, 27, 1))
	f.Add("50102415CS 51.1000000-114.1000000\n")
	f.Add("50102415P1 51.1000000-114.1000000\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, err := gridingest.ReadATS(strings.NewReader(in), "f.SEQ", func(r gridindex.Record) error {
			if r.Geometry == nil {
				t.Fatalf("%s without geometry", r.Location)
			}
			return nil
		}, gridingest.ATSOptions{})
		if !isIngestError(err) {
			t.Fatalf("error %v (%T) is not an *ingest.Error", err, err)
		}
	})
}
