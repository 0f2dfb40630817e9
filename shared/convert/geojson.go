package convert

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// The conversion endpoints write GeoJSON by hand: the shapes are few and
// fixed, and appending to one buffer keeps a batch of 100 locations to a
// handful of allocations.

// feature kinds.
const (
	shapeGrid     = "grid"
	shapeCentroid = "centroid"
)

// appendBlockFeatures appends the grid feature then the centroid feature of
// b (already in datum d), each with the conversion properties, as the
// search and batch endpoints answer.
func appendBlockFeatures(buf []byte, b *survey.Block, searchTerm string, d Datum) []byte {
	buf = append(buf, `{"type":"Feature","geometry":`...)
	buf = appendGeometry(buf, b.Geometry)
	buf = appendProps(buf, b, shapeGrid, searchTerm, true, d)
	buf = append(buf, `},{"type":"Feature","geometry":`...)
	buf = appendPoint(buf, b.Centroid)
	buf = appendProps(buf, b, shapeCentroid, searchTerm, true, d)
	buf = append(buf, '}')
	return buf
}

// appendSuggestion appends an autocomplete feature: the block's centroid
// (already in datum d), without shape.
func appendSuggestion(buf []byte, b *survey.Block, searchTerm string, d Datum) []byte {
	buf = append(buf, `{"type":"Feature","geometry":`...)
	buf = appendPoint(buf, b.Centroid)
	buf = appendProps(buf, b, "", searchTerm, false, d)
	buf = append(buf, '}')
	return buf
}

func appendProps(buf []byte, b *survey.Block, shape, searchTerm string, withShape bool, d Datum) []byte {
	buf = append(buf, `,"properties":{`...)
	if withShape {
		buf = append(buf, `"shape":"`...)
		buf = append(buf, shape...)
		buf = append(buf, `",`...)
	}
	buf = append(buf, `"search_term":`...)
	buf = appendString(buf, searchTerm)
	buf = append(buf, `,"legal_location":`...)
	buf = appendLocation(buf, b.Location)
	buf = append(buf, `,"unit":"`...)
	buf = append(buf, b.Location.Unit.String()...)
	buf = append(buf, `","survey_system":"`...)
	buf = append(buf, b.Location.System.String()...)
	buf = append(buf, `","province":"`...)
	buf = append(buf, b.Province.Name()...)
	buf = append(buf, `","accuracy_m":`...)
	buf = appendRounded(buf, b.AccuracyM)
	buf = append(buf, `,"source":`...)
	buf = appendString(buf, b.Source)
	buf = append(buf, `,"datum":"`...)
	buf = append(buf, d.String()...)
	buf = append(buf, `"}`...)
	return buf
}

// appendLocation appends l's canonical name as a JSON string: written
// in place when it needs no escaping (a DLS, NTS or FPS name never does),
// without building the name as a string first.
func appendLocation(buf []byte, l lld.Location) []byte {
	start := len(buf)
	buf = l.AppendText(append(buf, '"'))
	for _, c := range buf[start+1:] {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendString(buf[:start], l.String()) // a place name: escaped as any string
		}
	}
	return append(buf, '"')
}

// appendRounded appends v rounded to a whole number, as
// strconv.AppendFloat(buf, math.Round(v), 'f', -1, 64) does, through the
// integer formatter when v is a non-negative whole number below 2^53
// (every accuracy is).
func appendRounded(buf []byte, v float64) []byte {
	r := math.Round(v)
	if r >= 0 && !math.Signbit(r) && r < 1<<53 {
		return strconv.AppendInt(buf, int64(r), 10)
	}
	return strconv.AppendFloat(buf, r, 'f', -1, 64)
}

func appendGeometry(buf []byte, g orb.Geometry) []byte {
	switch g := g.(type) {
	case orb.Polygon:
		buf = append(buf, `{"type":"Polygon","coordinates":`...)
		buf = appendPolygon(buf, g)
	case orb.MultiPolygon:
		buf = append(buf, `{"type":"MultiPolygon","coordinates":[`...)
		for i, p := range g {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendPolygon(buf, p)
		}
		buf = append(buf, ']')
	case orb.Point:
		return appendPoint(buf, g)
	default:
		return append(buf, "null"...)
	}
	return append(buf, '}')
}

func appendPolygon(buf []byte, p orb.Polygon) []byte {
	buf = append(buf, '[')
	for i, r := range p {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		for j, pt := range r {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = appendPosition(buf, pt)
		}
		buf = append(buf, ']')
	}
	return append(buf, ']')
}

func appendPoint(buf []byte, pt orb.Point) []byte {
	buf = append(buf, `{"type":"Point","coordinates":`...)
	buf = appendPosition(buf, pt)
	return append(buf, '}')
}

func appendPosition(buf []byte, pt orb.Point) []byte {
	buf = append(buf, '[')
	buf = appendCoord(buf, pt[0])
	buf = append(buf, ',')
	buf = appendCoord(buf, pt[1])
	return append(buf, ']')
}

// appendCoord writes v rounded to 6 decimals (0.1 m; every source is
// coarser), without trailing zeros: integer arithmetic, several times faster
// than shortest-float formatting, which matters in a batch of 100.
func appendCoord(buf []byte, v float64) []byte {
	const scale = 1e6
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e12 {
		return strconv.AppendFloat(buf, v, 'f', -1, 64)
	}
	n := int64(math.Round(v * scale))
	neg := n < 0
	if neg {
		n = -n
	}
	// Written right to left into one array and appended once: the
	// fraction's digits without its trailing zeros, the point, the
	// whole degrees, the sign.
	var b [24]byte
	i := len(b)
	u := uint64(n)
	if frac := u % scale; frac != 0 {
		k := 6
		for frac%10 == 0 {
			frac /= 10
			k--
		}
		for range k {
			i--
			b[i] = byte('0' + frac%10)
			frac /= 10
		}
		i--
		b[i] = '.'
	}
	u /= scale
	for u >= 10 {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	b[i] = byte('0' + u)
	if neg {
		i--
		b[i] = '-'
	}
	return append(buf, b[i:]...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, and U+2028/U+2029
// escaped so the output is also safe inside JavaScript.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
