package gridindex

import (
	"sync/atomic"
	"unsafe"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
)

// recordCache keeps records decoded for lookups and reverse lookups, so
// that a record asked for again is not decoded again (a third of a warm
// reverse lookup's time, and a fifth of a search's, went to decoding the
// answer). It is direct-mapped: a record has one slot, by its key's hash,
// and a record put there replaces the one before. A hit is one atomic
// load and a comparison, a put one swap, without a lock or a map: with
// a map under locks, evicting at random, keeping and finding the records
// of lookups spread over a province cost three times the decoding they
// saved (13% of a batch's time against 4%). It holds at most maxBytes of
// estimated heap (a sixteenth of Options.CacheBytes, see recordShare),
// its slots included; a record that would take it past its bound is not
// kept. Records are shared: callers must not modify what they are given
// (none does: datum shifts and clipping copy).
type recordCache struct {
	slots []atomic.Pointer[recordEntry]
	mask  uint64
	max   int64

	bytes, count, hits, misses atomic.Int64
}

// recordShare is the part of Options.CacheBytes the record cache takes:
// one sixteenth, 8 MiB of the default.
const recordShare = 16

// recordSlotBytes sizes the cache: a slot for each that many bytes of its
// bound, rounded down to a power of two (16,384 slots for the default's
// 8 MiB, 65,536 for a server's 512 MiB cache). An ATS quarter section's
// record takes about 300 bytes (TestPageCacheHeapBound), so the slots
// fill before the bytes run out.
const recordSlotBytes = 512

type recordEntry struct {
	key  recordKey
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
	n := 1
	for int64(n*2)*recordSlotBytes <= maxBytes {
		n *= 2
	}
	if int64(n)*recordSlotBytes > maxBytes {
		return c // too small to keep a record
	}
	c.slots = make([]atomic.Pointer[recordEntry], n)
	c.mask = uint64(n - 1)
	c.bytes.Store(int64(n) * sizeSlot)
	return c
}

const sizeSlot = int64(unsafe.Sizeof(atomic.Pointer[recordEntry]{}))

func (c *recordCache) slot(k recordKey) *atomic.Pointer[recordEntry] {
	h := (k.block ^ uint64(k.i)*0x9E3779B97F4A7C15) * 0x9E3779B97F4A7C15
	return &c.slots[(h>>32)&c.mask]
}

func (c *recordCache) get(k recordKey) *Record {
	if c.slots != nil {
		if e := c.slot(k).Load(); e != nil && e.key == k {
			c.hits.Add(1)
			return e.rec
		}
	}
	c.misses.Add(1)
	return nil
}

// put keeps r under k in its slot, in place of the record there, unless
// that would take the cache past its bound.
func (c *recordCache) put(k recordKey, r *Record) {
	if c.slots == nil {
		return
	}
	e := &recordEntry{key: k, rec: r, size: recordBytes(r)}
	s := c.slot(k)
	old := s.Swap(e)
	delta := e.size
	if old != nil {
		delta -= old.size
	} else {
		c.count.Add(1)
	}
	if c.bytes.Add(delta) > c.max && s.CompareAndSwap(e, nil) {
		c.bytes.Add(-e.size) // too large beside the others: not kept
		c.count.Add(-1)
	}
}

// stats returns the records held, their estimated bytes (the slots'
// included), and the hits and misses so far.
func (c *recordCache) stats() (records int, bytes, hits, misses int64) {
	return int(c.count.Load()), c.bytes.Load(), c.hits.Load(), c.misses.Load()
}

// Sizes for recordBytes.
const (
	sizeRecord      = int64(unsafe.Sizeof(Record{}))
	sizeRecordEntry = int64(unsafe.Sizeof(recordEntry{}))
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
