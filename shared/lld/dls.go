package lld

import "strings"

// DLS fields in hierarchy order; unlabelled numbers fill them left to
// right, as in LSD-section-township-range.
const (
	fieldLSD = iota
	fieldSec
	fieldTwp
	fieldRge
	numFields
)

var fieldNames = [numFields]string{"LSD", "section", "township", "range"}

// dlsNumber is a number of a DLS description and the field its label
// names, or -1 when it has none.
type dlsNumber struct {
	tok   int
	label int
}

// dlsParser reads a DLS description in one left-to-right pass, collecting
// the aliquot, the numbers with their labels and the meridian; build then
// assigns the unlabelled numbers to fields and checks the ranges.
type dlsParser struct {
	t            *tokens
	i            int
	nums         [6]dlsNumber
	n            int
	label        int // field named by a label still waiting for its number, or -1
	labelTok     int
	aliquot      Aliquot
	afterAliquot bool    // the aliquot (or its Quarter/Half word) was the last item
	want         keyword // kwQuarter or kwHalf when "Quarter"/"Half" came before the aliquot
	mer          Meridian
}

// parseDLS parses t as a DLS description and returns the index of the first
// token of trailing text (t.n when there is none).
func parseDLS(t *tokens) (Location, int, error) {
	p := dlsParser{t: t, label: -1}
	end, err := p.scan()
	if err != nil {
		return Location{}, 0, err
	}
	l, err := p.build()
	if err != nil {
		return Location{}, 0, err
	}
	return l, end, nil
}

// complete reports whether a description could end here: a meridian and at
// least a township and range.
func (p *dlsParser) complete() bool {
	return p.mer != MeridianNone && p.n >= 2 && p.label < 0 && p.want == 0
}

// continues reports whether token i, after a complete description, is more
// of it (a label, a short direction or a number) rather than a comment.
func (p *dlsParser) continues(i int) bool {
	tk := p.t.list[i]
	if tk.sep == comma {
		return false
	}
	switch tk.kind {
	case numToken:
		return true
	case otherToken:
		return tk.sep == glued
	}
	if tk.sep == glued {
		return true
	}
	switch tk.kw {
	case kwLSD, kwLegal, kwSec, kwTwp, kwT, kwRge, kwR, kwMer, kwM, kwQuarter, kwHalf:
		return true
	}
	return tk.kw.direction() != AliquotNone && tk.end-tk.start <= 2
}

func (p *dlsParser) scan() (int, error) {
	t := p.t
	for p.i < t.n {
		if p.complete() && !p.continues(p.i) {
			return p.i, nil
		}
		var err error
		switch t.list[p.i].kind {
		case numToken:
			err = p.number()
		case wordToken:
			err = p.word()
		default:
			err = p.unexpected(p.i)
		}
		if err != nil {
			return 0, err
		}
	}
	if p.label >= 0 {
		return 0, p.labelWithoutNumber()
	}
	return t.n, nil
}

func (p *dlsParser) unexpected(i int) error {
	return unexpected(p.t.s, p.t.text(i))
}

func (p *dlsParser) labelWithoutNumber() error {
	return invalidf("%q must be followed by a %s number (e.g. Sec 25 Twp 24 Rge 1 W5)", p.t.text(p.labelTok), fieldNames[p.label])
}

func (p *dlsParser) setLabel(f int) {
	p.label, p.labelTok = f, p.i
	p.afterAliquot = false
	p.i++
}

func (p *dlsParser) number() error {
	t, i := p.t, p.i
	// "1/4" or "1/2" after a quarter or half: SW 1/4, N1/2.
	if t.text(i) == "1" && t.isNum(i+1) && t.list[i+1].sep == slash {
		return p.fraction()
	}
	// A meridian written without its direction: "5th Meridian", "5 Mer", "5M".
	if p.label < 0 {
		j := i + 1
		if t.kw(j) == kwOrdinal {
			j++
		}
		if k := t.kw(j); (k == kwM || k == kwMer) && t.list[j].sep != comma && !t.isNum(j+1) {
			if n := t.kw(j + 1); n != kwW && n != kwE { // not "1 Mer W5"
				return p.meridian()
			}
		}
	}
	if p.label < 0 && p.mer != MeridianNone {
		return invalidf("%q is not a legal land description: %q follows the meridian, which comes last (e.g. NW-25-24-1-W5)", t.s, t.text(i))
	}
	if p.n == len(p.nums) {
		return p.tooManyNumbers()
	}
	p.nums[p.n] = dlsNumber{tok: i, label: p.label}
	p.n++
	p.label = -1
	p.afterAliquot = false
	p.i++
	return nil
}

func (p *dlsParser) tooManyNumbers() error {
	return invalidf("%q has too many numbers: write LSD-section-township-range-meridian (e.g. 10-36-42-3-W5) or quarter-section-township-range-meridian (e.g. NW-25-24-1-W5)", p.t.s)
}

