package lld

// parseCanonical parses s when it is a DLS description exactly as
// Location.String writes it (NW-25-24-1-W5, 6-32-48-7-W5, 25-24-1-W5,
// 24-1-W5: no spaces, no leading zeros, upper case) with every number in
// its range; for anything else it reports false and Parse takes its
// general way. Batches and the autocomplete send mostly canonical names:
// this reads them in one pass, where tokenizing them was a tenth of a
// batch's time.
func parseCanonical(s string) (Location, bool) {
	var nums [4]uint8
	n := 0
	l := Location{System: DLS}
	i := 0
	if len(s) > 3 && s[2] == '-' {
		switch s[:2] {
		case "NE":
			l.Aliquot = NE
		case "NW":
			l.Aliquot = NW
		case "SW":
			l.Aliquot = SW
		case "SE":
			l.Aliquot = SE
		}
		if l.Aliquot != AliquotNone {
			i = 3
		}
	}
	for {
		// A number of one to three digits without a leading zero, then '-'.
		start := i
		v := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < 3 {
			v = v*10 + int(s[i]-'0')
			i++
		}
		if i == start || s[start] == '0' || i >= len(s) || s[i] != '-' || n == len(nums) {
			i = start // what is left must be the meridian
			break
		}
		if v > 255 { // past every range (checked below)
			return Location{}, false
		}
		nums[n] = uint8(v)
		n++
		i++
	}
	if n < 2 || i+2 != len(s) {
		return Location{}, false
	}
	switch s[i : i+2] {
	case "W1":
		l.Meridian = W1
	case "W2":
		l.Meridian = W2
	case "W3":
		l.Meridian = W3
	case "W4":
		l.Meridian = W4
	case "W5":
		l.Meridian = W5
	case "W6":
		l.Meridian = W6
	case "E1":
		l.Meridian = E1
	case "E2":
		l.Meridian = E2
	default:
		return Location{}, false
	}
	l.Township, l.Range = nums[n-2], nums[n-1]
	switch {
	case l.Aliquot != AliquotNone && n == 3:
		l.Unit, l.Section = QuarterSection, nums[0]
	case l.Aliquot == AliquotNone && n == 4:
		l.Unit, l.LSD, l.Section = LSD, nums[0], nums[1]
	case l.Aliquot == AliquotNone && n == 3:
		l.Unit, l.Section = Section, nums[0]
	case l.Aliquot == AliquotNone && n == 2:
		l.Unit = Township
	default:
		return Location{}, false
	}
	if l.Township < 1 || l.Township > 126 || l.Range < 1 || l.Range > 34 ||
		l.Unit != Township && (l.Section < 1 || l.Section > 36) ||
		l.Unit == LSD && (l.LSD < 1 || l.LSD > 16) {
		return Location{}, false
	}
	return l, true
}
