package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// newLoadBolt opens a fresh Bolt whose loads use lim (zero fields keep
// the defaults).
func newLoadBolt(t testing.TB, lim loadLimits) *Bolt {
	t.Helper()
	b, err := OpenBolt(filepath.Join(t.TempDir(), "reports.db"), BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if lim.budget > 0 {
		b.load.budget = lim.budget
	}
	if lim.txItems > 0 {
		b.load.txItems = lim.txItems
	}
	if lim.txBytes > 0 {
		b.load.txBytes = lim.txBytes
	}
	if lim.fanIn > 0 {
		b.load.fanIn = lim.fanIn
	}
	b.load.hook = lim.hook
	return b
}

// loadStages counts the hook's calls by stage.
type loadStages map[string]int

func (c loadStages) hook(stage string) error { c[stage]++; return nil }

// randomItems returns n items in random key order over about n/dupEvery
// fewer keys than items (dupEvery > 0: every dupEvery-th item rewrites an
// earlier key with new data), and the data each key must hold at the end
// (the last written).
func randomItems(seed uint64, n, dupEvery int) ([]Item, map[string]string) {
	r := rand.New(rand.NewPCG(seed, 0))
	items := make([]Item, 0, n)
	want := map[string]string{}
	for i := range n {
		var it Item
		if dupEvery > 0 && i > 0 && i%dupEvery == 0 {
			it = items[r.IntN(len(items))]
		} else {
			it = Item{PK: fmt.Sprintf("LSD#%06d", r.IntN(n)), SK: fmt.Sprintf("W%08d", r.Uint32())}
		}
		it.Data = fmt.Appendf(nil, `{"i":%d,"pad":%q}`, i, strings.Repeat("x", r.IntN(200)))
		if i%97 == 0 {
			it.Data = nil // empty data survives the runs
		}
		items = append(items, it)
		want[string(boltKey(it.PK, it.SK))] = string(it.Data)
	}
	return items, want
}

// boltContents returns the store's items whose key begins with prefix.
func boltContents(t *testing.T, b *Bolt, prefix string) map[string]string {
	t.Helper()
	got := map[string]string{}
	var prev []byte
	err := b.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketName).Cursor()
		for k, v := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, v = c.Next() {
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				return fmt.Errorf("keys out of order: %q then %q", prev, k)
			}
			prev = bytes.Clone(k)
			got[string(k)] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sortFiles returns the temporary run files left next to the store.
func sortFiles(t *testing.T, b *Bolt) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(b.path), "*.sort-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func publishItems(ctx context.Context, b *Bolt, name string, items []Item) (Version, error) {
	return Publish(ctx, b, DatasetInfo{Name: name}, func(w *Writer) error {
		for _, it := range items {
			if err := w.PutRaw(it.PK, it.SK, it.Data); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestBoltLoad publishes items in random order with rewritten keys through
// the sorted load, with the arena alone, with several runs, and with more
// runs than a merge takes at once, and checks the store holds exactly the
// last write of every key, in key order, over several transactions.
func TestBoltLoad(t *testing.T) {
	t.Parallel()
	items, want := randomItems(1, 20_000, 7)
	tests := []struct {
		name      string
		lim       loadLimits
		minSpills int
	}{
		{"arena only", loadLimits{txItems: 3000}, 0},
		{"runs", loadLimits{budget: 64 << 10, txItems: 3000}, 20},
		{"merge passes", loadLimits{budget: 16 << 10, txItems: 3000, fanIn: 3}, 100},
		{"fan-in 2", loadLimits{budget: 100 << 10, txItems: 3000, fanIn: 2}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stages := loadStages{}
			tc.lim.hook = stages.hook
			b := newLoadBolt(t, tc.lim)
			v, err := publishItems(t.Context(), b, "wells", items)
			if err != nil {
				t.Fatal(err)
			}
			prefix := versionPrefix("wells", v)
			got := boltContents(t, b, prefix)
			wantV := map[string]string{}
			for k, d := range want {
				wantV[prefix+k] = d
			}
			if len(got) != len(wantV) {
				t.Errorf("store holds %d items, want %d (distinct keys of %d puts)", len(got), len(wantV), len(items))
			}
			bad := 0
			for k, d := range wantV {
				if g, ok := got[k]; !ok || g != d {
					if bad++; bad <= 3 {
						t.Errorf("item %q = %q (present %v), want %q", k, g, ok, d)
					}
				}
			}
			if stages["spill"] < tc.minSpills {
				t.Errorf("%d runs spilled, want at least %d: the test does not exercise the merge", stages["spill"], tc.minSpills)
			}
			if min := len(wantV) / tc.lim.txItems; stages["commit"] < min {
				t.Errorf("%d transactions, want at least %d", stages["commit"], min)
			}
			if f := sortFiles(t, b); len(f) > 0 {
				t.Errorf("temporary files left: %v", f)
			}
			d, ok, err := Open(t.Context(), b, "wells")
			if err != nil || !ok || d.Items != len(items) {
				t.Errorf("Open = %+v, %v, %v; want %d items written", d, ok, err, len(items))
			}
		})
	}
}

// TestBoltLoadLastWriteWins writes one key many times, across runs and
// within one, and reads the last.
func TestBoltLoadLastWriteWins(t *testing.T) {
	t.Parallel()
	b := newLoadBolt(t, loadLimits{budget: 256})
	var items []Item
	for i := range 100 {
		items = append(items, Item{PK: "LSD#1", SK: "W", Data: fmt.Appendf(nil, "%03d", i)})
		items = append(items, Item{PK: fmt.Sprintf("LSD#%d", 100-i), SK: "X", Data: []byte("filler")})
		if i%10 == 0 {
			// Twice within a few bytes: the same run.
			items = append(items, Item{PK: "LSD#1", SK: "W", Data: fmt.Appendf(nil, "%03d", i)})
		}
	}
	items = append(items, Item{PK: "LSD#1", SK: "W", Data: []byte("last")})
	v, err := publishItems(t.Context(), b, "wells", items)
	if err != nil {
		t.Fatal(err)
	}
	d := Dataset{s: b, Version: v, prefix: versionPrefix("wells", v)}
	it, ok, err := d.Get(t.Context(), "LSD#1", "W")
	if err != nil || !ok || string(it.Data) != "last" {
		t.Errorf("Get(LSD#1, W) = %q, %v, %v; want the last write", it.Data, ok, err)
	}
}

// TestBoltLoadEmpty: a version with no items is published, and no file is
// left.
func TestBoltLoadEmpty(t *testing.T) {
	t.Parallel()
	b := newLoadBolt(t, loadLimits{budget: 1024})
	v, err := publishItems(t.Context(), b, "wells", nil)
	if err != nil || v != 1 {
		t.Fatalf("Publish(no items) = %d, %v; want version 1", v, err)
	}
	if got := boltContents(t, b, versionPrefix("wells", v)); len(got) != 0 {
		t.Errorf("store holds %d items of an empty version", len(got))
	}
	if f := sortFiles(t, b); len(f) > 0 {
		t.Errorf("temporary files left: %v", f)
	}
}

// publishFirst publishes a first version of "wells" to keep served.
func publishFirst(t *testing.T, b *Bolt) Version {
	t.Helper()
	v, err := publishItems(t.Context(), b, "wells", []Item{{PK: "LSD#1", SK: "W", Data: []byte("v1")}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkFailedLoad checks that a failed Publish left the first version
// served, nothing of the failed version, and no temporary file.
func checkFailedLoad(t *testing.T, b *Bolt, first Version) {
	t.Helper()
	d, ok, err := Open(t.Context(), b, "wells")
	if err != nil || !ok || d.Version != first {
		t.Errorf("after a failed Publish, Open = version %d, %v, %v; want %d", d.Version, ok, err, first)
	}
	if got := boltContents(t, b, versionPrefix("wells", first+1)); len(got) != 0 {
		t.Errorf("the failed version left %d items", len(got))
	}
	if got := boltContents(t, b, versionPrefix("wells", first)); len(got) != 1 {
		t.Errorf("the served version holds %d items, want 1", len(got))
	}
	if f := sortFiles(t, b); len(f) > 0 {
		t.Errorf("temporary files left: %v", f)
	}
}

// TestBoltLoadAbort: a write that fails after runs were spilled drops
// them all.
func TestBoltLoadAbort(t *testing.T) {
	t.Parallel()
	stages := loadStages{}
	b := newLoadBolt(t, loadLimits{budget: 8 << 10, hook: stages.hook})
	first := publishFirst(t, b)
	clear(stages)
	items, _ := randomItems(2, 5000, 0)
	boom := errors.New("bad row")
	_, err := Publish(t.Context(), b, DatasetInfo{Name: "wells"}, func(w *Writer) error {
		for _, it := range items {
			if err := w.PutRaw(it.PK, it.SK, it.Data); err != nil {
				return err
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Publish = %v, want the write's error", err)
	}
	if stages["spill"] < 2 {
		t.Errorf("%d runs spilled before the abort, want several", stages["spill"])
	}
	if stages["commit"] != 0 {
		t.Errorf("%d transactions after an abort, want none", stages["commit"])
	}
	checkFailedLoad(t, b, first)
}

// TestBoltLoadStoreError: a transaction failing mid-merge, after others
// were committed, fails the Publish, which deletes what was written.
func TestBoltLoadStoreError(t *testing.T) {
	t.Parallel()
	commits := 0
	storeDown := errors.New("disk full")
	b := newLoadBolt(t, loadLimits{budget: 16 << 10, txItems: 500, hook: func(stage string) error {
		if stage == "commit" {
			if commits++; commits == 4 {
				return storeDown
			}
		}
		return nil
	}})
	first := publishFirst(t, b)
	commits = 0
	items, _ := randomItems(3, 5000, 0)
	_, err := publishItems(t.Context(), b, "wells", items)
	if !errors.Is(err, storeDown) {
		t.Errorf("Publish = %v, want the store's error", err)
	}
	if commits != 4 {
		t.Errorf("%d commits tried, want 3 then the failing one", commits)
	}
	checkFailedLoad(t, b, first)
}

// TestBoltLoadCanceled: a context canceled while items are put, or
// before the merge, fails the Publish with context.Canceled.
func TestBoltLoadCanceled(t *testing.T) {
	t.Parallel()
	items, _ := randomItems(4, 5000, 0)
	for _, at := range []int{2500, len(items)} {
		t.Run(fmt.Sprint("after ", at), func(t *testing.T) {
			t.Parallel()
			b := newLoadBolt(t, loadLimits{budget: 16 << 10})
			first := publishFirst(t, b)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			_, err := Publish(ctx, b, DatasetInfo{Name: "wells"}, func(w *Writer) error {
				for i, it := range items {
					if i == at {
						cancel()
					}
					if err := w.PutRaw(it.PK, it.SK, it.Data); err != nil {
						return err
					}
				}
				if at == len(items) {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Publish = %v, want context.Canceled", err)
			}
			checkFailedLoad(t, b, first)
		})
	}
}

// TestBoltLoadCorruptRun: a run file that reads short is an error, not a
// panic or a silent loss.
func TestBoltLoadCorruptRun(t *testing.T) {
	t.Parallel()
	b := newLoadBolt(t, loadLimits{budget: 4 << 10})
	first := publishFirst(t, b)
	items, _ := randomItems(5, 2000, 0)
	_, err := Publish(t.Context(), b, DatasetInfo{Name: "wells"}, func(w *Writer) error {
		for _, it := range items {
			if err := w.PutRaw(it.PK, it.SK, it.Data); err != nil {
				return err
			}
		}
		// Cut the runs file short behind the load's back.
		files := sortFiles(t, b)
		if len(files) != 1 {
			return fmt.Errorf("%d run files, want 1", len(files))
		}
		return os.Truncate(files[0], 1000)
	})
	if err == nil || !strings.Contains(err.Error(), "read run") {
		t.Errorf("Publish over a truncated run file = %v, want a read error", err)
	}
	checkFailedLoad(t, b, first)
}

// TestBoltLoadRunCutAtRecord: a run that ends early at a record boundary
// (the file shorter than the load wrote) is an error: a run must read to
// its length.
func TestBoltLoadRunCutAtRecord(t *testing.T) {
	t.Parallel()
	b := newLoadBolt(t, loadLimits{budget: 4 << 10})
	l := b.PutStream(t.Context()).(*boltLoad)
	items, _ := randomItems(6, 2000, 0)
	for _, it := range items {
		if err := l.Put(it); err != nil {
			t.Fatal(err)
		}
	}
	if len(l.runs) < 3 {
		t.Fatalf("%d runs, want several", len(l.runs))
	}
	// The last run is at the end of the file: claim more bytes than it has.
	l.runs[len(l.runs)-1].n += 100
	err := l.Close(false)
	if err == nil || !strings.Contains(err.Error(), "read run") {
		t.Errorf("close over a run that ends early = %v, want a read error", err)
	}
	if f := sortFiles(t, b); len(f) > 0 {
		t.Errorf("temporary files left: %v", f)
	}
}

// TestBoltScanKeysSkipping: the keys of skipped prefixes are left out
// (energy@1# is skipped, energy@10# is not), across batches.
func TestBoltScanKeysSkipping(t *testing.T) {
	t.Parallel()
	b := newLoadBolt(t, loadLimits{})
	var items []Item
	for _, pk := range []string{"energy@1#LSD#a", "energy@10#LSD#a", "energy@2#LSD#b", "energy@3#OP#c", "other@1#x"} {
		for i := range 1500 { // more than a scan batch
			items = append(items, Item{PK: pk, SK: fmt.Sprintf("%05d", i)})
		}
	}
	if err := b.Put(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	err := b.scanKeysSkipping(t.Context(), "energy@", []string{"energy@1#", "energy@3#"}, func(keys []Key) error {
		for _, k := range keys {
			got[k.PK]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"energy@10#LSD#a": 1500, "energy@2#LSD#b": 1500}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("keys scanned by PK = %v, want %v", got, want)
	}
}
