//go:build !heaptest

package apigwtest

// checkRSS: make test-heap (the heaptest tag) checks a bootstrap's peak
// resident memory against MaxLambdaRSS/4; make test does not.
const checkRSS = false
