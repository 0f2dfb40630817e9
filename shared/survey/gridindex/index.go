package gridindex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/paulmach/orb"

	"meridian/shared/blob"
	"meridian/shared/lld"
)

// RangeReader reads byte ranges of an object: a local file or an S3 object
// through package blob.
type RangeReader interface {
	ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error)
}

// Options tune an open Index.
type Options struct {
	// CacheBytes bounds the decoded blocks and page directories kept in
	// memory, in estimated heap bytes; DefaultCacheBytes when zero. The
	// cache is split into up to 16 shards of at least 1 MiB; an entry
	// larger than its shard's share is read for each lookup and never
	// kept (CacheBytes 1 keeps nothing).
	CacheBytes int64
	// Recheck is how often the Index compares the store's version tag of
	// its file with the one it opened (see Index); DefaultRecheck when
	// zero, every lookup when negative. Only for stores that pin reads.
	Recheck time.Duration
}

// version is one version of an index file, opened and read pinned to the
// store's version tag when the store can pin reads (see Index).
type version struct {
	rr      RangeReader
	pinned  pinnedReader // rr, when it can pin reads; nil otherwise
	key     string
	tag     string // the store's version tag at open ("" unpinned)
	h       header
	meta    Meta
	spatial []spatialRef
	keys    []keyRef
	leaves  []byte // the directory leaves, compressed, read at open; nil: read a leaf at a time

	pages   *pageCache
	records *recordCache

	// dls finds a DLS township's group by its numbers (meridian, range,
	// township): two loads, where its key took a search of the key
	// leaves and a map probe, and its blocks from there without the
	// cache's lock and map. Filled as townships are asked for; dlsBytes
	// counts its rows and groups.
	dls      [lld.E2 + 1][dlsRanges]atomic.Pointer[dlsRow]
	dlsBytes atomic.Int64
	dlsCount atomic.Int64 // groups of townships the index holds

	reads *atomic.Int64 // range reads issued, the Index's counter
}

type spatialRef struct {
	bound       orb.Bound
	off, length uint64
	leaf        atomic.Pointer[[]pageRef] // decoded on first use
}

type keyRef struct {
	first, last string
	off, length uint64
	leaf        atomic.Pointer[keyLeaf] // decoded on first use
}

type pageRef struct {
	bound       orb.Bound
	off, length uint64
	count       int
}

type keyEntry struct {
	key         string
	off, length uint64
}

// keyLeaf is a decoded key leaf: its entries in key order (GroupKeys) and
// by key (a lookup: one map probe, where bisecting 256 keys touched eight
// cold strings).
type keyLeaf struct {
	entries []keyEntry
	byKey   map[string]int32
}

