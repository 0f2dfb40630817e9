package ingest

import (
	"math"
	"strconv"
)

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

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
