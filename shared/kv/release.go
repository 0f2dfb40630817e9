package kv

import (
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// releaser drops a read-only bbolt file's mapped pages from the resident
// set at an interval (BoltOptions.ReleaseEvery).
type releaser struct {
	done chan struct{}
	wg   sync.WaitGroup
}

func startReleaser(db *bolt.DB, every time.Duration) *releaser {
	r := &releaser{done: make(chan struct{})}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.done:
				return
			case <-t.C:
				releaseMapped(db)
			}
		}
	}()
	return r
}

// stop ends the releaser before the file is unmapped; nil does nothing.
func (r *releaser) stop() {
	if r == nil {
		return
	}
	close(r.done)
	r.wg.Wait()
}
