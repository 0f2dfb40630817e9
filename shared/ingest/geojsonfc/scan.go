package geojsonfc

import (
	"encoding/json"
	"unicode/utf8"
)

// scanner walks one JSON value that the json.Decoder has already read and
// checked, so it needs no error handling of its own: it only finds where
// members, elements and values start and end.
type scanner struct {
	b []byte
	i int
}

// peek skips white space and returns the next byte, 0 at the end.
func (s *scanner) peek() byte {
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// members moves to the next member of an object, reporting false at its
// end. Call it first at the opening brace, then after each member's value.
func (s *scanner) members() bool { return s.next('{', '}') }

// elements is members for the elements of an array.
func (s *scanner) elements() bool { return s.next('[', ']') }

func (s *scanner) next(open, close byte) bool {
	switch s.peek() {
	case open, ',':
		s.i++
		if s.peek() == close {
			s.i++
			return false
		}
		return true
	case close:
		s.i++
	}
	return false
}

// key returns a member's name as JSON text, quotes included, and moves
// past the colon.
func (s *scanner) key() []byte {
	k := s.value()
	s.peek()
	s.i++ // the colon
	return k
}

// value returns the JSON text of the value that starts at the next
// non-space byte and moves past it.
func (s *scanner) value() []byte {
	s.peek()
	start, depth := s.i, 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i++
			for s.i < len(s.b) && s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return s.b[start:s.i]
			}
			depth--
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return s.b[start:s.i]
			}
		}
		s.i++
		if depth == 0 && (s.b[start] == '"' || s.b[start] == '{' || s.b[start] == '[') {
			return s.b[start:s.i]
		}
	}
	return s.b[start:s.i]
}

// unquote returns the string a JSON string literal stands for.
func unquote(lit []byte) string {
	if len(lit) < 2 {
		return ""
	}
	body := lit[1 : len(lit)-1]
	plain := utf8.Valid(body)
	for _, c := range body {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(body)
	}
	var v string
	json.Unmarshal(lit, &v) // lit was checked by the decoder
	return v
}
