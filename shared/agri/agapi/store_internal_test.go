package agapi

import (
	"context"
	"os"
	"sync"
	"testing"

	"meridian/shared/agri"
	"meridian/shared/convert"
	srcag "meridian/shared/ingest/ag"
	"meridian/shared/kv"
)

var demo struct {
	once  sync.Once
	store *kv.Mem
	svc   *convert.Service
	err   error
}

// demoStore returns a Mem store holding the demo agriculture data, built
// once per test binary (read-only: tests must not write to it).
func demoStore(t testing.TB) *kv.Mem {
	t.Helper()
	demo.once.Do(func() {
		dir, err := os.MkdirTemp("", "agapi-demo-")
		if err != nil {
			demo.err = err
			return
		}
		defer os.RemoveAll(dir)
		if demo.err = srcag.WriteDemo(dir); demo.err != nil {
			return
		}
		files, err := agri.Classify(dir)
		if err != nil {
			demo.err = err
			return
		}
		demo.store, demo.svc = kv.NewMem(), convert.New()
		_, demo.err = agri.Ingest(context.Background(), demo.store, demo.svc, files, agri.Options{Demo: true})
	})
	if demo.err != nil {
		t.Fatal(demo.err)
	}
	return demo.store
}
