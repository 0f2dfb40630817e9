package delivery

import (
	"math/rand/v2"
	"time"
)

// Retries of a failed webhook: the next attempt comes Backoff(n) after the
// n-th failed one, until RetryWindow after the first attempt; then the
// delivery is failed and its message deleted.
const (
	FirstBackoff = 30 * time.Second
	RetryWindow  = 24 * time.Hour
	// MaxReceiveCount is infra.DeliveryMaxReceiveCount, the receives
	// after which SQS moves a message to the dead-letter queue
	// (TestBackoffFitsRedrive; infra's TestDeliverRedriveMatchesFunction
	// reads this line).
	MaxReceiveCount = 30
)

// backoff is the wait after the n-th failed attempt (n ≥ 1): 30 s doubling
// up to MaxVisibility (SQS' 12 hours less a margin), with equal jitter:
// half of it fixed, half random, so that receivers failing together are
// not retried together, and a delivery gets a bounded number of receives
// in its 24 hours (full jitter could draw near-zero waits again and again
// and reach the dead-letter queue's receive count).
func Backoff(n int, rnd func() float64) time.Duration {
	d := FirstBackoff
	for i := 1; i < n && d < MaxVisibility; i++ {
		d *= 2
	}
	d = min(d, MaxVisibility)
	return d/2 + time.Duration(rnd()*float64(d/2))
}

// jitter is backoff's random source.
func Jitter() float64 { return rand.Float64() }
