package shp

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Encoding is the character encoding of the text in a .dbf file.
type Encoding uint8

const (
	// EncodingAuto reads text as UTF-8 where it is valid UTF-8 and as
	// Windows-1252 otherwise; the writer writes UTF-8.
	EncodingAuto Encoding = iota
	// UTF8 is UTF-8 (.cpg "UTF-8").
	UTF8
	// Windows1252 is Windows-1252, the "ANSI" code page of Western
	// European Windows (.cpg "1252", dBASE language driver 0x57). ISO
	// 8859-1 (Latin-1) is read as Windows-1252 too, as web browsers do:
	// the two differ only in 0x80–0x9F, control characters in Latin-1.
	Windows1252
)

// CPG returns the text of a .cpg file declaring e.
func (e Encoding) CPG() string {
	if e == Windows1252 {
		return "1252"
	}
	return "UTF-8"
}

// codePage is the encoding a reader uses, with where it came from; an
// unsupported code page reads ASCII only.
type codePage struct {
	enc         Encoding
	unsupported string // what declared the unsupported code page
}

// ldidCodePages maps the dBASE language driver IDs of Windows-1252 (byte
// 29 of the .dbf header) to it.
var ldidCodePages = map[byte]Encoding{
	0x00: EncodingAuto, // none declared
	0x03: Windows1252,  // Windows ANSI
	0x57: Windows1252,  // ESRI "ANSI"
	0x58: Windows1252,  // Western European ANSI
	0x59: Windows1252,  // Spanish ANSI
}

// resolveCodePage chooses the encoding: the .cpg file's, else the
// language driver's.
func resolveCodePage(cpg string, ldid byte) codePage {
	if s := strings.TrimSpace(strings.TrimPrefix(cpg, "\uFEFF")); s != "" {
		switch normalizeLabel(s) {
		case "UTF8", "65001":
			return codePage{enc: UTF8}
		case "1252", "CP1252", "WINDOWS1252", "ANSI1252", "ISO88591", "88591", "LATIN1", "ISOLATIN1":
			return codePage{enc: Windows1252}
		}
		return codePage{unsupported: fmt.Sprintf(".cpg %q", s)}
	}
	if e, ok := ldidCodePages[ldid]; ok {
		return codePage{enc: e}
	}
	return codePage{unsupported: fmt.Sprintf("language driver 0x%02X", ldid)}
}

// normalizeLabel upper-cases a code page label and drops spaces, dashes
// and underscores: "ISO-8859-1" -> "ISO88591".
func normalizeLabel(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r != ' ' && r != '-' && r != '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// decode converts b to a UTF-8 string.
func (c codePage) decode(b []byte) (string, error) {
	if c.unsupported != "" {
		for _, x := range b {
			if x >= 0x80 {
				return "", fmt.Errorf("non-ASCII text in the unsupported code page of %s", c.unsupported)
			}
		}
		return string(b), nil
	}
	switch c.enc {
	case UTF8:
		if !utf8.Valid(b) {
			return "", fmt.Errorf("invalid UTF-8 %q", b)
		}
		return string(b), nil
	case EncodingAuto:
		if utf8.Valid(b) {
			return string(b), nil
		}
	}
	return DecodeWindows1252(b), nil
}

// win1252 maps the bytes 0x80–0x9F of Windows-1252 to Unicode; the five
// unassigned bytes map to the C1 controls of the same value, as in the
// WHATWG Encoding Standard. Every other byte is its own code point.
var win1252 = [32]rune{
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
}

// DecodeWindows1252 reads b as Windows-1252 text and returns it as UTF-8.
func DecodeWindows1252(b []byte) string {
	var s strings.Builder
	s.Grow(len(b) + len(b)/2)
	for _, x := range b {
		switch {
		case x < 0x80:
			s.WriteByte(x)
		case x < 0xA0:
			s.WriteRune(win1252[x-0x80])
		default:
			s.WriteRune(rune(x))
		}
	}
	return s.String()
}

// encode converts UTF-8 text to e's bytes.
func (e Encoding) encode(s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("invalid UTF-8 %q", s)
	}
	if e != Windows1252 {
		return []byte(s), nil
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < 0x80 || r >= 0xA0 && r <= 0xFF:
			b = append(b, byte(r))
		default:
			i := 0
			for i < len(win1252) && win1252[i] != r {
				i++
			}
			if i == len(win1252) {
				return nil, fmt.Errorf("%q has no Windows-1252 code", r)
			}
			b = append(b, byte(0x80+i))
		}
	}
	return b, nil
}