func (p *dlsParser) fraction() error {
	t, i := p.t, p.i
	d := t.text(i + 1)
	if !p.afterAliquot {
		return invalidf("%q is not a legal land description: 1/%s must follow a quarter or half (e.g. SW 1/4 25-24-1-W5, N 1/2 36-42-3-W5)", t.s, d)
	}
	if !(d == "4" && p.aliquot.IsQuarter() || d == "2" && p.aliquot.IsHalf()) {
		return invalidf("%s 1/%s is not valid: quarters are written NE, NW, SE, SW or with 1/4 (SW 1/4), halves N, S, E, W or with 1/2 (N 1/2)", p.aliquot, d)
	}
	p.i += 2
	return nil
}

func (p *dlsParser) word() error {
	t, i := p.t, p.i
	if p.label >= 0 {
		return p.labelWithoutNumber()
	}
	k := t.list[i].kw
	switch k {
	case kwLSD:
		p.setLabel(fieldLSD)
	case kwLegal:
		if t.kw(i+1) == kwSubdivision {
			p.i++
		}
		p.setLabel(fieldLSD)
	case kwSec:
		p.setLabel(fieldSec)
	case kwTwp, kwT:
		p.setLabel(fieldTwp)
	case kwRge, kwR:
		p.setLabel(fieldRge)
	case kwOf, kwThe:
		p.i++
	case kwMer, kwM:
		return p.meridian()
	case kwQuarter, kwHalf:
		switch {
		case p.afterAliquot:
			if k == kwQuarter && !p.aliquot.IsQuarter() || k == kwHalf && !p.aliquot.IsHalf() {
				return invalidf("%s %s is not valid: quarters are NE, NW, SE, SW (halves N, S, E, W)", p.aliquot, t.text(i))
			}
		case p.aliquot == AliquotNone:
			if t.kw(i+1).direction() == AliquotNone {
				return invalidf("%q names a %s but not which: quarters are NE, NW, SE, SW (halves N, S, E, W)", t.s, t.text(i))
			}
			p.want = k
		default:
			return p.unexpected(i)
		}
		p.i++
	default:
		if k.direction() == AliquotNone {
			return p.unknownWord()
		}
		// S glued to a number and followed by more labels is the section
		// label of "S25 T24 R1 W5", not a south half.
		if k == kwS && t.isNum(i+1) && t.list[i+1].sep == glued && t.list[i].end-t.list[i].start == 1 {
			if n := t.kw(i + 2); n == kwT || n == kwTwp {
				p.setLabel(fieldSec)
				return nil
			}
		}
		atStart := p.n == 0 && p.mer == MeridianNone && p.aliquot == AliquotNone
		if p.want != 0 || atStart && t.kw(i+1) != kwOf {
			return p.aliquotWords()
		}
		if k == kwW || k == kwE {
			return p.meridian()
		}
		return p.unexpected(i)
	}
	return nil
}

// unknownWord reports a word that means nothing in a DLS description: a
// bad quarter when it stands where the quarter goes, else the generic error.
func (p *dlsParser) unknownWord() error {
	t, i := p.t, p.i
	w := t.text(i)
	if i == 0 && len(w) <= 3 && t.isNum(1) && isASCIILetters(w) {
		for j := 2; j < t.n; j++ {
			if k := t.kw(j); k == kwW || k == kwE { // a meridian follows: w is where the quarter goes
				return invalidf("quarter %q is not valid: quarters are NE, NW, SE, SW (halves N, S, E, W)", strings.ToUpper(w))
			}
		}
	}
	if i == 0 {
		return notLLD(t.s)
	}
	return p.unexpected(i)
}

// aliquotWords reads a quarter or half: NW, N, North West, N.W., Northwest.
func (p *dlsParser) aliquotWords() error {
	t, i := p.t, p.i
	a := t.list[i].kw.direction()
	next := i + 1
	if a == NorthHalf || a == SouthHalf {
		if k := t.kw(i + 1); (k == kwE || k == kwW) && t.list[i+1].sep != comma && t.kw(i+2) != kwOf {
			next = i + 2
			switch {
			case a == NorthHalf && k == kwE:
				a = NE
			case a == NorthHalf:
				a = NW
			case k == kwE:
				a = SE
			default:
				a = SW
			}
		}
	}
	if p.want == kwQuarter && !a.IsQuarter() || p.want == kwHalf && !a.IsHalf() {
		return invalidf("%s %s is not valid: quarters are NE, NW, SE, SW (halves N, S, E, W)", t.text(i-1), a)
	}
	p.aliquot, p.want = a, 0
	p.afterAliquot = true
	p.i = next
	return nil
}

