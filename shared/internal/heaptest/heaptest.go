// Package heaptest measures live heap for memory-bound tests.
//
// It reads the heap the collector marked live (/gc/heap/live:bytes) after
// a forced collection, not MemStats.HeapAlloc: HeapAlloc read after
// runtime.GC also counts what other goroutines allocated since the mark
// ended, which in a build or a generator running beside the sampler is
// megabytes of noise (one test's peak read between 2.4 and 6.3 MB from
// run to run). What is allocated while the collection marks still counts
// as live for it (it is allocated marked), so a sample can run a little
// over what fn holds.
package heaptest

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Live collects garbage and returns the heap the collection marked live.
func Live() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Peak runs fn and returns the largest live heap seen while it ran, every
// interval, above the lowest seen (at the start or at any sample): under
// -shuffle memory an earlier test left live can be freed during fn, and
// would otherwise hide fn's own growth.
func Peak(interval time.Duration, fn func()) uint64 {
	var (
		mu        sync.Mutex
		low, peak = Live(), uint64(0)
		done      = make(chan struct{})
		wg        sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(interval)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
			}
			h := Live()
			mu.Lock()
			low, peak = min(low, h), max(peak, h)
			mu.Unlock()
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak - min(peak, low)
}
