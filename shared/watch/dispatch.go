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
	v := int64(ds.Version)
	last, err := s.Dispatched(ctx)
	if err != nil || v <= last {
		return 0, err
	}
	watches, err := s.all(ctx)
	if err != nil {
		return 0, err
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
		if err := s.create(ctx, id, v, batches[id], cs, now); err != nil {
			return err
		}
		made++
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
		return made, err
	}
	for _, w := range watches {
		if err := flush(w.ID); err != nil {
			return made, err
		}
	}
	return made, s.MarkDispatched(ctx, v)
}

// create makes delivery batch of version v for watch id, unless it exists,
// and puts it in the outbox while it is pending.
func (s *Store) create(ctx context.Context, watchID string, v int64, batch int, cs []energy.Change, now time.Time) error {
	sk := deliverySK(v, batch)
	d, ok, err := s.getDelivery(ctx, watchID, sk)
	if err != nil {
		return err
	}
	if !ok {
		id := fmt.Sprintf("dlv_%s_v%d_%d", watchID, v, batch)
		body, err := json.Marshal(Payload{DeliveryID: id, WatchID: watchID, Version: cs[0].Version, AsOf: cs[0].AsOf, Changes: cs})
		if err != nil {
			return err
		}
		d = Delivery{ID: id, WatchID: watchID, Version: v, Changes: len(cs), State: Pending, Attempts: []Attempt{},
			NextAttempt: now.UTC().Format(time.RFC3339Nano), CreatedAt: now.UTC().Format(time.RFC3339), Body: body}
		if err := s.putDelivery(ctx, sk, d); err != nil {
			return err
		}
	}
	if d.State != Pending {
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, d.NextAttempt)
	if err != nil {
		return err
	}
	// Put again on a dispatch run twice: a cut between the delivery and
	// its outbox entry leaves it pending without one.
	return s.kv.Put(ctx, []kv.Item{{PK: pkOutbox, SK: outboxSK(at, watchID, sk), Data: []byte("{}")}})
}