// openVersion reads the header, metadata and root of the index stored
// under key: one range read when they fit in the first 16 KiB (and a Stat
// when rr can pin reads, unless rr reads an object's first bytes with its
// version in one request: blob.FirstReader, S3).
func openVersion(ctx context.Context, rr RangeReader, key string, opts Options, reads *atomic.Int64) (*version, error) {
	recordBytes := opts.CacheBytes / recordShare
	ix := &version{rr: rr, key: key, pages: newPageCache(opts.CacheBytes - recordBytes), records: newRecordCache(recordBytes), reads: reads}
	var first []byte
	var err error
	if f, ok := rr.(firstReader); ok {
		reads.Add(1)
		var info blob.Info
		if first, info, err = f.ReadFirst(ctx, key, firstRead); err != nil {
			return nil, fmt.Errorf("gridindex: open %s: %w", key, err)
		}
		ix.pinned, ix.tag = f, info.ETag
	} else {
		if p, ok := rr.(pinnedReader); ok {
			info, err := p.Stat(ctx, key)
			if err != nil {
				return nil, fmt.Errorf("gridindex: open %s: %w", key, err)
			}
			ix.pinned, ix.tag = p, info.ETag
		}
		if first, err = ix.read(ctx, 0, firstRead); err != nil {
			return nil, err
		}
	}
	if ix.h, err = unmarshalHeader(first); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	section := func(off uint64, n uint32) ([]byte, error) {
		if end := off + uint64(n); end <= uint64(len(first)) {
			return first[off:end], nil
		}
		return ix.read(ctx, off, int64(n))
	}
	metaZ, err := section(ix.h.metaOff, ix.h.metaLen)
	if err != nil {
		return nil, err
	}
	metaJSON, err := gunzip(metaZ)
	if err != nil {
		return nil, fmt.Errorf("%s: metadata: %w", key, err)
	}
	if err := json.Unmarshal(metaJSON, &ix.meta); err != nil {
		return nil, fmt.Errorf("%s: metadata: %w", key, err)
	}
	rootZ, err := section(ix.h.rootOff, ix.h.rootLen)
	if err != nil {
		return nil, err
	}
	root, err := gunzip(rootZ)
	if err != nil {
		return nil, fmt.Errorf("%s: root: %w", key, err)
	}
	d := decoder{b: root}
	ix.spatial = make([]spatialRef, d.count(6))
	for i := range ix.spatial {
		s := &ix.spatial[i]
		s.bound, s.off, s.length = d.bound(), d.uvarint(), d.uvarint()
	}
	ix.keys = make([]keyRef, d.count(4))
	for i := range ix.keys {
		k := &ix.keys[i]
		k.first, k.last, k.off, k.length = d.str(), d.str(), d.uvarint(), d.uvarint()
	}
	if d.err != nil {
		return nil, fmt.Errorf("%s: root: %w", key, d.err)
	}
	// The directory leaves, read whole when they are small enough: a
	// lookup then reads one page or one block, never a leaf first. On S3
	// that is one round trip a lookup instead of two whenever the leaf had
	// not been read yet, which at province size is most of a Lambda's
	// first thousand lookups (the full-size indexes' leaves are 150-220 KB,
	// up to 70 leaves each). Decoding stays lazy.
	if ix.h.leavesLen <= maxPrefetchLeaves {
		z, err := section(ix.h.leavesOff, uint32(ix.h.leavesLen))
		if err != nil {
			return nil, err
		}
		if uint64(len(z)) != ix.h.leavesLen {
			return nil, fmt.Errorf("gridindex: %s: directory leaves: %d bytes of %d", key, len(z), ix.h.leavesLen)
		}
		ix.leaves = bytes.Clone(z) // first may be a shared cache block
	}
	return ix, nil
}

func (ix *version) read(ctx context.Context, off uint64, n int64) ([]byte, error) {
	if off > maxFileSize || n < 0 || n > maxFileSize {
		return nil, fmt.Errorf("gridindex: %s: corrupt offset", ix.key)
	}
	ix.reads.Add(1)
	var b []byte
	var err error
	if ix.pinned != nil {
		b, err = ix.pinned.ReadRangeIf(ctx, ix.key, ix.tag, int64(off), n)
	} else {
		b, err = ix.rr.ReadRange(ctx, ix.key, int64(off), n)
	}
	if err != nil {
		return nil, fmt.Errorf("gridindex: read %s: %w", ix.key, err)
	}
	return b, nil
}

// leafBytes reads and inflates a directory leaf.
func (ix *version) leafBytes(ctx context.Context, off, length uint64) (*decoder, error) {
	if off > ix.h.leavesLen || length > ix.h.leavesLen-off || length > maxUncompressed {
		return nil, fmt.Errorf("gridindex: %s: leaf out of range", ix.key)
	}
	var z []byte
	if ix.leaves != nil {
		z = ix.leaves[off : off+length]
	} else {
		var err error
		if z, err = ix.read(ctx, ix.h.leavesOff+off, int64(length)); err != nil {
			return nil, err
		}
	}
	raw, err := gunzip(z)
	if err != nil {
		return nil, err
	}
	return &decoder{b: raw}, nil
}

// keyLeaf returns the decoded entries of a key leaf, reading it once; the
// hot path after that is a lock-free load.
func (ix *version) keyLeaf(ctx context.Context, k *keyRef) (*keyLeaf, error) {
	if p := k.leaf.Load(); p != nil {
		return p, nil
	}
	d, err := ix.leafBytes(ctx, k.off, k.length)
	if err != nil {
		return nil, err
	}
	entries := make([]keyEntry, d.count(3))
	for i := range entries {
		entries[i] = keyEntry{key: d.str(), off: d.uvarint(), length: d.uvarint()}
	}
	if d.err != nil {
		return nil, fmt.Errorf("gridindex: %s: leaf: %w", ix.key, d.err)
	}
	leaf := &keyLeaf{entries: entries, byKey: make(map[string]int32, len(entries))}
	for i, e := range entries {
		leaf.byKey[e.key] = int32(i)
	}
	k.leaf.Store(leaf)
	return leaf, nil
}

