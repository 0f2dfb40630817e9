package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"meridian/functions/internal/delivery"
	"meridian/functions/internal/sqsemu"
	"meridian/shared/energy"
	"meridian/shared/gateway"
	"meridian/shared/kv"
	"meridian/shared/watch"
)

// The deliver function's work with package watch as its book, end to end
// over the in-process SQS: a watch made through the /watches handler, a
// version of the energy data with new changes, the schedule's dispatch
// queues one message, and the queue's deliveries reach a TLS receiver
// that verifies every signature, answers 500 once (the message comes back
// after its visibility timeout) and then accepts it.
func TestDeliverWithWatchBook(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }

	var secret string
	var got []watch.Payload
	calls, bad := 0, 0
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if watch.Verify(secret, r.Header.Get(watch.SignatureHeader), body, clock, 5*time.Minute) != nil {
			bad++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		calls++
		if calls == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		var p watch.Payload
		json.Unmarshal(body, &p)
		got = append(got, p)
	}))
	defer rcv.Close()

	watches, reports := kv.NewMem(), kv.NewMem()
	h := watch.NewHandler(watch.NewStore(watches), true)
	req := httptest.NewRequest("POST", "/watches", strings.NewReader(`{"url":"`+rcv.URL+`","areas":["24-1-W5"]}`))
	req = req.WithContext(gateway.NewContext(ctx, gateway.Caller{KeyID: "k1", Product: gateway.Changes}))
	rec := httptest.NewRecorder()
	if err := h.Create(rec, req); err != nil || rec.Code != 201 {
		t.Fatalf("create: %v %d %s", err, rec.Code, rec.Body)
	}
	var made struct{ Secret string }
	json.Unmarshal(rec.Body.Bytes(), &made)
	mu.Lock()
	secret = made.Secret
	mu.Unlock()

	changes := []energy.Change{
		{ID: "a", Kind: energy.WellLicensed, LegalLocation: "3-2-24-1-W5", EntityType: energy.EntityWell, EntityID: "100/03-02-024-01W5/00", Version: 2, AsOf: "2026-11-21"},
		{ID: "b", Kind: energy.WellLicensed, LegalLocation: "3-2-30-1-W5", EntityType: energy.EntityWell, EntityID: "100/03-02-030-01W5/00", Version: 2, AsOf: "2026-11-21"},
	}
	if _, err := kv.Publish(ctx, reports, kv.DatasetInfo{Name: energy.Dataset, Source: "test"}, func(w *kv.Writer) error {
		for _, c := range changes {
			if err := w.Put(energy.PKChangesNew, energy.ChangeNewSK(c), c); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	sq := sqsemu.New(now)
	ts := httptest.NewServer(sq)
	defer ts.Close()
	url, err := sqsemu.CreateQueue(ctx, ts.URL, "delivery", delivery.MaxReceiveCount)
	if err != nil {
		t.Fatal(err)
	}
	client, err := sqsemu.NewClient(ctx, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(rcv.Certificate())
	send := watch.NewSender(true, &tls.Config{RootCAs: pool})
	send.Now = now
	book := watchBook{reports: reports, store: watch.NewStore(watches), send: send, allowPrivate: true}
	dh := &delivery.Handler{Reports: reports, Book: book, Queue: delivery.Queue{API: client, URL: url}, Now: now,
		Rand: func() float64 { return 0.5 }, Log: slog.New(slog.DiscardHandler)}

	for range 2 { // the schedule runs every minute: the version is dispatched once
		if _, err := dh.Invoke(ctx, json.RawMessage(`{"dispatch":true}`)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(sq.Messages("delivery")); n != 1 {
		t.Fatalf("%d messages queued, want 1 (one watch, one batch)", n)
	}
	invoke := func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		raw, _ := json.Marshal(ev)
		out, err := dh.Invoke(ctx, raw)
		if err != nil {
			return events.SQSEventResponse{}, err
		}
		return out.(events.SQSEventResponse), nil
	}
	if res, err := sqsemu.Poll(ctx, client, url, 10, invoke); err != nil || res.Failed != 1 {
		t.Fatalf("first poll: %+v %v, want the delivery failed (500)", res, err)
	}
	if res, _ := sqsemu.Poll(ctx, client, url, 10, invoke); res.Received != 0 {
		t.Fatalf("the failed message came back before its backoff: %+v", res)
	}
	advance(time.Hour)
	if res, err := sqsemu.Poll(ctx, client, url, 10, invoke); err != nil || res.Deleted != 1 {
		t.Fatalf("second poll: %+v %v, want the delivery sent and its message deleted", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if bad != 0 || calls != 2 || len(got) != 1 || len(got[0].Changes) != 1 || got[0].Changes[0].ID != "a" {
		t.Errorf("receiver: %d bad signatures, %d calls, got %+v; want the change in 24-1-W5 once after a retry", bad, calls, got)
	}
}
