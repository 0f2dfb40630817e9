package energy

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"meridian/shared/internal/jsonscan"
)

// A report decodes its LSD's stored roll-up (LSDSummary) on every
// request: through encoding/json that was 8.5-10% of a full-size energy
// report's server CPU. The roll-up is written by encoding/json at ingest
// (MarshalItem), so its JSON has one shape: decodeSummaryFast reads that
// shape and nothing else; anything it does not expect (an escaped string,
// a null, a key it does not know, a number that is not one of Go's) sends
// the item through encoding/json whole. TestDecodeSummaryAsUnmarshal
// holds the two to the same values.

// decodeSummary decodes a stored LSDSummary.
func decodeSummary(b []byte, s *LSDSummary) error {
	if decodeSummaryFast(b, s) {
		return nil
	}
	*s = LSDSummary{}
	return json.Unmarshal(b, s)
}

// jsonScan reads JSON from b at i; ok turns false at the first thing it
// does not read as encoding/json would.
type jsonScan struct {
	b  []byte
	i  int
	ok bool
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte that is not a space (0 at the end).
func (s *jsonScan) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// expect reads c.
func (s *jsonScan) expect(c byte) {
	if s.peek() != c {
		s.ok = false
		return
	}
	s.i++
}

// str reads a string without escapes, of valid UTF-8.
func (s *jsonScan) str() string {
	if s.peek() != '"' {
		s.ok = false
		return ""
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := s.b[start:j]
			if !utf8.Valid(v) {
				s.ok = false
				return ""
			}
			s.i = j + 1
			return string(v)
		case c == '\\' || c < 0x20:
			s.ok = false
			return ""
		}
	}
	s.ok = false
	return ""
}

// number returns the next number's text (jsonscan.Number's grammar,
// encoding/json's).
func (s *jsonScan) number() []byte {
	s.ws()
	n := jsonscan.Number(s.b[s.i:])
	if n == 0 {
		s.ok = false
	}
	t := s.b[s.i : s.i+n]
	s.i += n
	return t
}

// int reads an integer as encoding/json does into an int: a number with
// a fraction or an exponent, or out of range, is not read.
func (s *jsonScan) int() int {
	t := s.number()
	n, err := strconv.Atoi(string(t))
	if err != nil {
		s.ok = false
	}
	return n
}

func (s *jsonScan) float() float64 {
	f, err := strconv.ParseFloat(string(s.number()), 64)
	if err != nil {
		s.ok = false
	}
	return f
}

// object reads an object, calling field with each key before its value.
func (s *jsonScan) object(field func(key string)) {
	s.expect('{')
	if s.peek() == '}' {
		s.i++
		return
	}
	for s.ok {
		k := s.str()
		s.expect(':')
		if !s.ok {
			return
		}
		field(k)
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.ok = false
		}
	}
}

func (s *jsonScan) liability(l *Liability) {
	s.object(func(k string) {
		switch k {
		case "total":
			l.Total = s.int()
		case "active":
			l.Active = s.int()
		case "suspended":
			l.Suspended = s.int()
		case "abandoned":
			l.Abandoned = s.int()
		case "orphan":
			l.Orphan = s.int()
		case "reclamation_certified":
			l.ReclamationCertified = s.int()
		default:
			s.ok = false
		}
	})
}

func (s *jsonScan) production(p *Production) {
	s.object(func(k string) {
		switch k {
		case "window_months":
			p.WindowMonths = s.int()
		case "last_producing_month":
			p.LastProducingMonth = s.str()
		case "oil_m3":
			p.Oil = s.float()
		case "gas_e3m3":
			p.Gas = s.float()
		case "condensate_m3":
			p.Condensate = s.float()
		case "water_m3":
			p.Water = s.float()
		case "confidential_months":
			p.ConfidentialMonths = s.int()
		default:
			s.ok = false
		}
	})
}

// decodeSummaryFast decodes b into the zero LSDSummary s, the keys and
// values as MarshalItem writes them; false (s then partly filled) when b
// has anything else.
func decodeSummaryFast(b []byte, sum *LSDSummary) bool {
	s := &jsonScan{b: b, ok: true}
	s.object(func(k string) {
		switch k {
		case "lsd":
			sum.LSD = s.str()
		case "wells":
			s.liability(&sum.Wells)
		case "wells_by_operator":
			m := map[string]int{}
			s.object(func(ba string) { m[ba] = s.int() })
			sum.WellsByOperator = m
		case "operator_names":
			m := map[string]string{}
			s.object(func(ba string) { m[ba] = s.str() })
			sum.OperatorNames = m
		case "pipeline_segments":
			sum.Segments = s.int()
		case "pipeline_length_m":
			sum.PipelineLengthM = s.float()
		case "facilities":
			sum.Facilities = s.int()
		case "facility_categories":
			s.expect('[')
			cats := []string{}
			if s.peek() == ']' {
				s.i++
			} else {
				for s.ok {
					cats = append(cats, s.str())
					if s.peek() == ',' {
						s.i++
						continue
					}
					s.expect(']')
					break
				}
			}
			sum.Categories = cats
		case "last_activity_date":
			sum.LastActivityDate = s.str()
		case "production":
			s.production(&sum.Production)
		case "producing_wells":
			sum.ProducingWells = s.int()
		default:
			s.ok = false
		}
	})
	s.ws()
	return s.ok && s.i == len(s.b)
}
