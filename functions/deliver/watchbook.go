package main

import (
	"context"
	"time"

	"meridian/functions/internal/delivery"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/watch"
)

// watchBook is package watch's store and sender as the deliver
// function's delivery.Book: the watches table, and webhooks sent only to
// public addresses.
type watchBook struct {
	reports      kv.Store // the report table: the energy dataset dispatched
	store        *watch.Store
	send         *watch.Sender
	allowPrivate bool // tests only: a receiver on this machine
}

func newWatchBook(reports, watches kv.Store) delivery.Book {
	return watchBook{reports: reports, store: watch.NewStore(watches), send: watch.NewSender(false, nil)}
}

// Dispatch prepares version v's deliveries, one message each; ok is false
// when v was dispatched before, or when the served version moved past v
// since the caller read it (the next run dispatches that one).
func (b watchBook) Dispatch(ctx context.Context, v kv.Version) ([]delivery.Message, bool, error) {
	ds, ok, err := kv.Open(ctx, b.reports, energy.Dataset)
	if err != nil || !ok || ds.Version != v {
		return nil, false, err
	}
	refs, ok, err := watch.Prepare(ctx, b.store, ds, b.send.Now())
	if err != nil || !ok {
		return nil, ok, err
	}
	msgs := make([]delivery.Message, len(refs))
	for i, r := range refs {
		msgs[i] = delivery.Message{Watch: r.WatchID, Delivery: r.Key}
	}
	return msgs, true, nil
}

func (b watchBook) MarkDispatched(ctx context.Context, v kv.Version) error {
	return b.store.MarkDispatched(ctx, int64(v))
}

func (b watchBook) Attempt(ctx context.Context, m delivery.Message, now time.Time) (delivery.Attempt, error) {
	r, err := b.store.Attempt(ctx, b.send, b.allowPrivate, watch.Ref{WatchID: m.Watch, Key: m.Delivery}, now)
	return delivery.Attempt{Done: r.Done, Attempts: r.Attempts, First: r.First, Status: r.Status, Err: r.Err}, err
}

func (b watchBook) Fail(ctx context.Context, m delivery.Message, now time.Time) error {
	return b.store.Fail(ctx, watch.Ref{WatchID: m.Watch, Key: m.Delivery}, now)
}
