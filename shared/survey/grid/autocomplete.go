package grid

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/nts"
)

// Autocomplete completes a partial legal land description.
//
// The input is read as every form it could be the start of: a quarter or
// half section (NW-25-24 ...), an LSD or a section (10-36-42 ...), an NTS
// quarter unit, unit, block or map sheet (A-2-F/93 ..., 93-P ...). The last
// number may be unfinished ("NW-25-2" allows townships 2 and 20-29). The
// blocks that complete it are searched best-first, nearest first to
// proximity, or without proximity to a fixed default point (Calgary), so the
// order is deterministic. A complete description that resolves comes first.
// FPS prefixes (F 48 60-20, 60-20 N) complete to FPS blocks only
// (autocomplete_fps.go).
func (s *Service) Autocomplete(ctx context.Context, input string, limit int, proximity *orb.Point) ([]survey.Block, error) {
	bias := defaultBias
	if proximity != nil {
		bias = *proximity
	}
	out := make([]survey.Block, 0, limit)
	if l, err := lld.Parse(input); err == nil {
		b, err := s.Resolve(ctx, l, input)
		if e := apierr.As(err); e != nil && e.Kind == apierr.Unavailable {
			return nil, err
		}
		if err == nil {
			out = append(out, b)
		}
	}
	if len(out) >= limit {
		return out, nil
	}
	if out, ok := completeFPS(input, limit, bias, out); ok {
		return out, nil // FPS readings win over DLS digits
	}
	if len(s.indexes()) > 0 {
		var err error
		if out, err = s.completeLots(ctx, input, limit, bias, out); err != nil || len(out) >= limit {
			return out, err
		}
	}
	pats := completionPatterns(input)
	if len(pats) == 0 {
		return out, nil
	}
	return s.search(ctx, pats, bias, limit, out)
}

// defaultBias ranks suggestions when the caller sends no proximity: Calgary,
// at the heart of the busiest DLS area.
var defaultBias = orb.Point{-114.0719, 51.0447}

// set is a set of small integers (0-127): field values a pattern allows.
type set [2]uint64

func (s *set) add(v int)     { s[v>>6] |= 1 << (v & 63) }
func (s set) has(v int) bool { return v >= 0 && v < 128 && s[v>>6]&(1<<(v&63)) != 0 }
func (s set) empty() bool    { return s[0] == 0 && s[1] == 0 }
func rangeSet(lo, hi int) (s set) {
	for v := lo; v <= hi; v++ {
		s.add(v)
	}
	return s
}

// pattern is one reading of the input: the values each field may take and
// the unit of the completed description.
type pattern struct {
	system lld.System
	leaf   lld.Unit
	// DLS
	mer, rng, twp, sec, lsd, aliquot set
	// NTS (letters as 0 = A)
	series, area, sheet, block, unit, quarter set
}

// token is a run of digits or letters of the normalized input.
type token struct {
	text    string
	digits  bool
	partial bool // the last token, not followed by a separator: still being typed
	slash   bool // a '/' came before this token
}

func tokenize(input string) []token {
	var toks []token
	slash := false
	s := strings.ToUpper(input)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'A' && c <= 'Z':
			j := i
			digits := c <= '9'
			for j < len(s) && ((digits && s[j] >= '0' && s[j] <= '9') || (!digits && s[j] >= 'A' && s[j] <= 'Z')) {
				j++
			}
			toks = append(toks, token{text: s[i:j], digits: digits, slash: slash})
			slash = false
			i = j
		case c == '/':
			slash = true
			i++
		default:
			i++
		}
	}
	if n := len(toks); n > 0 {
		last := s[len(s)-1]
		toks[n-1].partial = (last >= '0' && last <= '9') || (last >= 'A' && last <= 'Z')
	}
	return toks
}

// numberSet returns the values in [lo, hi] the token can stand for: exactly
// its value, or while it is being typed every value it is the start of.
func numberSet(t token, lo, hi int) (s set) {
	v, err := strconv.Atoi(t.text)
	if err != nil {
		return s
	}
	if !t.partial {
		if v >= lo && v <= hi {
			s.add(v)
		}
		return s
	}
	prefix := strings.TrimLeft(t.text, "0")
	for n := lo; n <= hi; n++ {
		if prefix == "" || strings.HasPrefix(strconv.Itoa(n), prefix) {
			s.add(n)
		}
	}
	return s
}

