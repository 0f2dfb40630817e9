package gridingest

import (
	"strings"

	"meridian/shared/ingest"
)

// parseNumber is ParseNumber of s without surrounding spaces.
func parseNumber(s string) (float64, bool) { return ingest.ParseNumber(strings.TrimSpace(s)) }

// parseUint parses s, trimmed of spaces, as a non-negative decimal integer
// of at most 9 digits (leading zeros allowed).
func parseUint(s string) (int, bool) { return ingest.ParseUint(strings.TrimSpace(s)) }

// isBlank reports whether s holds only spaces and tabs.
func isBlank(s string) bool { return strings.Trim(s, " \t") == "" }

// utf8BOM is the byte order mark some Windows tools put at the start of a
// UTF-8 file.
const utf8BOM = "\ufeff"

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
