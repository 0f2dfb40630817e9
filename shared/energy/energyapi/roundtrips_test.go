package energyapi_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	demodata "meridian/shared/demo"
	"meridian/shared/kv"
)

// countingStore counts the reads that would each be one DynamoDB round
// trip.
type countingStore struct {
	kv.Store
	reads atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	s.reads.Add(1)
	return s.Store.Get(ctx, pk, sk)
}

func (s *countingStore) Query(ctx context.Context, q kv.Query) (kv.Page, error) {
	s.reads.Add(1)
	return s.Store.Query(ctx, q)
}

// A full energy report reads the dataset pointer and the LSD's partition:
// two round trips on DynamoDB (it made eight, one per section plus the
// roll-up, the dominant operator's name and the sources). The sources are
// read once per dataset version.
func TestReportRoundTrips(t *testing.T) {
	t.Parallel()
	store := &countingStore{Store: demo(t)}
	h := mux(store, demodata.AsOf())
	path := "/energy/report?legal_location=" + lsd
	first := mustOK(t, h, path)
	n1 := store.reads.Swap(0)
	second := mustOK(t, h, path)
	n2 := store.reads.Load()
	if n2 != 2 || n1 != 3 {
		t.Errorf("reads per full report: first %d (want 3: pointer, LSD partition, sources), then %d (want 2)", n1, n2)
	}
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	if string(a) != string(b) {
		t.Error("the second report differs from the first")
	}
	if at(second, "summary", "operators", "dominant", "name") == "" {
		t.Error("the dominant operator has no name without its INFO read")
	}
}
