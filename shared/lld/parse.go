package lld

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"meridian/shared/apierr"
)

// ErrorCode is the apierr code of every error Parse and ParseUWI return.
const ErrorCode = "invalid_legal_location"

// MaxInputLen is the longest input, in bytes, that Parse and ParseUWI
// accept.
const MaxInputLen = 256

const examples = "NW-25-24-1-W5, 10-36-42-3-W5, A-2-F/93-P-8, Lot 10 Con 1 Adjala, RL-22-St. Norbert"

// Parse reads a legal land description in any of the spellings people and
// datasets use and returns its Location. Matching is case-insensitive;
// parts may be separated by dashes, spaces, dots or a mix, and numbers may
// carry leading zeros.
//
//	DLS quarter     NW-25-24-1-W5, NW 25-24-1 W5M, SE.1.23.4.W5, NE-11-33-29W1,
//	                SW-14-8-2E1, SW 1/4 Sec 25 Twp 24 Rge 1 W5M,
//	                Section 25 Township 24 Range 1 West of the 5th Meridian,
//	                Meridian 5 Range 1 Township 24 Section 25 Quarter North West
//	DLS half        N-36-42-3-W5, N 1/2 36-42-3-W5, N1/2-36-42-3-W5
//	DLS LSD         10-36-42-3-W5, LSD 06-32-048-07W5, 06-32-048-07W5M
//	DLS section     25-24-1-W5, Sec 25-24-1-W5
//	DLS township    24-1-W5, Twp 24 Rge 1 W5, T24 R1 W5M
//	UWI             100/06-32-048-07W5/00, 100.16-09-010-09W1.00,
//	                100063204807W500, ABWI100042205618W502, 200D080H092G0300
//	                (the bottom-hole LSD or NTS quarter unit; see ParseUWI)
//	NTS (BC)        A-2-F/93-P-8, D-080-H/092-G-03, D-A087-D/094-B-16 (pad
//	                letter dropped), A 2 F 93 P 8, 2-F/93-P-8, F/93-P-8,
//	                093P08, 093G/14, 93-P-8, 93P, 93
//	Manitoba lots   RL-22-St. Norbert, River Lot 52, Parish of St. Andrews,
//	                PL-R-St. Andrews, OT-11A-St. Clements, RL-0022-St. Norbert
//	Ontario         Lot 10 Con 1 Adjala, Lot 10, Concession IV, Township of
//	                Adjala, Con 1 Adjala, Adjala Township
//	FPS grids       F 48 60-20 N 100-30 W, f-48 60-20n 100-30w, 48 60-20 N
//	                100-30 W, 60-20 N 100-30 W (checked against the COGLR:
//	                latitude minutes by 10′, longitude minutes by the grid
//	                width, sections by latitude band, units A-P, 40°-85° N);
//	                the unit of an FPS UWI, 302B164650048451 (Parse only)
//
// Parse repairs what users paste: Unicode spaces and dashes, smart quotes
// and apostrophes (dropped), ¼ and ½, a parenthesised comment at the end,
// anything after a comma that follows a complete description, and words
// after a complete DLS or NTS description ("NW-26-89-10-W4 Athabasca"). It
// never guesses a missing meridian.
//
// Numbers are checked against their syntactic ranges (sections 1-36, LSDs
// 1-16, townships 1-126, ranges 1-34, meridians W1-W6, E1, E2; NTS series
// of BC, map areas A-P, sheets 1-16, blocks A-L, units 1-100, quarter units
// A-D); whether a province has such a block is decided elsewhere.
//
// Errors are *apierr.Error values of kind Invalid and code ErrorCode whose
// messages name the part that is wrong and what is accepted.
//
// Parse(l.String()) returns l for every Location l that Parse returns.
func Parse(s string) (Location, error) {
	if l, ok := parseCanonical(s); ok {
		return l, nil
	}
	return parseGeneral(s)
}

// parseGeneral is Parse without its fast path for canonical DLS names:
// every form Parse reads.
func parseGeneral(s string) (Location, error) {
	desc, err := prepare(s)
	if err != nil {
		return Location{}, err
	}
	if u, ok, err := parseUWI(desc); ok {
		return u.Location, err
	}
	if l, ok, err := parseFPSUWI(desc); ok {
		return l, err
	}
	var t tokens
	t.scan(desc)
	return t.parse()
}

// parse picks the survey system from the shape of t and parses it.
func (t *tokens) parse() (Location, error) {
	if t.n == 0 {
		return Location{}, notLLD(t.s)
	}
	if t.isFPS() {
		return parseFPS(t)
	}
	if kind, _ := riverLotKind(t); kind != "" {
		return parseRiverLot(t)
	}
	if k := t.list[0].kw; k == kwLot || k == kwCon {
		return parseOntario(t)
	}
	if t.isOntarioTownship() {
		return parseOntarioTownship(t)
	}
	if m, ok := matchNTS(t); ok {
		return m.location(t)
	}
	l, _, err := parseDLS(t)
	return l, err
}

// isFPS reports whether t holds a Federal Permit System grid, written
// "60-20 N 100-30 W" (latitude and longitude of the grid). FPS forms are
// tried before the DLS readings of the same digits.
func (t *tokens) isFPS() bool {
	for i := 0; i+5 < t.n; i++ {
		if t.isNum(i) && t.isNum(i+1) && t.kw(i+2) == kwN &&
			t.isNum(i+3) && t.isNum(i+4) && t.kw(i+5) == kwW {
			return true
		}
	}
	return false
}

