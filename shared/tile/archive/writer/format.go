package writer

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
)

// The PMTiles v3 structures the writer writes, laid out as the
// specification gives them: the fixed 127-byte header and the
// varint-coded directories. Package archive reads them back; the tests
// also read every archive with go-pmtiles, the format's reference
// implementation, which the writer itself no longer imports (it brought
// some 300 cloud-storage packages into every binary that wrote an archive).

// headerLen is the size of a v3 header.
const headerLen = 127

// Enumerations of the header, as the specification numbers them.
const (
	compressionGzip = 2
	tileTypeMVT     = 1
)

// entry is a directory entry: tiles id to id+run-1 are the length bytes
// at offset in the tile data. An entry with run 0 points at a leaf
// directory instead, at offset in the leaf section.
type entry struct {
	id     uint64
	offset uint64
	length uint32
	run    uint32
}

// header holds the fields of a v3 header.
type header struct {
	rootOffset, rootLength uint64
	metaOffset, metaLength uint64
	leafOffset, leafLength uint64
	dataOffset, dataLength uint64

	addressedTiles, tileEntries, tileContents uint64

	clustered                            bool
	internalCompression, tileCompression uint8
	tileType                             uint8
	minZoom, maxZoom                     uint8
	minLonE7, minLatE7                   int32
	maxLonE7, maxLatE7                   int32
	centerZoom                           uint8
	centerLonE7, centerLatE7             int32
}

// marshal lays h out: the magic "PMTiles" and version 3, eleven
// little-endian uint64s, four bytes of flags and types, the two zooms, four
// int32 bounds, the center zoom and two int32 center coordinates.
func (h *header) marshal() []byte {
	b := make([]byte, 0, headerLen)
	b = append(b, "PMTiles"...)
	b = append(b, 3)
	for _, v := range []uint64{h.rootOffset, h.rootLength, h.metaOffset, h.metaLength, h.leafOffset, h.leafLength,
		h.dataOffset, h.dataLength, h.addressedTiles, h.tileEntries, h.tileContents} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	clustered := uint8(0)
	if h.clustered {
		clustered = 1
	}
	b = append(b, clustered, h.internalCompression, h.tileCompression, h.tileType, h.minZoom, h.maxZoom)
	for _, v := range []int32{h.minLonE7, h.minLatE7, h.maxLonE7, h.maxLatE7} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	b = append(b, h.centerZoom)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.centerLonE7))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.centerLatE7))
	return b
}

// directory returns es as a gzip-compressed directory: the entry count,
// then each column in turn as uvarints — tile IDs as differences from the
// previous one, run lengths, lengths, and offsets, written as 0 where an
// entry's data follows the previous entry's and as offset+1 otherwise.
func directory(es []entry) []byte {
	raw := binary.AppendUvarint(nil, uint64(len(es)))
	last := uint64(0)
	for _, e := range es {
		raw = binary.AppendUvarint(raw, e.id-last)
		last = e.id
	}
	for _, e := range es {
		raw = binary.AppendUvarint(raw, uint64(e.run))
	}
	for _, e := range es {
		raw = binary.AppendUvarint(raw, uint64(e.length))
	}
	for i, e := range es {
		if i > 0 && e.offset == es[i-1].offset+uint64(es[i-1].length) {
			raw = append(raw, 0)
		} else {
			raw = binary.AppendUvarint(raw, e.offset+1)
		}
	}
	return gzipBest(raw)
}

// gzipBest compresses b at the standard library's best level, as
// go-pmtiles compresses directories and metadata, so archives stay byte for
// byte what they were when go-pmtiles serialized them.
func gzipBest(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	zw.Write(b)                                              // writes to a bytes.Buffer cannot fail
	zw.Close()
	return buf.Bytes()
}

// Directory sizes. A root holds at most maxRootEntries tile entries, as
// go-pmtiles writes them: every reader decodes and keeps the whole root
// when it opens an archive (24 bytes an entry in package archive). A leaf
// holds at least minLeafEntries: a reader fetches a whole leaf for one
// tile, so leaves stay a few tens of KB.
const (
	maxRootEntries = 16384
	minLeafEntries = 4096
)

// directories lays es out as a root directory of at most budget bytes
// and the leaf directories it points to. When es fit in the root there
// are no leaves. Otherwise every leaf holds the same number of entries
// (the last fewer), from minLeafEntries up, a quarter more each time,
// until the root of pointers to them fits.
func directories(es []entry, budget int) (root, leaves []byte, nLeaves int) {
	if len(es) < maxRootEntries {
		if root := directory(es); len(root) <= budget {
			return root, nil, 0
		}
	}
	for size := minLeafEntries; ; size += size / 4 {
		pointers := make([]entry, 0, (len(es)+size-1)/size)
		leaves = leaves[:0]
		for i := 0; i < len(es); i += size {
			leaf := directory(es[i:min(i+size, len(es))])
			pointers = append(pointers, entry{id: es[i].id, offset: uint64(len(leaves)), length: uint32(len(leaf))})
			leaves = append(leaves, leaf...)
		}
		if root = directory(pointers); len(root) <= budget {
			return root, leaves, len(pointers)
		}
	}
}
