package gridingest

import (
	"strings"
	"unicode/utf8"

	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
)

// parseNumber is ParseNumber of s without surrounding spaces.
func parseNumber(s string) (float64, bool) { return ingest.ParseNumber(strings.TrimSpace(s)) }

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

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
