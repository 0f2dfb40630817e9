package lld

// The tokenizer splits a cleaned description into numbers and words and
// remembers which separator came before each token, so that the per-system
// parsers can tell "10A" (one lot label) from "10 A", "07W5" from "07 W5"
// and "F/93" from "F-93". It never allocates: tokens live in a fixed array
// and refer to the input by offsets.

// maxTokens bounds the tokens kept. Every description fits in far fewer;
// past the limit the tokenizer stores one otherToken, which every parser
// either treats as trailing text or rejects.
const maxTokens = 40

type tokenKind uint8

const (
	numToken   tokenKind = iota + 1 // a run of ASCII digits
	wordToken                       // a run of letters (any byte >= 0x80 counts as a letter)
	otherToken                      // one byte of punctuation that is not a separator
)

// sepKind is the separator before a token. When several separator bytes
// stand between two tokens the strongest one is kept (comma > slash > dash >
// dot > space).
type sepKind uint8

const (
	glued sepKind = iota // no separator: the token touches the one before it
	space
	dot
	dash
	slash
	comma
)

type token struct {
	start, end uint16
	kind       tokenKind
	sep        sepKind
	kw         keyword
}

type tokens struct {
	s    string
	list [maxTokens]token
	n    int
}

// scan tokenizes s, which must be at most 65535 bytes long (Parse bounds
// its input far below that).
func (t *tokens) scan(s string) {
	t.s = s
	t.n = 0
	sep := glued
	for i := 0; i < len(s); {
		c := s[i]
		var k tokenKind
		start := i
		switch {
		case isDigit(c):
			k = numToken
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		case isLetter(c):
			k = wordToken
			for i < len(s) && isLetter(s[i]) {
				i++
			}
		default:
			i++
			var next sepKind
			switch c {
			case ' ':
				next = space
			case '.':
				next = dot
			case '-':
				next = dash
			case '/':
				next = slash
			case ',':
				next = comma
			default:
				k = otherToken
			}
			if k == 0 {
				sep = max(sep, next)
				continue
			}
		}
		tk := token{start: uint16(start), end: uint16(i), kind: k, sep: sep}
		if k == wordToken {
			tk.kw = lookupKeyword(s[start:i])
		}
		if t.n == maxTokens-1 && !onlySeparators(s[i:]) {
			// Out of room: keep one placeholder that no parser accepts as
			// part of a description.
			tk.kind, tk.kw = otherToken, kwNone
			t.list[t.n] = tk
			t.n++
			return
		}
		t.list[t.n] = tk
		t.n++
		sep = glued
	}
}

func onlySeparators(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '.', '-', '/', ',':
		default:
			return false
		}
	}
	return true
}

func (t *tokens) text(i int) string {
	return t.s[t.list[i].start:t.list[i].end]
}

// kw returns the keyword of token i, or kwNone past the end.
func (t *tokens) kw(i int) keyword {
	if i < t.n {
		return t.list[i].kw
	}
	return kwNone
}

// isNum reports whether token i exists and is a number.
func (t *tokens) isNum(i int) bool {
	return i < t.n && t.list[i].kind == numToken
}

// isLetterToken reports whether token i is a single ASCII letter.
func (t *tokens) isLetterToken(i int) bool {
	if i >= t.n || t.list[i].kind != wordToken || t.list[i].end-t.list[i].start != 1 {
		return false
	}
	c := t.s[t.list[i].start]
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// letter returns the upper-case letter of a single-letter token.
func (t *tokens) letter(i int) byte {
	return upper(t.s[t.list[i].start])
}

// trailing reports whether the text from token i on is a comment that may
// follow a complete description: nothing, anything after a comma, or words
// set off by a separator.
func (t *tokens) trailing(i int) bool {
	if i >= t.n {
		return true
	}
	tk := t.list[i]
	return tk.sep == comma || tk.sep != glued && (tk.kind == wordToken || tk.kind == otherToken)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 }

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// keyword is a word with a meaning in some legal land description.
type keyword uint8

const (
	kwNone keyword = iota

	// Directions: halves, quarters and meridian directions.
	kwN
	kwS
	kwE
	kwW
	kwNE
	kwNW
	kwSE
	kwSW
	kwQuarter
	kwHalf

	// DLS labels.
	kwLSD
	kwLegal
	kwSubdivision
	kwSec
	kwTwp // Twp, Tp, Township: also the Ontario "Township of ..."
	kwT
	kwRge
	kwR
	kwMer
	kwM
	kwOf
	kwThe
	kwOrdinal // st, nd, rd, th as in "5th"

	// Ontario.
	kwLot
	kwCon

	// Manitoba.
	kwRL
	kwPL
	kwOT
	kwSL
	kwWL
	kwRiver
	kwParish
	kwSettlement
	kwWood
	kwWoodlot
	kwOuter
	kwTwo
	kwMile
)

// lookupKeyword returns the keyword s spells, case-insensitively.
func lookupKeyword(s string) keyword {
	var buf [12]byte
	if len(s) > len(buf) {
		return kwNone
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(s)]) {
	case "n", "north":
		return kwN
	case "s", "south":
		return kwS
	case "e", "east":
		return kwE
	case "w", "west":
		return kwW
	case "ne", "northeast":
		return kwNE
	case "nw", "northwest":
		return kwNW
	case "se", "southeast":
		return kwSE
	case "sw", "southwest":
		return kwSW
	case "quarter", "qtr":
		return kwQuarter
	case "half", "hf":
		return kwHalf
	case "lsd":
		return kwLSD
	case "legal":
		return kwLegal
	case "subdivision", "subdiv":
		return kwSubdivision
	case "sec", "sect", "section":
		return kwSec
	case "twp", "tp", "twsp", "tsp", "township":
		return kwTwp
	case "t":
		return kwT
	case "rge", "rg", "rng", "range":
		return kwRge
	case "r":
		return kwR
	case "mer", "meridian":
		return kwMer
	case "m":
		return kwM
	case "of":
		return kwOf
	case "the":
		return kwThe
	case "st", "nd", "rd", "th":
		return kwOrdinal
	case "lot":
		return kwLot
	case "con", "conc", "concession":
		return kwCon
	case "rl":
		return kwRL
	case "pl":
		return kwPL
	case "ot":
		return kwOT
	case "sl":
		return kwSL
	case "wl":
		return kwWL
	case "river":
		return kwRiver
	case "parish":
		return kwParish
	case "settlement":
		return kwSettlement
	case "wood":
		return kwWood
	case "woodlot":
		return kwWoodlot
	case "outer":
		return kwOuter
	case "two":
		return kwTwo
	case "mile":
		return kwMile
	}
	return kwNone
}

// direction returns the aliquot a direction keyword names on its own:
// a quarter for NE..SW, a half for N, S, E, W.
func (k keyword) direction() Aliquot {
	switch k {
	case kwN:
		return NorthHalf
	case kwS:
		return SouthHalf
	case kwE:
		return EastHalf
	case kwW:
		return WestHalf
	case kwNE:
		return NE
	case kwNW:
		return NW
	case kwSE:
		return SE
	case kwSW:
		return SW
	}
	return AliquotNone
}
