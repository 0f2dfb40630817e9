// Package energytest gives tests the demo energy data in a report store,
// ingested as the local server ingests it on first start: the files
// energyingest.WriteDemo writes, read back by energyingest.Ingest as of
// energyingest.DemoAsOf and marked demo, with no official grid index (the
// DLS model places the LSDs).
package energytest

import (
	"context"
	"testing"

	"meridian/shared/energy/energyingest"
	"meridian/shared/internal/demostore"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

var demo = demostore.New(func(ctx context.Context, dir string, store kv.Store) error {
	if err := energyingest.WriteDemo(dir); err != nil {
		return err
	}
	files, err := energyingest.FilesIn(dir)
	if err != nil {
		return err
	}
	_, err = energyingest.Ingest(ctx, store, grid.New(), files, energyingest.Options{Now: energyingest.DemoAsOf(), Demo: true})
	return err
})

// IngestDemo ingests the demo energy data into store.
func IngestDemo(tb testing.TB, store kv.Store) { demo.Ingest(tb, store) }

// DemoStore returns a memory store holding the demo energy data, made once
// per test binary and shared: tests only read it.
func DemoStore(tb testing.TB) *kv.Mem { return demo.Store(tb) }
