package delivery

import (
	"testing"
	"time"
)

// The waits double from 30 s, stay within [d/2, d] and never pass SQS'
// 12 hours.
func TestBackoff(t *testing.T) {
	lo, hi := func() float64 { return 0 }, func() float64 { return 1 }
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 11: 1024 * 30 * time.Second, 30: MaxVisibility} {
		if got := Backoff(n, hi); got != want {
			t.Errorf("Backoff(%d) at most %v, want %v", n, got, want)
		}
		if got := Backoff(n, lo); got != want/2 {
			t.Errorf("Backoff(%d) at least %v, want %v", n, got, want/2)
		}
	}
	if MaxVisibility >= 12*time.Hour {
		t.Errorf("MaxVisibility %v: SQS refuses 12 h or more from the receive", MaxVisibility)
	}
}

// A delivery that fails every attempt, with the shortest waits, is
// received fewer times within its 24 hours than the dead-letter queue's
// receive count: ordinary retries never reach the dead-letter queue.
func TestBackoffFitsRedrive(t *testing.T) {
	lo := func() float64 { return 0 }
	receives, elapsed := 1, time.Duration(0)
	for elapsed < RetryWindow {
		elapsed += Backoff(receives, lo)
		receives++
	}
	// One more receive finds the window over and deletes the message.
	if receives+1 >= MaxReceiveCount {
		t.Errorf("%d receives in %v at the shortest waits: the dead-letter queue takes a message at %d", receives+1, RetryWindow, MaxReceiveCount)
	}
	t.Logf("at most %d receives of a failing delivery in %v (redrive at %d)", receives+1, RetryWindow, MaxReceiveCount)
}
