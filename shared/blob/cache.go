package blob

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sync"
)

// Defaults of CacheOptions.
const (
	DefaultBlockSize     = 64 << 10 // 64 KiB: one S3 request costs the same for 1 byte or 64 KiB
	DefaultCacheMaxBytes = 64 << 20 // 64 MiB
)

// blockOverhead is what one cached block costs besides its bytes: the list
// element, the block and the map entry, roughly.
const blockOverhead = 128

// CacheOptions configure a Cached store.
type CacheOptions struct {
	// BlockSize is the unit of caching: reads are widened to whole aligned
	// blocks. DefaultBlockSize when zero.
	BlockSize int64
	// MaxBytes bounds the memory of cached blocks (their bytes plus a small
	// per-block overhead); least recently used blocks are evicted first.
	// DefaultCacheMaxBytes when zero; raised to 4 blocks if smaller.
	MaxBytes int64
}

// CacheStats are the counters of a Cached store.
type CacheStats struct {
	Reads     int64 // ReadRange calls to the underlying store
	Bytes     int64 // bytes those calls returned
	Hits      int64 // blocks served from the cache
	Misses    int64 // blocks not in the cache (fetched, or awaited from another caller's fetch)
	Evictions int64 // blocks evicted to stay within MaxBytes
	Size      int64 // bytes held now, overhead included
}

// Cached is a read-through cache of aligned blocks in front of a Store. It
// is safe for concurrent use.
//
// A read is served from cached blocks; the missing blocks of one read are
// fetched with one underlying read per run of adjacent missing blocks, and
// concurrent reads of the same missing blocks share one fetch. Fetches run
// detached from the cancellation of the caller that started them, so a
// caller giving up never fails the others waiting on the same blocks; the
// underlying store must bound its own calls, as S3 does with its timeout.
// Errors are not cached.
//
// A read spanning more than a quarter of MaxBytes bypasses the cache, so
// one large read cannot flush the working set.
//
// Blocks stay valid until Invalidate, or until Stat sees a version tag
// different from the one it saw last for the key (or the key is gone, or
// blocks were cached before the first Stat). A reader that checks Stat
// periodically therefore serves a replaced object's old blocks at most until
// its next Stat; objects that are never replaced in place (versioned keys)
// need no Stat at all.
type Cached struct {
	s   Store
	bs  int64
	max int64

	mu    sync.Mutex
	lru   list.List // of *block, most recently used first
	keys  map[string]*keyState
	stats CacheStats
}

type keyState struct {
	gen     uint64 // bumped by invalidation; fetches of an older gen are not cached
	etag    string // last seen by Stat
	blocks  map[int64]*list.Element
	flights map[int64]*flight // fetches in progress, by block index
}

type block struct {
	key  string
	idx  int64
	data []byte // immutable; shorter than the block size at the end of the object
}

// flight is one underlying read of blocks [first, first+count).
type flight struct {
	gen          uint64
	first, count int64
	done         chan struct{}
	data         []byte // set before done is closed
	err          error
}

// NewCached returns a cache in front of s.
func NewCached(s Store, opts CacheOptions) *Cached {
	if opts.BlockSize <= 0 {
		opts.BlockSize = DefaultBlockSize
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultCacheMaxBytes
	}
	opts.MaxBytes = max(opts.MaxBytes, 4*(opts.BlockSize+blockOverhead))
	return &Cached{s: s, bs: opts.BlockSize, max: opts.MaxBytes, keys: make(map[string]*keyState)}
}

// Stats returns the counters.
func (c *Cached) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// ReadRange implements Store.
func (c *Cached) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := CheckRead(key, off, n); err != nil {
		return nil, err
	}
	get := func(ctx context.Context, off, n int64) ([]byte, error) { return c.s.ReadRange(ctx, key, off, n) }
	return c.read(ctx, key, key, get, off, n)
}

