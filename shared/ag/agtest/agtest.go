// Package agtest gives tests the demo agriculture data in a report store,
// ingested as the local server ingests it on first start: the files
// agdemo.Write writes, read back by agingest.Ingest and marked demo,
// with no official grid index (the DLS model places the quarters).
package agtest

import (
	"context"
	"testing"

	"meridian/shared/ag/agingest"
	"meridian/shared/demo/agdemo"
	"meridian/shared/internal/demostore"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

var demo = demostore.New(func(ctx context.Context, dir string, store kv.Store) error {
	if err := agdemo.Write(dir); err != nil {
		return err
	}
	files, err := agingest.FilesIn(dir)
	if err != nil {
		return err
	}
	_, err = agingest.Ingest(ctx, store, grid.New(), files, agingest.Options{Demo: true})
	return err
})

// IngestDemo ingests the demo agriculture data into store.
func IngestDemo(tb testing.TB, store kv.Store) { demo.Ingest(tb, store) }

// DemoStore returns a memory store holding the demo agriculture data, made
// once per test binary and shared: tests only read it.
func DemoStore(tb testing.TB) *kv.Mem { return demo.Store(tb) }
