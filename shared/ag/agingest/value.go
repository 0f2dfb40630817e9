package agingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseInt reads a whole number in [lo, hi]. A number written with a
// zero fraction ("12.0", as dBASE float fields and spreadsheets write
// them) is accepted.
func parseInt(s string, lo, hi int) (int, error) {
	if i := strings.IndexByte(s, '.'); i >= 0 && strings.Trim(s[i+1:], "0") == "" && i > 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		if s == "" {
			return 0, fmt.Errorf("empty, want a whole number")
		}
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is outside %d to %d", n, lo, hi)
	}
	return n, nil
}

// parseFloat reads a finite decimal number.
func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(s, "xXpPnNiI_") {
		if s == "" {
			return 0, fmt.Errorf("empty, want a number")
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// parseMeasure reads an SLC measurement: -9 (the tables' missing value)
// and empty give NaN.
func parseMeasure(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	v, err := parseFloat(s)
	if err != nil {
		return 0, err
	}
	if v == -9 {
		return math.NaN(), nil
	}
	return v, nil
}

// isCode reports whether s looks like a code of the SLC tables: 1 to max
// printable ASCII characters without blanks, quotes or commas.
func isCode(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == ',' {
			return false
		}
	}
	return true
}

// optCode checks an optional code: empty or isCode.
func optCode(s string, max int) bool { return s == "" || isCode(s, max) }

// round returns v rounded to n decimals.
func round(v float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(v*p) / p
}
