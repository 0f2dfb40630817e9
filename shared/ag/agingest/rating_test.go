package agingest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
	"meridian/shared/lld"
)

func lim(c byte) agingest.Limitation { return agingest.LSRSLimitation(c) }

var ratingTests = []struct {
	in      string
	want    agingest.Rating
	canon   string
	class   int
	limiter string
	score   int
}{
	{"3H", agingest.Rating{Components: []agingest.RatingComponent{{Class: 3, Limitations: []agingest.Limitation{lim('H')}, Tenths: 10}}}, "3H", 3, "H - Heat deficit", 67},
	{"3H(4M)", agingest.Rating{Components: []agingest.RatingComponent{{Class: 3, Limitations: []agingest.Limitation{lim('H')}, Tenths: 10,
		Alt: &agingest.RatingComponent{Class: 4, Limitations: []agingest.Limitation{lim('M')}}}}}, "3H(4M)", 3, "H - Heat deficit", 67},
	{"2A 7:3 4W", agingest.Rating{Components: []agingest.RatingComponent{
		{Class: 2, Limitations: []agingest.Limitation{lim('A')}, Tenths: 7},
		{Class: 4, Limitations: []agingest.Limitation{lim('W')}, Tenths: 3}}}, "2A 7:3 4W", 2, "A - Moisture deficit", 75},
	// The minor component first by share: the larger share dominates.
	{"4W 3:7 2A", agingest.Rating{Components: []agingest.RatingComponent{
		{Class: 4, Limitations: []agingest.Limitation{lim('W')}, Tenths: 3},
		{Class: 2, Limitations: []agingest.Limitation{lim('A')}, Tenths: 7}}}, "4W 3:7 2A", 2, "A - Moisture deficit", 75},
	{"  4tw (5m) ", agingest.Rating{Components: []agingest.RatingComponent{{Class: 4, Limitations: []agingest.Limitation{lim('T'), lim('W')}, Tenths: 10,
		Alt: &agingest.RatingComponent{Class: 5, Limitations: []agingest.Limitation{lim('M')}}}}}, "4TW(5M)", 4, "T - Topography", 52},
	{"1", agingest.Rating{Components: []agingest.RatingComponent{{Class: 1, Tenths: 10}}}, "1", 1, "", 95},
	{"2H 5:3:2 3M 4W", agingest.Rating{Components: []agingest.RatingComponent{
		{Class: 2, Limitations: []agingest.Limitation{lim('H')}, Tenths: 5},
		{Class: 3, Limitations: []agingest.Limitation{lim('M')}, Tenths: 3},
		{Class: 4, Limitations: []agingest.Limitation{lim('W')}, Tenths: 2}}}, "2H 5:3:2 3M 4W", 2, "H - Heat deficit", 75},
	{"7", agingest.Rating{Components: []agingest.RatingComponent{{Class: 7, Tenths: 10}}}, "7", 7, "", 7},
	{"", agingest.Rating{}, "", 0, "", -1},
	{"0", agingest.Rating{}, "", 0, "", -1},
}

func TestParseRating(t *testing.T) {
	t.Parallel()
	for _, tc := range ratingTests {
		got, err := agingest.ParseRating(tc.in)
		if err != nil {
			t.Errorf("ParseRating(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseRating(%q) (-want +got):\n%s", tc.in, diff)
		}
		if s := got.String(); s != tc.canon {
			t.Errorf("ParseRating(%q).String() = %q, want %q", tc.in, s, tc.canon)
		}
		if c := got.Class(); c != tc.class {
			t.Errorf("ParseRating(%q).Class() = %d, want %d", tc.in, c, tc.class)
		}
		l, _ := got.Limiter()
		if l.String() != tc.limiter {
			t.Errorf("ParseRating(%q).Limiter() = %q, want %q", tc.in, l, tc.limiter)
		}
		s, ok := got.Score()
		if !ok {
			s = -1
		}
		if s != tc.score {
			t.Errorf("ParseRating(%q).Score() = %d, want %d", tc.in, s, tc.score)
		}
	}
}

func TestParseRatingErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"8H", "H3", "3H 7:3", "2A 4W", "2A 7:2 4W", "2A 6:4 4W 5M", "2A 4W 7:3", "3HHHHH", "3H(4M", "3H(X)", "3H)", "3-H", "2A 0:10 4W", "2A 7:3:0 4W", "2A 7:3 7:3 4W"} {
		if r, err := agingest.ParseRating(in); err == nil {
			t.Errorf("ParseRating(%q) = %v, want an error", in, r)
		}
	}
}

func TestScoreRange(t *testing.T) {
	t.Parallel()
	want := [][2]int{{90, 100}, {75, 89}, {60, 74}, {45, 59}, {30, 44}, {15, 29}, {0, 14}}
	for c := 1; c <= 7; c++ {
		lo, hi, ok := agingest.ScoreRange(c)
		if !ok || lo != want[c-1][0] || hi != want[c-1][1] {
			t.Errorf("ScoreRange(%d) = %d, %d, %v", c, lo, hi, ok)
		}
	}
	if _, _, ok := agingest.ScoreRange(0); ok {
		t.Error("ScoreRange(0) ok")
	}
}

const agrasidHeader = "PARCEL_ID,M,RGE,TWP,SEC,QS,Dom_LSRS\n"

// TestReadAGRASIDLSRSNumbers reads Dom_LSRS as the real file may hold it,
// a number (evidence id 59397448838 reads it with int(float(s))): 3, 3.0
// and 3.00000000000 are class 3; 0 is not rated.
func TestReadAGRASIDLSRSNumbers(t *testing.T) {
	t.Parallel()
	in := agrasidHeader + "1,5,1,24,25,NW,3\n2,5,1,24,25,NE,3.0\n3,5,1,24,25,SW,3.00000000000\n4,5,1,24,25,SE,0.0\n5,4,15,10,36,NE,2H\n"
	var layout ingest.Layout
	src := csvSource("lsrs.csv", in)
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadAGRASIDLSRS, src)
	for i, want := range []int{3, 3, 3, 0, 2} {
		if c := got[i].Rating.Class(); c != want {
			t.Errorf("row %d (%s): class %d, want %d", i+1, got[i].Location, c, want)
		}
	}
	if _, ok := got[3].Rating.Score(); ok {
		t.Error("0.0 is rated")
	}
	if layout != agingest.AGRASIDLSRSLayout || !layout.Verified {
		t.Errorf("layout = %+v", layout)
	}
}

