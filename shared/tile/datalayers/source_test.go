package datalayers

import (
	"context"
	"strings"
	"sync"
	"testing"

	"meridian/shared/kv"
)

// readLog records the partitions a store is read under.
type readLog struct {
	kv.Store
	mu  sync.Mutex
	pks []string
}

func (r *readLog) note(pk string) {
	r.mu.Lock()
	r.pks = append(r.pks, pk)
	r.mu.Unlock()
}

func (r *readLog) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	r.note(pk)
	return r.Store.Get(ctx, pk, sk)
}

func (r *readLog) Query(ctx context.Context, q kv.Query) (kv.Page, error) {
	r.note(q.PK)
	return r.Store.Query(ctx, q)
}

func (r *readLog) ScanKeys(ctx context.Context, prefix string, fn func([]kv.Key) error) error {
	r.note(prefix)
	return r.Store.ScanKeys(ctx, prefix, fn)
}

func (r *readLog) ScanItems(ctx context.Context, prefix string, fn func([]kv.Item) error) error {
	r.note(prefix)
	return r.Store.(kv.ItemScanner).ScanItems(ctx, prefix, fn)
}

// A Source reads a domain's data for that domain's layers only: an energy
// archive's build reads nothing of the ag dataset.
func TestSourceReadsOneRegion(t *testing.T) {
	store, svc := demo(t)
	log := &readLog{Store: store}
	s := New(log, svc)
	ctx := context.Background()
	if _, _, err := s.BuildOptions(ctx, layer(t, "og_activity_lsd")); err != nil {
		t.Fatal(err)
	}
	energy, ag := 0, 0
	for _, pk := range log.pks {
		switch {
		case strings.HasPrefix(pk, "ag@"):
			ag++
		case strings.HasPrefix(pk, "energy@"):
			energy++
		}
	}
	if energy == 0 || ag != 0 {
		t.Errorf("an energy layer read %d energy and %d ag partitions", energy, ag)
	}
	log.pks = nil
	if _, _, err := s.BuildOptions(ctx, layer(t, "bc_alr")); err != nil {
		t.Fatal(err)
	}
	for _, pk := range log.pks {
		if strings.HasPrefix(pk, "energy@") {
			t.Errorf("an ag layer read the energy partition %s (already loaded)", pk)
		}
	}
}
