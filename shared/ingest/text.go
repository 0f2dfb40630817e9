package ingest

import (
	"unicode/utf8"

	"meridian/shared/ingest/shp"
)

// DecodeText returns s as UTF-8. Text that is valid UTF-8 is returned as it
// is; otherwise every byte is read as one Windows-1252 character (a
// superset of Latin-1 in the printable range, the encoding of AER's text
// files and of many Windows exports). Deciding per field (a CSV field, a
// dBASE value) rather than per file keeps readers streaming: a
// Windows-1252 accented letter (é = 0xE9) followed by ASCII is never valid
// UTF-8, and real text that happens to be both is vanishingly rare (it
// takes pairs like "Ã©").
func DecodeText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return shp.DecodeWindows1252([]byte(s))
}

// AllDigits reports whether s is non-empty and only ASCII digits.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// ParseUint parses a short run of ASCII digits (1 to 9, leading zeros
// allowed) with no sign and no spaces, so that the result always fits an
// int.
func ParseUint(s string) (int, bool) {
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
