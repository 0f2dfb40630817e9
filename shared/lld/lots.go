package lld

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Manitoba river, parish, outer two-mile, settlement and wood lots:
// RL-22-St. Norbert, River Lot 52, Parish of St. Andrews, PL-R-St. Andrews,
// OT-11A-St. Clements, WL-179-Portage La Prairie, RL-0022-St. Norbert.

// riverLotKind returns the lot kind (RL, PL, OT, SL, WL) that t starts with
// and the index of the token after it, or "" when t starts with none.
func riverLotKind(t *tokens) (string, int) {
	switch t.kw(0) {
	case kwRL:
		return "RL", 1
	case kwPL:
		return "PL", 1
	case kwOT:
		return "OT", 1
	case kwSL:
		return "SL", 1
	case kwWL, kwWoodlot:
		return "WL", 1
	case kwRiver:
		if t.kw(1) == kwLot {
			return "RL", 2
		}
	case kwParish:
		if t.kw(1) == kwLot {
			return "PL", 2
		}
	case kwSettlement:
		if t.kw(1) == kwLot {
			return "SL", 2
		}
	case kwWood:
		if t.kw(1) == kwLot {
			return "WL", 2
		}
	case kwOuter: // Outer Lot, Outer Two-Mile Lot
		i := 1
		if t.kw(i) == kwTwo {
			i++
		}
		if t.kw(i) == kwMile {
			i++
		}
		if t.kw(i) == kwLot {
			return "OT", i + 1
		}
	}
	return "", 0
}

func parseRiverLot(t *tokens) (Location, error) {
	kind, i := riverLotKind(t)
	lot, i, err := lotLabel(t, i, "lot")
	if err != nil {
		return Location{}, err
	}
	if i >= t.n || t.list[i].kind != wordToken {
		return Location{}, invalidf("parish is missing: write a Manitoba lot as %s-%s-St. Norbert (type-lot-parish)", kind, lot)
	}
	place, err := normalizePlace(t.s[t.list[i].start:placeEnd(t.s, int(t.list[i].start))], "parish")
	if err != nil {
		return Location{}, err
	}
	for n := -1; n != len(place); {
		n = len(place)
		place.stripPrefix("parish", "of")
		place.stripPrefix("parish")
	}
	if len(place) == 0 {
		return Location{}, invalidf("parish is missing: write a Manitoba lot as %s-%s-St. Norbert (type-lot-parish)", kind, lot)
	}
	name, err := place.name("parish", true)
	if err != nil {
		return Location{}, err
	}
	return Location{System: RiverLot, Unit: RiverParishLot, LotKind: kind, Lot: lot, Place: name}, nil
}

// Ontario geographic townships: Lot 10 Con 1 Adjala, Lot 5, Con 3,
// Admaston, Lot 10, Concession IV, Township of Adjala, Con 1 Adjala,
// Adjala Township.

func parseOntario(t *tokens) (Location, error) {
	var lot, con string
	i := 0
	for i < t.n && (t.kw(i) == kwLot || t.kw(i) == kwCon) {
		isLot := t.kw(i) == kwLot
		name := "lot"
		if !isLot {
			name = "concession"
		}
		v, next, err := lotLabel(t, i+1, name)
		if !isLot && i+2 < t.n {
			// A broken front concession, spelled out or dotted: "Broken
			// Front", "B.F.", "B F" are all BF.
			if w1, w2 := t.text(i+1), t.text(i+2); equalFold(w1, "broken") && equalFold(w2, "front") || equalFold(w1, "b") && equalFold(w2, "f") {
				v, next, err = "BF", i+3, nil
			}
		}
		if err != nil {
			return Location{}, err
		}
		if isLot && t.isNum(next) && t.text(next) == "1" && t.isNum(next+1) && t.list[next+1].sep == slash {
			return Location{}, invalidf("lot %s %s/%s is not supported: give the whole lot (e.g. Lot %s Con 1 Adjala)", v, t.text(next), t.text(next+1), v)
		}
		if isLot && lot != "" || !isLot && con != "" {
			return Location{}, invalidf("%q gives the %s twice", t.s, name)
		}
		if isLot {
			lot = v
		} else {
			con = concessionLabel(v)
		}
		i = next
	}
	if t.kw(i) == kwParish && con == "" {
		return Location{}, invalidf("%q does not say which kind of Manitoba lot: write RL (river lot), PL (parish lot), OT, SL or WL, e.g. RL-%s-St. Andrews", t.s, lot)
	}
	if con == "" {
		return Location{}, invalidf("concession is missing: write an Ontario lot as Lot %s Con 1 Adjala (lot, concession, geographic township)", lot)
	}
	if i >= t.n || t.list[i].kind != wordToken {
		return Location{}, invalidf("township is missing: write an Ontario lot as Lot 10 Con 1 Adjala (lot, concession, geographic township)")
	}
	place, _, err := ontarioTownship(t.s[t.list[i].start:placeEnd(t.s, int(t.list[i].start))])
	if err != nil {
		return Location{}, err
	}
	l := Location{System: GeoTownship, Unit: Concession, Concession: con, Place: place}
	if lot != "" {
		l.Unit, l.Lot = Lot, lot
	}
	return l, nil
}

