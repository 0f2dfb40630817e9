package ag_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ingest/ag"
	"meridian/shared/lld"
)

func lim(c byte) ag.Limitation { return ag.LSRSLimitation(c) }

var ratingTests = []struct {
	in      string
	want    ag.Rating
	canon   string
	class   int
	limiter string
	score   int
}{
	{"3H", ag.Rating{Components: []ag.RatingComponent{{Class: 3, Limitations: []ag.Limitation{lim('H')}, Tenths: 10}}}, "3H", 3, "H - Heat deficit", 67},
	{"3H(4M)", ag.Rating{Components: []ag.RatingComponent{{Class: 3, Limitations: []ag.Limitation{lim('H')}, Tenths: 10,
		Alt: &ag.RatingComponent{Class: 4, Limitations: []ag.Limitation{lim('M')}}}}}, "3H(4M)", 3, "H - Heat deficit", 67},
	{"2A 7:3 4W", ag.Rating{Components: []ag.RatingComponent{
		{Class: 2, Limitations: []ag.Limitation{lim('A')}, Tenths: 7},
		{Class: 4, Limitations: []ag.Limitation{lim('W')}, Tenths: 3}}}, "2A 7:3 4W", 2, "A - Moisture deficit", 75},
	// The minor component first by share: the larger share dominates.
	{"4W 3:7 2A", ag.Rating{Components: []ag.RatingComponent{
		{Class: 4, Limitations: []ag.Limitation{lim('W')}, Tenths: 3},
		{Class: 2, Limitations: []ag.Limitation{lim('A')}, Tenths: 7}}}, "4W 3:7 2A", 2, "A - Moisture deficit", 75},
	{"  4tw (5m) ", ag.Rating{Components: []ag.RatingComponent{{Class: 4, Limitations: []ag.Limitation{lim('T'), lim('W')}, Tenths: 10,
		Alt: &ag.RatingComponent{Class: 5, Limitations: []ag.Limitation{lim('M')}}}}}, "4TW(5M)", 4, "T - Topography", 52},
	{"1", ag.Rating{Components: []ag.RatingComponent{{Class: 1, Tenths: 10}}}, "1", 1, "", 95},
	{"2H 5:3:2 3M 4W", ag.Rating{Components: []ag.RatingComponent{
		{Class: 2, Limitations: []ag.Limitation{lim('H')}, Tenths: 5},
		{Class: 3, Limitations: []ag.Limitation{lim('M')}, Tenths: 3},
		{Class: 4, Limitations: []ag.Limitation{lim('W')}, Tenths: 2}}}, "2H 5:3:2 3M 4W", 2, "H - Heat deficit", 75},
	{"7", ag.Rating{Components: []ag.RatingComponent{{Class: 7, Tenths: 10}}}, "7", 7, "", 7},
	{"", ag.Rating{}, "", 0, "", -1},
	{"0", ag.Rating{}, "", 0, "", -1},
}

func TestParseRating(t *testing.T) {
	t.Parallel()
	for _, tc := range ratingTests {
		got, err := ag.ParseRating(tc.in)
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
		if r, err := ag.ParseRating(in); err == nil {
			t.Errorf("ParseRating(%q) = %v, want an error", in, r)
		}
	}
}

func TestScoreRange(t *testing.T) {
	t.Parallel()
	want := [][2]int{{90, 100}, {75, 89}, {60, 74}, {45, 59}, {30, 44}, {15, 29}, {0, 14}}
	for c := 1; c <= 7; c++ {
		lo, hi, ok := ag.ScoreRange(c)
		if !ok || lo != want[c-1][0] || hi != want[c-1][1] {
			t.Errorf("ScoreRange(%d) = %d, %d, %v", c, lo, hi, ok)
		}
	}
	if _, _, ok := ag.ScoreRange(0); ok {
		t.Error("ScoreRange(0) ok")
	}
}

const agrasidHeader = "PARCEL_ID,M,RGE,TWP,SEC,QS,Dom_LSRS\n"

func TestReadAGRASIDLSRS(t *testing.T) {
	t.Parallel()
	in := agrasidHeader + "1001,5,1,24,25,NW,2H(3M)\n1002,W4,15,10,36,ne,\n"
	got := collect(t, ag.ReadAGRASIDLSRS, csvSource("lsrs.csv", in))
	nw, _ := lld.Parse("NW-25-24-1-W5")
	ne, _ := lld.Parse("NE-36-10-15-W4")
	r, _ := ag.ParseRating("2H(3M)")
	want := []ag.LSRSQuarter{{ParcelID: "1001", Location: nw, Rating: r}, {ParcelID: "1002", Location: ne}}
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ag.ReadAGRASIDLSRS(csvSource("lsrs.csv", tc.in), func(ag.LSRSQuarter) error { return nil })
			wantError(t, err, "lsrs.csv", tc.line, tc.want)
		})
	}
}

func TestReadSLCLSRS(t *testing.T) {
	t.Parallel()
	in := "POLY_ID,PROVINCE,RATING\n647012,SK,2A 7:3 4W\n375001,mb,3H\n"
	got := collect(t, ag.ReadSLCLSRS, csvSource("slc_lsrs.csv", in))
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
			err := ag.ReadSLCLSRS(csvSource("slc_lsrs.csv", tc.in), func(ag.LSRSPolygon) error { return nil })
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
	got := collect(t, ag.ReadCLI, csvSource("cli.csv", in))
	cl := func(c byte) ag.Limitation { l, _ := ag.CLILimitation(c); return l }
	want := []ag.CLIPolygon{
		{Components: []ag.CLIComponent{{"3", 6, []ag.Limitation{cl('T')}}, {"4", 4, []ag.Limitation{cl('W')}}}},
		{Components: []ag.CLIComponent{{"2", 10, []ag.Limitation{cl('M')}}}},
		{},
		{Components: []ag.CLIComponent{{"O", 10, nil}}},
		{Components: []ag.CLIComponent{{"4", 5, []ag.Limitation{cl('T'), cl('W')}}, {"5", 3, []ag.Limitation{cl('S')}}, {"6", 2, nil}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadCLI (-want +got):\n%s", diff)
	}
	for i, tc := range []struct {
		score   int
		limiter string
		label   string
	}{{61, "T - Adverse topography", "3^6T"}, {82, "M - Moisture deficiency", "2M"}, {-1, "", ""}, {-1, "", "O"}, {45, "T - Adverse topography", "4^5TW"}} {
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
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"header", "Class_A,Percent_A\n", 1, "missing column SUBCLAS_A1"},
		{"class", cliHeader + "8,10,,,,,,,,,,\n", 2, "want 1 to 7 or O"},
		{"subclass", cliHeader + "3,10,Q,,,,,,,,,\n", 2, "not a CLI subclass"},
		{"shares", cliHeader + "3,6,T,,4,3,W,,,,,\n", 2, "add up to 9"},
		{"blank A share", cliHeader + "3,,T,,4,3,W,,,,,\n", 2, "Percent_A is empty"},
		{"gap", cliHeader + "3,7,T,,,,,,4,3,,\n", 2, "without the component before"},
		{"orphan share", cliHeader + "3,10,T,,,5,,,,,,\n", 2, "no Class_B"},
		{"percent", cliHeader + "3,11,T,,,,,,,,,\n", 2, "Percent_A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ag.ReadCLI(csvSource("cli.csv", tc.in), func(ag.CLIPolygon) error { return nil })
			wantError(t, err, "cli.csv", tc.line, tc.want)
		})
	}
}
