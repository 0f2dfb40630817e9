package kvtest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/kv"
)

func testDatasets(t *testing.T, s kv.Store) {
	ctx := t.Context()
	if ds, err := kv.Datasets(ctx, s); err != nil || len(ds) != 0 {
		t.Errorf("Datasets of an empty store = %v, %v", ds, err)
	}
	day := time.Date(2026, 10, 31, 0, 0, 0, 0, time.UTC)
	infos := []kv.DatasetInfo{
		{Name: "sk-wells", Source: "Saskatchewan Ministry of Energy and Resources, well list", FileDate: day, Counts: map[string]int{"wells": 3}},
		{Name: "ab-wells", Source: "Alberta Energy Regulator, ST37", FileDate: day.AddDate(0, -1, 0), Demo: true, Counts: map[string]int{"wells": 2, "licences": 2}},
		{Name: "ab-crops", Source: "AFSC", Demo: true},
	}
	start := time.Now().Add(-time.Minute)
	for _, info := range infos {
		if _, err := kv.Publish(ctx, s, info, writeRecords(1, 2, "P")); err != nil {
			t.Fatalf("Publish(%s): %v", info.Name, err)
		}
	}
	if _, err := kv.Publish(ctx, s, infos[0], writeRecords(2, 1, "P")); err != nil {
		t.Fatalf("Publish(%s) again: %v", infos[0].Name, err)
	}
	ds, err := kv.Datasets(ctx, s)
	if err != nil {
		t.Fatalf("Datasets: %v", err)
	}
	var got []kv.DatasetInfo
	for _, d := range ds {
		got = append(got, d.Info)
		wantV, wantItems := kv.Version(1), 2
		if d.Info.Name == "sk-wells" {
			wantV, wantItems = 2, 1
		}
		if d.Version != wantV || d.Items != wantItems || d.Published.Before(start) {
			t.Errorf("Datasets: %s version %d, %d items, published %v; want version %d, %d items, just now", d.Info.Name, d.Version, d.Items, d.Published, wantV, wantItems)
		}
	}
	want := []kv.DatasetInfo{infos[2], infos[1], infos[0]} // by name
	if diff := cmp.Diff(want, got, itemOpts); diff != "" {
		t.Errorf("Datasets (-want +got):\n%s", diff)
	}
	d := open(t, s, "ab-wells")
	if diff := cmp.Diff(infos[1], d.Info, itemOpts); diff != "" {
		t.Errorf("Open(ab-wells).Info (-want +got):\n%s", diff)
	}
	for _, name := range []string{"", "a@b", "a#b", "a\x00b", "\xff", strings.Repeat("n", kv.MaxDatasetNameBytes+1)} {
		if _, _, err := kv.Open(ctx, s, name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want fs.ErrInvalid", name, err)
		}
		if _, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: name}, writeRecords(1, 1, "P")); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Publish(%q) = %v, want fs.ErrInvalid", name, err)
		}
	}
}

func testDatasetReads(t *testing.T, s kv.Store) {
	ctx := t.Context()
	_, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "crops"}, func(w *kv.Writer) error {
		for _, sk := range []string{"2023#WHEAT", "2024#BARLEY", "2024#CANOLA", "2025#PEAS"} {
			if err := w.PutRaw("QS#NW-1-2-3-W4", sk, []byte(sk)); err != nil {
				return err
			}
		}
		if w.Len() != 4 {
			t.Errorf("Writer.Len = %d, want 4", w.Len())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	d := open(t, s, "crops")
	it, ok, err := d.Get(ctx, "QS#NW-1-2-3-W4", "2024#CANOLA")
	if want := (kv.Item{PK: "QS#NW-1-2-3-W4", SK: "2024#CANOLA", Data: []byte("2024#CANOLA")}); err != nil || !ok || !cmp.Equal(want, it) {
		t.Errorf("Dataset.Get = %+v, %v, %v; want %+v", it, ok, err, want)
	}
	if _, ok, err := d.Get(ctx, "QS#NW-1-2-3-W4", "2024#OATS"); ok || err != nil {
		t.Errorf("Dataset.Get(missing) = %v, %v", ok, err)
	}
	page, err := d.Query(ctx, kv.Query{PK: "QS#NW-1-2-3-W4", SKPrefix: "2024#", Reverse: true, Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Items[0].PK != "QS#NW-1-2-3-W4" || page.Items[0].SK != "2024#CANOLA" || page.Next != "2024#CANOLA" {
		t.Errorf("Dataset.Query = %+v, %v; want 2024#CANOLA and a cursor", page, err)
	}
	page, err = d.Query(ctx, kv.Query{PK: "QS#NW-1-2-3-W4", SKPrefix: "2024#", Reverse: true, Limit: 1, After: page.Next})
	if err != nil || len(page.Items) != 1 || page.Items[0].SK != "2024#BARLEY" || page.Next != "" {
		t.Errorf("Dataset.Query page 2 = %+v, %v; want 2024#BARLEY, the last", page, err)
	}
	if _, err := d.Query(ctx, kv.Query{}); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Dataset.Query without PK = %v, want fs.ErrInvalid", err)
	}
	var zero kv.Dataset
	if _, _, err := zero.Get(ctx, "a", "b"); err == nil {
		t.Errorf("Get on a zero Dataset succeeded")
	}
}

// testConcurrentPublish runs readers while a dataset is republished: each
// read sees one version's items only, and a read with fewer items than a
// version has happens only when that version was replaced meanwhile.
func testConcurrentPublish(t *testing.T, s kv.Store) {
	const n, rounds, readers = 150, 4, 4
	pks := []string{"R#1", "R#2"}
	publish(t, s, "live", 0, n, pks...)
	var done atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			for i := 0; !done.Load() || i < 3; i++ {
				d, ok, err := kv.Open(t.Context(), s, "live")
				if err != nil || !ok {
					t.Errorf("reader %d: Open = %v, %v", r, ok, err)
					return
				}
				pk := pks[i%len(pks)]
				page, err := d.Query(t.Context(), kv.Query{PK: pk})
				if err != nil {
					t.Errorf("reader %d: Query: %v", r, err)
					return
				}
				g := map[int]int{}
				for _, it := range page.Items {
					var rec record
					if err := json.Unmarshal(it.Data, &rec); err != nil {
						t.Errorf("reader %d: %v", r, err)
						return
					}
					g[rec.Gen]++
				}
				if len(g) > 1 {
					t.Errorf("reader %d: one query saw generations %v", r, g)
				}
				if len(page.Items) < n {
					if d2, _, err := kv.Open(t.Context(), s, "live"); err == nil && d2.Version == d.Version {
						t.Errorf("reader %d: version %d, still served, shows %d of %d items in %s", r, d.Version, len(page.Items), n, pk)
					}
				}
				reads.Add(1)
			}
		})
	}
	for gen := 1; gen <= rounds; gen++ {
		publish(t, s, "live", gen, n, pks...)
	}
	done.Store(true)
	wg.Wait()
	checkServes(t, s, "live", rounds, n, pks...)
	t.Logf("%d reads during %d publishes", reads.Load(), rounds)
}
