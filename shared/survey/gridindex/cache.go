package gridindex

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/paulmach/orb"
)

// DefaultCacheBytes is Options.CacheBytes when zero: 128 MiB of blocks
// and page directories. A block is a DLS section's quarters and LSDs or
// a township's record with its sections', inflated, plus its tables (see
// block); an entry of the full-size ATS data (a block or a page
// directory) weighs about 1.86 KB on average. 128 MiB holds about a
// quarter of Alberta's sections (the whole AB index takes about
// 479 MiB): the hot part of a province. A workload spread uniformly
// over the province misses on most lookups, and a miss costs one range
// read, one inflate and one scan of a block (BenchmarkLookupMiss).
const DefaultCacheBytes = 128 << 20

// maxShards splits the cache so that concurrent lookups of different
// blocks rarely meet on a lock; a hit takes its shard's read lock only. A
// cache gets one shard per MiB of its bound up to maxShards (a power of
// two), so that each shard holds many blocks: an entry larger than its
// shard's share of the bound would never be kept.
const (
	maxShards     = 16
	minShardBytes = 1 << 20
)

// CacheStats counts the block cache of the version of an index served now.
type CacheStats struct {
	Hits, Misses, Evictions int64
	Blocks                  int   // decoded blocks held
	Dirs                    int   // page directories held
	Bytes                   int64 // their estimated heap bytes (see blockBytes, dirBytes)
	MaxBytes                int64 // their bound: Options.CacheBytes less the records' share

	// The decoded records kept (see recordCache): how many, their
	// estimated heap bytes and bound, and lookups that found or decoded
	// their record.
	Records                  int
	RecordBytes, RecordMax   int64
	RecordHits, RecordMisses int64

	// The DLS townships asked for by key (dlsGroup): how many the index
	// holds, and the heap of their groups and rows. Outside MaxBytes:
	// about 300 bytes a township, at most the index's townships.
	Groups     int
	GroupBytes int64
}

// pageCache keeps decoded blocks and page directories up to maxBytes of
// estimated heap, by key (see blockKey, dirKey). It is split into shards
// by key, each with its own byte budget (maxBytes / shards) and lock; an
// entry larger than a shard's budget is never kept. Eviction is CLOCK (second chance): a hit only sets the
// entry's reference bit (an atomic store under the shard's read lock), so
// the hit path never takes a write lock; a put sweeps the shard's ring,
// clearing bits and evicting the first entry found clear, until the new
// entry fits.
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

// cacheEntry holds a block or a page directory.
type cacheEntry struct {
	key   uint64
	block *block
	dir   *pageDir
	size  int64
	ref   atomic.Bool

	// slot, when not nil, is where a DLS township keeps this block for
	// lookups by key (dlsGroup.blocks): pointed at it and cleared under
	// the shard's lock, so an entry evicted is never left there and the
	// cache's bound holds.
	slot *atomic.Pointer[cacheEntry]
}

func blockEntry(key uint64, b *block) *cacheEntry {
	return &cacheEntry{key: key, block: b, size: blockBytes(b)}
}

func dirEntry(key uint64, d *pageDir) *cacheEntry {
	return &cacheEntry{key: key, dir: d, size: dirBytes(d)}
}

// blockKey is the cache key of the block labelled label of the page at
// off (in the pages section); dirKey that of the page's directory. Labels
// are below dirLabel, offsets below 2^56 (maxFileSize).
func blockKey(off uint64, label uint8) uint64 { return off<<8 | uint64(label) }
func dirKey(off uint64) uint64                { return off<<8 | dirLabel }

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

func (c *pageCache) shard(key uint64) *cacheShard {
	if len(c.shards) == 1 {
		return &c.shards[0]
	}
	// Fibonacci hashing: keys are page offsets, sorted and close together;
	// the high bits of the product spread them.
	return &c.shards[(key*0x9E3779B97F4A7C15)>>c.shift]
}

// get returns the entry of key, or nil.
func (c *pageCache) get(key uint64) *cacheEntry {
	s := c.shard(key)
	s.mu.RLock()
	e := s.items[key]
	s.mu.RUnlock()
	return s.found(e)
}