// spatialLeaf returns the decoded pages of a spatial leaf, reading it once.
func (ix *version) spatialLeaf(ctx context.Context, s *spatialRef) ([]pageRef, error) {
	if p := s.leaf.Load(); p != nil {
		return *p, nil
	}
	d, err := ix.leafBytes(ctx, s.off, s.length)
	if err != nil {
		return nil, err
	}
	refs := make([]pageRef, d.count(7))
	for i := range refs {
		refs[i] = pageRef{bound: d.bound(), off: d.uvarint(), length: d.uvarint(), count: int(d.uvarint())}
	}
	if d.err != nil {
		return nil, fmt.Errorf("gridindex: %s: leaf: %w", ix.key, d.err)
	}
	s.leaf.Store(&refs)
	return refs, nil
}

// dir returns the directory of the page at off (length bytes, in the
// pages section) and, when it had to read the page, the page's bytes, so
// that the caller inflates the blocks it needs without reading again.
func (ix *version) dir(ctx context.Context, off, length uint64) (*pageDir, []byte, error) {
	if e := ix.pages.get(dirKey(off)); e != nil {
		return e.dir, nil, nil
	}
	if off > ix.h.pagesLen || length > ix.h.pagesLen-off || length > maxUncompressed {
		return nil, nil, fmt.Errorf("gridindex: %s: page out of range", ix.key)
	}
	z, err := ix.read(ctx, ix.h.pagesOff+off, int64(length))
	if err != nil {
		return nil, nil, err
	}
	d, err := parseDir(z)
	if err != nil {
		return nil, nil, fmt.Errorf("gridindex: %s: page directory: %w", ix.key, err)
	}
	return ix.pages.put(dirEntry(dirKey(off), d)).dir, z, nil
}

// loadBlock inflates block br of the page at off and caches it: from span
// (the page's bytes from spanOff on) when it holds the block, else read
// alone. Callers have looked for it in the cache. slot, when not nil, is
// where its township keeps it (dlsGroup.blocks).
func (ix *version) loadBlock(ctx context.Context, off uint64, br *blockRef, span []byte, spanOff uint32, slot *atomic.Pointer[cacheEntry]) (*block, error) {
	var z []byte
	if br.off >= spanOff && uint64(br.off-spanOff)+uint64(br.length) <= uint64(len(span)) {
		z = span[br.off-spanOff : br.off-spanOff+br.length]
	} else {
		var err error
		if z, err = ix.read(ctx, ix.h.pagesOff+off+uint64(br.off), int64(br.length)); err != nil {
			return nil, err
		}
	}
	raw, err := gunzip(z)
	if err != nil {
		return nil, fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
	}
	b, err := scanBlock(raw)
	if err == nil && b.len() != int(br.count) {
		err = errCorrupt
	}
	if err != nil {
		return nil, fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
	}
	b.id = blockKey(off, br.label)
	be := blockEntry(b.id, b)
	be.slot = slot
	return ix.pages.put(be).block, nil
}

