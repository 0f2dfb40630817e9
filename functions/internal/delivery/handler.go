// Package delivery is the deliver Lambda's work (functions/deliver), apart
// from package watch, which it reaches through a Book: on the schedule's
// event, dispatch the served energy version once and queue a message per
// delivery; on the queue's messages, send each delivery once and hide a
// failed one's message until its next attempt (ChangeMessageVisibility),
// reporting it as a batch item failure, for 24 hours. Its tests run it
// over the in-process SQS of package sqsemu with a clock they move.
package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"meridian/shared/energy"
	"meridian/shared/kv"
)

// book is what the function does with the watches and their deliveries
// (package watch over the watches table; watchbook.go).
type Book interface {
	// Dispatch makes the deliveries of energy version v's new changes to
	// the watches, once per version: a version dispatched before gives
	// none (ok false). The deliveries are in the table, pending, when it
	// returns.
	Dispatch(ctx context.Context, v kv.Version) (msgs []Message, ok bool, err error)
	// MarkDispatched records that v's deliveries are queued.
	MarkDispatched(ctx context.Context, v kv.Version) error
	// Attempt sends the delivery of m once, unless it is delivered or
	// failed already or its watch is gone (then done with no attempt),
	// and records the attempt.
	Attempt(ctx context.Context, m Message, now time.Time) (Attempt, error)
	// Fail marks the delivery of m failed for good.
	Fail(ctx context.Context, m Message, now time.Time) error
}

// attempt is what one Attempt did.
type Attempt struct {
	// Done: nothing more to do (delivered now or before, failed before, or
	// its watch deleted).
	Done bool
	// Attempts counts the delivery's attempts, this one included; First
	// is when the first was made.
	Attempts int
	First    time.Time
	// Status is the receiver's HTTP status (0 when none came) and Err
	// what went wrong, for the log.
	Status int
	Err    string
}

// handler is the Lambda handler of both events: the schedule's and the
// queue's.
type Handler struct {
	Reports kv.Store // the report table, for the energy dataset's pointer
	Book    Book
	Queue   Queue
	Now     func() time.Time
	Rand    func() float64 // Backoff's jitter
	Log     *slog.Logger
}

// event is either the schedule's ({"dispatch": true}, or EventBridge's
// own scheduled event) or SQS's (Records).
type event struct {
	Records  []events.SQSMessage `json:"Records"`
	Dispatch bool                `json:"dispatch"`
	Source   string              `json:"source"`
}

// DispatchResult is the schedule's answer, for the log and for make
// test-lambda.
type DispatchResult struct {
	Version    int64 `json:"version"`    // the energy dataset's served version; 0 before any publish
	Dispatched bool  `json:"dispatched"` // this run dispatched it
	Deliveries int   `json:"deliveries"` // deliveries made and queued
}

// Invoke routes an event to its handling.
func (h *Handler) Invoke(ctx context.Context, raw json.RawMessage) (any, error) {
	var ev event
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("delivery: an event that is neither the schedule's nor SQS's: %w", err)
	}
	switch {
	case len(ev.Records) > 0:
		return h.deliver(ctx, ev.Records), nil
	case ev.Dispatch || ev.Source == "aws.events":
		return h.dispatch(ctx)
	}
	return nil, errors.New(`deliver: an event that is neither the schedule's ({"dispatch": true}) nor SQS's`)
}

// dispatch dispatches the served energy version if no run did: the
// deliveries are made, queued, and only then is the version marked
// dispatched, so a run that fails midway leaves it to the next minute's
// (a delivery queued twice is sent at most once more; its receiver sees
// the same Idempotency-Key).
func (h *Handler) dispatch(ctx context.Context) (DispatchResult, error) {
	ds, ok, err := kv.Open(ctx, h.Reports, energy.Dataset)
	if err != nil || !ok {
		return DispatchResult{}, err
	}
	res := DispatchResult{Version: int64(ds.Version)}
	msgs, ok, err := h.Book.Dispatch(ctx, ds.Version)
	if err != nil || !ok {
		return res, err
	}
	if err := h.Queue.send(ctx, msgs); err != nil {
		return res, err
	}
	if err := h.Book.MarkDispatched(ctx, ds.Version); err != nil {
		return res, err
	}
	res.Dispatched, res.Deliveries = true, len(msgs)
	h.Log.InfoContext(ctx, "dispatched", "version", res.Version, "deliveries", res.Deliveries)
	return res, nil
}

// deliver sends each message's delivery once. A message whose delivery
// is done is deleted (the event source deletes what is not reported
// failed); one whose webhook failed is hidden until its next attempt
// (ChangeMessageVisibility) and reported failed, so SQS hands it out
// again then; after RetryWindow of failures its delivery is failed and
// the message deleted. A message that cannot be read, or whose delivery
// cannot be read or recorded, is reported failed as it is: it comes back
// after the queue's visibility timeout, and the dead-letter queue takes
// it after infra's DeliveryMaxReceiveCount receives.
func (h *Handler) deliver(ctx context.Context, recs []events.SQSMessage) events.SQSEventResponse {
	var resp events.SQSEventResponse
	fail := func(r events.SQSMessage) {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
	}
	for _, r := range recs {
		var m Message
		if err := json.Unmarshal([]byte(r.Body), &m); err != nil || m.Watch == "" || m.Delivery == "" {
			h.Log.ErrorContext(ctx, "unreadable message", "message_id", r.MessageId, "err", err)
			fail(r)
			continue
		}
		now := h.Now()
		a, err := h.Book.Attempt(ctx, m, now)
		if err != nil {
			h.Log.ErrorContext(ctx, "attempt", "delivery_id", m.Delivery, "err", err)
			fail(r)
			continue
		}
		if a.Done {
			h.Log.InfoContext(ctx, "delivery done", "delivery_id", m.Delivery, "watch_id", m.Watch, "attempts", a.Attempts, "status", a.Status)
			continue
		}
		// Retried until RetryWindow after the first attempt, the last
		// attempt at its end at the latest; then failed.
		left := a.First.Add(RetryWindow).Sub(now)
		if left <= 0 {
			if err := h.Book.Fail(ctx, m, now); err != nil {
				h.Log.ErrorContext(ctx, "fail delivery", "delivery_id", m.Delivery, "err", err)
				fail(r)
				continue
			}
			h.Log.WarnContext(ctx, "delivery failed", "delivery_id", m.Delivery, "watch_id", m.Watch, "attempts", a.Attempts, "status", a.Status, "err", a.Err)
			continue
		}
		wait := min(Backoff(a.Attempts, h.Rand), left)
		if err := h.Queue.retryIn(ctx, r.ReceiptHandle, wait); err != nil {
			// The message comes back after the queue's visibility
			// timeout instead: an attempt early, never one lost.
			h.Log.ErrorContext(ctx, "retry", "delivery_id", m.Delivery, "err", err)
		}
		h.Log.InfoContext(ctx, "delivery retried", "delivery_id", m.Delivery, "attempts", a.Attempts, "status", a.Status, "err", a.Err, "retry_in", wait.Round(time.Second).String())
		fail(r)
	}
	return resp
}
