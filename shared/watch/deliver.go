package watch

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"meridian/shared/kv"
)

// Sender posts deliveries.
type Sender struct {
	Client *http.Client
	Now    func() time.Time
	Rand   func() float64 // in [0, 1): the backoff's jitter
}

// NewSender returns a sender whose connections go only to public
// addresses unless allowPrivate (Dialer), with a 10 s timeout; tlsConfig,
// when not nil, is its TLS configuration (a test's receiver).
func NewSender(allowPrivate bool, tlsConfig *tls.Config) *Sender {
	tr := &http.Transport{DialContext: Dialer(allowPrivate).DialContext, TLSClientConfig: tlsConfig, MaxIdleConnsPerHost: 2,
		TLSHandshakeTimeout: 5 * time.Second, ResponseHeaderTimeout: 10 * time.Second}
	return &Sender{
		Client: &http.Client{Timeout: 10 * time.Second, Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		Now: time.Now, Rand: rand.Float64,
	}
}

// Send posts d's body to url once, signed with secret, and returns the
// attempt: a 2xx answer is success; anything else, a redirect included,
// is a failure to retry.
func (s *Sender) Send(ctx context.Context, url, secret string, d Delivery) (Attempt, bool) {
	now := s.Now()
	a := Attempt{At: now.UTC().Format(time.RFC3339)}
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(d.Body))
	if err != nil {
		a.Error = err.Error()
		return a, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Meridian-Webhooks/1")
	req.Header.Set(SignatureHeader, Sign(secret, now, d.Body))
	req.Header.Set("Idempotency-Key", d.ID)
	req.Header.Set("Meridian-Delivery", d.ID)
	req.Header.Set("Meridian-Event", "energy.changes")
	t0 := time.Now()
	resp, err := s.Client.Do(req)
	a.DurationMS = time.Since(t0).Milliseconds()
	if err != nil {
		a.Error = strings.TrimSpace(err.Error())
		return a, false
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	a.Status = resp.StatusCode
	return a, resp.StatusCode >= 200 && resp.StatusCode < 300
}

// Backoff is the wait after the n-th failed attempt (n ≥ 1): 30 s doubled
// at each failure up to an hour, drawn in [half, all] of it (jitter, so
// that receivers coming back are not hit by every sender at once).
func Backoff(n int, r float64) time.Duration {
	d := firstBackoff
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	return d/2 + time.Duration(r*float64(d/2))
}

// Runner delivers locally: it dispatches each new energy version once and
// sends the deliveries due, retrying until RetryFor after the first
// attempt. Its state is the Store's (a bbolt file in the data directory):
// a restart loses no delivery and repeats at most those in flight (at
// least once). Memory: the watches at dispatch, and one outbox page
// (Workers deliveries at a time) when sending.
type Runner struct {
	Store        *Store
	Sender       *Sender
	AllowPrivate bool
	// Energy opens the served energy dataset (ok false before any);
	// done releases it.
	Energy func(ctx context.Context) (ds kv.Dataset, ok bool, done func(), err error)
	Log    *slog.Logger
}

// Once dispatches a new energy version, if any, and sends every delivery
// due now: what Run does each tick, and what tests call with their clock.
func (r *Runner) Once(ctx context.Context) error {
	now := r.Sender.Now()
	if r.Energy != nil {
		ds, ok, done, err := r.Energy(ctx)
		if err != nil {
			return err
		}
		if ok {
			n, err := Dispatch(ctx, r.Store, ds, now)
			done()
			if err != nil {
				return err
			}
			if n > 0 && r.Log != nil {
				r.Log.Info("webhook deliveries made", "version", int64(ds.Version), "deliveries", n)
			}
		}
	}
	return r.sendDue(ctx, now)
}

// Run calls Once every interval until ctx ends, logging failures.
func (r *Runner) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := r.Once(ctx); err != nil && ctx.Err() == nil && r.Log != nil {
			r.Log.Warn("webhooks", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sendDue sends the outbox's deliveries due at now, one page at a time.
func (r *Runner) sendDue(ctx context.Context, now time.Time) error {
	to := now.UTC().Format(time.RFC3339Nano) + "#~"
	for {
		pg, err := r.Store.kv.Query(ctx, kv.Query{PK: pkOutbox, SKTo: to, Limit: 100})
		if err != nil || len(pg.Items) == 0 {
			return err
		}
		for _, it := range pg.Items {
			if err := r.attempt(ctx, it.SK, now); err != nil {
				return err
			}
		}
	}
}

// attempt sends the delivery of outbox entry osk once and moves it on:
// delivered, failed after RetryFor, or back in the outbox at its next
// attempt. The outbox entry goes last, so a crash repeats the attempt.
func (r *Runner) attempt(ctx context.Context, osk string, now time.Time) error {
	drop := func() error { return r.Store.kv.Delete(ctx, []kv.Key{{PK: pkOutbox, SK: osk}}) }
	parts := strings.SplitN(osk, "#", 3)
	if len(parts) != 3 {
		return drop()
	}
	ref := Ref{WatchID: parts[1], Key: parts[2]}
	res, err := r.Store.Attempt(ctx, r.Sender, r.AllowPrivate, ref, now)
	if err != nil {
		return err
	}
	if !res.Done {
		next := res.Next
		if next.Sub(res.First) > RetryFor {
			if err := r.Store.Fail(ctx, ref, now); err != nil {
				return err
			}
		} else if err := r.Store.kv.Put(ctx, []kv.Item{{PK: pkOutbox, SK: outboxSK(next, ref.WatchID, ref.Key), Data: []byte("{}")}}); err != nil {
			return err
		}
	}
	if r.Log != nil && res.Attempts > 0 {
		r.Log.Info("webhook attempt", "delivery", ref.WatchID+"/"+ref.Key, "status", res.Status, "error", res.Err, "done", res.Done, "attempts", res.Attempts)
	}
	if err := drop(); err != nil {
		return fmt.Errorf("watch: outbox: %w", err)
	}
	return nil
}

// Result is what one Attempt did.
type Result struct {
	// Done: nothing more to do (delivered now or before, failed before,
	// or its watch deleted).
	Done bool
	// Attempts counts the delivery's attempts, this one included; First
	// is when the first was made; Next when the next is due, with the
	// backoff (a caller that is past RetryFor by then calls Fail instead).
	Attempts    int
	First, Next time.Time
	Status      int    // the receiver's HTTP status, 0 when none came
	Err         string // what went wrong
}

// Attempt sends delivery ref once, unless it is delivered or failed
// already or its watch is gone, and records the attempt: what the local
// Runner and the deliver Lambda (one queue message a delivery) both do.
// The last attempt is made at RetryFor after the first: Next is never
// later than that.
func (s *Store) Attempt(ctx context.Context, sender *Sender, allowPrivate bool, ref Ref, now time.Time) (Result, error) {
	d, ok, err := s.getDelivery(ctx, ref.WatchID, ref.Key)
	if err != nil {
		return Result{}, err
	}
	w, wok, err := s.get(ctx, ref.WatchID)
	if err != nil {
		return Result{}, err
	}
	if !ok || !wok || d.State != Pending {
		return Result{Done: true, Attempts: len(d.Attempts)}, nil
	}
	a, delivered := Attempt{}, false
	if _, err := CheckURL(ctx, w.URL, allowPrivate, nil); err != nil {
		a = Attempt{At: now.UTC().Format(time.RFC3339), Error: err.Error()}
	} else {
		a, delivered = sender.Send(ctx, w.URL, w.Secret, d)
	}
	d.Attempts = append(d.Attempts, a)
	first, _ := time.Parse(time.RFC3339, d.Attempts[0].At)
	res := Result{Done: delivered, Attempts: len(d.Attempts), First: first, Status: a.Status, Err: a.Error}
	if delivered {
		d.State, d.NextAttempt = Delivered, ""
	} else {
		res.Next = now.Add(Backoff(len(d.Attempts), sender.Rand()))
		if last := first.Add(RetryFor); res.Next.After(last) && last.After(now) {
			res.Next = last // one last attempt at 24 hours
		}
		d.NextAttempt = res.Next.UTC().Format(time.RFC3339Nano)
	}
	return res, s.putDelivery(ctx, ref.Key, d)
}

// Fail marks delivery ref failed for good.
func (s *Store) Fail(ctx context.Context, ref Ref, now time.Time) error {
	d, ok, err := s.getDelivery(ctx, ref.WatchID, ref.Key)
	if err != nil || !ok || d.State != Pending {
		return err
	}
	d.State, d.NextAttempt = Failed, ""
	return s.putDelivery(ctx, ref.Key, d)
}
