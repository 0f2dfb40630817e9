package kv_test

import (
	"context"
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
