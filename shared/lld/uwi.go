package lld

import (
	"strconv"
	"strings"
)

// UWI is a Canadian Unique Well Identifier: survey system, location
// exception, location and event sequence. Its location names the LSD (DLS)
// or quarter unit (NTS) of the well's bottom hole, not its surface.
//
// The location exception comes first and the event sequence last; they
// are easy to swap by mistake, which still parses and silently breaks
// joins between datasets.
type UWI struct {
	Survey   byte     // survey system as an ASCII digit: '1' DLS, '2' NTS
	LE       string   // location exception: 2 upper-case letters or digits ("00", "02", "F1", "AA", "W0")
	Location Location // an LSD (DLS) or a quarter unit (NTS)
	Event    string   // event sequence, 2 digits ("00", "02")
}

// ParseUWI reads a UWI in its display form (100/06-32-048-07W5/00,
// 00/06-06-001-01W4/0, F1/06-06-001-01W4/0), the Manitoba dotted form
// (100.16-09-010-09W1.00), the 16-character form (100063204807W500,
// 1F1060600101W400, NTS 200D080H092G0300) or a Petrinex well ID
// (ABWI100042205618W502, SKWI...). A one-digit display event is widened to
// two ("/0" becomes "00"), so every spelling of a well gives the same UWI.
func ParseUWI(s string) (UWI, error) {
	desc, err := prepare(s)
	if err != nil {
		return UWI{}, err
	}
	u, ok, err := parseUWI(desc)
	if !ok {
		return UWI{}, invalidf("%q is not a UWI; examples: 100/06-32-048-07W5/00, 00/06-06-001-01W4/0, 100063204807W500, ABWI100042205618W502, 200D080H092G0300", desc)
	}
	return u, err
}

// String returns the 16-character form of u ("100103604203W500",
// "200D080H092G0300"), the key that joins well datasets. The zero UWI
// gives "".
func (u UWI) String() string {
	if u.Survey == 0 {
		return ""
	}
	l := u.Location
	b := make([]byte, 0, 16)
	b = append(b, u.Survey)
	b = append(b, u.LE...)
	switch l.System {
	case DLS:
		b = appendPadded(b, l.LSD, 2)
		b = appendPadded(b, l.Section, 2)
		b = appendPadded(b, l.Township, 3)
		b = appendPadded(b, l.Range, 2)
		b = append(b, l.Meridian.String()...)
	case NTS:
		b = append(b, l.Quarter)
		b = appendPadded(b, l.UnitNo, 3)
		b = append(b, l.Block)
		b = appendPadded(b, l.Series, 3)
		b = append(b, l.Area)
		b = appendPadded(b, l.Sheet, 2)
	}
	b = append(b, u.Event...)
	return string(b)
}

func appendPadded(b []byte, v uint8, width int) []byte {
	if v < 10 && width > 1 {
		b = append(b, '0')
	}
	if v < 100 && width > 2 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, uint64(v), 10)
}

// parseUWI parses s if it has the shape of a UWI; ok is false when it
// does not, and s should be tried as another form.
func parseUWI(s string) (u UWI, ok bool, err error) {
	if len(s) == 20 && isWellIDPrefix(s[:4]) {
		return parseCompactUWI(s[4:])
	}
	if len(s) == 16 {
		if u, ok, err := parseCompactUWI(s); ok {
			return u, ok, err
		}
	}
	return parseDisplayUWI(s)
}

// isWellIDPrefix reports whether p starts a Petrinex well ID: a province
// code and "WI".
func isWellIDPrefix(p string) bool {
	return equalFold(p, "ABWI") || equalFold(p, "SKWI") || equalFold(p, "MBWI") || equalFold(p, "BCWI")
}

