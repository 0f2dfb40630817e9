package lld

import "strconv"

// Federal Permit System (FPS) grids: the land division of the Canada Oil
// and Gas Land Regulations (C.R.C., c. 1518, ss. 4-9), used in the
// Northwest Territories, Nunavut and offshore. A grid area is named by the
// latitude and longitude of its north-east corner, on NAD27; it holds 60,
// 80 or 100 sections by latitude band, and every section holds 16 units
// lettered A-P. Township Canada writes them
//
//	grid     60-20 N 100-30 W
//	section  48 60-20 N 100-30 W
//	unit     F 48 60-20 N 100-30 W
//
// which is also the canonical form here. The mathematics is in
// ../shared/docs/fps-grid.md and in package survey/fps.

// FPSRef is the FPS part of a Location.
type FPSRef struct {
	// Lat is the latitude of the grid area's north-east corner in minutes
	// north (60°20′ = 3620); Lng its longitude in minutes west.
	Lat, Lng uint16
	// Section is 1 to 10·Columns(), 0 for a grid area.
	Section uint8
	// Unit is the unit letter 'A'-'P', 0 for a grid area or a section.
	Unit byte
}

// FPS latitude limits of the regulation, in minutes: grid areas lie
// between 40° and 85° N.
const (
	fpsMinSouth = 40 * 60
	fpsMaxNorth = 85 * 60
)

// South is the latitude of the grid area's south edge in minutes.
func (r FPSRef) South() int { return int(r.Lat) - 10 }

// WidthMin is the grid area's width in minutes of longitude: 15′ when its
// south edge is south of 70° N, else 30′ (COGLR s.5; the 69°50′-70°00′ row
// is 15′ wide).
func (r FPSRef) WidthMin() int {
	if r.South() < 70*60 {
		return 15
	}
	return 30
}

// Columns is the number of section columns of the grid area by the
// latitude band of its south edge (COGLR s.7): 10 (40°-60°), 8 (60°-68°),
// 6 (68°-70°), 10 (70°-75°), 8 (75°-78°), 6 (78°-85°). Sections number
// 1 to 10·Columns().
func (r FPSRef) Columns() int {
	switch s := r.South() / 60; {
	case s < 60:
		return 10
	case s < 68:
		return 8
	case s < 70:
		return 6
	case s < 75:
		return 10
	case s < 78:
		return 8
	}
	return 6
}

// appendText appends the canonical form: [unit ][section ]DD-MM N DDD-MM W.
func (r FPSRef) appendText(b []byte, u Unit) []byte {
	if u == FPSUnit {
		b = append(b, r.Unit, ' ')
	}
	if u == FPSUnit || u == FPSSection {
		b = strconv.AppendUint(b, uint64(r.Section), 10)
		b = append(b, ' ')
	}
	b = appendDegMin(b, int(r.Lat))
	b = append(b, " N "...)
	b = appendDegMin(b, int(r.Lng))
	return append(b, " W"...)
}

func appendDegMin(b []byte, m int) []byte {
	b = strconv.AppendInt(b, int64(m/60), 10)
	b = append(b, '-', byte('0'+m%60/10), byte('0'+m%10))
	return b
}

// FPSUnitOf maps a unit named in a request to its FPS meaning: "Section"
// (which ParseUnit reads as the DLS section) is the FPS section and "Unit"
// (read as the NTS unit) the FPS unit. ok is false for units FPS lacks.
func FPSUnitOf(u Unit) (Unit, bool) {
	switch u {
	case Grid:
		return Grid, true
	case Section, FPSSection:
		return FPSSection, true
	case NTSUnit, FPSUnit:
		return FPSUnit, true
	}
	return UnitUnknown, false
}

// parseFPS reads [unit] [section] DD-MM N DDD-MM W from the start of t,
// which isFPS has recognised. A hyphen may follow the unit letter ("F-48").
func parseFPS(t *tokens) (Location, error) {
	i := 0
	var letter byte
	if t.isLetterToken(0) && t.isNum(1) {
		letter, i = t.letter(0), 1 // N and E are unit letters here too
	}
	sec := ""
	switch {
	case fpsGridAt(t, i):
	case t.isNum(i) && fpsGridAt(t, i+1):
		sec, i = t.text(i), i+1
	default:
		return Location{}, invalidf("%q is not a Federal Permit System description: write a grid 60-20 N 100-30 W, a section 48 60-20 N 100-30 W or a unit F 48 60-20 N 100-30 W", t.s)
	}
	if letter != 0 && sec == "" {
		return Location{}, invalidf("%q is not a Federal Permit System description: a unit letter needs its section, as in F 48 60-20 N 100-30 W", t.s)
	}
	if !t.trailing(i + 6) {
		return Location{}, unexpected(t.s, t.text(i+6))
	}
	unit := ""
	if letter != 0 {
		unit = string(letter)
	}
	return fpsLocation(unit, sec, t.text(i), t.text(i+1), t.text(i+3), t.text(i+4))
}

