package lld

// An NTS description alternates letters and numbers, smallest part first:
//
//	A - 2  - F  / 93 - P - 8
//	Q   U    B    S    A   SH   quarter unit, unit, block, series, map area, sheet
//
// and any suffix of it names a larger block (2-F/93-P-8, F/93-P-8, 93-P-8,
// 93-P, 93). Separators do not matter ("093P08", "A 2 F 93 P 8"); the shape
// of the letter/number sequence alone says which parts are present. BC well
// names put a pad letter before the unit ("D-A087-D/094-B-16"): it is not
// part of the location and is dropped.

// ntsMatch holds the token index of each NTS part, or -1 when absent.
type ntsMatch struct {
	unit                                        Unit
	quarter, unitNo, block, series, area, sheet int
	end                                         int // first token after the description
}

// matchNTS reports whether t has the shape of an NTS description, and
// whether it is plausibly one: a '/' before the series, a BC series, or
// letters all within their NTS ranges. Other shapes and implausible matches
// are left to the DLS parser ("T24 R1 W5" has the shape of a quarter unit).
func matchNTS(t *tokens) (ntsMatch, bool) {
	var idx [6]int
	m, end := 0, 0
	pad := false
	for i := 0; i < t.n && m < len(idx); i++ {
		tk := t.list[i]
		if i > 0 && tk.sep == comma {
			break
		}
		isNum, isLetter := t.isNum(i), t.isLetterToken(i)
		if !isNum && !isLetter {
			break
		}
		if m > 0 && isNum == t.isNum(idx[m-1]) {
			// A pad letter follows the quarter and touches the unit.
			if isLetter && m == 1 && !pad && tk.sep != glued && t.isNum(i+1) && t.list[i+1].sep == glued {
				pad = true
				end = i + 1
				continue
			}
			break
		}
		idx[m] = i
		m++
		end = i + 1
	}
	if m == 0 || !t.trailing(end) {
		return ntsMatch{}, false
	}
	x := ntsMatch{quarter: -1, unitNo: -1, block: -1, series: -1, area: -1, sheet: -1, end: end}
	letterFirst := !t.isNum(idx[0])
	switch {
	case m == 6 && letterFirst:
		x.unit = QuarterUnit
		x.quarter, x.unitNo, x.block, x.series, x.area, x.sheet = idx[0], idx[1], idx[2], idx[3], idx[4], idx[5]
	case pad:
		return ntsMatch{}, false
	case m == 5 && !letterFirst:
		x.unit = NTSUnit
		x.unitNo, x.block, x.series, x.area, x.sheet = idx[0], idx[1], idx[2], idx[3], idx[4]
	case m == 4 && letterFirst:
		x.unit = Block
		x.block, x.series, x.area, x.sheet = idx[0], idx[1], idx[2], idx[3]
	case m == 3 && !letterFirst:
		x.unit = MapSheet
		x.series, x.area, x.sheet = idx[0], idx[1], idx[2]
	case m == 2 && !letterFirst:
		x.unit = MapArea
		x.series, x.area = idx[0], idx[1]
	case m == 1 && !letterFirst:
		x.unit = Series
		x.series = idx[0]
	default:
		return ntsMatch{}, false
	}
	if isBCSeries(number(t.text(x.series))) {
		return x, true
	}
	if m == 1 {
		return ntsMatch{}, false
	}
	if x.series > 0 && t.list[x.series].sep == slash {
		return x, true
	}
	ok := x.quarter < 0 || between(t.letter(x.quarter), 'A', 'D')
	ok = ok && (x.block < 0 || between(t.letter(x.block), 'A', 'L'))
	ok = ok && between(t.letter(x.area), 'A', 'P')
	return x, ok
}

func between(c, lo, hi byte) bool { return lo <= c && c <= hi }

// location checks the parts of m and returns its Location.
func (m ntsMatch) location(t *tokens) (Location, error) {
	part := func(i int) string {
		if i < 0 {
			return ""
		}
		return t.text(i)
	}
	return ntsLocation(m.unit, part(m.quarter), part(m.unitNo), part(m.block), part(m.series), part(m.area), part(m.sheet))
}

// ntsLocation checks the parts of an NTS description, given as strings (""
// when absent; letters in either case), and returns its Location.
func ntsLocation(unit Unit, quarter, unitNo, block, series, area, sheet string) (Location, error) {
	l := Location{System: NTS, Unit: unit}
	var ok bool
	if quarter != "" {
		if l.Quarter = upper(quarter[0]); !between(l.Quarter, 'A', 'D') {
			return Location{}, invalidf("quarter unit %q is not valid: quarter units are A-D", string(l.Quarter))
		}
	}
	if unitNo != "" {
		if l.UnitNo, ok = inRange(unitNo, 1, 100); !ok {
			return Location{}, invalidf("unit %s is out of range: units are 1-100", trimZeros(unitNo))
		}
	}
	if block != "" {
		if l.Block = upper(block[0]); !between(l.Block, 'A', 'L') {
			return Location{}, invalidf("block %q is not valid: blocks are A-L", string(l.Block))
		}
	}
	v := number(series)
	if !isBCSeries(v) {
		return Location{}, invalidf("NTS series %s is not valid: BC series are 82, 83, 92, 93, 94, 102, 103, 104, 114", trimZeros(series))
	}
	l.Series = uint8(v)
	if area != "" {
		if l.Area = upper(area[0]); !between(l.Area, 'A', 'P') {
			return Location{}, invalidf("map area %q is not valid: map areas are A-P", string(l.Area))
		}
	}
	if sheet != "" {
		if l.Sheet, ok = inRange(sheet, 1, 16); !ok {
			return Location{}, invalidf("map sheet %s is out of range: sheets are 1-16", trimZeros(sheet))
		}
	}
	return l, nil
}

// isBCSeries reports whether v is one of the 1:1,000,000 NTS series that
// cover British Columbia.
func isBCSeries(v int) bool {
	switch v {
	case 82, 83, 92, 93, 94, 102, 103, 104, 114:
		return true
	}
	return false
}
