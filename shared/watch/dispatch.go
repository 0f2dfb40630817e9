package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

// matcher is one watch as dispatch matches changes against it.
type matcher struct {
	w     stored
	kinds map[energy.ChangeKind]bool // nil: all
	areas map[string][]func(string) bool
}

// Dispatch makes the deliveries of the energy dataset version ds's new
// changes (its CHGNEW items) to every watch whose areas hold them and
// whose kinds include them, in batches of MaxBatch, each pending and due
// at now, then records the version as dispatched. It does nothing for a
// version dispatched before, and making a delivery twice is a no-op (its
// key is the watch, the version and the batch), so a dispatch cut short
// is simply run again. Memory: the watches' areas, one store page of
// changes and one pending batch per watch.
func Dispatch(ctx context.Context, s *Store, ds kv.Dataset, now time.Time) (made int, err error) {
	refs, ok, err := Prepare(ctx, s, ds, now)
	if err != nil || !ok {
		return 0, err
	}
	for _, r := range refs {
		if err := s.enqueue(ctx, r); err != nil {
			return 0, err
		}
	}
	return len(refs), s.MarkDispatched(ctx, int64(ds.Version))
}

// Ref names a delivery: its watch and its key among the watch's.
type Ref struct {
	WatchID string `json:"watch_id"`
	Key     string `json:"delivery_key"`
}

// Prepare makes the deliveries of ds's new changes, as Dispatch does,
// but neither queues them nor records the version as dispatched: on AWS
// the caller sends one queue message per Ref, then calls MarkDispatched.
// ok is false for a version dispatched before. The deliveries of a
// version prepared twice are the same ones, still pending or done.
func Prepare(ctx context.Context, s *Store, ds kv.Dataset, now time.Time) (refs []Ref, ok bool, err error) {
	v := int64(ds.Version)
	last, err := s.Dispatched(ctx)
	if err != nil || v <= last {
		return nil, false, err
	}
	watches, err := s.all(ctx)
	if err != nil {
		return nil, false, err
	}
	byTownship := map[string][]*matcher{}
	for _, w := range watches {
		m := &matcher{w: w, areas: map[string][]func(string) bool{}}
		if len(w.Kinds) > 0 {
			m.kinds = map[energy.ChangeKind]bool{}
			for _, k := range w.Kinds {
				m.kinds[k] = true
			}
		}
		for _, a := range w.Areas {
			l, err := lld.Parse(a)
			if err != nil {
				continue // validated when the watch was made
			}
			twp := energy.ChangesKey(l)
			if len(m.areas[twp]) == 0 {
				byTownship[twp] = append(byTownship[twp], m)
			}
			m.areas[twp] = append(m.areas[twp], energy.AreaContains(l))
		}
	}
	pending := map[string][]energy.Change{} // by watch id
	batches := map[string]int{}
	flush := func(id string) error {
		cs := pending[id]
		if len(cs) == 0 {
			return nil
		}
		batches[id]++
		pending[id] = nil
		r, err := s.create(ctx, id, v, batches[id], cs, now)
		if err != nil {
			return err
		}
		if r != nil {
			refs = append(refs, *r)
		}
		return nil
	}
	err = ds.Each(ctx, kv.Query{PK: energy.PKChangesNew}, func(it kv.Item) error {
		var c energy.Change
		if err := json.Unmarshal(it.Data, &c); err != nil {
			return fmt.Errorf("watch: change %s: %w", it.SK, err)
		}
		l, err := lld.Parse(c.LegalLocation)
		if err != nil {
			return nil
		}
		twp := energy.ChangesKey(l)
		for _, m := range byTownship[twp] {
			if m.kinds != nil && !m.kinds[c.Kind] {
				continue
			}
			if !slices.ContainsFunc(m.areas[twp], func(in func(string) bool) bool { return in(c.LegalLocation) }) {
				continue
			}
			pending[m.w.ID] = append(pending[m.w.ID], c)
			if len(pending[m.w.ID]) == MaxBatch {
				if err := flush(m.w.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	for _, w := range watches {
		if err := flush(w.ID); err != nil {
			return nil, false, err
		}
	}
	return refs, true, nil
}

// create makes delivery batch of version v for watch id, unless it
// exists, and returns its Ref while it is pending.
func (s *Store) create(ctx context.Context, watchID string, v int64, batch int, cs []energy.Change, now time.Time) (*Ref, error) {
	sk := deliverySK(v, batch)
	d, ok, err := s.getDelivery(ctx, watchID, sk)
	if err != nil {
		return nil, err
	}
	if !ok {
		id := fmt.Sprintf("dlv_%s_v%d_%d", watchID, v, batch)
		body, err := json.Marshal(Payload{DeliveryID: id, WatchID: watchID, Version: cs[0].Version, AsOf: cs[0].AsOf, Changes: cs})
		if err != nil {
			return nil, err
		}
		d = Delivery{ID: id, WatchID: watchID, Version: v, Changes: len(cs), State: Pending, Attempts: []Attempt{},
			NextAttempt: now.UTC().Format(time.RFC3339Nano), CreatedAt: now.UTC().Format(time.RFC3339), Body: body}
		if err := s.putDelivery(ctx, sk, d); err != nil {
			return nil, err
		}
	}
	if d.State != Pending {
		return nil, nil
	}
	return &Ref{WatchID: watchID, Key: sk}, nil
}

// enqueue puts a pending delivery in the local outbox at its next
// attempt. Put again on a dispatch run twice: a cut between the delivery
// and its outbox entry leaves it pending without one.
func (s *Store) enqueue(ctx context.Context, r Ref) error {
	d, ok, err := s.getDelivery(ctx, r.WatchID, r.Key)
	if err != nil || !ok {
		return err
	}
	at, err := time.Parse(time.RFC3339Nano, d.NextAttempt)
	if err != nil {
		return err
	}
	return s.kv.Put(ctx, []kv.Item{{PK: pkOutbox, SK: outboxSK(at, r.WatchID, r.Key), Data: []byte("{}")}})
}