// fpsGridAt reports whether tokens i..i+5 read DD MM N DDD MM W.
func fpsGridAt(t *tokens, i int) bool {
	return t.isNum(i) && t.isNum(i+1) && t.kw(i+2) == kwN && t.isNum(i+3) && t.isNum(i+4) && t.kw(i+5) == kwW
}

// fpsLocation checks the parts of an FPS description, given as strings (""
// when absent), against the regulation and returns its Location.
func fpsLocation(unit, sec, latDeg, latMin, lngDeg, lngMin string) (Location, error) {
	ld, lm, gd, gm := number(latDeg), number(latMin), number(lngDeg), number(lngMin)
	if len(trimZeros(latMin)) > 2 || len(trimZeros(lngMin)) > 2 || lm < 0 || gm < 0 {
		return Location{}, invalidf("FPS grid %s-%s N %s-%s W is not valid: minutes are two digits", latDeg, latMin, lngDeg, lngMin)
	}
	if lm%10 != 0 || lm > 50 {
		return Location{}, invalidf("FPS grid latitude %s-%s N is not valid: grid areas are named by their north-east corner, at whole 10′ steps (minutes 00, 10, 20, 30, 40 or 50)", latDeg, latMin)
	}
	r := FPSRef{}
	lat := ld*60 + lm
	if ld < 0 || lat-10 < fpsMinSouth || lat > fpsMaxNorth {
		return Location{}, invalidf("FPS grid latitude %s-%s N is out of range: the regulation divides 40° to 85° N, so north-east corners run from 40-10 N to 85-00 N", latDeg, latMin)
	}
	r.Lat = uint16(lat)
	w := r.WidthMin()
	if gm%w != 0 {
		allowed := "00, 15, 30 or 45"
		if w == 30 {
			allowed = "00 or 30"
		}
		return Location{}, invalidf("FPS grid longitude %s-%s W is not valid for a grid whose south edge is at %d-%02d N: grid areas there are %d′ wide, so longitude minutes are %s", lngDeg, lngMin, (lat-10)/60, (lat-10)%60, w, allowed)
	}
	lng := gd*60 + gm
	if gd < 0 || lng+w > 180*60 {
		return Location{}, invalidf("FPS grid longitude %s-%s W is out of range: longitudes are west, 0-00 W to 179-%02d W", lngDeg, lngMin, 60-w)
	}
	r.Lng = uint16(lng)
	l := Location{System: FPS, Unit: Grid}
	if sec != "" {
		n := r.Columns() * 10
		s := number(sec)
		if s < 1 || s > n {
			return Location{}, invalidf("FPS section %s is out of range: grid areas with their south edge at %d-%02d N have sections 1-%d", trimZeros(sec), (lat-10)/60, (lat-10)%60, n)
		}
		r.Section, l.Unit = uint8(s), FPSSection
	}
	if unit != "" {
		c := upper(unit[0])
		if len(unit) != 1 || !between(c, 'A', 'P') {
			return Location{}, invalidf("FPS unit %q is not valid: units are A-P", unit)
		}
		r.Unit, l.Unit = c, FPSUnit
	}
	l.FPS = r
	return l, nil
}

// ValidFPS reports whether r names a grid area the regulation defines,
// with a section and unit in range where set (as Parse checks them).
func ValidFPS(r FPSRef) bool {
	lat, lng := int(r.Lat), int(r.Lng)
	if lat%10 != 0 || lat-10 < fpsMinSouth || lat > fpsMaxNorth {
		return false
	}
	w := r.WidthMin()
	if lng%w != 0 || lng+w > 180*60 {
		return false
	}
	if r.Section > 0 && int(r.Section) > 10*r.Columns() {
		return false
	}
	if r.Unit != 0 && (r.Section == 0 || !between(r.Unit, 'A', 'P')) {
		return false
	}
	return true
}

// parseFPSUWI reads the 16-character UWI of a well in an FPS unit, as
// fps-grid.md §4 documents it (kayess007's well table and a public UWI
// view): survey digit 3, a two-character location exception, the unit
// letter, the two-digit section, the grid's NE corner as DDMM and DDDMM,
// and a one-digit event: 302B164650048451 is Hibernia B-16, unit
// B 16 46-50 N 48-45 W. ok is false when s does not have that shape.
// Section "00" (said to stand for section 100) is refused: unverified.
func parseFPSUWI(s string) (l Location, ok bool, err error) {
	if len(s) != 16 || s[0] != '3' || !isASCIIAlnum(s[1:3]) || !between(upper(s[3]), 'A', 'Z') || !allDigits(s[4:16]) {
		return Location{}, false, nil
	}
	if s[4:6] == "00" {
		return Location{}, true, invalidf("FPS UWI %s has section 00: whether that means section 100 is not verified; give the unit as %c 100 %s-%s N %s-%s W", s, upper(s[3]), s[6:8], s[8:10], trimZeros(s[10:13]), s[13:15])
	}
	l, err = fpsLocation(string(s[3]), s[4:6], s[6:8], s[8:10], s[10:13], s[13:15])
	return l, true, err
}
