package kv_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/shared/kv"
	"meridian/shared/kv/kvtest"
)

func openBolt(t testing.TB, path string, opts kv.BoltOptions) *kv.Bolt {
	t.Helper()
	s, err := kv.OpenBolt(path, opts)
	if err != nil {
		t.Fatalf("OpenBolt(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestBoltContract(t *testing.T) {
	kvtest.Run(t, func(t *testing.T) kv.Store {
		return openBolt(t, filepath.Join(t.TempDir(), "reports.db"), kv.BoltOptions{})
	})
}

// TestBoltContractSpilling runs the contract with a sort budget of 2 KiB:
// every Publish of more than a few items spills runs and merges them.
func TestBoltContractSpilling(t *testing.T) {
	kvtest.Run(t, func(t *testing.T) kv.Store {
		return openBolt(t, filepath.Join(t.TempDir(), "reports.db"), kv.BoltOptions{SortBudget: 2 << 10})
	})
}

// TestBoltLocked: a file held open by another handle (here in the same
// process; bbolt's flock works per open file) fails fast with a 503.
func TestBoltLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports.db")
	openBolt(t, path, kv.BoltOptions{})
	for _, readOnly := range []bool{false, true} {
		start := time.Now()
		s, err := kv.OpenBolt(path, kv.BoltOptions{Timeout: 100 * time.Millisecond, ReadOnly: readOnly})
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("OpenBolt of a locked file (read-only %v) took %v", readOnly, elapsed)
		}
		if err == nil {
			s.Close()
			t.Fatalf("OpenBolt of a locked file (read-only %v) succeeded", readOnly)
		}
		kvtest.CheckUnavailable(t, "OpenBolt(locked file)", err)
	}
}

func TestBoltNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports.db")
	if err := os.WriteFile(path, []byte("this is not a bbolt file, it is a CSV\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := kv.OpenBolt(path, kv.BoltOptions{})
	kvtest.CheckUnavailable(t, "OpenBolt(not a database)", err)
}

func TestBoltReopenReadOnly(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "reports.db")
	s, err := kv.OpenBolt(path, kv.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Publish(ctx, s, kv.DatasetInfo{Name: "wells", Source: "AER"}, func(w *kv.Writer) error {
		return w.Put("LSD#1", "W1", map[string]int{"depth": 1200})
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Several read-only handles share the file.
	r1 := openBolt(t, path, kv.BoltOptions{ReadOnly: true})
	r2 := openBolt(t, path, kv.BoltOptions{ReadOnly: true})
	for _, r := range []*kv.Bolt{r1, r2} {
		d, ok, err := kv.Open(ctx, r, "wells")
		if err != nil || !ok {
			t.Fatalf("Open after reopening = %v, %v", ok, err)
		}
		it, ok, err := d.Get(ctx, "LSD#1", "W1")
		if err != nil || !ok || string(it.Data) != `{"depth":1200}` {
			t.Errorf("Get after reopening = %q, %v, %v", it.Data, ok, err)
		}
	}
	if err := r1.Put(ctx, []kv.Item{{PK: "a", SK: "b"}}); err == nil {
		t.Errorf("Put on a read-only store succeeded")
	}
	// A read-only handle keeps writers out.
	_, err = kv.OpenBolt(path, kv.BoltOptions{Timeout: 50 * time.Millisecond})
	kvtest.CheckUnavailable(t, "OpenBolt(file open read-only elsewhere)", err)
}

func TestBoltReadOnlyMissingFile(t *testing.T) {
	_, err := kv.OpenBolt(filepath.Join(t.TempDir(), "missing.db"), kv.BoltOptions{ReadOnly: true})
	kvtest.CheckUnavailable(t, "OpenBolt(missing file, read-only)", err)
}

// ScanItems gives the items under a prefix, data included, in key order,
// in batches bounded by count and bytes, and the data stays valid after
// the scan: on bbolt (its transactions closed between batches) and in
// memory.
func TestScanItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range map[string]kv.Store{
		"bolt": openBolt(t, filepath.Join(t.TempDir(), "kv.db"), kv.BoltOptions{}),
		"mem":  kv.NewMem(),
	} {
		t.Run(name, func(t *testing.T) {
			var want []kv.Item
			var other []kv.Item
			for i := range 2500 {
				data := []byte(strings.Repeat(string(rune('a'+i%26)), 1+i%7))
				switch {
				case i%50 == 0:
					data = bytes.Repeat([]byte{byte(i)}, 300<<10) // 15 MB in all: on bbolt the 4 MiB bound ends batches
				case i%97 == 0:
					data = nil
				}
				it := kv.Item{PK: fmt.Sprintf("P#%04d", i/3), SK: fmt.Sprintf("S%d", i%3), Data: data}
				want = append(want, it)
				other = append(other, kv.Item{PK: fmt.Sprintf("Q#%04d", i), SK: "S", Data: []byte("q")})
			}
			for _, items := range [][]kv.Item{want, other} {
				for lo := 0; lo < len(items); lo += 25 {
					if err := s.Put(ctx, items[lo:min(lo+25, len(items))]); err != nil {
						t.Fatal(err)
					}
				}
			}
			var got []kv.Item
			batches := 0
			err := s.(kv.ItemScanner).ScanItems(ctx, "P#", func(items []kv.Item) error {
				batches++
				if len(items) > 1000 {
					t.Errorf("a batch of %d items", len(items))
				}
				got = append(got, items...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("ScanItems gave %d items, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].PK != want[i].PK || got[i].SK != want[i].SK || !bytes.Equal(got[i].Data, want[i].Data) {
					t.Fatalf("item %d = %s %s (%d bytes), want %s %s (%d bytes)", i, got[i].PK, got[i].SK, len(got[i].Data), want[i].PK, want[i].SK, len(want[i].Data))
				}
			}
			if least := map[string]int{"bolt": 4, "mem": 3}[name]; batches < least {
				t.Errorf("%d batches for 2,500 items (15 MB): want at least %d", batches, least)
			}
		})
	}
}