// meridian reads a meridian at p.i in any of its spellings: W5, W 5, W5M,
// W5 Mer, E1, West of the 5th Meridian, W of 5, Mer 5, Meridian W5,
// 5th Meridian, 5M.
func (p *dlsParser) meridian() error {
	t, i := p.t, p.i
	start := i
	labelled := false
	if k := t.kw(i); k == kwMer || k == kwM {
		labelled = true
		i++
	}
	var dir byte
	if k := t.kw(i); k == kwW || k == kwE {
		dir = 'W'
		if k == kwE {
			dir = 'E'
		}
		i++
		for k := t.kw(i); k == kwOf || k == kwThe; k = t.kw(i) {
			i++
		}
	}
	if !t.isNum(i) {
		if dir == 0 && !labelled {
			return p.unexpected(start)
		}
		return invalidf("meridian %q has no number: meridians are W1-W6, E1, E2 (e.g. 25-24-1-W5)", t.s[t.list[start].start:t.list[i-1].end])
	}
	num := t.text(i)
	i++
	if t.kw(i) == kwOrdinal {
		i++
	}
	if k := t.kw(i); (k == kwM || k == kwMer) && t.list[i].sep != comma && !t.isNum(i+1) {
		i++
	}
	if p.mer != MeridianNone {
		return invalidf("%q gives the meridian twice: give it once, last (e.g. NW-25-24-1-W5)", t.s)
	}
	m, err := meridianOf(dir, num)
	if err != nil {
		return err
	}
	p.mer = m
	p.afterAliquot = false
	p.i = i
	return nil
}

// build assigns the numbers to fields and checks them.
func (p *dlsParser) build() (Location, error) {
	t := p.t
	if p.mer == MeridianNone {
		return Location{}, p.missingMeridian()
	}
	// Where the first number goes: its label's field, or counted back from
	// the first labelled number, or, with no labels at all, from the range.
	start := numFields - p.n
	for k := 0; k < p.n; k++ {
		if p.nums[k].label >= 0 {
			start = p.nums[k].label - k
			break
		}
	}
	var field [numFields]string
	cur := start
	for k := 0; k < p.n; k++ {
		f := cur
		if p.nums[k].label >= 0 {
			f = p.nums[k].label
		}
		if f < 0 || f >= numFields {
			if p.n > numFields {
				return Location{}, p.tooManyNumbers()
			}
			return Location{}, invalidf("%q has its numbers in an order that cannot be read: write LSD-section-township-range-meridian (e.g. 10-36-42-3-W5) or label them (Sec 25 Twp 24 Rge 1 W5)", t.s)
		}
		if field[f] != "" {
			return Location{}, invalidf("%q gives the %s twice", t.s, fieldNames[f])
		}
		field[f] = t.text(p.nums[k].tok)
		cur = f + 1
	}
	lsd, sec := field[fieldLSD], field[fieldSec]
	switch {
	case field[fieldTwp] == "" || field[fieldRge] == "":
		return Location{}, invalidf("%q is incomplete: township and range come before the meridian (e.g. 24-1-W5, 25-24-1-W5, NW-25-24-1-W5)", t.s)
	case lsd != "" && p.aliquot != AliquotNone:
		rest := trimZeros(sec) + "-" + trimZeros(field[fieldTwp]) + "-" + trimZeros(field[fieldRge]) + "-" + p.mer.String()
		return Location{}, invalidf("LSD %s and %s %s given together: give one or the other (e.g. %s-%s or %s-%s)",
			trimZeros(lsd), aliquotKind(p.aliquot), p.aliquot, trimZeros(lsd), rest, p.aliquot, rest)
	case sec == "" && lsd != "":
		return Location{}, invalidf("LSD %s needs a section (e.g. 10-36-42-3-W5)", trimZeros(lsd))
	case sec == "" && p.aliquot != AliquotNone:
		return Location{}, invalidf("%s %s needs a section (e.g. %s-25-24-1-W5)", aliquotKind(p.aliquot), p.aliquot, p.aliquot)
	}
	return dlsLocation(p.aliquot, lsd, sec, field[fieldTwp], field[fieldRge], p.mer)
}

func aliquotKind(a Aliquot) string {
	if a.IsHalf() {
		return "half"
	}
	return "quarter"
}

// missingMeridian explains a DLS description without a meridian. When the
// last number looks like the meridian written without its W (25-24-1-4),
// the message shows the fix, but Parse never applies it: a bare number is
// ambiguous.
func (p *dlsParser) missingMeridian() error {
	t := p.t
	if p.n < 2 {
		return notLLD(t.s)
	}
	labels := false
	for k := 0; k < p.n; k++ {
		labels = labels || p.nums[k].label >= 0
	}
	// With the last number taken as the meridian, the others must read as
	// section-township-range, after a quarter or an LSD.
	before := p.n - 1
	fits := before == 3 || before == 4 && p.aliquot == AliquotNone
	if last := number(t.text(p.nums[p.n-1].tok)); !labels && fits && 1 <= last && last <= 6 {
		var b strings.Builder
		if p.aliquot != AliquotNone {
			b.WriteString(p.aliquot.String())
			b.WriteByte('-')
		}
		for k := 0; k < p.n-1; k++ {
			b.WriteString(trimZeros(t.text(p.nums[k].tok)))
			b.WriteByte('-')
		}
		return invalidf("meridian is missing: write it as W%d (e.g. %sW%d)", last, b.String(), last)
	}
	return invalidf("meridian is missing: end the description with W1-W6, E1 or E2 (e.g. NW-25-24-1-W5)")
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
