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

	"github.com/protomaps/go-pmtiles/pmtiles"
)

// Limits on decompressed sections, so a corrupt archive cannot make a reader
// allocate without bound.
const (
	maxDirectoryBytes = 32 << 20
	maxMetadataBytes  = 16 << 20
)

// decompress inflates a directory or metadata section stored with
// compression c, refusing output larger than limit.
func decompress(b []byte, c pmtiles.Compression, limit int64) ([]byte, error) {
	switch c {
	case pmtiles.NoCompression:
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("larger than %d bytes", limit)
		}
		return b, nil
	case pmtiles.Gzip:
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
	return nil, fmt.Errorf("compression %d is not supported", c)
}

// decodeDirectory parses an uncompressed PMTiles v3 directory: an entry
// count, then the columns tile-ID delta, run length, length and offset, each
// a varint per entry. Unlike pmtiles.DeserializeEntries it checks every
// value, so corrupt bytes give an error instead of a panic or a huge
// allocation.
func decodeDirectory(b []byte) ([]pmtiles.EntryV3, error) {
	d := varints{b: b}
	n := d.next()
	if d.err == nil && n > uint64(len(b)-d.pos)/4 { // every entry takes at least 4 bytes
		return nil, fmt.Errorf("%d entries cannot fit in %d bytes", n, len(b))
	}
	entries := make([]pmtiles.EntryV3, n)
	var id uint64
	for i := range entries {
		delta := d.next()
		if i > 0 && delta == 0 {
			return nil, errors.New("tile IDs are not ascending")
		}
		if id+delta < id {
			return nil, errors.New("tile ID overflows")
		}
		id += delta
		entries[i].TileID = id
	}
	for i := range entries {
		entries[i].RunLength = d.uint32()
	}
	for i := range entries {
		if entries[i].Length = d.uint32(); entries[i].Length == 0 && d.err == nil {
			return nil, errors.New("entry of length 0")
		}
	}
	for i := range entries {
		switch v := d.next(); {
		case v == 0 && i > 0:
			entries[i].Offset = entries[i-1].Offset + uint64(entries[i-1].Length)
		case v == 0:
			return nil, errors.New("first entry has no offset")
		default:
			entries[i].Offset = v - 1
		}
	}
	if d.err != nil {
		return nil, d.err
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

// maxCachedEntries bounds the leaf cache: 256 Ki entries of 24 bytes, 6 MiB.
// The most recent leaf stays cached even when it alone is larger.
const maxCachedEntries = 256 << 10

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
	entries []pmtiles.EntryV3
}

func newLeafCache() *leafCache {
	return &leafCache{ll: list.New(), byOff: map[uint64]*list.Element{}}
}

func (c *leafCache) get(off uint64) ([]pmtiles.EntryV3, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byOff[off]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*leaf).entries, true
}

func (c *leafCache) put(off uint64, entries []pmtiles.EntryV3) {
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