// ReadRangeIf implements Pinned when the underlying store does (else every
// read fails with an error saying so). Blocks read under a version tag are
// cached apart from the key's unpinned blocks and from other versions, so a
// pinned read never mixes versions; they leave the cache by LRU eviction.
func (c *Cached) ReadRangeIf(ctx context.Context, key, etag string, off, n int64) ([]byte, error) {
	if err := CheckRead(key, off, n); err != nil {
		return nil, err
	}
	p, ok := c.s.(Pinned)
	if !ok {
		return nil, fmt.Errorf("blob: read %s: %T cannot read a pinned version", key, c.s)
	}
	get := func(ctx context.Context, off, n int64) ([]byte, error) { return p.ReadRangeIf(ctx, key, etag, off, n) }
	// NUL never occurs in a key, so this state key names no other object.
	return c.read(ctx, key+"\x00"+etag, key, get, off, n)
}

// read serves [off, off+n) of the object whose blocks are cached under skey,
// fetching missing blocks with get.
func (c *Cached) read(ctx context.Context, skey, key string, get func(ctx context.Context, off, n int64) ([]byte, error), off, n int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	if n == 0 || n > c.max/4 || off > math.MaxInt64-n {
		// n == 0 only checks that the key exists; large reads bypass; and
		// a range ending past the largest offset is surely past the end.
		return c.readThrough(ctx, get, off, n)
	}
	first, last := off/c.bs, (off+n-1)/c.bs
	if (last-first+1)*c.bs > c.max/4 { // the blocks it spans are too many
		return c.readThrough(ctx, get, off, n)
	}

	parts := make([][]byte, last-first+1) // block data, by index - first
	var waits []*flight                   // fetches providing the blocks not cached
	var mine []*flight                    // those this read starts
	var cur *flight                       // the fetch this read is extending
	c.mu.Lock()
	ks := c.state(skey)
	for i := first; i <= last; i++ {
		if el, ok := ks.blocks[i]; ok {
			c.lru.MoveToFront(el)
			parts[i-first] = el.Value.(*block).data
			c.stats.Hits++
			cur = nil
			continue
		}
		c.stats.Misses++
		if f, ok := ks.flights[i]; ok { // someone is fetching it already
			if len(waits) == 0 || waits[len(waits)-1] != f {
				waits = append(waits, f)
			}
			cur = nil
			continue
		}
		if cur != nil { // adjacent to the previous missing block: same read
			cur.count++
			ks.flights[i] = cur
			continue
		}
		cur = &flight{gen: ks.gen, first: i, count: 1, done: make(chan struct{})}
		ks.flights[i] = cur
		mine = append(mine, cur)
		waits = append(waits, cur)
	}
	c.mu.Unlock()

	detached := context.WithoutCancel(ctx)
	for _, f := range mine {
		go c.fetch(detached, skey, get, ks, f)
	}
	for _, f := range waits {
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("blob: read %s: %w", key, ctx.Err())
		}
		if f.err != nil {
			return nil, f.err
		}
		for i := max(f.first, first); i < f.first+f.count && i <= last; i++ {
			parts[i-first] = Clip(f.data, (i-f.first)*c.bs, c.bs)
		}
	}

	out := make([]byte, 0, n)
	for i, b := range parts {
		start := (first + int64(i)) * c.bs
		lo := max(off-start, 0)
		if lo >= int64(len(b)) {
			break // at or past the end of the object
		}
		hi := min(off+n-start, int64(len(b)))
		out = append(out, b[lo:hi]...)
		if int64(len(b)) < c.bs {
			break // the last block of the object
		}
	}
	return out, nil
}

// readThrough reads from the underlying store without caching.
func (c *Cached) readThrough(ctx context.Context, get func(ctx context.Context, off, n int64) ([]byte, error), off, n int64) ([]byte, error) {
	b, err := get(ctx, off, n)
	c.mu.Lock()
	c.stats.Reads++
	c.stats.Bytes += int64(len(b))
	c.mu.Unlock()
	return b, err
}