var (
	allMeridians = rangeSet(int(lld.W1), int(lld.E2))
	allRanges    = rangeSet(1, 34)
	allTownships = rangeSet(1, 126)
	allSections  = rangeSet(1, 36)
	allLSDs      = rangeSet(1, 16)
	bcSeries     = func() (s set) {
		for _, v := range []int{82, 83, 92, 93, 94, 102, 103, 104, 114} {
			s.add(v)
		}
		return s
	}()
)

func completionPatterns(input string) []pattern {
	toks := tokenize(input)
	if len(toks) == 0 {
		return nil
	}
	pats := dlsPatterns(toks)
	return append(pats, ntsPatterns(toks)...)
}

// dlsPatterns reads [LSD] [quarter|half] numbers... [meridian].
func dlsPatterns(toks []token) []pattern {
	forceLSD := false
	if !toks[0].digits && toks[0].text == "LSD" {
		forceLSD = true
		toks = toks[1:]
	}
	var aliquots set
	leadWord := false
	if len(toks) > 0 && !toks[0].digits {
		t := toks[0]
		leadWord = true
		switch {
		case t.text == "NE" || t.text == "NW" || t.text == "SE" || t.text == "SW":
			a := map[string]lld.Aliquot{"NE": lld.NE, "NW": lld.NW, "SE": lld.SE, "SW": lld.SW}[t.text]
			aliquots.add(int(a))
		case t.partial && t.text == "N":
			aliquots.add(int(lld.NE))
			aliquots.add(int(lld.NW))
		case t.partial && t.text == "S":
			aliquots.add(int(lld.SE))
			aliquots.add(int(lld.SW))
		case !t.partial && len(t.text) == 1 && strings.Contains("NSEW", t.text):
			aliquots.add(int(map[string]lld.Aliquot{"N": lld.NorthHalf, "S": lld.SouthHalf, "E": lld.EastHalf, "W": lld.WestHalf}[t.text]))
		default:
			return nil
		}
		if forceLSD {
			return nil
		}
		toks = toks[1:]
	}
	var nums []token
	for len(toks) > 0 && toks[0].digits && !toks[0].slash {
		nums = append(nums, toks[0])
		toks = toks[1:]
	}
	mer := allMeridians
	hasMer := false
	if len(toks) > 0 {
		// W, W5, W5M, E1 ...
		t := toks[0]
		if t.digits || t.slash || (t.text != "W" && t.text != "E" && t.text != "WM" && t.text != "EM") {
			return nil
		}
		hasMer = true
		east := t.text[0] == 'E'
		toks = toks[1:]
		mer = set{}
		if len(toks) > 0 && toks[0].digits {
			n, _ := strconv.Atoi(toks[0].text)
			toks = toks[1:]
			m := lld.Meridian(n)
			if east {
				m = lld.E1 + lld.Meridian(n-1)
			}
			if n >= 1 && ((!east && n <= 6) || (east && n <= 2)) {
				mer.add(int(m))
			}
		} else if east {
			mer.add(int(lld.E1))
			mer.add(int(lld.E2))
		} else {
			for m := lld.W1; m <= lld.W6; m++ {
				mer.add(int(m))
			}
		}
		if len(toks) > 0 && !toks[0].digits && toks[0].text == "M" {
			toks = toks[1:]
		}
		if len(toks) > 0 || mer.empty() {
			return nil
		}
	}
	if len(toks) > 0 {
		return nil
	}
	var pats []pattern
	build := func(leaf lld.Unit, fields int, withLSD bool) {
		if len(nums) > fields || (hasMer && len(nums) != fields) {
			return
		}
		p := pattern{system: lld.DLS, leaf: leaf, mer: mer, rng: allRanges, twp: allTownships, sec: allSections, lsd: allLSDs, aliquot: aliquots}
		targets := []*set{&p.sec, &p.twp, &p.rng}
		bounds := [][2]int{{1, 36}, {1, 126}, {1, 34}}
		if withLSD {
			targets = append([]*set{&p.lsd}, targets...)
			bounds = append([][2]int{{1, 16}}, bounds...)
		}
		for i, t := range nums {
			*targets[i] = numberSet(t, bounds[i][0], bounds[i][1])
			if targets[i].empty() {
				return
			}
		}
		pats = append(pats, p)
	}
	switch {
	case leadWord:
		leaf := lld.QuarterSection
		if !aliquots.has(int(lld.NE)) && !aliquots.has(int(lld.NW)) && !aliquots.has(int(lld.SE)) && !aliquots.has(int(lld.SW)) {
			leaf = lld.HalfSection
		}
		build(leaf, 3, false)
	case forceLSD:
		build(lld.LSD, 4, true)
	default:
		if len(nums) == 0 {
			return nil
		}
		build(lld.LSD, 4, true)
		build(lld.Section, 3, false)
	}
	return pats
}

