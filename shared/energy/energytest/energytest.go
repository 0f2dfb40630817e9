// Package energytest gives tests the demo energy data in a report store,
// ingested as the local server ingests it on first start: the files
// energydemo.Write writes, read back by energyingest.Ingest as of
// demo.AsOf and marked demo, with no official grid index (the
// DLS model places the LSDs).
package energytest

import (
	"context"
	"testing"

	"meridian/shared/demo"
	"meridian/shared/demo/energydemo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/internal/demostore"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

var data = demostore.New(func(ctx context.Context, dir string, store kv.Store) error {
	if err := energydemo.Write(dir); err != nil {
		return err
	}
	files, err := energyingest.FilesIn(dir)
	if err != nil {
		return err
	}
	_, err = energyingest.Ingest(ctx, store, grid.New(), files, energyingest.Options{Now: demo.AsOf(), Demo: true})
	return err
})

// IngestDemo ingests the demo energy data into store.
func IngestDemo(tb testing.TB, store kv.Store) { data.Ingest(tb, store) }

// DemoStore returns a memory store holding the demo energy data, made once
// per test binary and shared: tests only read it.
func DemoStore(tb testing.TB) *kv.Mem { return data.Store(tb) }
