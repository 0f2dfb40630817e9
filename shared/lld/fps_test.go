package lld_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/apierr"
	"meridian/shared/lld"
)

func fps(unit byte, sec uint8, lat, lng uint16) lld.Location {
	l := lld.Location{System: lld.FPS, Unit: lld.Grid, FPS: lld.FPSRef{Lat: lat, Lng: lng, Section: sec, Unit: unit}}
	switch {
	case unit != 0:
		l.Unit = lld.FPSUnit
	case sec != 0:
		l.Unit = lld.FPSSection
	}
	return l
}

// fpsParseTests are the Township Canada forms (fps-grid.md §4, api-reference
// §8) and the variants people type.
var fpsParseTests = []struct {
	name, in, canon string
	want            lld.Location
}{
	{"tc grid", "60-20 N 100-30 W", "60-20 N 100-30 W", fps(0, 0, 60*60+20, 100*60+30)},
	{"tc section", "48 60-20 N 100-30 W", "48 60-20 N 100-30 W", fps(0, 48, 3620, 6030)},
	{"tc unit", "F 48 60-20 N 100-30 W", "F 48 60-20 N 100-30 W", fps('F', 48, 3620, 6030)},
	{"lower case", "f 48 60-20 n 100-30 w", "F 48 60-20 N 100-30 W", fps('F', 48, 3620, 6030)},
	{"extra spaces", "  F   48  60-20   N  100-30  W ", "F 48 60-20 N 100-30 W", fps('F', 48, 3620, 6030)},
	{"hyphen after unit letter", "F-48 60-20 N 100-30 W", "F 48 60-20 N 100-30 W", fps('F', 48, 3620, 6030)},
	{"glued hemispheres", "F 48 60-20N 100-30W", "F 48 60-20 N 100-30 W", fps('F', 48, 3620, 6030)},
	{"leading zero section", "B 016 46-50 N 48-45 W", "B 16 46-50 N 48-45 W", fps('B', 16, 46*60+50, 48*60+45)},
	{"hibernia", "B 16 46-50 N 48-45 W", "B 16 46-50 N 48-45 W", fps('B', 16, 2810, 2925)},
	{"unit N", "N 48 60-20 N 100-30 W", "N 48 60-20 N 100-30 W", fps('N', 48, 3620, 6030)},
	{"unit E", "E 1 60-20 N 100-30 W", "E 1 60-20 N 100-30 W", fps('E', 1, 3620, 6030)},
	{"section 100 south of 60", "100 59-00 N 110-00 W", "100 59-00 N 110-00 W", fps(0, 100, 59*60, 110*60)},
	{"section 80 at 60-10", "80 60-10 N 110-45 W", "80 60-10 N 110-45 W", fps(0, 80, 3610, 110*60+45)},
	{"30' grid north of 70", "M 100 72-00 N 120-00 W", "M 100 72-00 N 120-00 W", fps('M', 100, 72*60, 120*60)},
	{"78-85 band", "A 1 80-10 N 90-30 W", "A 1 80-10 N 90-30 W", fps('A', 1, 80*60+10, 90*60+30)},
	{"row 69-50 is 15' wide", "60 70-00 N 133-45 W", "60 70-00 N 133-45 W", fps(0, 60, 70*60, 133*60+45)},
	{"north limit", "85-00 N 90-00 W", "85-00 N 90-00 W", fps(0, 0, 85*60, 90*60)},
	{"south limit", "40-10 N 60-00 W", "40-10 N 60-00 W", fps(0, 0, 40*60+10, 60*60)},
	{"comment after comma", "60-20 N 100-30 W, Mackenzie", "60-20 N 100-30 W", fps(0, 0, 3620, 6030)},
	{"hibernia uwi", "302B164650048451", "B 16 46-50 N 48-45 W", fps('B', 16, 2810, 2925)},
	{"uwi lower case", "302b164650048451", "B 16 46-50 N 48-45 W", fps('B', 16, 2810, 2925)},
}

func TestParseFPS(t *testing.T) {
	t.Parallel()
	for _, tc := range fpsParseTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := lld.Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if s := got.String(); s != tc.canon {
				t.Errorf("Parse(%q).String() = %q, want %q", tc.in, s, tc.canon)
			}
			if back, err := lld.Parse(got.String()); err != nil || back != got {
				t.Errorf("Parse(%q) = %+v, %v; want %+v", got.String(), back, err, got)
			}
			if !lld.ValidFPS(got.FPS) {
				t.Errorf("ValidFPS(%+v) = false for a parsed location", got.FPS)
			}
		})
	}
}

// fpsErrorTests break one rule of COGLR ss.5-8 each (fps-grid.md §4).
var fpsErrorTests = []struct {
	name, in, want string
}{
	{"latitude minutes 25", "60-25 N 100-30 W", "whole 10′ steps"},
	{"latitude minutes 60", "60-60 N 100-30 W", "whole 10′ steps"},
	{"longitude minutes 20", "60-20 N 100-20 W", "longitude minutes are 00, 15, 30 or 45"},
	{"15' minutes north of 70", "70-10 N 133-45 W", "30′ wide, so longitude minutes are 00 or 30"},
	{"south of 40", "40-00 N 60-00 W", "out of range"},
	{"north of 85", "85-10 N 90-00 W", "out of range"},
	{"section 0", "0 60-20 N 100-30 W", "section 0 is out of range"},
	{"section 81 in an 80 grid", "81 60-20 N 100-30 W", "sections 1-80"},
	{"section 61 in a 60 grid", "61 69-00 N 100-30 W", "sections 1-60"},
	{"section 101 south of 60", "101 59-00 N 110-00 W", "section 101 is out of range"},
	{"section 61 north of 78", "61 80-10 N 90-30 W", "sections 1-60"},
	{"unit Q", "Q 48 60-20 N 100-30 W", `unit "Q" is not valid`},
	{"unit without section", "F 60-20 N 100-30 W", "a unit letter needs its section"},
	{"three-digit minutes", "60-200 N 100-30 W", "minutes are two digits"},
	{"longitude past 180", "60-20 N 180-00 W", "out of range"},
	{"junk before", "X Y 60-20 N 100-30 W", "not a Federal Permit System description"},
	{"junk after", "60-20 N 100-30 W 5", `"5" is not expected there`},
	{"uwi section 00", "302B004650048451", "section 00"},
	{"uwi unit Q", "302Q164650048451", `unit "Q" is not valid`},
	{"uwi latitude minutes", "302B164655048451", "whole 10′ steps"},
}

func TestParseFPSErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range fpsErrorTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := lld.Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error containing %q", tc.in, got, tc.want)
			}
			checkError(t, "Parse", tc.in, err, tc.want)
		})
	}
}

// TestFPSBeatsDLS: the digits of an FPS grid are never read as DLS
// (Township Canada answered "60-20 N 100-30 W" with four DLS quarters).
func TestFPSBeatsDLS(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"60-20 N 100-30 W", "48 60-20 N 100-30 W", "F 48 60-20 N 100-30 W", "E 20 60-20 N 100-30 W"} {
		l, err := lld.Parse(in)
		if err != nil || l.System != lld.FPS {
			t.Errorf("Parse(%q) = %v (%v), %v; want an FPS location", in, l, l.System, err)
		}
	}
}

func TestFPSBands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lat             uint16
		width, sections int
	}{
		{40*60 + 10, 15, 100}, {60 * 60, 15, 100}, {60*60 + 10, 15, 80}, {68 * 60, 15, 80},
		{68*60 + 10, 15, 60}, {70 * 60, 15, 60}, {70*60 + 10, 30, 100}, {75 * 60, 30, 100},
		{75*60 + 10, 30, 80}, {78 * 60, 30, 80}, {78*60 + 10, 30, 60}, {85 * 60, 30, 60},
	}
	for _, tc := range tests {
		r := lld.FPSRef{Lat: tc.lat}
		if w, n := r.WidthMin(), 10*r.Columns(); w != tc.width || n != tc.sections {
			t.Errorf("grid with NE latitude %d-%02d: width %d′, %d sections; want %d′, %d", tc.lat/60, tc.lat%60, w, n, tc.width, tc.sections)
		}
	}
}

func TestFPSParentAndUnits(t *testing.T) {
	t.Parallel()
	u := fps('F', 48, 3620, 6030)
	s, ok := u.Parent()
	if !ok || s != fps(0, 48, 3620, 6030) {
		t.Errorf("Parent(%v) = %v, %v", u, s, ok)
	}
	g, ok := s.Parent()
	if !ok || g != fps(0, 0, 3620, 6030) {
		t.Errorf("Parent(%v) = %v, %v", s, g, ok)
	}
	if _, ok := g.Parent(); ok {
		t.Errorf("Parent(%v) ok, want none above a grid", g)
	}
	if sys, ok := lld.ParseSystem("fps"); !ok || sys != lld.FPS || sys.String() != "FPS" {
		t.Errorf("ParseSystem(fps) = %v, %v", sys, ok)
	}
	for name, want := range map[string]lld.Unit{"Grid": lld.Grid, "section": lld.FPSSection, "Unit": lld.FPSUnit} {
		u, ok := lld.ParseUnit(name)
		if !ok {
			t.Fatalf("ParseUnit(%q) failed", name)
		}
		if got, ok := lld.FPSUnitOf(u); !ok || got != want || got.String() != u.String() {
			t.Errorf("FPSUnitOf(ParseUnit(%q)) = %v (%q), %v; want %v", name, got, got.String(), ok, want)
		}
	}
	if _, ok := lld.FPSUnitOf(lld.LSD); ok {
		t.Error("FPSUnitOf(LSD) ok, want false")
	}
}

// FuzzParseFPS feeds FPS-shaped text to Parse: it must never panic, must
// answer invalid_legal_location errors only, and every FPS location it
// returns must be one the regulation defines and round-trip through its
// canonical string.
//
//	go test ./shared/lld -run='^$' -fuzz=FuzzParseFPS -fuzztime=60s
func FuzzParseFPS(f *testing.F) {
	for _, tc := range fpsParseTests {
		f.Add(tc.in)
	}
	for _, tc := range fpsErrorTests {
		f.Add(tc.in)
	}
	f.Add("N N 60-20 N 100-30 W")
	f.Add("60-20 N 100-30 W 60-20 N 100-30 W")
	f.Add("A 99999 60-20 N 100-30 W")
	f.Add("302B164650048451")
	f.Add("3AAP996010099301")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := lld.Parse(s)
		if err != nil {
			if e := apierr.As(err); e == nil || e.Code != lld.ErrorCode || e.Kind != apierr.Invalid {
				t.Fatalf("Parse(%q) error %#v, want an invalid_legal_location *apierr.Error", s, err)
			}
			return
		}
		if l.System != lld.FPS {
			return
		}
		if !lld.ValidFPS(l.FPS) {
			t.Fatalf("Parse(%q) = %+v, which the regulation does not define", s, l)
		}
		canon := l.String()
		back, err := lld.Parse(canon)
		if err != nil || back != l {
			t.Fatalf("Parse(%q) = %+v; Parse(%q) = %+v, %v", s, l, canon, back, err)
		}
	})
}
