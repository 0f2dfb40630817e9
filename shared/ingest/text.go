package ingest

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"meridian/shared/ingest/shp"
)

// parseNumber is ParseNumber of s without surrounding spaces.
func parseNumber(s string) (float64, bool) { return ParseNumber(strings.TrimSpace(s)) }

// ParseNumber parses a plain decimal number: optional sign, digits with an
// optional fraction, optional exponent ("-114.0000000", "5.5e6"), and
// nothing else (no spaces). Unlike strconv.ParseFloat it refuses NaN, Inf,
// hexadecimal and underscores, which no published file writes and which
// would only hide a broken column.
func ParseNumber(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && finite(f)
}

// parseUint parses s, trimmed of spaces, as a non-negative decimal integer
// of at most 9 digits (leading zeros allowed).
func parseUint(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// allDigits reports whether s is non-empty and only ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// isBlank reports whether s holds only spaces and tabs.
func isBlank(s string) bool { return strings.Trim(s, " \t") == "" }

// utf8BOM is the byte order mark some Windows tools put at the start of a
// UTF-8 file.
const utf8BOM = "\ufeff"

// decodeText returns s as UTF-8. Text that is valid UTF-8 is returned as it
// is; otherwise every byte is read as one Windows-1252 character. Deciding
// per field (a CSV field, a dBASE value) rather than per file keeps readers
// streaming: a Windows-1252 accented letter (é = 0xE9) followed by ASCII is
// never valid UTF-8, and real text that happens to be both is vanishingly
// rare (it takes pairs like "Ã©").
func decodeText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return shp.DecodeWindows1252([]byte(s))
}