// prepare bounds, cleans and trims s and cuts a parenthesised comment.
func prepare(s string) (string, error) {
	if len(s) > MaxInputLen {
		return "", invalidf("legal location is too long: at most %d characters", MaxInputLen)
	}
	c, err := clean(s)
	if err != nil {
		return "", err
	}
	if c == "" {
		return "", invalidf("legal location is empty")
	}
	if i := strings.IndexByte(c, '('); i >= 0 {
		d := strings.TrimSpace(c[:i])
		if d == "" {
			return "", notLLD(c)
		}
		c = d
	}
	return c, nil
}

// clean trims s and replaces what users paste from documents: Unicode
// spaces and control characters become spaces, Unicode dashes and minus
// signs become '-', quotes and apostrophes are dropped, ¼ and ½ become
// " 1/4" and " 1/2", and full-width ASCII becomes ASCII. Plain printable
// ASCII without quotes, the common case, is returned as is.
func clean(s string) (string, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '\'' || c == '"' || c == '`' {
			return cleanSlow(s)
		}
	}
	return strings.TrimSpace(s), nil
}

func cleanSlow(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", invalidf("legal location is not valid UTF-8 text")
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		if 0xFF01 <= r && r <= 0xFF5E { // full-width ASCII
			r -= 0xFF01 - '!'
		}
		switch {
		case r == '\'' || r == '"' || r == '`' || r == 0xB4 || r == 0x2BC ||
			0x2018 <= r && r <= 0x201F || 0x2032 <= r && r <= 0x2037:
			// quotes, apostrophes, primes: dropped
		case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF:
			// zero-width characters: dropped
		case 0x2010 <= r && r <= 0x2015 || r == 0x2212 || r == 0xFE58 || r == 0xFE63:
			b.WriteByte('-')
		case r == 0x2044 || r == 0x2215:
			b.WriteByte('/')
		case r == 0xBC:
			b.WriteString(" 1/4")
		case r == 0xBD:
			b.WriteString(" 1/2")
		case unicode.IsSpace(r) || unicode.IsControl(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String()), nil
}

func invalidf(format string, args ...any) error {
	return apierr.Invalidf(ErrorCode, format, args...)
}

// notLLD is the error for input that matches no form at all.
func notLLD(s string) error {
	return invalidf("%q is not a legal land description; examples: %s", s, examples)
}

// unexpected is the error for input that starts like a description but has
// a part that fits nowhere.
func unexpected(s, part string) error {
	return invalidf("%q is not a legal land description: %q is not expected there; examples: %s", s, part, examples)
}

// number returns the value of a digit string, or -1 when it has more than
// three significant digits (out of every range Parse checks).
func number(s string) int {
	s = trimZeros(s)
	if len(s) > 3 {
		return -1
	}
	v := 0
	for i := 0; i < len(s); i++ {
		v = v*10 + int(s[i]-'0')
	}
	return v
}

// inRange returns the value of the digit string s if it is in [lo, hi].
func inRange(s string, lo, hi int) (uint8, bool) {
	v := number(s)
	if v < lo || v > hi {
		return 0, false
	}
	return uint8(v), true
}

// trimZeros drops leading zeros from a digit string, keeping one digit.
func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

// dlsLocation checks the parts of a DLS description, given as digit strings
// ("" when absent), and returns its Location.
func dlsLocation(a Aliquot, lsd, sec, twp, rge string, m Meridian) (Location, error) {
	l := Location{System: DLS, Meridian: m, Aliquot: a}
	var ok bool
	if lsd != "" {
		if l.LSD, ok = inRange(lsd, 1, 16); !ok {
			return Location{}, invalidf("LSD %s is out of range: LSDs are 1-16", trimZeros(lsd))
		}
	}
	if sec != "" {
		if l.Section, ok = inRange(sec, 1, 36); !ok {
			return Location{}, invalidf("section %s is out of range: sections are 1-36", trimZeros(sec))
		}
	}
	if l.Township, ok = inRange(twp, 1, 126); !ok {
		return Location{}, invalidf("township %s is out of range: townships are 1-126", trimZeros(twp))
	}
	if l.Range, ok = inRange(rge, 1, 34); !ok {
		return Location{}, invalidf("range %s is out of range: ranges are 1-34", trimZeros(rge))
	}
	switch {
	case lsd != "":
		l.Unit = LSD
	case a.IsQuarter():
		l.Unit = QuarterSection
	case a.IsHalf():
		l.Unit = HalfSection
	case sec != "":
		l.Unit = Section
	default:
		l.Unit = Township
	}
	return l, nil
}

// meridianOf checks a meridian given as a direction ('W', 'E', or 0 when
// only labelled, as in "Meridian 5") and a digit string.
func meridianOf(dir byte, num string) (Meridian, error) {
	v := number(num)
	switch {
	case dir == 'E' && (v == 1 || v == 2):
		return E1 + Meridian(v-1), nil
	case dir != 'E' && 1 <= v && v <= 6:
		return Meridian(v), nil
	}
	d := ""
	if dir != 0 {
		d = string(dir)
	}
	return MeridianNone, invalidf("meridian %s%s is not valid: meridians are W1-W6, E1, E2", d, trimZeros(num))
}
