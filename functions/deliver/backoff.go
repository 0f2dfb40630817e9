package main

import (
	"math/rand/v2"
	"time"
)

// Retries of a failed webhook: the next attempt comes backoff(n) after the
// n-th failed one, until retryWindow after the first attempt; then the
// delivery is failed and its message deleted.
const (
	firstBackoff = 30 * time.Second
	retryWindow  = 24 * time.Hour
	// maxReceiveCount is infra.DeliveryMaxReceiveCount, the receives
	// after which SQS moves a message to the dead-letter queue
	// (TestBackoffFitsRedrive; infra's TestDeliverRedriveMatchesFunction
	// reads this line).
	maxReceiveCount = 30
)

// backoff is the wait after the n-th failed attempt (n ≥ 1): 30 s doubling
// up to maxVisibility (SQS' 12 hours less a margin), with equal jitter:
// half of it fixed, half random, so that receivers failing together are
// not retried together, and a delivery gets a bounded number of receives
// in its 24 hours (full jitter could draw near-zero waits again and again
// and reach the dead-letter queue's receive count).
func backoff(n int, rnd func() float64) time.Duration {
	d := firstBackoff
	for i := 1; i < n && d < maxVisibility; i++ {
		d *= 2
	}
	d = min(d, maxVisibility)
	return d/2 + time.Duration(rnd()*float64(d/2))
}

// jitter is backoff's random source.
func jitter() float64 { return rand.Float64() }