// blocks calls fn with each block of the page at off (length bytes) that
// want selects, in the page's order. The blocks not cached are read in one
// range read from the first to the last of them (none when the directory
// was just read: the page's bytes are at hand).
func (ix *version) blocks(ctx context.Context, off, length uint64, want func(*blockRef) bool, fn func(*block) error) error {
	d, span, err := ix.dir(ctx, off, length)
	if err != nil {
		return err
	}
	var spanOff uint32
	if span == nil {
		lo, hi := uint32(math.MaxUint32), uint32(0)
		for i := range d.blocks {
			br := &d.blocks[i]
			if want(br) && !ix.pages.has(blockKey(off, br.label)) {
				lo, hi = min(lo, br.off), max(hi, br.off+br.length)
			}
		}
		if lo < hi {
			if span, err = ix.read(ctx, ix.h.pagesOff+off+uint64(lo), int64(hi-lo)); err != nil {
				return err
			}
			spanOff = lo
		}
	}
	for i := range d.blocks {
		br := &d.blocks[i]
		if !want(br) {
			continue
		}
		var b *block
		if e := ix.pages.get(blockKey(off, br.label)); e != nil {
			b = e.block
		} else if b, err = ix.loadBlock(ctx, off, br, span, spanOff, nil); err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// findGroup returns the key-leaf entry of a group key, or nil.
func (ix *version) findGroup(ctx context.Context, group string) (*keyEntry, error) {
	i := sort.Search(len(ix.keys), func(i int) bool { return ix.keys[i].last >= group })
	if i == len(ix.keys) || ix.keys[i].first > group {
		return nil, nil
	}
	leaf, err := ix.keyLeaf(ctx, &ix.keys[i])
	if err != nil {
		return nil, err
	}
	j, ok := leaf.byKey[group]
	if !ok {
		return nil, nil
	}
	return &leaf.entries[j], nil
}

// groupOf returns the key-leaf entry of l's group, or nil. The group key
// is built on the stack: a string only the probe reads, never kept.
func (ix *version) groupOf(ctx context.Context, l lld.Location) (*keyEntry, error) {
	var gbuf [64]byte
	gb, ok := appendGroupKey(gbuf[:0], l)
	if !ok {
		return nil, nil
	}
	return ix.findGroup(ctx, unsafe.String(unsafe.SliceData(gb), len(gb)))
}

// HasGroup reports whether the index holds any record of l's group (its
// DLS township, Manitoba parish or Ontario geographic township).
func (ix *version) hasGroup(ctx context.Context, l lld.Location) (bool, error) {
	if dlsDense(l) {
		g, err := ix.dlsGroupOf(ctx, l)
		return err == nil && g.e != nil, err
	}
	e, err := ix.groupOf(ctx, l)
	return e != nil, err
}

// blockOf returns the block that holds l's record, and the record's index
// in it, or false.
func (ix *version) blockOf(ctx context.Context, l lld.Location) (*block, int, bool, error) {
	var e *keyEntry
	var slot *atomic.Pointer[cacheEntry] // where the township keeps the block
	label := blockLabel(l)
	if dlsDense(l) {
		g, err := ix.dlsGroupOf(ctx, l)
		if err != nil {
			return nil, 0, false, err
		}
		e = g.e
		if e != nil && int(label) < len(g.blocks) {
			slot = &g.blocks[label]
		}
	} else {
		var err error
		if e, err = ix.groupOf(ctx, l); err != nil {
			return nil, 0, false, err
		}
	}
	if e == nil {
		return nil, 0, false, nil
	}
	var b *block
	var ce *cacheEntry
	if slot != nil {
		ce = ix.pages.getSlot(slot, blockKey(e.off, label))
	} else {
		ce = ix.pages.get(blockKey(e.off, label))
	}
	if ce != nil {
		b = ce.block
	} else {
		d, z, err := ix.dir(ctx, e.off, e.length)
		if err != nil {
			return nil, 0, false, err
		}
		i, ok := d.find(label)
		if !ok {
			return nil, 0, false, nil
		}
		if b, err = ix.loadBlock(ctx, e.off, &d.blocks[i], z, 0, slot); err != nil {
			return nil, 0, false, err
		}
	}
	var kbuf [64]byte // the record's key on the stack, read by the probe only
	kb := l.AppendText(kbuf[:0])
	i, ok := b.findDLS(l, unsafe.String(unsafe.SliceData(kb), len(kb)))
	return b, i, ok, nil
}

// bound returns the box of l's record without decoding its geometry.
func (ix *version) bound(ctx context.Context, l lld.Location) (orb.Bound, bool, error) {
	b, i, ok, err := ix.blockOf(ctx, l)
	if err != nil || !ok {
		return orb.Bound{}, false, err
	}
	return b.bounds[i].bound(), true, nil
}

// Lookup returns the record of l: one probe of the block cache when l's
// block is cached; else its page's directory (cached, or read with the
// page) and the block.
func (ix *version) lookup(ctx context.Context, l lld.Location) (Record, bool, error) {
	b, i, ok, err := ix.blockOf(ctx, l)
	if err != nil || !ok {
		return Record{}, false, err
	}
	var known *lld.Location
	if l.System == lld.DLS { // every field is in the key: l is what parsing it gives
		known = &l
	}
	r, err := ix.recordAt(b, i, known)
	if err != nil {
		return Record{}, false, fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
	}
	return r, true, nil
}

// Group returns every record of l's group.
func (ix *version) group(ctx context.Context, l lld.Location) ([]Record, error) {
	g, ok := GroupKey(l)
	if !ok {
		return nil, nil
	}
	return ix.groupByKey(ctx, g)
}

// blocksNear calls fn for each block whose box, grown by margin degrees,
// contains pt.
func (ix *version) blocksNear(ctx context.Context, pt orb.Point, margin float64, fn func(*block) error) error {
	b := orb.Bound{Min: orb.Point{pt[0] - margin, pt[1] - margin}, Max: orb.Point{pt[0] + margin, pt[1] + margin}}
	return ix.blocksIn(ctx, b, fn)
}

// blocksIn calls fn for each block whose box intersects b (edges
// included), page by page in file order.
func (ix *version) blocksIn(ctx context.Context, b orb.Bound, fn func(*block) error) error {
	if !ix.h.bounds.Intersects(b) {
		return nil
	}
	for i := range ix.spatial {
		s := &ix.spatial[i]
		if !s.bound.Intersects(b) {
			continue
		}
		refs, err := ix.spatialLeaf(ctx, s)
		if err != nil {
			return err
		}
		for _, pr := range refs {
			if !pr.bound.Intersects(b) {
				continue
			}
			err := ix.blocks(ctx, pr.off, pr.length, func(br *blockRef) bool { return br.bound.Intersects(b) }, fn)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Within calls fn with every record of unit u whose box intersects b, page
// by page in file order: what a map tile over b draws. Records without a
// polygon are matched by their centroid. fn must not keep rec past the call
// unless it copies it.
func (ix *version) within(ctx context.Context, b orb.Bound, u lld.Unit, fn func(rec *Record) error) error {
	return ix.blocksIn(ctx, b, func(p *block) error {
		kinds, err := p.kindsOf()
		if err != nil {
			return fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
		}
		for i := range p.len() {
			if kinds[i].unit != u || !p.bounds[i].bound().Intersects(b) {
				continue
			}
			r, err := p.record(i)
			if err != nil {
				return fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
			}
			if err := fn(&r); err != nil {
				return err
			}
		}
		return nil
	})
}

// recordAt returns record i of block p, decoded once while the record
// cache keeps it. l, when not nil, is the record's location (a DLS key:
// not parsed again). The record's geometry is shared: callers must not
// modify it.
func (ix *version) recordAt(p *block, i int, l *lld.Location) (Record, error) {
	k := recordKey{p.id, uint32(i)}
	if r := ix.records.get(k); r != nil {
		return *r, nil
	}
	var r Record
	var err error
	if l != nil {
		r, err = p.recordOf(i, *l)
	} else {
		r, err = p.record(i)
	}
	if err != nil {
		return Record{}, err
	}
	ix.records.put(k, &r)
	return r, nil
}

// Hit is a record whose polygon contains a point (Index.ContainingHits):
// its system and unit, and the record, decoded when asked for.
type Hit struct {
	System lld.System
	Unit   lld.Unit
	v      *version
	b      *block
	i      int
	rec    *Record
}

// Record decodes the record, once: the hit keeps it (a caller asking for
// it again gets the same record, sharing its geometry).
func (h *Hit) Record() (Record, error) {
	if h.rec != nil {
		return *h.rec, nil
	}
	r, err := h.v.recordAt(h.b, h.i, nil)
	if err != nil {
		return Record{}, fmt.Errorf("gridindex: %s: block: %w", h.v.key, err)
	}
	h.rec = &r
	return r, nil
}

// GroupKeys returns up to limit group keys starting with prefix, in order.
func (ix *version) groupKeys(ctx context.Context, prefix string, limit int) ([]string, error) {
	var out []string
	for i := range ix.keys {
		k := &ix.keys[i]
		if k.last < prefix || (k.first > prefix && !strings.HasPrefix(k.first, prefix)) {
			continue
		}
		leaf, err := ix.keyLeaf(ctx, k)
		if err != nil {
			return nil, err
		}
		for _, e := range leaf.entries {
			if strings.HasPrefix(e.key, prefix) {
				out = append(out, e.key)
				if len(out) == limit {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// GroupByKey returns the records of a group key from GroupKeys.
func (ix *version) groupByKey(ctx context.Context, group string) ([]Record, error) {
	e, err := ix.findGroup(ctx, group)
	if err != nil || e == nil {
		return nil, err
	}
	type keyed struct {
		key string
		rec Record
	}
	var all []keyed
	err = ix.blocks(ctx, e.off, e.length, func(*blockRef) bool { return true }, func(b *block) error {
		for i := range b.len() {
			r, err := b.record(i)
			if err != nil {
				return fmt.Errorf("gridindex: %s: block: %w", ix.key, err)
			}
			all = append(all, keyed{b.key(i), r})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Blocks are in label order, records in key order within each.
	slices.SortFunc(all, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	recs := make([]Record, len(all))
	for i := range all {
		recs[i] = all[i].rec
	}
	return recs, nil
}
