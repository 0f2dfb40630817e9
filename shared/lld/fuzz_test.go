package lld_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"meridian/shared/apierr"
	"meridian/shared/lld"
)

// FuzzParse checks that Parse never panics, that its errors are all
// invalid_legal_location, and that every Location it returns has a
// canonical string that parses back to the same Location.
//
//	go test ./shared/lld -run='^$' -fuzz=FuzzParse -fuzztime=60s
func FuzzParse(f *testing.F) {
	for _, tc := range parseTests {
		f.Add(tc.in)
		f.Add(tc.canon)
	}
	for _, tc := range parseErrorTests {
		f.Add(tc.in)
	}
	for _, tc := range uwiTests {
		f.Add(tc.in)
	}
	for _, s := range []string{
		// Place names whose case mapping leaves ASCII: ſ upper-cases to S,
		// İ lower-cases to i, ǅ and ɐ change width.
		"Con 1 ſt Foo", "RL-1-ſa", "Township of ſl", "Con 1 Parİsh", "RL-1-Parİsh Foo",
		"Adjala ǅ Township", "RL-1-ɐbc", "Con 1 Kelvin",
		// Words that are keywords elsewhere, inside names and labels.
		"RL-1-Parish Parish of Foo", "Township of Of", "Con 1 Township Foo", "Lot A Con B C",
		"Con 0I Foo", "Lot 0A Con 1 Foo", "Woodlot 5 Foo", "Outer Two Mile Lot 5 St Clements",
		"RL-22St. Norbert", "RL-1-a.b.c", "RL-1-St.-Foo", "Wood Township", "Lot 1 Con RL Foo",
		// DLS edge cases.
		"N W 25 24 1 W5", "W of 5 Rge 1 Twp 24 Sec 25", "Twp 24 Rge 1 W5 Sec 25", "S25 T24 R1 W5",
		"NW 25 24 1 Meridian W5", "NW-25-24-1-W5 M Athabasca", "25-24-1-5th Mer",
		// NTS edge cases.
		"a2f93p8", "d a087 d 094 b 16", "93 P 8 foo", "E/93-P-8",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := lld.Parse(s)
		if err != nil {
			if e := apierr.As(err); e == nil || e.Code != lld.ErrorCode || e.Kind != apierr.Invalid || e.Message == "" {
				t.Fatalf("Parse(%q) error %#v, want an invalid_legal_location *apierr.Error", s, err)
			}
			if l != (lld.Location{}) {
				t.Fatalf("Parse(%q) = %+v with error %v, want the zero Location", s, l, err)
			}
			return
		}
		canon := l.String()
		if canon == "" || l.System == lld.SystemUnknown || l.Unit == lld.UnitUnknown {
			t.Fatalf("Parse(%q) = %+v (%q): no system, unit or canonical string", s, l, canon)
		}
		back, err := lld.Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q) = %+v; Parse of its String %q error: %v", s, l, canon, err)
		}
		if back != l {
			t.Fatalf("Parse(%q) = %+v; Parse of its String %q = %+v", s, l, canon, back)
		}
		if again := back.String(); again != canon {
			t.Fatalf("Parse(%q).String() = %q, then %q", s, canon, again)
		}
	})
}

