package kvtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/apierr"
	"meridian/shared/kv"
)

// record is the JSON of the items the Publish tests write.
type record struct {
	Name string `json:"name"`
	Gen  int    `json:"gen"`
}

// publish publishes dataset name with n items per partition in the
// partitions pks, all of generation gen.
func publish(t *testing.T, s kv.Store, name string, gen, n int, pks ...string) kv.Version {
	t.Helper()
	v, err := kv.Publish(t.Context(), s, kv.DatasetInfo{Name: name, Source: "test"}, writeRecords(gen, n, pks...))
	if err != nil {
		t.Fatalf("Publish(%s, gen %d): %v", name, gen, err)
	}
	return v
}

func writeRecords(gen, n int, pks ...string) func(w *kv.Writer) error {
	return func(w *kv.Writer) error {
		for _, pk := range pks {
			for i := range n {
				if err := w.Put(pk, fmt.Sprintf("%05d", i), record{Name: pk, Gen: gen}); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func open(t *testing.T, s kv.Store, name string) kv.Dataset {
	t.Helper()
	d, ok, err := kv.Open(t.Context(), s, name)
	if err != nil || !ok {
		t.Fatalf("Open(%s) = _, %v, %v", name, ok, err)
	}
	return d
}

// gens returns the generations of the items of d in pk, and how many.
func gens(t *testing.T, d kv.Dataset, pk string) (map[int]int, int) {
	t.Helper()
	out := map[int]int{}
	n := 0
	q := kv.Query{PK: pk}
	for {
		page, err := d.Query(t.Context(), q)
		if err != nil {
			t.Fatalf("Dataset.Query(%s): %v", pk, err)
		}
		for _, it := range page.Items {
			var r record
			if err := json.Unmarshal(it.Data, &r); err != nil || it.PK != pk || r.Name != pk {
				t.Fatalf("Dataset.Query(%s) item %+v: %v", pk, it, err)
			}
			out[r.Gen]++
			n++
		}
		if page.Next == "" {
			return out, n
		}
		q.After = page.Next
	}
}

// versionKeys counts the stored items of a dataset by version prefix.
func versionKeys(t *testing.T, s kv.Store, name string) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := s.ScanKeys(t.Context(), name+"@", func(keys []kv.Key) error {
		for _, k := range keys {
			out[k.PK[:strings.IndexByte(k.PK, '#')+1]]++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("ScanKeys(%s@): %v", name, err)
	}
	return out
}

func testPublishVisibleOnCommit(t *testing.T, s kv.Store) {
	ctx := t.Context()
	if _, ok, err := kv.Open(ctx, s, "wells"); ok || err != nil {
		t.Fatalf("Open before any Publish = %v, %v; want not found", ok, err)
	}
	if v := publish(t, s, "wells", 1, 1200, "LSD#1", "OP#X"); v != 1 {
		t.Errorf("first Publish = version %d, want 1", v)
	}
	v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
		if err := writeRecords(2, 1200, "LSD#1", "OP#X", "NEW")(w); err != nil {
			return err
		}
		// Everything is written (more than one buffer's worth has reached
		// the store), and readers still see version 1 only.
		d := open(t, s, "wells")
		if d.Version != 1 {
			t.Errorf("Open during Publish = version %d, want 1", d.Version)
		}
		for _, pk := range []string{"LSD#1", "OP#X"} {
			if g, n := gens(t, d, pk); n != 1200 || g[1] != 1200 {
				t.Errorf("during Publish, %s holds generations %v (%d items), want 1200 of 1", pk, g, n)
			}
		}
		if _, n := gens(t, d, "NEW"); n != 0 {
			t.Errorf("during Publish, a partition of the new version is visible (%d items)", n)
		}
		if ds, err := kv.Datasets(ctx, s); err != nil || len(ds) != 1 || ds[0].Version != 1 {
			t.Errorf("Datasets during Publish = %+v, %v; want version 1", ds, err)
		}
		return nil
	})
	if err != nil || v != 2 {
		t.Fatalf("second Publish = %d, %v; want version 2", v, err)
	}
	d := open(t, s, "wells")
	for _, pk := range []string{"LSD#1", "OP#X", "NEW"} {
		if g, n := gens(t, d, pk); d.Version != 2 || n != 1200 || g[2] != 1200 {
			t.Errorf("after Publish, version %d, %s holds generations %v (%d items), want 1200 of 2", d.Version, pk, g, n)
		}
	}
	if d.Items != 3600 {
		t.Errorf("Dataset.Items = %d, want 3600", d.Items)
	}
}

func testPublishFailingWrite(t *testing.T, s kv.Store) {
	ctx := t.Context()
	publish(t, s, "wells", 1, 10, "A", "B")
	errBoom := errors.New("bad line 12")
	for _, n := range []int{0, 5, 2500} { // nothing written, buffered only, flushed
		v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
			if err := writeRecords(9, n, "A", "C")(w); err != nil {
				return err
			}
			return errBoom
		})
		if !errors.Is(err, errBoom) || v != 0 {
			t.Errorf("Publish with a failing write (%d items) = %d, %v; want 0 and the write's error", n, v, err)
		}
		checkServes(t, s, "wells", 1, 10, "A", "B")
	}
	// A later Publish works and its version is above the failed ones'.
	v := publish(t, s, "wells", 2, 3, "A")
	if v <= 1 {
		t.Errorf("Publish after failures = version %d, want above 1", v)
	}
	if got := versionKeys(t, s, "wells"); len(got) != 2 || got[fmt.Sprintf("wells@%d#", v)] != 3 || got["wells@1#"] != 20 {
		t.Errorf("stored versions after a successful Publish = %v, want %d and the one it replaced, 1 (no failed version's leftovers)", got, v)
	}
	// Invalid keys and values are the callback's errors.
	v, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells"}, func(w *kv.Writer) error {
		if err := w.Put("", "sk", 1); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Writer.Put with an empty PK = %v, want fs.ErrInvalid", err)
		}
		return w.Put("A", "sk", func() {})
	})
	if err == nil || v != 0 {
		t.Errorf("Publish of an unencodable value = %d, %v; want an error", v, err)
	}
	checkServes(t, s, "wells", 2, 3, "A")
}

