// Package demostore is what the test helpers energytest and agtest share:
// a domain's demo files written to a scratch directory and ingested into a
// report store, once per test binary for the shared read-only store.
package demostore

import (
	"context"
	"os"
	"sync"
	"testing"

	"meridian/shared/kv"
)

// Load writes a domain's demo files into dir and ingests them into store.
type Load func(ctx context.Context, dir string, store kv.Store) error

// Demo makes one domain's demo stores.
type Demo struct {
	load   Load
	shared func() (*kv.Mem, error)
}

// New returns the Demo of load.
func New(load Load) *Demo {
	return &Demo{load: load, shared: sync.OnceValues(func() (*kv.Mem, error) {
		dir, err := os.MkdirTemp("", "meridian-demo-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		store := kv.NewMem()
		return store, load(context.Background(), dir, store)
	})}
}

// Ingest ingests the demo data into store.
func (d *Demo) Ingest(tb testing.TB, store kv.Store) {
	tb.Helper()
	if err := d.load(tb.Context(), tb.TempDir(), store); err != nil {
		tb.Fatal(err)
	}
}

// Store returns a memory store holding the demo data, made once per test
// binary and shared: tests only read it.
func (d *Demo) Store(tb testing.TB) *kv.Mem {
	tb.Helper()
	store, err := d.shared()
	if err != nil {
		tb.Fatal(err)
	}
	return store
}