func letterSet(t token, first, last byte) (s set) {
	if t.digits || len(t.text) != 1 || t.text[0] < first || t.text[0] > last {
		return s
	}
	s.add(int(t.text[0] - 'A'))
	return s
}

func letterRange(first, last byte) set { return rangeSet(int(first-'A'), int(last-'A')) }

// ntsPatterns reads the NTS forms: quarter-unit-block/sheet (A-2-F/93-P-8),
// unit-block/sheet, block/sheet, and map sheets (93-P-8). Before the slash
// is typed, the quarter-unit and unit readings stay open.
func ntsPatterns(toks []token) []pattern {
	base := pattern{system: lld.NTS,
		series: bcSeries, area: letterRange('A', 'P'), sheet: rangeSet(1, 16),
		block: letterRange('A', 'L'), unit: rangeSet(1, 100), quarter: letterRange('A', 'D')}
	slash := -1
	for i, t := range toks {
		if t.slash {
			slash = i
			break
		}
	}
	var pats []pattern
	try := func(leaf lld.Unit, lead, sheet []token, open bool) {
		p := base
		p.leaf = leaf
		if fillLead(&p, leaf, lead, open) && fillSheet(&p, sheet) {
			pats = append(pats, p)
		}
	}
	if slash >= 0 {
		for _, leaf := range []lld.Unit{lld.QuarterUnit, lld.NTSUnit, lld.Block} {
			try(leaf, toks[:slash], toks[slash:], false)
		}
		return pats
	}
	try(lld.QuarterUnit, toks, nil, true)
	try(lld.NTSUnit, toks, nil, true)
	try(lld.MapSheet, nil, toks, false)
	return pats
}

// fillLead constrains the part before the slash: [quarter] [unit] block.
// With open set the part may still be incomplete.
func fillLead(p *pattern, leaf lld.Unit, lead []token, open bool) bool {
	var shape []byte // 'q' quarter letter, 'u' unit number, 'b' block letter
	switch leaf {
	case lld.QuarterUnit:
		shape = []byte("qub")
	case lld.NTSUnit:
		shape = []byte("ub")
	case lld.Block:
		shape = []byte("b")
	case lld.MapSheet:
		return len(lead) == 0
	}
	if len(lead) > len(shape) || (!open && len(lead) != len(shape)) || (open && len(lead) == 0) {
		return false
	}
	for i, t := range lead {
		switch shape[i] {
		case 'q':
			p.quarter = letterSet(t, 'A', 'D')
		case 'u':
			p.unit = set{}
			if t.digits {
				p.unit = numberSet(t, 1, 100)
			}
		case 'b':
			p.block = letterSet(t, 'A', 'L')
		}
	}
	return !p.quarter.empty() && !p.unit.empty() && !p.block.empty()
}

// fillSheet constrains series, map area and sheet.
func fillSheet(p *pattern, toks []token) bool {
	if len(toks) > 3 {
		return false
	}
	for i, t := range toks {
		if i > 0 && t.slash {
			return false
		}
		switch i {
		case 0:
			if !t.digits {
				return false
			}
			p.series = numberSet(t, 82, 114)
			p.series[0] &= bcSeries[0]
			p.series[1] &= bcSeries[1]
		case 1:
			p.area = letterSet(t, 'A', 'P')
		case 2:
			p.sheet = set{}
			if t.digits {
				p.sheet = numberSet(t, 1, 16)
			}
		}
	}
	return !p.series.empty() && !p.area.empty() && !p.sheet.empty()
}

