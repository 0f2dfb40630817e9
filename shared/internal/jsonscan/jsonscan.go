// Package jsonscan checks stored JSON in one pass: whether it is valid, as
// encoding/json.Valid decides, and whether it is compact (no whitespace
// outside its strings). The agriculture report checks every section it
// copies from the store on every request; json.Valid's byte-by-byte state
// machine, and a second pass for compactness, were a fifth of that
// report's server CPU.
package jsonscan

// maxDepth is encoding/json's nesting limit: deeper is invalid.
const maxDepth = 10000

// Scan reports whether b is one valid JSON value (with optional
// whitespace around it), and, when it is, whether it has no whitespace
// outside its strings.
func Scan(b []byte) (valid, compact bool) {
	s := scanner{b: b, compact: true}
	s.space()
	if !s.value(0) {
		return false, false
	}
	s.space()
	if s.i != len(s.b) {
		return false, false
	}
	return true, s.compact
}

// Number returns the length of the JSON number b begins with (the
// grammar encoding/json accepts: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?),
// 0 when b does not begin with one. What follows it is not looked at.
func Number(b []byte) int {
	s := scanner{b: b}
	if len(b) == 0 || !s.number() {
		return 0
	}
	return s.i
}

type scanner struct {
	b       []byte
	i       int
	compact bool
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
			s.compact = false
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.container(depth+1, '}')
	case c == '[':
		return s.container(depth+1, ']')
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// container reads an object (close '}') or an array (close ']') at s.i,
// its opening bracket: members separated by commas, each a key, a colon
// and a value in an object, a value in an array.
func (s *scanner) container(depth int, close byte) bool {
	if depth > maxDepth {
		return false
	}
	s.i++ // { or [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == close {
		s.i++
		return true
	}
	for {
		if close == '}' {
			if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
				return false
			}
			s.space()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return false
			}
			s.i++
			s.space()
		}
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case close:
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string at s.i (its opening quote): bytes below 0x20 are
// invalid inside it, any other byte is valid (encoding/json accepts
// invalid UTF-8 and replaces it when decoding), and an escape is one of
// \" \\ \/ \b \f \n \r \t \uXXXX.
func (s *scanner) str() bool {
	s.i++ // "
	for s.i < len(s.b) {
		i, b := s.i, s.b
		for i < len(b) && plain[b[i]] { // the run of bytes that need no look
			i++
		}
		if s.i = i; i >= len(b) {
			return false
		}
		c := b[i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.i++
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if len(s.b)-s.i < 5 {
					return false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				s.i += 5
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

// plain are the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more decimal digits.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
