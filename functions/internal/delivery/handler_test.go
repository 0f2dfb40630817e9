package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"meridian/functions/internal/sqsemu"
	"meridian/shared/energy"
	"meridian/shared/kv"
)

// clock is a test's time, moved by hand; the SQS emulator reads it too.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// ledger is a book kept in memory, with failures on demand: what the
// handler does with the queue is tested here; the real book over package
// watch and DynamoDB in e2e_test.go.
type ledger struct {
	mu         sync.Mutex
	deliveries map[kv.Version][]Message
	dispatched map[kv.Version]bool
	attempts   map[string][]time.Time // by delivery
	failUntil  int                    // attempts that fail before one succeeds
	done       map[string]string      // by delivery: "delivered", "failed"
	err        error                  // every call fails with it when set
}

func newLedger() *ledger {
	return &ledger{deliveries: map[kv.Version][]Message{}, dispatched: map[kv.Version]bool{},
		attempts: map[string][]time.Time{}, done: map[string]string{}}
}

func (l *ledger) Dispatch(_ context.Context, v kv.Version) ([]Message, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, false, l.err
	}
	if l.dispatched[v] {
		return nil, false, nil
	}
	return l.deliveries[v], true, nil
}

func (l *ledger) MarkDispatched(_ context.Context, v kv.Version) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dispatched[v] = true
	return nil
}

func (l *ledger) Attempt(_ context.Context, m Message, now time.Time) (Attempt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return Attempt{}, l.err
	}
	if l.done[m.Delivery] != "" {
		return Attempt{Done: true, Attempts: len(l.attempts[m.Delivery])}, nil
	}
	l.attempts[m.Delivery] = append(l.attempts[m.Delivery], now)
	a := Attempt{Attempts: len(l.attempts[m.Delivery]), First: l.attempts[m.Delivery][0]}
	if a.Attempts <= l.failUntil {
		a.Status, a.Err = 500, "500 Internal Server Error"
		return a, nil
	}
	l.done[m.Delivery], a.Done, a.Status = "delivered", true, 200
	return a, nil
}

func (l *ledger) Fail(_ context.Context, m Message, _ time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done[m.Delivery] = "failed"
	return nil
}

