package gridindex

import (
	"context"
	"sync"
	"sync/atomic"
)

// WarmStats says what Warm put in the cache.
type WarmStats struct {
	Pages  int  // pages whose directory and blocks were loaded
	Blocks int  // blocks decoded into the cache
	Full   bool // the cache (or maxBytes) filled before the file's end: Warm stopped there
}

// Warm reads the index's key leaves, then its pages in file order (along the Hilbert curve, so
// what it keeps is one region of the ground) and keeps their directories
// and blocks in the page cache, with their records' systems and units
// parsed (a point query's first use of a block parsed every key), on workers goroutines (at least one), until
// the file ends, the cache holds maxBytes (0: no bound but the cache's) or
// the cache fills: it stops at the cache's first eviction, so it never
// churns and memory stays within Options.CacheBytes.
//
// A lookup whose block is not cached costs a range read, an inflate and a
// scan of the block: on the full-size Alberta index, with the 128 MiB
// default that holds a fifth of it, a uniformly random lookup misses about
// four times in five. A server given the memory to hold an index whole
// (about 479 MiB for Alberta) warms it before serving, and answers every
// lookup from memory from the first request instead of after hundreds of
// thousands of misses. Warm reads the file once: on S3, one range GET a
// page, which is why only the local server does it.
func (ix *Index) Warm(ctx context.Context, workers int, maxBytes int64) (WarmStats, error) {
	return ix.cur.Load().warm(ctx, max(1, workers), maxBytes)
}

func (ix *version) warm(ctx context.Context, workers int, maxBytes int64) (WarmStats, error) {
	var (
		st    WarmStats
		mu    sync.Mutex // st, err
		err   error
		full  atomic.Bool
		pages = make(chan pageRef)
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	all := func(*blockRef) bool { return true }
	for range workers {
		wg.Go(func() {
			for pr := range pages {
				if ctx.Err() != nil {
					continue // stopping: drain what the feeder sent
				}
				blocks := 0
				e := ix.blocks(ctx, pr.off, pr.length, all, func(b *block) error {
					blocks++
					_, err := b.kindsOf() // what a point query parses on a block's first use
					return err
				})
				mu.Lock()
				if e != nil && err == nil {
					err = e
					cancel()
				}
				st.Pages++
				st.Blocks += blocks
				mu.Unlock()
				if ix.pages.evicted() || (maxBytes > 0 && ix.pages.bytes() >= maxBytes) {
					full.Store(true)
					cancel()
				}
			}
		})
	}
	for i := range ix.keys { // the key leaves, which are kept whatever the cache holds
		if _, e := ix.keyLeaf(ctx, &ix.keys[i]); e != nil {
			mu.Lock()
			err = e
			mu.Unlock()
			cancel()
			break
		}
	}
feed:
	for i := range ix.spatial {
		if ctx.Err() != nil {
			break
		}
		refs, e := ix.spatialLeaf(ctx, &ix.spatial[i])
		if e != nil {
			mu.Lock()
			err = e
			mu.Unlock()
			break
		}
		for _, pr := range refs {
			select {
			case pages <- pr:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(pages)
	wg.Wait()
	st.Full = full.Load()
	if err == nil && !st.Full {
		err = context.Cause(ctx) // the caller's context ended (ours is not cancelled yet)
	}
	if st.Full {
		err = nil // a full cache is where warming ends, not a failure
	}
	return st, err
}

// evicted reports whether any shard has evicted an entry.
func (c *pageCache) evicted() bool {
	for i := range c.shards {
		if c.shards[i].evictions.Load() > 0 {
			return true
		}
	}
	return false
}

// bytes is the estimated heap the cache holds.
func (c *pageCache) bytes() int64 {
	var n int64
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += s.bytes
		s.mu.RUnlock()
	}
	return n
}
