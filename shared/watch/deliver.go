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
	parts := strings.SplitN(osk, "#", 3)
	if len(parts) != 3 {
		return r.Store.kv.Delete(ctx, []kv.Key{{PK: pkOutbox, SK: osk}})
	}
	watchID, dsk := parts[1], parts[2]
	drop := func() error { return r.Store.kv.Delete(ctx, []kv.Key{{PK: pkOutbox, SK: osk}}) }
	d, ok, err := r.Store.getDelivery(ctx, watchID, dsk)
	if err != nil {
		return err
	}
	w, wok, err := r.Store.get(ctx, watchID)
	if err != nil {
		return err
	}
	if !ok || !wok || d.State != Pending {
		return drop() // delivered or failed already, or its watch deleted
	}
	a, delivered := Attempt{}, false
	if _, err := CheckURL(ctx, w.URL, r.AllowPrivate, nil); err != nil {
		a = Attempt{At: now.UTC().Format(time.RFC3339), Error: err.Error()}
	} else {
		a, delivered = r.Sender.Send(ctx, w.URL, w.Secret, d)
	}
	d.Attempts = append(d.Attempts, a)
	first, _ := time.Parse(time.RFC3339, d.Attempts[0].At)
	var next time.Time
	switch {
	case delivered:
		d.State, d.NextAttempt = Delivered, ""
	default:
		next = now.Add(Backoff(len(d.Attempts), r.Sender.Rand()))
		if next.Sub(first) > RetryFor {
			if last := first.Add(RetryFor); last.After(now) {
				next = last // one last attempt at 24 hours
			} else {
				d.State, d.NextAttempt = Failed, ""
			}
		}
		if d.State == Pending {
			d.NextAttempt = next.UTC().Format(time.RFC3339Nano)
		}
	}
	if err := r.Store.putDelivery(ctx, dsk, d); err != nil {
		return err
	}
	if d.State == Pending {
		if err := r.Store.kv.Put(ctx, []kv.Item{{PK: pkOutbox, SK: outboxSK(next, watchID, dsk), Data: []byte("{}")}}); err != nil {
			return err
		}
	}
	if r.Log != nil {
		r.Log.Info("webhook attempt", "delivery", d.ID, "status", a.Status, "error", a.Error, "state", d.State, "attempts", len(d.Attempts))
	}
	if err := drop(); err != nil {
		return fmt.Errorf("watch: outbox: %w", err)
	}
	return nil
}
