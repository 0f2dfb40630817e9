package ingest

import (
	"path/filepath"
	"time"
)

// FileDate returns the date a published file's name carries, for the
// "as of" of the data set it feeds; "" when the name carries none.
//
// The rule, one for every reader: in the base name of name, a date is a
// YYYY-MM-DD, a YYYY-MM or a YYYY (a year after 1900) that stands alone,
// that is, neither preceded nor followed directly by another digit, and
// that is a real calendar date ("2024-02-30" is read as the month
// "2024-02"). The most precise date wins (a day over a month over a
// year), and among dates equally precise the last in the name (the end of
// "Drought_2023_2024" is its as-of). The result keeps the precision the
// name gives: "2017-04-07", "2026-11" or "2024".
func FileDate(name string) string {
	n := filepath.Base(name)
	var best [3]string // last year, month and day found
	for i := 0; i < len(n); {
		if !isDigit(n[i]) {
			i++
			continue
		}
		j := i
		for j < len(n) && isDigit(n[j]) {
			j++
		}
		if j-i != 4 {
			i = j
			continue
		}
		year := n[i:j]
		if y, err := time.Parse("2006", year); err == nil && y.Year() > 1900 {
			best[0] = year
			if m, ok := twoDigits(n, j); ok {
				if _, err := time.Parse("2006-01", year+"-"+m); err == nil {
					best[1] = year + "-" + m
					if d, ok := twoDigits(n, j+3); ok {
						if _, err := time.Parse("2006-01-02", best[1]+"-"+d); err == nil {
							best[2] = best[1] + "-" + d
						}
					}
				}
			}
		}
		i = j
	}
	for p := 2; p >= 0; p-- {
		if best[p] != "" {
			return best[p]
		}
	}
	return ""
}

// twoDigits returns the two digits after a hyphen at n[i] when they stand
// alone (no digit follows them).
func twoDigits(n string, i int) (string, bool) {
	if i+3 > len(n) || n[i] != '-' || !isDigit(n[i+1]) || !isDigit(n[i+2]) {
		return "", false
	}
	if i+3 < len(n) && isDigit(n[i+3]) {
		return "", false
	}
	return n[i+1 : i+3], true
}
