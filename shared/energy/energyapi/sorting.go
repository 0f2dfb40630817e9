package energyapi

import (
	"cmp"
	"slices"
	"strings"
)

// sortRows sorts rows by by (ascending), or in reverse when desc; the
// comparator breaks its own ties so every order is total.
func sortRows[T any](rows []T, by func(a, b T) int, desc bool) {
	if desc {
		slices.SortStableFunc(rows, func(a, b T) int { return -by(a, b) })
		return
	}
	slices.SortStableFunc(rows, by)
}

// ptrCmp compares optional numbers, a missing one lowest.
func ptrCmp[N cmp.Ordered](a, b *N) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// foldCmp compares strings ignoring case.
func foldCmp(a, b string) int { return cmp.Compare(strings.ToLower(a), strings.ToLower(b)) }
