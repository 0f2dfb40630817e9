package agapi

import (
	"context"
	"os"
	"sync"
	"testing"

	"meridian/shared/ag/agingest"
	"meridian/shared/convert"
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
		if demo.err = agingest.WriteDemo(dir); demo.err != nil {
			return
		}
		files, err := agingest.FilesIn(dir)
		if err != nil {
			demo.err = err
			return
		}
		demo.store, demo.svc = kv.NewMem(), convert.New()
		_, demo.err = agingest.Ingest(context.Background(), demo.store, demo.svc, files, agingest.Options{Demo: true})
	})
	if demo.err != nil {
		t.Fatal(demo.err)
	}
	return demo.store
}