// checkServes checks that dataset name serves a version with n items of
// generation gen in each of pks, and that no other version's items remain
// but those of the version it replaced.
func checkServes(t *testing.T, s kv.Store, name string, gen, n int, pks ...string) {
	t.Helper()
	d := open(t, s, name)
	for _, pk := range pks {
		if g, got := gens(t, d, pk); got != n || g[gen] != n {
			t.Errorf("%s version %d serves %s: generations %v (%d items); want %d of %d", name, d.Version, pk, g, got, n, gen)
		}
	}
	// Besides the served version, the one it replaced may remain (whole;
	// testPublishDeletesOld checks it), never more.
	served := fmt.Sprintf("%s@%d#", name, d.Version)
	got := versionKeys(t, s, name)
	others := 0
	for prefix := range got {
		var v kv.Version
		if prefix != served {
			others++
			if _, err := fmt.Sscanf(strings.TrimPrefix(prefix, name+"@"), "%d#", &v); err != nil || v >= d.Version {
				t.Errorf("stored items of %s: version %s is not older than the one served (%d)", name, prefix, d.Version)
			}
		}
	}
	if got[served] != n*len(pks) || others > 1 {
		t.Errorf("stored items of %s by version = %v, want %d under %s and at most the version it replaced", name, got, n*len(pks), served)
	}
}

// faultStore makes a Store fail writes: Put of dataset items after
// okPuts calls, or of the dataset pointer.
type faultStore struct {
	kv.Store
	okPuts      int64
	puts        atomic.Int64
	failPointer bool
	applyFirst  bool // write the pointer, then report a failure
	applyFalse  bool // with applyFirst: report a failed condition instead of an error
}

var errInjected = errors.New("kvtest: injected failure")

func (f *faultStore) Put(ctx context.Context, items []kv.Item) error {
	injected := apierr.Unavailablef(fmt.Errorf("%w: %w", kv.ErrUnavailable, errInjected), "unavailable")
	if len(items) == 1 && items[0].PK == kv.DatasetPK && f.failPointer {
		if f.applyFirst {
			if err := f.Store.Put(ctx, items); err != nil {
				return err
			}
		}
		return injected
	}
	if len(items) > 0 && strings.Contains(items[0].PK, "@") && f.puts.Add(1) > f.okPuts {
		return injected
	}
	return f.Store.Put(ctx, items)
}

// Swap fails the dataset pointer's flip (after applying it when
// applyFirst is set), as Put does.
func (f *faultStore) Swap(ctx context.Context, item kv.Item, expect []byte) (bool, error) {
	if item.PK == kv.DatasetPK && f.failPointer {
		if f.applyFirst {
			if _, err := f.Store.Swap(ctx, item, expect); err != nil {
				return false, err
			}
			if f.applyFalse {
				// An SDK retry of an attempt the server applied: the
				// retry's condition fails against its own write.
				return false, nil
			}
		}
		return false, apierr.Unavailablef(fmt.Errorf("%w: %w", kv.ErrUnavailable, errInjected), "unavailable")
	}
	return f.Store.Swap(ctx, item, expect)
}

func testPublishStoreFailure(t *testing.T, s kv.Store) {
	ctx := t.Context()
	publish(t, s, "leases", 1, 20, "A", "B")
	for _, f := range []*faultStore{
		{Store: s, okPuts: 0},
		{Store: s, okPuts: 2},
		{Store: s, okPuts: 1 << 40, failPointer: true},
	} {
		v, err := kv.Publish(ctx, f, kv.DatasetInfo{Name: "leases"}, writeRecords(2, 1500, "A", "C"))
		if e := apierr.As(err); v != 0 || !errors.Is(err, errInjected) || e == nil || e.Kind != apierr.Unavailable {
			t.Errorf("Publish with a store failing (okPuts %d, pointer %v) = %d, %v; want 0 and an Unavailable error", f.okPuts, f.failPointer, v, err)
		}
		checkServes(t, s, "leases", 1, 20, "A", "B")
	}
	// A store error the callback ignores still fails the Publish.
	f := &faultStore{Store: s, okPuts: 1}
	v, err := kv.Publish(ctx, f, kv.DatasetInfo{Name: "leases"}, func(w *kv.Writer) error {
		for i := range 3000 {
			w.Put("A", fmt.Sprintf("%05d", i), record{Name: "A", Gen: 3})
		}
		return nil
	})
	if v != 0 || !errors.Is(err, errInjected) {
		t.Errorf("Publish whose callback ignored a store error = %d, %v; want 0 and the error", v, err)
	}
	checkServes(t, s, "leases", 1, 20, "A", "B")
}

