package dls_test

import (
	"testing"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
)

func twp(mer lld.Meridian, r, t uint8) lld.Location {
	return lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: mer, Range: r, Township: t}
}

func sec(s uint8, mer lld.Meridian, r, t uint8) lld.Location {
	return lld.Location{System: lld.DLS, Unit: lld.Section, Meridian: mer, Range: r, Township: t, Section: s}
}

// In every township section 1 is the south-east section and section 6 the
// south-west one: the east and west ends of a range.
const (
	east = 1
	west = 6
)

func TestProvince(t *testing.T) {
	t.Parallel()
	const none = survey.ProvinceNone
	tests := []struct {
		name string
		l    lld.Location
		want survey.Province
		ok   bool
	}{
		// a. AB–SK: the 4th meridian.
		{"W4 R1 is Alberta", twp(lld.W4, 1, 10), survey.AB, true},
		{"W3 R30 east end is Saskatchewan", sec(east, lld.W3, 30, 10), survey.SK, true},
		{"W3 R30 west end is past W4", sec(west, lld.W3, 30, 10), none, false},
		{"W2 is Saskatchewan", twp(lld.W2, 15, 40), survey.SK, true},

		// b. SK–MB: W1 R29/R30 to T78, the 2nd meridian north of it.
		{"W1 R29 T1 is Manitoba", twp(lld.W1, 29, 1), survey.MB, true},
		{"W1 R30 T1 is Saskatchewan", twp(lld.W1, 30, 1), survey.SK, true},
		{"W1 R34 T1 exists (fractional)", sec(east, lld.W1, 34, 1), survey.SK, true},
		{"W1 R35 T1 is past W2", twp(lld.W1, 35, 1), none, false},
		{"W1 R29 T78 is Manitoba", twp(lld.W1, 29, 78), survey.MB, true},
		{"W1 R30 T78 is Saskatchewan (fractional)", sec(east, lld.W1, 30, 78), survey.SK, true},
		{"W1 R29 T79 is Manitoba", twp(lld.W1, 29, 79), survey.MB, true},
		{"W1 R30 T79 is past W2", twp(lld.W1, 30, 79), none, false},
		{"W1 R20 T100 is Manitoba", twp(lld.W1, 20, 100), survey.MB, true},
		{"W2 R1 T79 is Saskatchewan", twp(lld.W2, 1, 79), survey.SK, true},
		{"E2 R11 T89 is Manitoba", twp(lld.E2, 11, 89), survey.MB, true},
		{"E2 south of T79 does not exist", twp(lld.E2, 11, 78), none, false},
		{"E2 past W1 does not exist", twp(lld.E2, 30, 89), none, false},

		// c. MB–ON.
		{"E1 R17 T10 is Manitoba", twp(lld.E1, 17, 10), survey.MB, true},
		{"E1 R18 T10 is Ontario", twp(lld.E1, 18, 10), none, false},
		{"E1 R17 T34 is Manitoba", sec(8, lld.E1, 17, 34), survey.MB, true},
		{"E1 R16 T44 is Manitoba", twp(lld.E1, 16, 44), survey.MB, true},
		{"E1 R17 T44 is Ontario", twp(lld.E1, 17, 44), none, false},
		{"E1 R15 T50 is Manitoba", twp(lld.E1, 15, 50), survey.MB, true},
		{"E1 R40 T50 is Ontario", twp(lld.E1, 40, 50), none, false},
		{"E1 R30 T70 is Manitoba", twp(lld.E1, 30, 70), survey.MB, true},
		{"E1 R20 T100 is Manitoba", twp(lld.E1, 20, 100), survey.MB, true},
		{"E1 R34 T100 is in Hudson Bay", twp(lld.E1, 34, 100), none, false},

		// d. AB–BC: the divide, T1–55.
		{"W5 R5 T20 is Alberta", twp(lld.W5, 5, 20), survey.AB, true},
		{"W5 R10 T20 east end is Alberta", sec(east, lld.W5, 10, 20), survey.AB, true},
		{"W5 R11 T20 west end is BC", sec(west, lld.W5, 11, 20), none, false},
		{"W5 R15 T20 is BC", twp(lld.W5, 15, 20), none, false},
		{"W5 R1 T1 east end is Alberta", sec(east, lld.W5, 1, 1), survey.AB, true},
		{"W5 R3 T1 is BC", twp(lld.W5, 3, 1), none, false},
		{"W5 R26 T40 is Alberta", twp(lld.W5, 26, 40), survey.AB, true},
		{"W6 R1 T30 is BC", twp(lld.W6, 1, 30), none, false},
		{"W6 R2 T44 is Alberta", twp(lld.W6, 2, 44), survey.AB, true},
		{"W6 R5 T44 is BC", twp(lld.W6, 5, 44), none, false},
		{"W6 R10 T55 is Alberta", twp(lld.W6, 10, 55), survey.AB, true},
		{"W4 R30 T1 is Alberta (fractional)", sec(east, lld.W4, 30, 1), survey.AB, true},
		{"W4 R30 T1 west section straddles W5 (clipped)", sec(west, lld.W4, 30, 1), survey.AB, true},
		{"W4 R28 T60 is past W5", twp(lld.W4, 28, 60), none, false},

		// d. AB–BC: 120°W, T56–126.
		{"W6 R13 T60 is Alberta", twp(lld.W6, 13, 60), survey.AB, true},
		{"W6 R14 T60 east end is Alberta", sec(east, lld.W6, 14, 60), survey.AB, true},
		{"W6 R14 T60 west end is BC", sec(west, lld.W6, 14, 60), none, false},
		{"W6 R14 T60 township straddles 120°W: Alberta's part", twp(lld.W6, 14, 60), survey.AB, true},
		{"W6 R12 T120 is Alberta", twp(lld.W6, 12, 120), survey.AB, true},
		{"W6 R13 T120 is BC", twp(lld.W6, 13, 120), none, false},

		// e. Peace River Block.
		{"W6 R20 T77 is the PRB", twp(lld.W6, 20, 77), survey.BC, true},
		{"W6 R20 T76 is BC outside the PRB", twp(lld.W6, 20, 76), none, false},
		{"W6 R20 T88 is the PRB", twp(lld.W6, 20, 88), survey.BC, true},
		{"W6 R20 T89 is BC outside the PRB", twp(lld.W6, 20, 89), none, false},
		{"W6 R13 T80 west end is the PRB", sec(west, lld.W6, 13, 80), survey.BC, true},
		{"W6 R13 T80 east end is Alberta", sec(east, lld.W6, 13, 80), survey.AB, true},
		{"W6 R26 T80 east end is the PRB", sec(east, lld.W6, 26, 80), survey.BC, true},
		{"W6 R26 T80 west end is past the PRB", sec(west, lld.W6, 26, 80), none, false},
		{"W6 R27 T80 is not the PRB", twp(lld.W6, 27, 80), none, false},

		// f. North.
		{"W4 R1 T126 is Alberta", twp(lld.W4, 1, 126), survey.AB, true},
		{"W1 R10 T126 is Manitoba", twp(lld.W1, 10, 126), survey.MB, true},

		// Not DLS locations.
		{"T127", twp(lld.W4, 1, 127), none, false},
		{"T0", twp(lld.W4, 1, 0), none, false},
		{"R0", twp(lld.W4, 0, 10), none, false},
		{"no meridian", twp(lld.MeridianNone, 1, 10), none, false},
		{"not DLS", lld.Location{System: lld.NTS, Unit: lld.QuarterUnit}, none, false},
	}
	for _, tc := range tests {
		got, ok := dls.Province(tc.l)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Province(%v) = %v, %v, want %v, %v", tc.name, tc.l, got, ok, tc.want, tc.ok)
		}
		if _, rok := dls.Resolve(tc.l); rok != tc.ok {
			t.Errorf("%s: Resolve(%v) ok = %v, want %v", tc.name, tc.l, rok, tc.ok)
		}
	}
}
