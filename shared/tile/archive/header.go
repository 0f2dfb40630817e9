package archive

import (
	"encoding/binary"
	"fmt"
)

// headerLen is the size of a PMTiles v3 header, which starts every archive.
const headerLen = 127

// compression says how a section is compressed, with the values of the
// PMTiles v3 spec.
type compression uint8

const (
	unknownCompression compression = 0
	noCompression      compression = 1
	gzipCompression    compression = 2
	brotliCompression  compression = 3
	zstdCompression    compression = 4
)

func (c compression) String() string {
	switch c {
	case unknownCompression:
		return "unknown"
	case noCompression:
		return "none"
	case gzipCompression:
		return "gzip"
	case brotliCompression:
		return "brotli"
	case zstdCompression:
		return "zstd"
	}
	return fmt.Sprintf("%d", uint8(c))
}

// tileType is what the tiles are, with the values of the PMTiles v3 spec.
type tileType uint8

const (
	unknownTileType tileType = 0
	mvtTile         tileType = 1
	pngTile         tileType = 2
	jpegTile        tileType = 3
	webpTile        tileType = 4
	avifTile        tileType = 5
	mltTile         tileType = 6
)

func (t tileType) String() string {
	switch t {
	case mvtTile:
		return "MVT"
	case pngTile:
		return "PNG"
	case jpegTile:
		return "JPEG"
	case webpTile:
		return "WebP"
	case avifTile:
		return "AVIF"
	case mltTile:
		return "MLT"
	}
	return fmt.Sprintf("of unknown type %d", uint8(t))
}

// v3Header is a decoded PMTiles v3 header. Offsets are from the start of
// the archive, except that directory entries point into the leaf and tile
// data sections relative to those sections' starts.
type v3Header struct {
	rootOff, rootLen uint64 // root directory
	metaOff, metaLen uint64 // metadata JSON
	leafOff, leafLen uint64 // leaf directories
	dataOff, dataLen uint64 // tile data

	addressedTiles uint64 // tiles with data, runs counted tile by tile
	tileEntries    uint64 // directory entries pointing at tile data
	tileContents   uint64 // distinct tile contents

	clustered           bool
	internalCompression compression // of directories and metadata
	tileCompression     compression
	tileType            tileType
	minZoom, maxZoom    uint8

	minLonE7, minLatE7 int32 // bounds, in 1e-7 degrees
	maxLonE7, maxLatE7 int32

	centerZoom               uint8
	centerLonE7, centerLatE7 int32
}

// decodeHeader decodes the fields of a v3 header, in the order the spec
// lays them out after the 7-byte magic "PMTiles" and the version byte:
// eleven little-endian uint64s, six bytes, four int32 bounds, the center
// zoom byte and two int32 center coordinates. It does not check the magic
// or the version, nor any value.
func decodeHeader(b *[headerLen]byte) v3Header {
	d := fields{b: b[8:]}
	var h v3Header
	h.rootOff, h.rootLen = d.u64(), d.u64()
	h.metaOff, h.metaLen = d.u64(), d.u64()
	h.leafOff, h.leafLen = d.u64(), d.u64()
	h.dataOff, h.dataLen = d.u64(), d.u64()
	h.addressedTiles, h.tileEntries, h.tileContents = d.u64(), d.u64(), d.u64()
	h.clustered = d.u8() == 1
	h.internalCompression = compression(d.u8())
	h.tileCompression = compression(d.u8())
	h.tileType = tileType(d.u8())
	h.minZoom, h.maxZoom = d.u8(), d.u8()
	h.minLonE7, h.minLatE7 = d.i32(), d.i32()
	h.maxLonE7, h.maxLatE7 = d.i32(), d.i32()
	h.centerZoom = d.u8()
	h.centerLonE7, h.centerLatE7 = d.i32(), d.i32()
	return h
}

// fields reads little-endian fixed-size values one after another; reading
// past the end panics, which decodeHeader's fixed layout rules out.
type fields struct {
	b []byte
}

func (f *fields) u64() uint64 {
	v := binary.LittleEndian.Uint64(f.b)
	f.b = f.b[8:]
	return v
}

func (f *fields) i32() int32 {
	v := int32(binary.LittleEndian.Uint32(f.b))
	f.b = f.b[4:]
	return v
}

func (f *fields) u8() uint8 {
	v := f.b[0]
	f.b = f.b[1:]
	return v
}
