package grid

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/fps"
)

// FPS autocomplete. The input is read as the start of an FPS description
// when its shape allows no DLS or NTS reading:
//
//	grid     DD-MM N [DDD[-MM[ W]]]        60-20 N, 60-20 N 100
//	section  S DD-MM N [DDD[-MM[ W]]]      48 60-20 N 10
//	unit     L S DD-MM [N [DDD[-MM[ W]]]]  F 48 60-20, F 48 60-20 N 100-30
//
// (a unit letter N or E, which could start a DLS half section, needs the
// N after the latitude). The last number may be unfinished. Completions
// are the grid areas, sections or units that fit, inside the datum grid
// (44°-142° W, up to 84° N), nearest first to the bias point.

// maxFPSCandidates bounds the blocks weighed for one request.
const maxFPSCandidates = 200000

// fpsPrefix is one FPS reading of an autocomplete input: the values each
// part may take.
type fpsPrefix struct {
	leaf                 lld.Unit
	letters              set // 0 = A
	sections             set
	latDeg, lngDeg       []int
	latMinTok, lngMinTok *token
}

// readFPSPrefix returns the FPS reading of toks, if it has one.
func readFPSPrefix(toks []token) (fpsPrefix, bool) {
	p := fpsPrefix{}
	i := 0
	letter := false
	if len(toks) > 1 && !toks[0].digits && len(toks[0].text) == 1 && toks[1].digits {
		c := toks[0].text[0]
		if c < 'A' || c > 'P' {
			return p, false
		}
		p.letters.add(int(c - 'A'))
		letter, i = true, 1
	}
	var nums []token
	for i < len(toks) && toks[i].digits {
		nums = append(nums, toks[i])
		i++
	}
	hasN := i < len(toks) && !toks[i].digits && toks[i].text == "N"
	switch {
	case letter && len(nums) == 3 && !hasN && i == len(toks):
		// F 48 60-20: the N may follow.
		if c := toks[0].text[0]; c == 'N' || c == 'E' {
			return p, false
		}
	case hasN && len(nums) == 3 && letter, hasN && len(nums) == 2 && !letter, hasN && len(nums) == 3 && !letter:
	default:
		return p, false
	}
	switch {
	case letter:
		p.leaf = lld.FPSUnit
		p.sections = numberSet(nums[0], 1, 100)
		nums = nums[1:]
	case len(nums) == 3:
		p.leaf = lld.FPSSection
		p.sections = numberSet(nums[0], 1, 100)
		p.letters = set{}
		nums = nums[1:]
	default:
		p.leaf = lld.Grid
	}
	if p.leaf != lld.FPSUnit {
		p.letters = set{}
	}
	p.latDeg = numberList(nums[0], 40, 85)
	p.latMinTok = &nums[1]
	if hasN {
		i++
		rest := toks[i:]
		if len(rest) > 0 && !rest[0].digits {
			return p, false
		}
		if len(rest) > 0 {
			p.lngDeg = numberList(rest[0], 44, 141)
			if len(p.lngDeg) == 0 {
				return p, false
			}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			if !rest[0].digits {
				return p, false
			}
			p.lngMinTok = &rest[0]
			rest = rest[1:]
		}
		if len(rest) > 0 && (rest[0].digits || rest[0].text != "W") || len(rest) > 1 {
			return p, false
		}
	}
	if p.lngDeg == nil {
		p.lngDeg = numberList(token{partial: true}, 44, 141)
	}
	if len(p.latDeg) == 0 || (p.leaf != lld.Grid && p.sections.empty()) {
		return p, false
	}
	return p, true
}

// numberList is numberSet for values past the 0-127 of a set
// (longitudes): the values in [lo, hi] the token can stand for.
func numberList(t token, lo, hi int) []int {
	var out []int
	prefix := strings.TrimLeft(t.text, "0")
	for n := lo; n <= hi; n++ {
		v := strconv.Itoa(n)
		if t.partial && (prefix == "" || strings.HasPrefix(v, prefix)) || !t.partial && v == prefix {
			out = append(out, n)
		}
	}
	return out
}

// minuteFits reports whether minutes m (two digits) fit tok: equal to it,
// or while it is being typed, starting with it. A nil tok allows any.
func minuteFits(tok *token, m int) bool {
	if tok == nil {
		return true
	}
	s := fmt.Sprintf("%02d", m)
	if tok.partial {
		return strings.HasPrefix(s, tok.text)
	}
	return tok.text == s || tok.text == s[1:] && s[0] == '0'
}

// completeFPS appends to out the FPS completions of input, nearest first
// to bias, up to limit in all. ok is false when input has no FPS reading;
// the other systems are then tried.
func completeFPS(input string, limit int, bias orb.Point, out []survey.Block) (_ []survey.Block, ok bool) {
	p, ok := readFPSPrefix(tokenize(input))
	if !ok {
		return out, false
	}
	m := metric{p: bias, kx: cosDeg(bias[1])}
	type cand struct {
		key float64
		l   lld.Location
	}
	var cands []cand
	add := func(l lld.Location) {
		if b, ok := fps.Bound27(l); ok {
			cands = append(cands, cand{key: m.toPoint(b.Center()), l: l})
		}
	}
	for _, ld := range p.latDeg {
		for lm := 0; lm <= 50; lm += 10 {
			lat := ld*60 + lm
			if lat-10 < 40*60 || lat > 84*60 || !minuteFits(p.latMinTok, lm) {
				continue
			}
			r := lld.FPSRef{Lat: uint16(lat)}
			w := r.WidthMin()
			for _, gd := range p.lngDeg {
				for gm := 0; gm < 60 && len(cands) < maxFPSCandidates; gm += w {
					if lng := gd*60 + gm; lng+w <= 142*60 && minuteFits(p.lngMinTok, gm) {
						r.Lng = uint16(lng)
						p.blocks(r, add)
					}
				}
			}
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return strings.Compare(a.l.String(), b.l.String())
	})
	seen := make(map[string]bool, limit)
	for _, b := range out {
		seen[b.Location.String()] = true
	}
	for _, c := range cands {
		if len(out) >= limit {
			break
		}
		k := c.l.String()
		if seen[k] {
			continue
		}
		b, err := fps.Resolve(c.l)
		if err != nil {
			continue
		}
		seen[k] = true
		out = append(out, b)
	}
	return out, true
}

// blocks calls add with every block of grid area r that p allows.
func (p *fpsPrefix) blocks(r lld.FPSRef, add func(lld.Location)) {
	if p.leaf == lld.Grid {
		add(lld.Location{System: lld.FPS, Unit: lld.Grid, FPS: r})
		return
	}
	for s := 1; s <= 10*r.Columns(); s++ {
		if !p.sections.has(s) {
			continue
		}
		r.Section = uint8(s)
		if p.leaf == lld.FPSSection {
			add(lld.Location{System: lld.FPS, Unit: lld.FPSSection, FPS: r})
			continue
		}
		for u := 0; u < 16; u++ {
			if p.letters.has(u) {
				r.Unit = byte('A' + u)
				add(lld.Location{System: lld.FPS, Unit: lld.FPSUnit, FPS: r})
			}
		}
	}
}
