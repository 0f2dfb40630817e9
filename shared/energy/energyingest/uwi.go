package energyingest

import (
	"fmt"
	"strconv"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// DLSUWI is a Dominion Land Survey well identifier in parts
// (docs/data-sources.md §0.1). The location exception comes first and the
// event sequence last: swapping them still parses and silently breaks
// joins.
type DLSUWI struct {
	LE                                      string // 2 characters, letters or digits: "00", "02", "F1", "AA"
	LSD, Section, Township, Range, Meridian int    // Meridian is the W number, 1-6
	Event                                   int    // 0-99
}

// DLSLocation returns the LSD location of the parts, checking their ranges.
func DLSLocation(lsd, sec, twp, rge, mer int) (lld.Location, error) {
	switch {
	case lsd < 1 || lsd > 16:
		return lld.Location{}, fmt.Errorf("LSD %d is out of range 1-16", lsd)
	case sec < 1 || sec > 36:
		return lld.Location{}, fmt.Errorf("section %d is out of range 1-36", sec)
	case twp < 1 || twp > 126:
		return lld.Location{}, fmt.Errorf("township %d is out of range 1-126", twp)
	case rge < 1 || rge > 34:
		return lld.Location{}, fmt.Errorf("range %d is out of range 1-34", rge)
	case mer < 1 || mer > 6:
		return lld.Location{}, fmt.Errorf("meridian W%d is out of range W1-W6", mer)
	}
	return lld.Location{
		System:   lld.DLS,
		Unit:     lld.LSD,
		Meridian: lld.W1 + lld.Meridian(mer-1),
		Range:    uint8(rge),
		Township: uint8(twp),
		Section:  uint8(sec),
		LSD:      uint8(lsd),
	}, nil
}

// Location returns the LSD location of the identifier.
func (u DLSUWI) Location() (lld.Location, error) {
	return DLSLocation(u.LSD, u.Section, u.Township, u.Range, u.Meridian)
}

// UWI16 is the 16-character form: "1" + LE + LSD + SEC + TWP + RGE + "W" +
// M + ES(2).
func (u DLSUWI) UWI16() string {
	b := make([]byte, 0, 16)
	b = append(b, '1')
	b = append(b, u.LE...)
	b = appendPad(b, u.LSD, 2)
	b = appendPad(b, u.Section, 2)
	b = appendPad(b, u.Township, 3)
	b = appendPad(b, u.Range, 2)
	b = append(b, 'W', byte('0'+u.Meridian))
	b = appendPad(b, u.Event, 2)
	return string(b)
}

// Display is the ST37 UWI-DISPLAY-FORMAT, LE/LS-SC-TWP-RGWM/E, whose event
// has one digit.
func (u DLSUWI) Display() (string, error) {
	if u.Event > 9 {
		return "", fmt.Errorf("event sequence %d has no one-digit display form", u.Event)
	}
	b := make([]byte, 0, 19)
	b = append(b, u.LE...)
	b = append(b, '/')
	b = appendPad(b, u.LSD, 2)
	b = append(b, '-')
	b = appendPad(b, u.Section, 2)
	b = append(b, '-')
	b = appendPad(b, u.Township, 3)
	b = append(b, '-')
	b = appendPad(b, u.Range, 2)
	b = append(b, 'W', byte('0'+u.Meridian), '/', byte('0'+u.Event))
	return string(b), nil
}

// STKey is ST37's KEY-LIST-OF-WELLS: TWP(3) MER(1) RGE(2) SEC(2) LSD(2)
// LE(2) EVENT(1), the order the file is sorted in.
func (u DLSUWI) STKey() string {
	b := make([]byte, 0, 13)
	b = appendPad(b, u.Township, 3)
	b = append(b, byte('0'+u.Meridian))
	b = appendPad(b, u.Range, 2)
	b = appendPad(b, u.Section, 2)
	b = appendPad(b, u.LSD, 2)
	b = append(b, u.LE...)
	b = append(b, byte('0'+u.Event%10))
	return string(b)
}

func appendPad(b []byte, n, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// parseDisplayUWI reads the ST37 display form LE/LS-SC-TWP-RGWM/E exactly
// (19 characters, upper case), e.g. "00/06-06-001-01W4/0",
// "F1/06-06-001-01W4/0".
func parseDisplayUWI(s string) (DLSUWI, error) {
	bad := func() (DLSUWI, error) {
		return DLSUWI{}, fmt.Errorf("%q is not a display UWI (want LE/LS-SC-TWP-RGWM/E, e.g. 00/06-06-001-01W4/0)", s)
	}
	if len(s) != 19 || s[2] != '/' || s[5] != '-' || s[8] != '-' || s[12] != '-' || s[15] != 'W' || s[17] != '/' {
		return bad()
	}
	if !isUpperAlnum(s[0]) || !isUpperAlnum(s[1]) {
		return bad()
	}
	lsd, ok1 := ingest.ParseUint(s[3:5])
	sec, ok2 := ingest.ParseUint(s[6:8])
	twp, ok3 := ingest.ParseUint(s[9:12])
	rge, ok4 := ingest.ParseUint(s[13:15])
	mer, ok5 := ingest.ParseUint(s[16:17])
	ev, ok6 := ingest.ParseUint(s[18:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return bad()
	}
	u := DLSUWI{LE: s[:2], LSD: lsd, Section: sec, Township: twp, Range: rge, Meridian: mer, Event: ev}
	if _, err := u.Location(); err != nil {
		return DLSUWI{}, fmt.Errorf("UWI %s: %v", s, err)
	}
	return u, nil
}

// parseUWI16 reads the 16-character form 1 LE LSD SEC TWP RGE W M ES
// ("100071901015W400", "1F1060600101W400"), optionally behind a Petrinex
// well-ID prefix ("ABWI", "SKWI", "MBWI", "BCWI").
func parseUWI16(s string) (DLSUWI, error) {
	in := s
	if len(s) == 20 && s[2:4] == "WI" && isUpperAlnum(s[0]) && isUpperAlnum(s[1]) {
		s = s[4:]
	}
	bad := func() (DLSUWI, error) {
		return DLSUWI{}, fmt.Errorf("%q is not a 16-character DLS UWI (want 1 LE LSD SEC TWP RGE W M ES, e.g. 100071901015W400)", in)
	}
	if len(s) != 16 || s[0] != '1' || s[12] != 'W' || !isUpperAlnum(s[1]) || !isUpperAlnum(s[2]) {
		return bad()
	}
	lsd, ok1 := ingest.ParseUint(s[3:5])
	sec, ok2 := ingest.ParseUint(s[5:7])
	twp, ok3 := ingest.ParseUint(s[7:10])
	rge, ok4 := ingest.ParseUint(s[10:12])
	mer, ok5 := ingest.ParseUint(s[13:14])
	ev, ok6 := ingest.ParseUint(s[14:16])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return bad()
	}
	u := DLSUWI{LE: s[1:3], LSD: lsd, Section: sec, Township: twp, Range: rge, Meridian: mer, Event: ev}
	if _, err := u.Location(); err != nil {
		return DLSUWI{}, fmt.Errorf("UWI %s: %v", in, err)
	}
	return u, nil
}

// UWI16 converts an ST37 display UWI to the 16-character UWI that Petrinex
// uses (FromToIDIdentifier, WellIdentifier, after "ABWI" in WellID): the
// survey system 1, the location exception, the location and the event
// sequence widened to two digits, in that order.
//
//	00/07-19-010-15W4/0  ->  100071901015W400
//	F1/06-06-001-01W4/0  ->  1F1060600101W400
func UWI16(display string) (string, error) {
	u, err := parseDisplayUWI(display)
	if err != nil {
		return "", fmt.Errorf("energy: %v", err)
	}
	return u.UWI16(), nil
}

// DisplayUWI converts a 16-character UWI, bare or as a Petrinex well ID
// ("ABWI100042205618W502"), to the ST37 display form: the reverse of UWI16.
// Event sequences above 9 have no display form and are an error.
//
//	100071901015W400      ->  00/07-19-010-15W4/0
//	ABWI100042205618W502  ->  00/04-22-056-18W5/2
func DisplayUWI(uwi string) (string, error) {
	u, err := parseUWI16(uwi)
	if err != nil {
		return "", fmt.Errorf("energy: %v", err)
	}
	d, err := u.Display()
	if err != nil {
		return "", fmt.Errorf("energy: %s: %v", uwi, err)
	}
	return d, nil
}