// The best-first search. Nodes are partial locations (a DLS range strip,
// township, section; an NTS series, map area, ...) keyed by the distance from
// the bias point to their box; leaves by the distance to their centroid,
// which is never less than their box's. Popping in key order therefore yields
// leaves nearest first.

type node struct {
	key  float64 // squared distance in the metric below
	pat  int32
	leaf bool
	cell cell
}

// cell is a DLS or NTS block in 7 bytes, so the heap moves little memory.
type cell struct {
	unit lld.Unit
	// DLS: meridian, range, township, section, aliquot, LSD.
	// NTS: series, area, sheet, block, unit, quarter.
	v [6]uint8
}

func (c cell) location(sys lld.System) lld.Location {
	l := lld.Location{System: sys, Unit: c.unit}
	if sys == lld.DLS {
		l.Meridian, l.Range, l.Township, l.Section, l.Aliquot, l.LSD =
			lld.Meridian(c.v[0]), c.v[1], c.v[2], c.v[3], lld.Aliquot(c.v[4]), c.v[5]
		return l
	}
	l.Series, l.Area, l.Sheet, l.Block, l.UnitNo, l.Quarter = c.v[0], c.v[1], c.v[2], c.v[3], c.v[4], c.v[5]
	return l
}

type nodeHeap []node

func (h *nodeHeap) push(n node) {
	*h = append(*h, n)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].key <= s[i].key {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *nodeHeap) pop() node {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].key < s[m].key {
			m = l
		}
		if r < len(s) && s[r].key < s[m].key {
			m = r
		}
		if m == i {
			break
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
	*h = s
	return top
}

// maxExpansions bounds the work of one request whatever the input.
const maxExpansions = 20000

// metric measures squared distances in degrees on a plane scaled by
// cos(latitude) at the bias point: cheap, monotonic in true distance nearby,
// and consistent between boxes and points.
type metric struct {
	p  orb.Point
	kx float64
}

func (m metric) toPoint(q orb.Point) float64 {
	dx := (q[0] - m.p[0]) * m.kx
	dy := q[1] - m.p[1]
	return dx*dx + dy*dy
}

func (m metric) toBound(b orb.Bound) float64 {
	return m.toPoint(orb.Point{clamp(m.p[0], b.Min[0], b.Max[0]), clamp(m.p[1], b.Min[1], b.Max[1])})
}

func cosDeg(d float64) float64 { return math.Cos(d * math.Pi / 180) }

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// strips holds each DLS range's box over all townships, and each series' box.
var strips struct {
	once sync.Once
	dls  [lld.E2 + 1][35]orb.Bound
}

func dlsStrip(m lld.Meridian, r int) orb.Bound {
	strips.once.Do(func() {
		for m := lld.W1; m <= lld.E2; m++ {
			for r := 1; r <= 34; r++ {
				l := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: m, Range: uint8(r), Township: 1}
				b := dls.Bound(l)
				l.Township = 126
				strips.dls[m][r] = b.Union(dls.Bound(l))
			}
		}
	})
	return strips.dls[m][r]
}

