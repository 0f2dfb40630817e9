package gridindex

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/paulmach/orb"
)

// DefaultCacheBytes is Options.CacheBytes when zero: 128 MiB of pages. A
// page is a group's inflated records plus about 57 bytes of tables a
// record (see page): an ATS township of the full-size scale data weighs
// 87 KB, so 128 MiB holds about 1,500 of Alberta's 7,109 townships (the
// whole AB index needs about 620 MiB). That is the hot part of a province
// (where the traffic is); a workload spread uniformly over the province
// misses on most lookups, and a miss costs one range read, one inflate and
// one scan of the page (BenchmarkLookupMiss, about 0.3-0.7 ms).
const DefaultCacheBytes = 128 << 20

// maxShards splits the page cache so that concurrent lookups of different
// pages rarely meet on a lock; a hit takes its shard's read lock only. A
// cache gets one shard per MiB of its bound up to maxShards (a power of
// two), so that each shard holds several pages: a page larger than its
// shard's share of the bound would never be kept.
const (
	maxShards     = 16
	minShardBytes = 1 << 20
)

// CacheStats counts the page cache of the version of an index served now.
type CacheStats struct {
	Hits, Misses, Evictions int64
	Pages                   int   // pages held
	Bytes                   int64 // their estimated heap bytes (see pageBytes)
	MaxBytes                int64 // the bound: Options.CacheBytes
}

// pageCache keeps pages up to maxBytes of estimated heap, by page offset.
// It is split into shards by offset, each with its own byte budget
// (maxBytes / shards) and lock; a page larger than a shard's budget is
// never kept. Eviction is CLOCK (second chance): a hit only sets the
// entry's reference bit (an atomic store under the shard's read lock), so
// the hit path never takes a write lock; a put sweeps the shard's ring,
// clearing bits and evicting the first entry found clear, until the new
// page fits.
type pageCache struct {
	shards   []cacheShard
	shift    uint // 64 - log2(len(shards))
	maxBytes int64
}

type cacheShard struct {
	mu    sync.RWMutex
	items map[uint64]*cacheEntry
	ring  []*cacheEntry // clock order; hand sweeps it
	hand  int
	bytes int64
	max   int64

	hits, misses, evictions atomic.Int64
	_                       [64]byte // keep shards' hot words on their own cache lines
}

type cacheEntry struct {
	off  uint64
	p    *page
	size int64
	ref  atomic.Bool
}

func newPageCache(maxBytes int64) *pageCache {
	n, bits := 1, uint(0)
	for n < maxShards && int64(n*2)*minShardBytes <= maxBytes {
		n, bits = n*2, bits+1
	}
	c := &pageCache{shards: make([]cacheShard, n), shift: 64 - bits, maxBytes: maxBytes}
	for i := range c.shards {
		c.shards[i].items = map[uint64]*cacheEntry{}
		c.shards[i].max = maxBytes / int64(n)
	}
	return c
}

func (c *pageCache) shard(off uint64) *cacheShard {
	if len(c.shards) == 1 {
		return &c.shards[0]
	}
	// Fibonacci hashing: page offsets are sorted and close together, the
	// high bits of the product spread them.
	return &c.shards[(off*0x9E3779B97F4A7C15)>>c.shift]
}

// get returns the page at off, or nil.
func (c *pageCache) get(off uint64) *page {
	s := c.shard(off)
	s.mu.RLock()
	e := s.items[off]
	s.mu.RUnlock()
	if e == nil {
		s.misses.Add(1)
		return nil
	}
	if !e.ref.Load() {
		e.ref.Store(true)
	}
	s.hits.Add(1)
	return e.p
}

// put keeps p as the page at off, evicting others to stay within the
// shard's budget, and returns the page to use: an equal page another
// lookup decoded first, or p.
func (c *pageCache) put(off uint64, p *page) *page {
	size := pageBytes(p)
	s := c.shard(off)
	if size > s.max {
		return p
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.items[off]; ok {
		return e.p
	}
	for s.bytes+size > s.max && len(s.ring) > 0 {
		if s.hand >= len(s.ring) {
			s.hand = 0
		}
		e := s.ring[s.hand]
		if e.ref.Load() {
			e.ref.Store(false)
			s.hand++
			continue
		}
		last := len(s.ring) - 1
		s.ring[s.hand] = s.ring[last]
		s.ring[last] = nil
		s.ring = s.ring[:last]
		delete(s.items, e.off)
		s.bytes -= e.size
		s.evictions.Add(1)
	}
	e := &cacheEntry{off: off, p: p, size: size}
	s.items[off] = e
	s.ring = append(s.ring, e)
	s.bytes += size
	return p
}

func (c *pageCache) stats() CacheStats {
	st := CacheStats{MaxBytes: c.maxBytes}
	for i := range c.shards {
		s := &c.shards[i]
		st.Hits += s.hits.Load()
		st.Misses += s.misses.Load()
		st.Evictions += s.evictions.Load()
		s.mu.RLock()
		st.Pages += len(s.items)
		st.Bytes += s.bytes
		s.mu.RUnlock()
	}
	return st
}

// Sizes of what a page allocates, for pageBytes.
const (
	sizeBound = int64(unsafe.Sizeof(orb.Bound{}))
	sizePoint = int64(unsafe.Sizeof(orb.Point{}))
	sizePage  = int64(unsafe.Sizeof(page{}))
	sizeEntry = int64(unsafe.Sizeof(cacheEntry{})) + 8 + 16 // the entry, its ring slot, its map slot
)

// pageBytes estimates the heap a cached page holds: its inflated bytes,
// key table, per-record tables, the units once parsed (one byte a record, counted
// up front), and the cache's own entry. TestPageCacheHeapBound checks it
// against the runtime's figures.
func pageBytes(p *page) int64 {
	n := int64(p.len())
	return sizePage + sizeEntry + int64(cap(p.raw)) + int64(cap(p.slots))*2 + n*(4+sizeBound+sizePoint+1)
}