// testPublishPointerAmbiguous: the pointer write reports a failure, or a
// failed condition, but happened (a timeout after the server applied it,
// an SDK retry whose condition fails against its own first attempt). The
// new version is served, so its items must stay.
func testPublishPointerAmbiguous(t *testing.T, s kv.Store) {
	publish(t, s, "leases", 1, 20, "A")
	f := &faultStore{Store: s, okPuts: 1 << 40, failPointer: true, applyFirst: true}
	v, err := kv.Publish(t.Context(), f, kv.DatasetInfo{Name: "leases"}, writeRecords(2, 30, "A"))
	if err != nil || v != 2 {
		t.Errorf("Publish whose pointer write failed after applying = %d, %v; want version 2", v, err)
	}
	checkServes(t, s, "leases", 2, 30, "A")
	f.applyFalse = true
	v, err = kv.Publish(t.Context(), f, kv.DatasetInfo{Name: "leases"}, writeRecords(3, 35, "A"))
	if err != nil || v != 3 {
		t.Errorf("Publish whose pointer swap reported a failed condition after applying = %d, %v; want version 3", v, err)
	}
	checkServes(t, s, "leases", 3, 35, "A")
}

// visible returns every item a reader of dataset name sees in pks.
func visible(t *testing.T, s kv.Store, name string, pks ...string) []kv.Item {
	t.Helper()
	d := open(t, s, name)
	var out []kv.Item
	for _, pk := range pks {
		q := kv.Query{PK: pk}
		for {
			page, err := d.Query(t.Context(), q)
			if err != nil {
				t.Fatalf("Dataset.Query(%s): %v", pk, err)
			}
			out = append(out, page.Items...)
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	return out
}

func testPublishIdempotent(t *testing.T, s kv.Store) {
	info := kv.DatasetInfo{Name: "dispositions", Source: "AEP", Demo: true, Counts: map[string]int{"dispositions": 900}}
	var versions []kv.Version
	var seen [][]kv.Item
	for range 3 {
		v, err := kv.Publish(t.Context(), s, info, writeRecords(1, 300, "DISP#1", "DISP#2", "EXP#2025"))
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
		versions = append(versions, v)
		seen = append(seen, visible(t, s, "dispositions", "DISP#1", "DISP#2", "EXP#2025"))
	}
	if !slices.Equal(versions, []kv.Version{1, 2, 3}) {
		t.Errorf("versions of three Publish calls = %v, want [1 2 3]", versions)
	}
	if len(seen[0]) != 900 {
		t.Errorf("visible items = %d, want 900", len(seen[0]))
	}
	for i := 1; i < len(seen); i++ {
		if diff := cmp.Diff(seen[0], seen[i], itemOpts); diff != "" {
			t.Errorf("visible items after Publish %d differ from the first (-first +now):\n%.2000s", i+1, diff)
		}
	}
	checkServes(t, s, "dispositions", 1, 300, "DISP#1", "DISP#2", "EXP#2025")
}

// Publish keeps the version it replaces, whole, for readers that opened
// it before the flip, and deletes it at the next Publish.
func testPublishDeletesOld(t *testing.T, s kv.Store) {
	publish(t, s, "pipelines", 1, 700, "LIC#1", "LIC#2")
	publish(t, s, "pipelines2", 1, 5, "LIC#1") // a dataset whose name extends the first
	before := open(t, s, "pipelines")          // a reader in flight
	publish(t, s, "pipelines", 2, 3, "LIC#3")
	checkServes(t, s, "pipelines", 2, 3, "LIC#3")
	checkServes(t, s, "pipelines2", 1, 5, "LIC#1")
	if _, n := gens(t, open(t, s, "pipelines"), "LIC#1"); n != 0 {
		t.Errorf("the new version shows %d items only the old one had", n)
	}
	if g, n := gens(t, before, "LIC#1"); n != 700 || g[1] != 700 {
		t.Errorf("a reader of the replaced version finds %d of its 700 items (%v)", n, g)
	}
	middle := open(t, s, "pipelines")
	publish(t, s, "pipelines", 3, 2, "LIC#3")
	if _, n := gens(t, before, "LIC#1"); n != 0 {
		t.Errorf("two versions back: %d items still stored", n)
	}
	if g, n := gens(t, middle, "LIC#3"); n != 3 || g[2] != 3 {
		t.Errorf("the version just replaced: %d items (%v), want its 3", n, g)
	}
	checkServes(t, s, "pipelines", 3, 2, "LIC#3")
	checkServes(t, s, "pipelines2", 1, 5, "LIC#1")
}