// isOntarioTownship reports whether t names a whole Ontario geographic
// township: "Township of Adjala", or words without numbers that include
// Township or Twp ("Adjala Township", "Adjala Twp").
func (t *tokens) isOntarioTownship() bool {
	if t.kw(0) == kwTwp && t.kw(1) == kwOf {
		return true
	}
	twp := false
	for i := 0; i < t.n && (i == 0 || t.list[i].sep != comma); i++ {
		if t.list[i].kind == numToken {
			return false
		}
		twp = twp || t.list[i].kw == kwTwp
	}
	return twp
}

func parseOntarioTownship(t *tokens) (Location, error) {
	place, named, err := ontarioTownship(t.s[:placeEnd(t.s, 0)])
	if err != nil {
		return Location{}, err
	}
	if !named {
		return Location{}, notLLD(t.s)
	}
	return Location{System: GeoTownship, Unit: Township, Place: place}, nil
}

// ontarioTownship normalizes an Ontario geographic township name, dropping
// "Township of" and a trailing "Township" or "Twp"; named reports whether
// one of them was there.
func ontarioTownship(s string) (place string, named bool, err error) {
	w, err := normalizePlace(s, "township")
	if err != nil {
		return "", false, err
	}
	for {
		n := len(w)
		w.stripPrefix("geographic", "township", "of")
		w.stripPrefix("township", "of")
		w.stripTownshipSuffix()
		if len(w) == n {
			break
		}
		named = true
	}
	if len(w) == 0 {
		return "", false, invalidf("township name is missing: write e.g. Lot 10 Con 1 Adjala or Adjala Township")
	}
	// A name with a lot or concession word, or starting with a Manitoba
	// lot kind, would read back as one: its canonical form could not be
	// parsed again.
	name, err := w.name("township", false)
	if err != nil {
		return "", false, err
	}
	first := true
	for word := range strings.FieldsFuncSeq(name, func(r rune) bool { return r == ' ' || r == '.' || r == '-' }) {
		switch lookupKeyword(word) {
		case kwLot, kwCon:
			return "", false, invalidf("township %q is not valid: it contains %q", name, word)
		case kwRL, kwPL, kwOT, kwSL, kwWL, kwWoodlot:
			if first {
				return "", false, invalidf("township %q is not valid: it starts with %q", name, word)
			}
		}
		first = false
	}
	return name, named, nil
}

// lotLabel reads the lot or concession label at token i: a number, a word
// or both run together ("10", "10A", "R", "BF", "0022", "000R"). It returns
// the label in upper case without leading zeros and the next token index.
func lotLabel(t *tokens, i int, name string) (string, int, error) {
	if i >= t.n || t.list[i].kind == otherToken || t.list[i].kw == kwLot || t.list[i].kw == kwCon {
		return "", 0, invalidf("%s is missing: write e.g. Lot 10 Con 1 Adjala or RL-22-St. Norbert", name)
	}
	// The label runs on over glued tokens ("10A", "000R"), but not into
	// "St" or "Ste" ("RL-22St. Norbert").
	j := i + 1
	for j < t.n && t.list[j].sep == glued && t.list[j].kind != otherToken && !isSaint(t.text(j)) {
		j++
	}
	raw := t.s[t.list[i].start:t.list[j-1].end]
	if len(raw) > 8 || !isASCIIAlnum(raw) {
		return "", 0, invalidf("%s %q is not valid: lots and concessions are numbers or short labels (10, 10A, R, BF)", name, raw)
	}
	v := strings.TrimLeft(strings.ToUpper(raw), "0")
	if v == "" {
		return "", 0, invalidf("%s %s is out of range: %ss start at 1", name, "0", name)
	}
	// The label must not read back as a Lot or Con label ("0Con" becomes
	// "CON").
	e := 1
	for e < len(v) && isDigit(v[e]) == isDigit(v[0]) {
		e++
	}
	if k := lookupKeyword(v[:e]); k == kwLot || k == kwCon {
		return "", 0, invalidf("%s %q is not valid: lots and concessions are numbers or short labels (10, 10A, R, BF)", name, raw)
	}
	return v, j, nil
}

func isSaint(s string) bool { return equalFold(s, "st") || equalFold(s, "ste") }

