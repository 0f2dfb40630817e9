package kv_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"meridian/shared/kv"
)

func TestDatasetScanKeys(t *testing.T) {
	ctx := context.Background()
	s := kv.NewMem()
	publish := func(pks ...string) {
		t.Helper()
		_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "energy", Source: "test"}, func(w *kv.Writer) error {
			for _, pk := range pks {
				if err := w.Put(pk, "A", 1); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	publish("LSD#1", "LSD#2", "OP#X")
	publish("LSD#3", "LSD#4", "OP#Y") // the old version stays in the store
	ds, ok, err := kv.Open(ctx, s, "energy")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	var got []string
	if err := ds.ScanKeys(ctx, "LSD#", func(keys []kv.Key) error {
		for _, k := range keys {
			got = append(got, k.PK)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"LSD#3", "LSD#4"}; !slices.Equal(got, want) {
		t.Errorf("ScanKeys(LSD#) = %q, want the served version's %q, un-namespaced", got, want)
	}
	if err := (kv.Dataset{}).ScanKeys(ctx, "", func([]kv.Key) error { return nil }); err == nil {
		t.Error("ScanKeys of an unopened Dataset: no error")
	}
}

// Each hands over every item of a query spanning several pages, in order,
// un-namespaced, and stops at fn's first error.
func TestDatasetEach(t *testing.T) {
	ctx := context.Background()
	s := kv.NewMem()
	n := kv.MaxLimit*2 + 7
	_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "energy", Source: "test"}, func(w *kv.Writer) error {
		for i := range n {
			if err := w.Put("LSD#1", fmt.Sprintf("S%05d", i), i); err != nil {
				return err
			}
		}
		return w.Put("LSD#2", "S", 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	ds, ok, err := kv.Open(ctx, s, "energy")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	var got []string
	err = ds.Each(ctx, kv.Query{PK: "LSD#1", Limit: 3}, func(it kv.Item) error {
		if it.PK != "LSD#1" {
			t.Fatalf("item of %q", it.PK)
		}
		got = append(got, it.SK)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || !slices.IsSorted(got) || got[0] != "S00000" {
		t.Fatalf("Each gave %d items (sorted %v), want %d in SK order", len(got), slices.IsSorted(got), n)
	}
	stop := errors.New("stop")
	calls := 0
	err = ds.Each(ctx, kv.Query{PK: "LSD#1"}, func(kv.Item) error {
		if calls++; calls == kv.MaxLimit+1 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != kv.MaxLimit+1 {
		t.Errorf("Each after fn's error: err %v, %d calls; want stop after %d", err, calls, kv.MaxLimit+1)
	}
}
