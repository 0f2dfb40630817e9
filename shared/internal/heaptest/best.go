package heaptest

import "cmp"

// Attempts is how many times Lowest and LowestBy measure at most.
const Attempts = 3

// Lowest runs measure up to Attempts times and returns the lowest value it
// returned. It stops at the first value at most bound: a heap measurement on
// a loaded machine reads high (what other goroutines and processes allocate
// while a collection marks counts as live), never low, so the lowest of a
// few attempts is the one nearest the code's own use, and one within the
// bound is enough.
func Lowest[T cmp.Ordered](bound T, measure func() T) T {
	return LowestBy(bound, func(v T) T { return v }, measure)
}

// LowestBy is Lowest for a measurement of several values (a small and a
// large input, say): it returns the attempt whose key is lowest, stopping
// at the first whose key is at most bound.
func LowestBy[M any, K cmp.Ordered](bound K, key func(M) K, measure func() M) M {
	best := measure()
	for i := 1; i < Attempts && key(best) > bound; i++ {
		if m := measure(); key(m) < key(best) {
			best = m
		}
	}
	return best
}