// concessionLabel turns a Roman-numeral concession (I, V and X only,
// 1-39) into its arabic number; other labels are kept.
func concessionLabel(v string) string {
	if n := roman(v); n > 0 {
		return strconv.Itoa(n)
	}
	return v
}

// roman returns the value of s, an upper-case Roman numeral of I, V and X
// in canonical form with a value of 1-39, or 0.
func roman(s string) int {
	if s == "" || len(s) > 6 {
		return 0
	}
	n := 0
	for i := 0; i < len(s); i++ {
		v := romanDigit(s[i])
		if v == 0 {
			return 0
		}
		if i+1 < len(s) && romanDigit(s[i+1]) > v {
			n -= v
		} else {
			n += v
		}
	}
	if n < 1 || n > 39 || toRoman(n) != s {
		return 0
	}
	return n
}

func romanDigit(c byte) int {
	switch c {
	case 'I':
		return 1
	case 'V':
		return 5
	case 'X':
		return 10
	}
	return 0
}

func toRoman(n int) string {
	ones := [...]string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	return strings.Repeat("X", n/10) + ones[n%10]
}

func isASCIIAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && !('a' <= c|0x20 && c|0x20 <= 'z') {
			return false
		}
	}
	return true
}

// placeEnd returns the end of the place name that starts at start: the
// first comma after it (what follows is a comment) or the end of s.
func placeEnd(s string, start int) int {
	if i := strings.IndexByte(s[start:], ','); i >= 0 {
		return start + i
	}
	return len(s)
}

// maxPlaceLen bounds place names, in bytes, so that every canonical string
// stays well within MaxInputLen.
const maxPlaceLen = 64

// placeWords is a place name split into words.
type placeWords []string

// normalizePlace splits a place name into title-case words: whitespace
// collapsed, "St"/"St." written "St." and "Ste"/"Ste." written "Ste.", a
// space after a dot that runs into a letter ("St.Norbert"), and dots and
// hyphens before a word dropped. Names are letters, dots and hyphens.
func normalizePlace(s, what string) (placeWords, error) {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != '.' && r != '-' && r != ' ' {
			return nil, invalidf("%s %q is not valid: names are letters, spaces, dots and hyphens", what, strings.TrimSpace(s))
		}
	}
	var w placeWords
	for _, f := range strings.Fields(s) {
		for f != "" {
			word := f
			f = ""
			if i := dotBeforeLetter(word); i >= 0 {
				word, f = word[:i+1], word[i+1:]
			}
			// Dots and hyphens before a word's first letter are dropped:
			// at the start of a name the tokenizer reads them as separators.
			word = strings.TrimLeft(word, ".-")
			if word = titleCase(word); word != "" {
				w = append(w, word)
			}
		}
	}
	for k, word := range w {
		switch strings.ToLower(strings.TrimRight(word, ".")) {
		case "st":
			w[k] = "St."
		case "ste":
			w[k] = "Ste."
		}
	}
	return w, nil
}

// dotBeforeLetter returns the index of the first '.' in s that is followed
// by a letter, or -1.
func dotBeforeLetter(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' {
			if r, _ := utf8.DecodeRuneInString(s[i+1:]); unicode.IsLetter(r) {
				return i
			}
		}
	}
	return -1
}

// titleCase upper-cases the first letter of s and each letter after a
// hyphen, and lower-cases the others.
func titleCase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	up := true
	for _, r := range s {
		if up {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		up = r == '-'
	}
	return b.String()
}

// stripPrefix drops the leading words of w when they equal words, ignoring
// case and trailing dots.
func (w *placeWords) stripPrefix(words ...string) {
	if len(*w) < len(words) {
		return
	}
	for k, word := range words {
		if !strings.EqualFold(strings.TrimRight((*w)[k], "."), word) {
			return
		}
	}
	*w = (*w)[len(words):]
}

// stripTownshipSuffix drops the last word of w when it is Township, Twp or
// Tp.
func (w *placeWords) stripTownshipSuffix() {
	if n := len(*w); n > 0 && lookupKeyword(strings.TrimRight((*w)[n-1], ".")) == kwTwp {
		*w = (*w)[:n-1]
	}
}

// name returns the words joined by spaces. With codes set, a single word of
// one to three ASCII letters is a short code ("PA") and is upper-cased.
func (w placeWords) name(what string, codes bool) (string, error) {
	if codes && len(w) == 1 && len(w[0]) <= 3 && isASCIILetters(w[0]) {
		return strings.ToUpper(w[0]), nil
	}
	s := strings.Join(w, " ")
	if len(s) > maxPlaceLen {
		return "", invalidf("%s %q is too long: names are at most %d characters", what, s, maxPlaceLen)
	}
	return s, nil
}
