package energyapi

import (
	"cmp"
	"strings"
)

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
