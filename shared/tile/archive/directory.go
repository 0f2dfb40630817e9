package archive

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// Limits on decompressed sections, so a corrupt archive cannot make a reader
// allocate without bound.
const (
	maxDirectoryBytes = 32 << 20
	maxMetadataBytes  = 16 << 20
)

// entry is a directory entry. With runLength > 0 it covers the runLength
// tiles from tileID on, which all share the length bytes at offset in the
// tile data. With runLength 0 it points instead at the leaf directory of
// length bytes at offset in the leaf section, which covers the tiles from
// tileID up to the next entry's.
type entry struct {
	tileID    uint64
	offset    uint64
	length    uint32
	runLength uint32
}

// findTile returns the entry of dir, sorted by tile ID, that covers tile
// id: a run that holds it or the leaf directory to look in next. ok is
// false when no entry covers id.
func findTile(dir []entry, id uint64) (e entry, ok bool) {
	// Find the first entry past id; the one before it is the candidate.
	lo, hi := 0, len(dir)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if dir[m].tileID <= id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return entry{}, false
	}
	e = dir[lo-1]
	if e.runLength == 0 || id-e.tileID < uint64(e.runLength) {
		return e, true
	}
	return entry{}, false
}

// decompress inflates a directory or metadata section stored with
// compression c, refusing output larger than limit.
func decompress(b []byte, c compression, limit int64) ([]byte, error) {
	switch c {
	case noCompression:
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("larger than %d bytes", limit)
		}
		return b, nil
	case gzipCompression:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		out, err := io.ReadAll(io.LimitReader(zr, limit+1))
		if err != nil {
			return nil, err
		}
		if int64(len(out)) > limit {
			return nil, fmt.Errorf("inflates to more than %d bytes", limit)
		}
		return out, nil
	}
	return nil, fmt.Errorf("compression %s is not supported", c)
}

// decodeDirectory parses an uncompressed PMTiles v3 directory: an entry
// count, then the columns tile-ID delta, run length, length and offset, each
// a varint per entry, where an offset of 0 means "right after the previous
// entry" and any other value is the offset plus 1. It checks every value, so
// corrupt bytes give an error instead of a panic or a huge allocation.
func decodeDirectory(b []byte) ([]entry, error) {
	d := varints{b: b}
	n := d.next()
	if d.err != nil {
		return nil, d.err
	}
	if n > uint64(len(b)-d.pos)/4 { // every entry takes at least 4 bytes
		return nil, fmt.Errorf("%d entries cannot fit in %d bytes", n, len(b))
	}
	entries := make([]entry, n)
	var id uint64
	for i := range entries {
		delta := d.next()
		switch {
		case d.err != nil:
			return nil, d.err
		case i > 0 && delta == 0:
			return nil, errors.New("tile IDs are not ascending")
		case id+delta < id:
			return nil, errors.New("tile ID overflows")
		}
		id += delta
		entries[i].tileID = id
	}
	for i := range entries {
		entries[i].runLength = d.uint32()
	}
	for i := range entries {
		entries[i].length = d.uint32()
		if d.err == nil && entries[i].length == 0 {
			return nil, errors.New("entry of length 0")
		}
	}
	for i := range entries {
		switch v := d.next(); {
		case d.err != nil:
			return nil, d.err
		case v == 0 && i > 0:
			entries[i].offset = entries[i-1].offset + uint64(entries[i-1].length)
		case v == 0:
			return nil, errors.New("first entry has no offset")
		default:
			entries[i].offset = v - 1
		}
	}
	if d.pos != len(b) {
		return nil, fmt.Errorf("%d bytes after the last entry", len(b)-d.pos)
	}
	return entries, nil
}

// varints reads unsigned varints, remembering the first error.
type varints struct {
	b   []byte
	pos int
	err error
}

var errVarint = errors.New("truncated or overlong varint")

func (d *varints) next() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 {
		d.err = errVarint
		return 0
	}
	d.pos += n
	return v
}

func (d *varints) uint32() uint32 {
	v := d.next()
	if v > math.MaxUint32 && d.err == nil {
		d.err = fmt.Errorf("value %d does not fit in 32 bits", v)
	}
	return uint32(v)
}

// maxCachedEntries bounds the leaf cache: 1 Mi entries of 24 bytes, 24 MiB
// at most, filled only as tiles are read. A province's survey grid to z14 is
// about 460,000 tiles: with a smaller cache, map traffic spread over the
// province decoded a leaf (~4,000 entries, ~250 µs) on most reads. The
// most recent leaf stays cached even when it alone is larger.
const maxCachedEntries = 1 << 20

// leafCache is an LRU of decoded leaf directories keyed by their offset in
// the leaf section, bounded by the total number of entries it holds.
type leafCache struct {
	mu      sync.Mutex
	ll      *list.List // of *leaf, most recent first
	byOff   map[uint64]*list.Element
	entries int
}

type leaf struct {
	off     uint64
	entries []entry
}

func newLeafCache() *leafCache {
	return &leafCache{ll: list.New(), byOff: map[uint64]*list.Element{}}
}

func (c *leafCache) get(off uint64) ([]entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byOff[off]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*leaf).entries, true
}

func (c *leafCache) put(off uint64, entries []entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byOff[off]; ok { // another caller read it meanwhile
		c.ll.MoveToFront(e)
		return
	}
	c.byOff[off] = c.ll.PushFront(&leaf{off, entries})
	c.entries += len(entries)
	for c.entries > maxCachedEntries && c.ll.Len() > 1 {
		l := c.ll.Remove(c.ll.Back()).(*leaf)
		delete(c.byOff, l.off)
		c.entries -= len(l.entries)
	}
}