// found counts a lookup of s that found e (nil: a miss) and marks e used.
func (s *cacheShard) found(e *cacheEntry) *cacheEntry {
	if e == nil {
		s.misses.Add(1)
		return nil
	}
	if !e.ref.Load() {
		e.ref.Store(true)
	}
	s.hits.Add(1)
	return e
}

// getSlot is get for a block a DLS township keeps in slot: a hit there
// is one pointer load, without the shard's lock and map. An entry of key
// cached without the slot (by a search around a point, or the warm) is
// linked to it here.
func (c *pageCache) getSlot(slot *atomic.Pointer[cacheEntry], key uint64) *cacheEntry {
	s := c.shard(key)
	e := slot.Load()
	if e == nil {
		s.mu.Lock()
		if e = s.items[key]; e != nil && e.slot == nil {
			e.slot = slot
			slot.Store(e)
		}
		s.mu.Unlock()
	}
	return s.found(e)
}

// has reports whether key is cached, without counting a hit or a miss.
func (c *pageCache) has(key uint64) bool {
	s := c.shard(key)
	s.mu.RLock()
	_, ok := s.items[key]
	s.mu.RUnlock()
	return ok
}

// put keeps e, evicting others to stay within the shard's budget, and
// returns the entry to use: an equal one another lookup decoded first, or
// e.
func (c *pageCache) put(e *cacheEntry) *cacheEntry {
	s := c.shard(e.key)
	if e.size > s.max {
		return e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.items[e.key]; ok {
		if old.slot == nil && e.slot != nil {
			old.slot = e.slot
			old.slot.Store(old)
		}
		return old
	}
	for s.bytes+e.size > s.max && len(s.ring) > 0 {
		if s.hand >= len(s.ring) {
			s.hand = 0
		}
		old := s.ring[s.hand]
		if old.ref.Load() {
			old.ref.Store(false)
			s.hand++
			continue
		}
		last := len(s.ring) - 1
		s.ring[s.hand] = s.ring[last]
		s.ring[last] = nil
		s.ring = s.ring[:last]
		delete(s.items, old.key)
		if old.slot != nil {
			old.slot.CompareAndSwap(old, nil)
		}
		s.bytes -= old.size
		s.evictions.Add(1)
	}
	s.items[e.key] = e
	if e.slot != nil {
		e.slot.Store(e)
	}
	s.ring = append(s.ring, e)
	s.bytes += e.size
	return e
}

func (c *pageCache) stats() CacheStats {
	st := CacheStats{MaxBytes: c.maxBytes}
	for i := range c.shards {
		s := &c.shards[i]
		st.Hits += s.hits.Load()
		st.Misses += s.misses.Load()
		st.Evictions += s.evictions.Load()
		s.mu.RLock()
		for _, e := range s.ring {
			if e.block != nil {
				st.Blocks++
			} else {
				st.Dirs++
			}
		}
		st.Bytes += s.bytes
		s.mu.RUnlock()
	}
	return st
}

// Sizes of what a block or directory allocates, for blockBytes and dirBytes.
const (
	sizeBox      = int64(unsafe.Sizeof(box{}))
	sizePoint    = int64(unsafe.Sizeof(orb.Point{}))
	sizeBlock    = int64(unsafe.Sizeof(block{}))
	sizeDir      = int64(unsafe.Sizeof(pageDir{}))
	sizeBlockRef = int64(unsafe.Sizeof(blockRef{}))
	sizeEntry    = int64(unsafe.Sizeof(cacheEntry{})) + 8 + 16 // the entry, its ring slot, its map slot
)

// blockBytes estimates the heap a cached block holds: its inflated bytes,
// key table, per-record tables, the systems and units once parsed (two
// bytes a record, counted up front), and the cache's own entry. TestPageCacheHeapBound
// checks it against the runtime's figures.
func blockBytes(b *block) int64 {
	n := int64(b.len())
	return sizeBlock + sizeEntry + int64(cap(b.raw)) + int64(cap(b.slots))*2 + n*(4+sizeBox+2)
}

// dirBytes estimates the heap a cached page directory holds.
func dirBytes(d *pageDir) int64 {
	return sizeDir + sizeEntry + int64(cap(d.blocks))*sizeBlockRef
}