// fetch performs f and caches its blocks unless the key was invalidated
// meanwhile.
func (c *Cached) fetch(ctx context.Context, key string, get func(ctx context.Context, off, n int64) ([]byte, error), ks *keyState, f *flight) {
	data, err := get(ctx, f.first*c.bs, f.count*c.bs)
	c.mu.Lock()
	c.stats.Reads++
	c.stats.Bytes += int64(len(data))
	f.data, f.err = data, err
	for i := f.first; i < f.first+f.count; i++ {
		if ks.flights[i] == f {
			delete(ks.flights, i)
		}
	}
	if err == nil && c.keys[key] == ks && ks.gen == f.gen {
		for i := f.first; i < f.first+f.count; i++ {
			// Each block gets its own slice so that evicting it frees it.
			b := Clip(data, (i-f.first)*c.bs, c.bs)
			c.insert(ks, key, i, append([]byte(nil), b...))
		}
		c.evict()
	}
	c.forget(key, ks)
	c.mu.Unlock()
	close(f.done)
}

// state returns the state of key, creating it. c.mu must be held.
func (c *Cached) state(key string) *keyState {
	ks := c.keys[key]
	if ks == nil {
		ks = &keyState{blocks: make(map[int64]*list.Element), flights: make(map[int64]*flight)}
		c.keys[key] = ks
	}
	return ks
}

// forget drops the state of key when it holds nothing. c.mu must be held.
func (c *Cached) forget(key string, ks *keyState) {
	if c.keys[key] == ks && len(ks.blocks) == 0 && len(ks.flights) == 0 && ks.etag == "" {
		delete(c.keys, key)
	}
}

// insert caches a block. c.mu must be held.
func (c *Cached) insert(ks *keyState, key string, idx int64, data []byte) {
	if el, ok := ks.blocks[idx]; ok {
		c.remove(ks, el)
	}
	ks.blocks[idx] = c.lru.PushFront(&block{key: key, idx: idx, data: data})
	c.stats.Size += int64(len(data)) + blockOverhead
}

// remove drops a cached block. c.mu must be held.
func (c *Cached) remove(ks *keyState, el *list.Element) {
	b := c.lru.Remove(el).(*block)
	delete(ks.blocks, b.idx)
	c.stats.Size -= int64(len(b.data)) + blockOverhead
}

// evict removes least recently used blocks until the cache fits. c.mu must
// be held.
func (c *Cached) evict() {
	for c.stats.Size > c.max {
		el := c.lru.Back()
		key := el.Value.(*block).key
		ks := c.keys[key]
		c.remove(ks, el)
		c.stats.Evictions++
		c.forget(key, ks)
	}
}

// Invalidate drops the cached blocks of key. Reads in progress finish with
// what they fetched, but their blocks are not cached.
func (c *Cached) Invalidate(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.invalidate(key)
}

// invalidate is Invalidate with c.mu held.
func (c *Cached) invalidate(key string) {
	ks := c.keys[key]
	if ks == nil {
		return
	}
	for _, el := range ks.blocks {
		c.remove(ks, el)
	}
	ks.gen++
	ks.etag = ""
	clear(ks.flights) // later reads start fresh fetches
	c.forget(key, ks)
}

// Stat implements Store: it asks the underlying store every time and drops
// the key's blocks when the version tag differs from the last one seen, when
// blocks were cached before any Stat, or when the key is gone.
func (c *Cached) Stat(ctx context.Context, key string) (Info, error) {
	info, err := c.s.Stat(ctx, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.invalidate(key)
		}
		return info, err
	}
	ks := c.state(key)
	if ks.etag != info.ETag {
		if ks.etag != "" || len(ks.blocks) > 0 || len(ks.flights) > 0 {
			c.invalidate(key)
			ks = c.state(key)
		}
		ks.etag = info.ETag
	}
	return info, nil
}