func TestReadAGRASIDLSRS(t *testing.T) {
	t.Parallel()
	in := agrasidHeader + "1001,5,1,24,25,NW,2H(3M)\n1002,W4,15,10,36,ne,\n"
	got := collect(t, agingest.ReadAGRASIDLSRS, csvSource("lsrs.csv", in))
	nw, _ := lld.Parse("NW-25-24-1-W5")
	ne, _ := lld.Parse("NE-36-10-15-W4")
	r, _ := agingest.ParseRating("2H(3M)")
	want := []agingest.LSRSQuarter{{ParcelID: "1001", Location: nw, Rating: r}, {ParcelID: "1002", Location: ne}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadAGRASIDLSRS (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"header", "PARCEL_ID,M,RGE,TWP,SEC,QS\n", 1, "missing column DOM_LSRS"},
		{"meridian", agrasidHeader + "1,3,1,24,25,NW,2H\n", 2, "M (meridian)"},
		{"section", agrasidHeader + "1,5,1,24,37,NW,2H\n", 2, "SEC"},
		{"quarter", agrasidHeader + "1,5,1,24,25,N,2H\n", 2, "QS"},
		{"rating", agrasidHeader + "1,5,1,24,25,NW,2H 7:3\n", 2, "Dom_LSRS"},
		{"fraction", agrasidHeader + "1,5,1,24,25,NW,3.5\n", 2, `column Dom_LSRS: value "3.5" is not one of`},
		{"class 8", agrasidHeader + "1,5,1,24,25,NW,8.0\n", 2, `column Dom_LSRS: value "8.0"`},
		{"negative", agrasidHeader + "1,5,1,24,25,NW,-1\n", 2, `column Dom_LSRS: value "-1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := agingest.ReadAGRASIDLSRS(csvSource("lsrs.csv", tc.in), func(agingest.LSRSQuarter) error { return nil })
			wantError(t, err, "lsrs.csv", tc.line, tc.want)
		})
	}
}

func TestReadSLCLSRS(t *testing.T) {
	t.Parallel()
	in := "POLY_ID,PROVINCE,RATING\n647012,SK,2A 7:3 4W\n375001,mb,3H\n"
	got := collect(t, agingest.ReadSLCLSRS, csvSource("slc_lsrs.csv", in))
	if len(got) != 2 || got[0].PolyID != 647012 || got[0].Crop != "SSSG" || got[0].Rating.Class() != 2 || got[1].Province != "MB" {
		t.Errorf("ReadSLCLSRS = %+v", got)
	}
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"province", "POLY_ID,PROVINCE,RATING\n1,AB,2H\n", 2, "want SK or MB"},
		{"twice", "POLY_ID,PROVINCE,RATING\n1,SK,2H\n1,SK,3H\n", 3, "second SSSG rating"},
		{"rating", "POLY_ID,PROVINCE,RATING\n1,SK,9\n", 2, "RATING"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := agingest.ReadSLCLSRS(csvSource("slc_lsrs.csv", tc.in), func(agingest.LSRSPolygon) error { return nil })
			wantError(t, err, "slc_lsrs.csv", tc.line, tc.want)
		})
	}
}

const cliHeader = "Class_A,Percent_A,Subclas_A1,Subclas_A2,Class_B,Percent_B,Subclas_B1,Subclas_B2,Class_C,Percent_C,Subclas_C1,Subclas_C2\n"

func TestReadCLI(t *testing.T) {
	t.Parallel()
	in := cliHeader +
		"3,6,T,,4,4,W,,,,,\n" +
		"2,,m,,,,,,,,,\n" +
		",,,,,,,,,,,\n" +
		"O,10,,,,,,,,,,\n" +
		"4,5,T,W,5,3,S,,6,2,,\n"
	src := csvSource("cli.csv", in)
	var notices ingest.Notices
	src.Notices = &notices
	got := collect(t, agingest.ReadCLI, src)
	// The row of empty fields is not a record: skipped, counted.
	if l := notices.Lines(); len(l) != 1 || l[0] != "cli.csv:4: skipped empty row: no value in any field (1 rows)" {
		t.Errorf("notices = %q", l)
	}
	cl := func(c byte) agingest.Limitation { l, _ := agingest.CLILimitation(c); return l }
	want := []agingest.CLIPolygon{
		{Components: []agingest.CLIComponent{{"3", 6, []agingest.Limitation{cl('T')}}, {"4", 4, []agingest.Limitation{cl('W')}}}},
		{Components: []agingest.CLIComponent{{"2", 10, []agingest.Limitation{cl('M')}}}},
		{Components: []agingest.CLIComponent{{"O", 10, nil}}},
		{Components: []agingest.CLIComponent{{"4", 5, []agingest.Limitation{cl('T'), cl('W')}}, {"5", 3, []agingest.Limitation{cl('S')}}, {"6", 2, nil}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadCLI (-want +got):\n%s", diff)
	}
	for i, tc := range []struct {
		score   int
		limiter string
		label   string
	}{{61, "T - Adverse topography", "3^6T"}, {82, "M - Moisture deficiency", "2M"}, {-1, "", "O"}, {45, "T - Adverse topography", "4^5TW"}} {
		s, ok := got[i].Score()
		if !ok {
			s = -1
		}
		l, _ := got[i].Limiter()
		p, _ := got[i].Primary()
		if s != tc.score || l.String() != tc.limiter || p.String() != tc.label {
			t.Errorf("polygon %d: score %d, limiter %q, primary %q; want %d, %q, %q", i, s, l, p.String(), tc.score, tc.limiter, tc.label)
		}
	}
	// A polygon without components (a DBF record with no rating) has no
	// score, limiter or label.
	if s, ok := (agingest.CLIPolygon{}).Score(); ok {
		t.Errorf("empty polygon: score %d", s)
	}
	if _, ok := (agingest.CLIPolygon{}).Primary(); ok {
		t.Error("empty polygon: a primary label")
	}
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"header", "Class_A,Percent_A\n", 1, "missing column SUBCLAS_A1"},
		{"class", cliHeader + "8,10,,,,,,,,,,\n", 2, `column CLASS_A: value "8" is not one of 1, 2, 3, 4, 5, 6, 7, O`},
		{"subclass", cliHeader + "3,10,Q,,,,,,,,,\n", 2, `column SUBCLAS_A1: value "Q" is not one of C, D, E, F, I, M, N, P, R, S, T, W, X`},
		{"shares", cliHeader + "3,6,T,,4,3,W,,,,,\n", 2, "add up to 9"},
		{"blank A share", cliHeader + "3,,T,,4,3,W,,,,,\n", 2, "Percent_A is empty"},
		{"gap", cliHeader + "3,7,T,,,,,,4,3,,\n", 2, "component C without component B before it"},
		{"orphan share", cliHeader + "3,10,T,,,5,,,,,,\n", 2, "no Class_B"},
		{"percent", cliHeader + "3,11,T,,,,,,,,,\n", 2, "Percent_A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := agingest.ReadCLI(csvSource("cli.csv", tc.in), func(agingest.CLIPolygon) error { return nil })
			wantError(t, err, "cli.csv", tc.line, tc.want)
		})
	}
}

// cliServiceFeature is a feature of AAFC's cli_agr_cap_250k service as a
// GeoJSON query returns it (evidence id 61389629629: CLASS_A…CLASS_F,
// PERCENT_A…PERCENT_F, SUBCLAS_A1…SUBCLAS_D2); absent components null.
func cliServiceFeature(id int, classes, percents [6]string, subs [8]string) string {
	v := func(s string) string {
		if s == "" {
			return "null"
		}
		return `"` + s + `"`
	}
	props := fmt.Sprintf(`"OBJECTID":%d`, id)
	for i, x := range []string{"A", "B", "C", "D", "E", "F"} {
		props += fmt.Sprintf(`,"CLASS_%s":%s`, x, v(classes[i]))
	}
	for i, x := range []string{"A", "B", "C", "D", "E", "F"} {
		p := "null"
		if percents[i] != "" {
			p = percents[i]
		}
		props += fmt.Sprintf(`,"PERCENT_%s":%s`, x, p)
	}
	for i, x := range []string{"A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2"} {
		props += fmt.Sprintf(`,"SUBCLAS_%s":%s`, x, v(subs[i]))
	}
	return feature(props, box)
}

// TestReadCLIService reads the six-component layer: all six components,
// the fourth with subclasses, the fifth and sixth without (the service
// has no SUBCLAS_E1…F2).
func TestReadCLIService(t *testing.T) {
	t.Parallel()
	in := fc(
		cliServiceFeature(1, [6]string{"2", "3", "4", "5", "6", "7"}, [6]string{"3", "2", "2", "1", "1", "1"}, [8]string{"C", "", "T", "", "W", "", "M", "N"}),
		cliServiceFeature(2, [6]string{"3"}, [6]string{"10", "0", "0", "0", "0", "0"}, [8]string{"M"}),
		cliServiceFeature(3, [6]string{}, [6]string{}, [8]string{}),
	)
	var layout ingest.Layout
	src := geoJSONSource("cli_agr_cap_250k.geojson", in)
	src.Recognised = func(l ingest.Layout) { layout = l }
	got := collect(t, agingest.ReadCLI, src)
	if len(got) != 3 || len(got[0].Components) != 6 || len(got[1].Components) != 1 || len(got[2].Components) != 0 {
		t.Fatalf("ReadCLI = %+v", got)
	}
	var parts []string
	for _, c := range got[0].Components {
		parts = append(parts, c.String())
	}
	if s := strings.Join(parts, " "); s != "2^3C 3^2T 4^2W 5^1MN 6^1 7^1" {
		t.Errorf("components = %s", s)
	}
	if layout != agingest.CLIServiceLayout || !layout.Verified {
		t.Errorf("layout = %+v, want CLIServiceLayout", layout)
	}
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"class F", cliServiceFeature(4, [6]string{"2", "3", "4", "5", "6", "9"}, [6]string{"3", "2", "2", "1", "1", "1"}, [8]string{}), `column CLASS_F: value "9"`},
		{"subclass D2", cliServiceFeature(5, [6]string{"2", "3", "4", "5"}, [6]string{"4", "2", "2", "2"}, [8]string{"", "", "", "", "", "", "", "Z"}), `column SUBCLAS_D2: value "Z"`},
		{"shares", cliServiceFeature(6, [6]string{"2", "3", "4", "5", "6"}, [6]string{"3", "2", "2", "2", "2"}, [8]string{}), "add up to 11"},
		{"gap before E", cliServiceFeature(7, [6]string{"2", "3", "", "", "6"}, [6]string{"5", "4", "", "", "1"}, [8]string{}), "component E without component C before it"},
		{"share without class", cliServiceFeature(8, [6]string{"2"}, [6]string{"10", "", "", "3"}, [8]string{}), "no Class_D"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := agingest.ReadCLI(geoJSONSource("cli.geojson", fc(tc.in)), func(agingest.CLIPolygon) error { return nil })
			wantError(t, err, "cli.geojson", 3, tc.want)
		})
	}
}

// TestReadAGRASIDLSRSAsDownloaded reads an LSRS CSV shaped as a
// spreadsheet export: a BOM, CRLF, a title row, an empty row after the
// header and between records, trailing delimiters, Windows-1252 text, a
// notice and a total after the records. Every record is read; the rest is
// skipped and counted.
func TestReadAGRASIDLSRSAsDownloaded(t *testing.T) {
	t.Parallel()
	in := "\xef\xbb\xbfAGRASID quarter-section LSRS \x96 Alberta,,,,,,,\r\n" +
		"PARCEL_ID,M,RGE,TWP,SEC,QS,Dom_LSRS,\r\n" +
		",,,,,,,\r\n" +
		"1,5,1,24,25,NW,3.00000000000,\r\n" +
		",,,,,,,\r\n" +
		"2,5,1,24,25,NE,2H,\r\n" +
		"Source: Alberta Agriculture \x96 contact ropin@gov.ab.ca,,,,,,,\r\n" +
		"Total,,,,,,2,\r\n"
	src := csvSource("lsrs.csv", in)
	var notices ingest.Notices
	src.Notices = &notices
	got := collect(t, agingest.ReadAGRASIDLSRS, src)
	if len(got) != 2 || got[0].ParcelID != "1" || got[0].Rating.Class() != 3 || got[1].Rating.Class() != 2 || got[1].Location.String() != "NE-25-24-1-W5" {
		t.Fatalf("read %+v", got)
	}
	want := []string{
		"lsrs.csv:1: skipped row before the header: a title or note, not the header (one value) (1 rows)",
		"lsrs.csv:3: skipped empty row: no value in any field (2 rows)",
		"lsrs.csv:7: skipped row of one value: a note, title or contact line, not a record (1 rows)",
		"lsrs.csv:8: skipped totals row: a total, not a record (1 rows)",
	}
	if l := notices.Lines(); !slices.Equal(l, want) {
		t.Errorf("notices\n%q\nwant\n%q", l, want)
	}
}