// parseCompactUWI parses the 16-character form:
//
//	1 LE LL SS TTT RR W M EE    DLS: 100063204807W500
//	2 LE Q UUU B SSS A SH EE    NTS: 200D080H092G0300
func parseCompactUWI(s string) (UWI, bool, error) {
	if len(s) != 16 || !isASCIIAlnum(s) {
		return UWI{}, false, nil
	}
	u := UWI{Survey: s[0], LE: upperASCII(s[1:3]), Event: s[14:16]}
	if !allDigits(u.Event) {
		return UWI{}, false, nil
	}
	var err error
	switch s[0] {
	case '1':
		if m := upper(s[12]); !allDigits(s[3:12]) || m != 'W' && m != 'E' || !isDigit(s[13]) {
			return UWI{}, false, nil
		}
		u.Location, err = dlsLocation(AliquotNone, s[3:5], s[5:7], s[7:10], s[10:12], MeridianNone)
		if err == nil {
			u.Location.Meridian, err = meridianOf(upper(s[12]), s[13:14])
		}
	case '2':
		if !isLetterByte(s[3]) || !allDigits(s[4:7]) || !isLetterByte(s[7]) || !allDigits(s[8:11]) ||
			!isLetterByte(s[11]) || !allDigits(s[12:14]) {
			return UWI{}, false, nil
		}
		u.Location, err = ntsLocation(QuarterUnit, s[3:4], s[4:7], s[7:8], s[8:11], s[11:12], s[12:14])
	default:
		return UWI{}, false, nil
	}
	if err != nil {
		return UWI{}, true, err
	}
	return u, true, nil
}

// parseDisplayUWI parses [survey]LE/location/event, with '/' or '.' as the
// outer separators: 100/06-32-048-07W5/00, 00/06-06-001-01W4/0,
// 100.16-09-010-09W1.00, 200/D-080-H/092-G-03/00.
func parseDisplayUWI(s string) (UWI, bool, error) {
	if len(s) < 6 {
		return UWI{}, false, nil
	}
	var p1 int // the first separator, after the 2- or 3-character prefix
	switch {
	case isUWISep(s[2]):
		p1 = 2
	case isUWISep(s[3]):
		p1 = 3
	default:
		return UWI{}, false, nil
	}
	p2 := len(s) - 1
	for p2 > p1 && !isUWISep(s[p2]) {
		p2--
	}
	if p2 <= p1+1 {
		return UWI{}, false, nil
	}
	prefix, mid, ev := s[:p1], s[p1+1:p2], s[p2+1:]
	if !isASCIIAlnum(prefix) || len(ev) < 1 || len(ev) > 2 || !allDigits(ev) ||
		!isASCIIAlnum(s[p2-1:p2]) || !hasASCIILetter(mid) || p1 == 3 && !isDigit(prefix[0]) {
		return UWI{}, false, nil
	}
	var survey byte
	if p1 == 3 {
		survey, prefix = prefix[0], prefix[1:]
		if survey != '1' && survey != '2' {
			return UWI{}, true, invalidf("UWI survey system %c is not supported: UWIs start with 1 (DLS) or 2 (NTS), e.g. 100/06-32-048-07W5/00", survey)
		}
	}
	var t tokens
	t.scan(mid)
	var l Location
	var end int
	var err error
	if m, ok := matchNTS(&t); ok {
		l, err = m.location(&t)
		end = m.end
	} else {
		l, end, err = parseDLS(&t)
	}
	if err != nil {
		return UWI{}, true, err
	}
	if end != t.n {
		return UWI{}, true, invalidf("UWI location %q has extra text: a UWI location is an LSD (e.g. 100/06-32-048-07W5/00)", mid)
	}
	sys := byte('1')
	switch {
	case l.Unit == LSD:
	case l.Unit == QuarterUnit:
		sys = '2'
	default:
		return UWI{}, true, invalidf("UWI location %s is a %s: a UWI names an LSD or an NTS quarter unit (e.g. 100/06-32-048-07W5/00, 200/D-080-H/092-G-03/00)", l, strings.ToLower(l.Unit.String()))
	}
	if survey != 0 && survey != sys {
		return UWI{}, true, invalidf("UWI survey system %c does not match its %s location %s: use 1 for DLS, 2 for NTS", survey, l.System, l)
	}
	if len(ev) == 1 {
		ev = events[ev[0]-'0']
	}
	return UWI{Survey: sys, LE: upperASCII(prefix), Location: l, Event: ev}, true, nil
}

func isUWISep(c byte) bool { return c == '/' || c == '.' }

// events are the two-digit spellings of the one-digit display events.
var events = [10]string{"00", "01", "02", "03", "04", "05", "06", "07", "08", "09"}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isLetterByte(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetterByte(s[i]) {
			return true
		}
	}
	return false
}

// upperASCII upper-cases s, allocating only when s has a lower-case letter.
func upperASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'a' <= s[i] && s[i] <= 'z' {
			return strings.ToUpper(s)
		}
	}
	return s
}
