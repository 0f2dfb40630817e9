package proj

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Limits on the WKT this package parses: a .prj file is a few kilobytes.
const (
	maxWKTLen   = 64 << 10
	maxWKTDepth = 32
	maxWKTNodes = 4096
)

// errWKTSyntax is wrapped by every WKT syntax error.
var errWKTSyntax = errors.New("proj: invalid WKT")

// wktNode is one WKT element: KEYWORD[arg, arg, ...], OGC 01-009 (WKT 1)
// and ISO 19162 (WKT 2) alike. Either bracket pair may delimit it.
type wktNode struct {
	keyword string // upper case
	args    []wktArg
}

// wktArg is a quoted text, a number, a bare word (EAST, ellipsoidal) or a
// nested node.
type wktArg struct {
	node   *wktNode
	text   string // quoted text or bare word
	quoted bool
	num    float64
	isNum  bool
}

// parseWKT parses one WKT element, which must be the whole input apart
// from surrounding white space.
func parseWKT(s string) (*wktNode, error) {
	if len(s) > maxWKTLen {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", errWKTSyntax, len(s), maxWKTLen)
	}
	p := wktParser{s: s}
	p.skipSpace()
	n, err := p.node(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return nil, p.errorf("unexpected %q after the end of %s", p.s[p.i], n.keyword)
	}
	return n, nil
}

type wktParser struct {
	s     string
	i     int
	nodes int
}

func (p *wktParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errWKTSyntax, p.i, fmt.Sprintf(format, args...))
}

func (p *wktParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n\f\v", p.s[p.i]) >= 0 {
		p.i++
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E'
}

// word reads a keyword or bare word.
func (p *wktParser) word() string {
	start := p.i
	for p.i < len(p.s) && isWordByte(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// node reads KEYWORD[args] at nesting depth.
func (p *wktParser) node(depth int) (*wktNode, error) {
	if depth >= maxWKTDepth {
		return nil, p.errorf("nested more than %d deep", maxWKTDepth)
	}
	if p.nodes++; p.nodes > maxWKTNodes {
		return nil, p.errorf("more than %d elements", maxWKTNodes)
	}
	kw := p.word()
	if kw == "" {
		if p.i < len(p.s) {
			return nil, p.errorf("want a keyword, found %q", p.s[p.i])
		}
		return nil, p.errorf("want a keyword, found the end")
	}
	p.skipSpace()
	if p.i >= len(p.s) || (p.s[p.i] != '[' && p.s[p.i] != '(') {
		return nil, p.errorf("want [ or ( after %s", kw)
	}
	closing := byte(']')
	if p.s[p.i] == '(' {
		closing = ')'
	}
	p.i++
	n := &wktNode{keyword: strings.ToUpper(kw)}
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == closing && len(n.args) == 0 {
			p.i++
			return n, nil
		}
		a, err := p.arg(depth)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, a)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unclosed %s", n.keyword)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case closing:
			p.i++
			return n, nil
		default:
			return nil, p.errorf("want , or %c in %s, found %q", closing, n.keyword, p.s[p.i])
		}
	}
}

// arg reads one argument of a node.
func (p *wktParser) arg(depth int) (wktArg, error) {
	if p.i >= len(p.s) {
		return wktArg{}, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '"':
		return p.quoted()
	case c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.':
		start := p.i
		for p.i < len(p.s) && isNumberByte(p.s[p.i]) {
			p.i++
		}
		v, err := strconv.ParseFloat(p.s[start:p.i], 64)
		if err != nil {
			return wktArg{}, p.errorf("bad number %q", p.s[start:p.i])
		}
		return wktArg{num: v, isNum: true, text: p.s[start:p.i]}, nil
	case isWordByte(c):
		start := p.i
		w := p.word()
		p.skipSpace()
		if p.i < len(p.s) && (p.s[p.i] == '[' || p.s[p.i] == '(') {
			p.i = start
			n, err := p.node(depth + 1)
			if err != nil {
				return wktArg{}, err
			}
			return wktArg{node: n}, nil
		}
		return wktArg{text: w}, nil
	default:
		return wktArg{}, p.errorf("unexpected %q", c)
	}
}

// quoted reads "text", where "" stands for one quote (ISO 19162).
func (p *wktParser) quoted() (wktArg, error) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c != '"' {
			b.WriteByte(c)
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '"' {
			b.WriteByte('"')
			p.i++
			continue
		}
		return wktArg{text: b.String(), quoted: true}, nil
	}
	return wktArg{}, p.errorf("unterminated quoted text")
}

// name returns the node's first argument when it is quoted text.
func (n *wktNode) name() string {
	if n != nil && len(n.args) > 0 && n.args[0].quoted {
		return n.args[0].text
	}
	return ""
}

// number returns the i-th argument when it is a number.
func (n *wktNode) number(i int) (float64, bool) {
	if n == nil || i >= len(n.args) || !n.args[i].isNum {
		return 0, false
	}
	return n.args[i].num, true
}

// child returns the first direct child whose keyword is one of keywords.
func (n *wktNode) child(keywords ...string) *wktNode {
	if n == nil {
		return nil
	}
	for _, a := range n.args {
		if a.node != nil && slices.Contains(keywords, a.node.keyword) {
			return a.node
		}
	}
	return nil
}

// children returns the direct children whose keyword is one of keywords.
func (n *wktNode) children(keywords ...string) []*wktNode {
	if n == nil {
		return nil
	}
	var out []*wktNode
	for _, a := range n.args {
		if a.node != nil && slices.Contains(keywords, a.node.keyword) {
			out = append(out, a.node)
		}
	}
	return out
}

// normName lower-cases a name and drops everything but letters and digits,
// so "NAD_1983_UTM_Zone_13N", "NAD83 / UTM zone 13N" and "nad83 utm zone
// 13n" compare by their words.
func normName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}
