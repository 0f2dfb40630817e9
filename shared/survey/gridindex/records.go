package gridindex

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// recordCache keeps records decoded for lookups and reverse lookups, so
// that a record asked for again is not decoded again (a third of a warm
// reverse lookup's time, and a fifth of a search's, went to decoding the
// answer). It holds at most maxBytes of estimated heap (a sixteenth of
// Options.CacheBytes, see recordShare), split into shards by key, each
// with its own lock and budget; a full shard evicts entries at random
// (Go's map iteration order) until the new one fits. Records are shared:
// callers must not modify what they are given (none does: datum shifts
// and clipping copy).
type recordCache struct {
	shards [recordShards]recordShard
	max    int64
}

const recordShards = 8

// recordShare is the part of Options.CacheBytes the record cache takes:
// one sixteenth, 8 MiB of the default, some 20,000 ATS quarter sections.
const recordShare = 16

type recordShard struct {
	mu    sync.RWMutex
	items map[recordKey]recordEntry
	bytes int64
	max   int64

	hits, misses atomic.Int64
	_            [64]byte
}

type recordEntry struct {
	rec  *Record
	size int64
}

// recordKey is a record's block (its cache key, see blockKey) and index.
type recordKey struct {
	block uint64
	i     uint32
}

func newRecordCache(maxBytes int64) *recordCache {
	c := &recordCache{max: maxBytes}
	for i := range c.shards {
		c.shards[i].items = map[recordKey]recordEntry{}
		c.shards[i].max = maxBytes / recordShards
	}
	return c
}

func (c *recordCache) shard(k recordKey) *recordShard {
	h := (k.block ^ uint64(k.i)*0x9E3779B97F4A7C15) * 0x9E3779B97F4A7C15
	return &c.shards[h>>(64-3)]
}

func (c *recordCache) get(k recordKey) *Record {
	s := c.shard(k)
	s.mu.RLock()
	r := s.items[k].rec
	s.mu.RUnlock()
	if r == nil {
		s.misses.Add(1)
	} else {
		s.hits.Add(1)
	}
	return r
}

// put keeps r under k, unless it is larger than a shard's budget.
func (c *recordCache) put(k recordKey, r *Record) {
	s := c.shard(k)
	size := recordBytes(r)
	if size > s.max {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[k]; ok {
		return
	}
	if s.bytes+size > s.max {
		for old, e := range s.items {
			delete(s.items, old)
			s.bytes -= e.size
			if s.bytes+size <= s.max {
				break
			}
		}
	}
	s.items[k] = recordEntry{r, size}
	s.bytes += size
}

// stats returns the records held, their estimated bytes, and the hits and
// misses so far.
func (c *recordCache) stats() (records int, bytes, hits, misses int64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		records += len(s.items)
		bytes += s.bytes
		s.mu.RUnlock()
		hits += s.hits.Load()
		misses += s.misses.Load()
	}
	return records, bytes, hits, misses
}

// Sizes for recordBytes.
const (
	sizeRecord      = int64(unsafe.Sizeof(Record{}))
	sizeRecordEntry = int64(unsafe.Sizeof(recordKey{})+unsafe.Sizeof(recordEntry{})) + 16 // its map slot and overhead
	sizeSlice       = int64(unsafe.Sizeof([]orb.Point{}))
	sizeIface       = 16 // the geometry's interface box
)

// recordBytes estimates the heap a cached record holds: the record, its
// geometry's rings and points, its location's strings, and the cache's
// entries for it. TestRecordCacheHeapBound checks it against the runtime.
func recordBytes(r *Record) int64 {
	n := sizeRecord + sizeRecordEntry + locationBytes(r.Location)
	switch g := r.Geometry.(type) {
	case orb.Polygon:
		n += sizeIface + polygonBytes(g)
	case orb.MultiPolygon:
		n += sizeIface + int64(cap(g))*sizeSlice
		for _, p := range g {
			n += polygonBytes(p)
		}
	case nil:
	default:
		n += sizeIface + 64
	}
	return n
}

func polygonBytes(p orb.Polygon) int64 {
	n := int64(cap(p)) * sizeSlice
	for _, r := range p {
		n += int64(cap(r)) * sizePoint
	}
	return n
}

// locationBytes counts the strings a location may own (Ontario lots,
// concessions and townships; DLS locations own none).
func locationBytes(l lld.Location) int64 {
	return int64(len(l.LotKind) + len(l.Lot) + len(l.Concession) + len(l.Place))
}