// rig is the handler over an SQS emulator and a report store holding an
// energy version.
type rig struct {
	h      *Handler
	client *sqs.Client
	sqs    *sqsemu.Server
	clock  *clock
	book   *ledger
	url    string
	invoke func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	srv := sqsemu.New(c.now)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	url, err := sqsemu.CreateQueue(ctx, ts.URL, "delivery", MaxReceiveCount)
	if err != nil {
		t.Fatal(err)
	}
	client, err := sqsemu.NewClient(ctx, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	reports := kv.NewMem()
	if _, err := kv.Publish(ctx, reports, kv.DatasetInfo{Name: energy.Dataset, Source: "test"}, func(w *kv.Writer) error {
		return w.PutRaw("X", "x", []byte(`{}`))
	}); err != nil {
		t.Fatal(err)
	}
	r := &rig{sqs: srv, clock: c, book: newLedger(), url: url, client: client}
	r.h = &Handler{Reports: reports, Book: r.book, Queue: Queue{API: client, URL: url}, Now: c.now,
		Rand: func() float64 { return 0.5 }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r.invoke = func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		raw, _ := json.Marshal(ev)
		out, err := r.h.Invoke(ctx, raw)
		if err != nil {
			return events.SQSEventResponse{}, err
		}
		return out.(events.SQSEventResponse), nil
	}
	return r
}

func (r *rig) poll(t *testing.T) sqsemu.PollResult {
	t.Helper()
	res, err := sqsemu.Poll(context.Background(), r.client, r.url, 10, r.invoke)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (r *rig) schedule(t *testing.T) DispatchResult {
	t.Helper()
	out, err := r.h.Invoke(context.Background(), json.RawMessage(`{"dispatch":true}`))
	if err != nil {
		t.Fatal(err)
	}
	return out.(DispatchResult)
}

// The schedule dispatches a version once and queues one message per
// delivery, in batches of ten.
func TestDispatchQueues(t *testing.T) {
	r := newRig(t)
	for i := range 23 {
		r.book.deliveries[1] = append(r.book.deliveries[1], Message{Watch: "w1", Delivery: fmt.Sprintf("d%02d", i)})
	}
	got := r.schedule(t)
	if got != (DispatchResult{Version: 1, Dispatched: true, Deliveries: 23}) {
		t.Errorf("first run: %+v", got)
	}
	if n := len(r.sqs.Messages("delivery")); n != 23 || r.sqs.Calls("SendMessageBatch") != 3 {
		t.Errorf("%d messages in %d batches, want 23 in 3", n, r.sqs.Calls("SendMessageBatch"))
	}
	seen := map[Message]bool{}
	for _, qm := range r.sqs.Messages("delivery") {
		var m Message
		if err := json.Unmarshal([]byte(qm.Body), &m); err != nil {
			t.Errorf("message %q: %v", qm.Body, err)
		}
		seen[m] = true
	}
	for _, m := range r.book.deliveries[1] {
		if !seen[m] {
			t.Errorf("%+v not queued", m)
		}
	}
	if got := r.schedule(t); got != (DispatchResult{Version: 1}) {
		t.Errorf("second run: %+v, want nothing dispatched", got)
	}
	if n := len(r.sqs.Messages("delivery")); n != 23 {
		t.Errorf("%d messages after the second run", n)
	}
}

// A dispatch whose messages cannot be queued is not marked dispatched:
// the next run makes it again.
func TestDispatchQueueFailure(t *testing.T) {
	r := newRig(t)
	r.book.deliveries[1] = []Message{{Watch: "w1", Delivery: "d1"}}
	r.h.Queue.URL += "-gone"
	if _, err := r.h.Invoke(context.Background(), json.RawMessage(`{"dispatch":true}`)); err == nil {
		t.Fatal("queue gone: want an error")
	}
	if r.book.dispatched[1] {
		t.Error("marked dispatched though nothing was queued")
	}
	r.h.Queue.URL = r.url
	if got := r.schedule(t); !got.Dispatched || got.Deliveries != 1 {
		t.Errorf("next run: %+v", got)
	}
}

// A failing webhook's message is hidden for its backoff and handed out
// again then; once delivered, it is deleted.
func TestDeliverRetries(t *testing.T) {
	r := newRig(t)
	r.book.failUntil = 2
	r.book.deliveries[1] = []Message{{Watch: "w1", Delivery: "d1"}, {Watch: "w1", Delivery: "d2"}}
	r.schedule(t)
	if res := r.poll(t); res != (sqsemu.PollResult{Received: 2, Failed: 2}) {
		t.Fatalf("first poll: %+v", res)
	}
	// rnd 0.5: three quarters of the backoff.
	for _, m := range r.sqs.Messages("delivery") {
		if want := Backoff(1, func() float64 { return 0.5 }).Truncate(time.Second); !m.InFlight || m.VisibleIn != want {
			t.Errorf("after the first failure: in flight %v for %v, want %v", m.InFlight, m.VisibleIn, want)
		}
	}
	if res := r.poll(t); res.Received != 0 {
		t.Errorf("received again before the backoff: %+v", res)
	}
	r.clock.add(Backoff(1, func() float64 { return 0.5 }).Truncate(time.Second))
	if res := r.poll(t); res != (sqsemu.PollResult{Received: 2, Failed: 2}) {
		t.Fatalf("second poll: %+v", res)
	}
	if got, want := r.sqs.Messages("delivery")[0].VisibleIn, Backoff(2, func() float64 { return 0.5 }); got != want {
		t.Errorf("after the second failure: visible in %v, want %v", got, want)
	}
	r.clock.add(time.Hour)
	if res := r.poll(t); res != (sqsemu.PollResult{Received: 2, Deleted: 2}) {
		t.Fatalf("third poll: %+v", res)
	}
	if len(r.sqs.Messages("delivery")) != 0 || r.book.done["d1"] != "delivered" || len(r.book.attempts["d1"]) != 3 {
		t.Errorf("left %v, d1 %q after %d attempts", r.sqs.Messages("delivery"), r.book.done["d1"], len(r.book.attempts["d1"]))
	}
	if n := r.sqs.Calls("ChangeMessageVisibility"); n != 4 {
		t.Errorf("%d visibility changes, want 4 (two failures of two deliveries)", n)
	}
}

// The last attempt comes 24 hours after the first at the latest; if it
// fails, the delivery is failed and its message deleted.
func TestDeliverGivesUp(t *testing.T) {
	r := newRig(t)
	r.book.failUntil = 1000
	r.book.deliveries[1] = []Message{{Watch: "w1", Delivery: "d1"}}
	r.schedule(t)
	start := r.clock.now()
	for i := 0; r.book.done["d1"] == "" && i < MaxReceiveCount; i++ {
		r.poll(t)
		for _, m := range r.sqs.Messages("delivery") {
			if at := r.clock.now().Add(m.VisibleIn); at.After(start.Add(RetryWindow)) {
				t.Fatalf("next attempt at %v, past the 24 h from %v", at, start)
			}
			r.clock.add(m.VisibleIn)
		}
	}
	as := r.book.attempts["d1"]
	if r.book.done["d1"] != "failed" || len(r.sqs.Messages("delivery")) != 0 {
		t.Fatalf("after %d attempts: %q, %d messages left", len(as), r.book.done["d1"], len(r.sqs.Messages("delivery")))
	}
	if last := as[len(as)-1].Sub(as[0]); last != RetryWindow {
		t.Errorf("last attempt %v after the first, want %v", last, RetryWindow)
	}
	t.Logf("%d attempts in %v", len(as), RetryWindow)
}

// A message that cannot be read, or whose delivery cannot be read, is
// reported failed with its visibility as the queue gives it: it comes
// back after the visibility timeout, and the dead-letter queue takes it
// after MaxReceiveCount receives.
func TestDeliverPoison(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	if _, err := r.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(r.url), MessageBody: aws.String("not json")}); err != nil {
		t.Fatal(err)
	}
	r.book.err = errors.New("table unavailable")
	r.book.deliveries[1] = []Message{{Watch: "w1", Delivery: "d1"}}
	if err := r.h.Queue.send(ctx, r.book.deliveries[1]); err != nil {
		t.Fatal(err)
	}
	for i := range MaxReceiveCount {
		res := r.poll(t)
		if res != (sqsemu.PollResult{Received: 2, Failed: 2}) {
			t.Fatalf("receive %d: %+v", i+1, res)
		}
		if n := r.sqs.Calls("ChangeMessageVisibility"); n != 0 {
			t.Fatalf("%d visibility changes for messages never handled", n)
		}
		r.clock.add(30 * time.Second) // the emulated queue's default visibility
	}
	if res := r.poll(t); res.Received != 0 || len(r.sqs.Messages("delivery-dlq")) != 2 {
		t.Errorf("after %d receives: %+v, dead-letter queue %d", MaxReceiveCount, res, len(r.sqs.Messages("delivery-dlq")))
	}
}

// The schedule's event comes as the rule's input or as EventBridge's own
// scheduled event; anything else is an error, not a dispatch.
func TestInvokeRoutes(t *testing.T) {
	r := newRig(t)
	r.book.deliveries[1] = []Message{{Watch: "w1", Delivery: "d1"}}
	out, err := r.h.Invoke(context.Background(), json.RawMessage(`{"version":"0","id":"e1","detail-type":"Scheduled Event","source":"aws.events","time":"2026-11-21T12:00:00Z","detail":{}}`))
	if err != nil || out.(DispatchResult) != (DispatchResult{Version: 1, Dispatched: true, Deliveries: 1}) {
		t.Errorf("EventBridge's scheduled event: %+v %v", out, err)
	}
	for _, ev := range []string{`{}`, `{"Records":[]}`, `[1,2]`, `{"dispatch":"yes"}`} {
		if out, err := r.h.Invoke(context.Background(), json.RawMessage(ev)); err == nil {
			t.Errorf("%s: %+v, want an error", ev, out)
		}
	}
}