func (s *Service) search(ctx context.Context, pats []pattern, bias orb.Point, limit int, out []survey.Block) ([]survey.Block, error) {
	m := metric{p: bias, kx: cosDeg(bias[1])}
	h := make(nodeHeap, 0, 512)
	for pi := range pats {
		p := &pats[pi]
		switch p.system {
		case lld.DLS:
			for mer := lld.W1; mer <= lld.E2; mer++ {
				if !p.mer.has(int(mer)) {
					continue
				}
				for r := 1; r <= 34; r++ {
					if p.rng.has(r) {
						c := cell{v: [6]uint8{uint8(mer), uint8(r)}}
						h.push(node{key: m.toBound(dlsStrip(mer, r)), pat: int32(pi), cell: c})
					}
				}
			}
		case lld.NTS:
			for v := 82; v <= 114; v++ {
				if p.series.has(v) {
					c := cell{unit: lld.Series, v: [6]uint8{uint8(v)}}
					h.push(node{key: m.toBound(nts.Bound(c.location(lld.NTS))), pat: int32(pi), cell: c})
				}
			}
		}
	}
	seen := make(map[string]bool, limit)
	for _, b := range out {
		seen[b.Location.String()] = true
	}
	for n := 0; len(h) > 0 && len(out) < limit && n < maxExpansions; n++ {
		nd := h.pop()
		p := &pats[nd.pat]
		if nd.leaf {
			b, err := s.Resolve(ctx, nd.cell.location(p.system), "")
			if e := apierr.As(err); e != nil && e.Kind == apierr.Unavailable {
				return nil, err
			}
			if err == nil {
				if k := b.Location.String(); !seen[k] {
					seen[k] = true
					out = append(out, b)
				}
			}
			continue
		}
		if p.system == lld.DLS {
			expandDLS(&h, m, nd, p)
		} else {
			expandNTS(&h, m, nd, p)
		}
	}
	return out, nil
}

// pushChild adds a child; a leaf is keyed by its centroid.
func pushChild(h *nodeHeap, m metric, pat int32, c cell, sys lld.System, leaf bool) {
	var b orb.Bound
	if sys == lld.DLS {
		b = dls.Bound(c.location(sys))
	} else {
		b = nts.Bound(c.location(sys))
	}
	key := m.toBound(b)
	if leaf {
		key = max(key, m.toPoint(b.Center()))
	}
	h.push(node{key: key, pat: pat, leaf: leaf, cell: c})
}

func expandDLS(h *nodeHeap, m metric, nd node, p *pattern) {
	c := nd.cell
	switch c.unit {
	case lld.UnitUnknown: // range strip → townships
		c.unit = lld.Township
		for t := 1; t <= 126; t++ {
			if p.twp.has(t) {
				c.v[2] = uint8(t)
				pushChild(h, m, nd.pat, c, lld.DLS, false)
			}
		}
	case lld.Township: // → sections
		c.unit = lld.Section
		for s := 1; s <= 36; s++ {
			if p.sec.has(s) {
				c.v[3] = uint8(s)
				pushChild(h, m, nd.pat, c, lld.DLS, p.leaf == lld.Section)
			}
		}
	case lld.Section: // → quarters, halves or LSDs
		c.unit = p.leaf
		switch p.leaf {
		case lld.LSD:
			for v := 1; v <= 16; v++ {
				if p.lsd.has(v) {
					c.v[5] = uint8(v)
					pushChild(h, m, nd.pat, c, lld.DLS, true)
				}
			}
		case lld.QuarterSection, lld.HalfSection:
			for a := lld.NE; a <= lld.WestHalf; a++ {
				if p.aliquot.has(int(a)) {
					c.v[4] = uint8(a)
					pushChild(h, m, nd.pat, c, lld.DLS, true)
				}
			}
		}
	}
}

// ntsLevels: the next unit below each NTS unit, the cell field it fills,
// and the first value (letters are stored as 'A'+v).
var ntsLevels = map[lld.Unit]struct {
	unit   lld.Unit
	field  int
	letter bool
}{
	lld.Series:   {lld.MapArea, 1, true},
	lld.MapArea:  {lld.MapSheet, 2, false},
	lld.MapSheet: {lld.Block, 3, true},
	lld.Block:    {lld.NTSUnit, 4, false},
	lld.NTSUnit:  {lld.QuarterUnit, 5, true},
}

func expandNTS(h *nodeHeap, m metric, nd node, p *pattern) {
	next, ok := ntsLevels[nd.cell.unit]
	if !ok {
		return
	}
	vals := [...]set{{}, p.area, p.sheet, p.block, p.unit, p.quarter}[next.field]
	c := nd.cell
	c.unit = next.unit
	leaf := c.unit == p.leaf
	for v := 0; v < 128; v++ {
		if vals.has(v) {
			if next.letter {
				c.v[next.field] = uint8('A' + v)
			} else {
				c.v[next.field] = uint8(v)
			}
			pushChild(h, m, nd.pat, c, lld.NTS, leaf)
		}
	}
}