// FuzzParseUWI checks that ParseUWI never panics, that every UWI it returns
// has a 16-character form that parses back to it, and that Parse agrees on
// the location.
//
//	go test ./shared/lld -run='^$' -fuzz=FuzzParseUWI -fuzztime=60s
func FuzzParseUWI(f *testing.F) {
	for _, tc := range uwiTests {
		f.Add(tc.in)
		f.Add(tc.compact)
	}
	f.Add("ABWI100042205618W502")
	f.Add("1AA120406220W500")
	f.Add("100/06-32-048-07W5")
	f.Add("300/06-32-048-07W5/00")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := lld.ParseUWI(s)
		if err != nil {
			if e := apierr.As(err); e == nil || e.Code != lld.ErrorCode || e.Kind != apierr.Invalid {
				t.Fatalf("ParseUWI(%q) error %#v, want an invalid_legal_location *apierr.Error", s, err)
			}
			return
		}
		compact := u.String()
		if len(compact) != 16 {
			t.Fatalf("ParseUWI(%q) = %+v; String() = %q, want 16 characters", s, u, compact)
		}
		back, err := lld.ParseUWI(compact)
		if err != nil || back != u {
			t.Fatalf("ParseUWI(%q) = %+v; ParseUWI(%q) = %+v, %v", s, u, compact, back, err)
		}
		if l, err := lld.Parse(s); err != nil || l != u.Location {
			t.Fatalf("ParseUWI(%q) = %+v; Parse = %+v, %v", s, u, l, err)
		}
		if l, err := lld.Parse(compact); err != nil || l != u.Location {
			t.Fatalf("ParseUWI(%q) = %+v; Parse(%q) = %+v, %v", s, u, compact, l, err)
		}
	})
}

// TestParseRandomRoundTrip strings together random pieces of descriptions,
// keywords of every system, separators and awkward Unicode, and checks the
// FuzzParse properties on each. It reaches combinations that byte-level
// fuzzing finds slowly, and runs in every plain go test.
func TestParseRandomRoundTrip(t *testing.T) {
	t.Parallel()
	pieces := []string{
		"0", "1", "2", "4", "5", "6", "7", "10", "16", "25", "36", "42", "093", "100", "126", "1/4", "1/2", "5th", "1st",
		"A", "B", "D", "E", "F", "L", "M", "N", "P", "Q", "R", "S", "T", "W", "X", "NE", "NW", "SE", "SW",
		"W5", "E1", "W5M", "w4", "E2", "W7", "Mer", "Meridian", "West", "North", "of", "the", "Quarter", "Half",
		"LSD", "Legal", "Subdivision", "Sec", "Section", "Twp", "Tp", "Township", "Rge", "Range",
		"Lot", "Con", "Conc", "IV", "XXXIX", "BF", "Gore", "RL", "PL", "OT", "SL", "WL", "River", "Parish",
		"Outer", "Two", "Mile", "Wood", "Woodlot", "Settlement", "Geographic", "St", "St.", "Ste", "Norbert",
		"Adjala", "PA", "ſt", "İ", "ǅ", "ɐ", "é", "\u212a", "ABWI", "100", "00", "F1",
		"100/06-32-048-07W5/00", "200D080H092G0300", "A-2-F/93-P-8", "93P08",
	}
	seps := []string{"", "", " ", " ", "-", "-", ".", "/", ",", "  ", "(", "'", "\u2019", "\u00a0", "\u2013", "1/4", "½"}
	seed, iterations := uint64(1), 100000
	if v, err := strconv.ParseUint(os.Getenv("LLD_RANDOM_SEED"), 10, 64); err == nil {
		seed, iterations = v, 2000000 // a longer search: LLD_RANDOM_SEED=n go test -run RandomRoundTrip
	}
	r := rand.New(rand.NewPCG(seed, 2))
	accepted := 0
	var b strings.Builder
	for range iterations {
		b.Reset()
		for n := 1 + r.IntN(9); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		s := b.String()
		l, err := lld.Parse(s)
		if err != nil {
			if e := apierr.As(err); e == nil || e.Code != lld.ErrorCode {
				t.Fatalf("Parse(%q) error %#v, want an invalid_legal_location *apierr.Error", s, err)
			}
			continue
		}
		accepted++
		canon := l.String()
		if back, err := lld.Parse(canon); err != nil || back != l {
			t.Fatalf("Parse(%q) = %+v; Parse of its String %q = %+v, %v", s, l, canon, back, err)
		}
	}
	t.Logf("%d of %d accepted", accepted, iterations)
}
