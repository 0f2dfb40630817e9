package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/paulmach/orb"

	"meridian/shared/blob"
	"meridian/shared/tile"
)

// maxZoom is the deepest zoom a tile ID can address in 64 bits.
const maxZoom = 31

// firstRead is how many bytes Open reads: the spec puts the header and the
// root directory in the first 16 KiB.
const firstRead = 16 << 10

// maxPrefetchLeaves bounds the leaf section Open reads whole and keeps:
// a province's ab/sec archive (460,000 tiles) has 363 KB of leaves; a
// larger section is read a leaf at a time, as each is first needed.
const maxPrefetchLeaves = 4 << 20

// Header is what an archive's header says about its tiles.
type Header struct {
	MinZoom, MaxZoom uint8     // zooms that hold tiles
	Bounds           orb.Bound // longitude/latitude extent
	Center           orb.Point
	CenterZoom       uint8

	// ContentEncoding is the HTTP Content-Encoding of the bytes Tile
	// returns: "gzip", or "" for tiles stored uncompressed.
	ContentEncoding string

	AddressedTiles uint64 // tiles with data
	TileEntries    uint64 // directory entries
	TileContents   uint64 // distinct contents
	Clustered      bool
}

// FormatError reports an object that is not an archive this package reads:
// not PMTiles, another spec version, not MVT, an unsupported compression,
// or truncated or corrupt bytes.
type FormatError struct {
	Key    string
	Reason string
}

func (e *FormatError) Error() string { return "archive: " + e.Key + ": " + e.Reason }

// Reader reads tiles from an archive in a blob.Store by byte ranges. It is
// safe for concurrent use. It reads the archive as it was at Open: every
// read is pinned to the store's version tag seen at Open (blob.Pinned), so
// an object replaced in place is never read at the old version's offsets;
// reads fail with an error wrapping blob.ErrChanged instead, and a new
// Reader is needed ([Set] opens one and retries).
type Reader struct {
	store   blob.Store
	pinned  blob.Pinned // store, when it can pin reads (every blob store can)
	key     string
	version string // the store's version tag at Open
	h       v3Header
	header  Header
	root    []entry
	etag    string

	leaves *leafCache
	// leafZ is the whole leaf section, compressed, when it is at most
	// maxPrefetchLeaves: read once at Open, so that a leaf not in the
	// cache is decoded from memory instead of read (on S3 a round trip
	// of tens of milliseconds before each such tile).
	leafZ []byte
	reads atomic.Int64 // range reads issued

	metaMu   sync.Mutex
	metaZ    []byte // compressed metadata when it came with the first read
	meta     *Metadata
	metaJSON []byte
}

// Open reads the header and root directory of the archive stored under key:
// a Stat and one range read of the first 16 KiB. It checks that the object
// is a PMTiles v3 archive of MVT tiles with gzip or no compression, whole
// and with a readable root directory, and returns a *FormatError saying what
// is wrong otherwise.
//
// Store failures, a missing key included, are returned as the 503
// upstream_unavailable error of package apierr (see blob.AsAPIError); a
// caller for which a missing archive is the client's doing checks
// errors.Is(err, fs.ErrNotExist) first.
//
// An object replaced between the Stat and the reads is opened again, once;
// a second change fails with an error wrapping blob.ErrChanged.
func Open(ctx context.Context, store blob.Store, key string) (*Reader, error) {
	r, err := open(ctx, store, key)
	if errors.Is(err, blob.ErrChanged) {
		r, err = open(ctx, store, key)
	}
	return r, err
}

func open(ctx context.Context, store blob.Store, key string) (*Reader, error) {
	r := &Reader{store: store, key: key, leaves: newLeafCache()}
	r.pinned, _ = store.(blob.Pinned)
	// The header and what follows it, with the version: one request on S3
	// (blob.FirstReader), a Stat and a pinned read elsewhere.
	r.reads.Add(1)
	first, info, err := blob.ReadFirst(ctx, store, key, firstRead)
	if err != nil {
		return nil, r.storeError(err)
	}
	r.version = info.ETag
	if want := min(firstRead, info.Size); int64(len(first)) != want {
		return nil, r.formatError("truncated: read %d bytes at 0, want %d", len(first), want)
	}
	if err := r.parseHeader(first, info.Size); err != nil {
		return nil, err
	}
	h := &r.h
	rootZ, err := r.section(ctx, first, h.rootOff, h.rootLen)
	if err != nil {
		return nil, err
	}
	if r.root, err = r.directory(rootZ, "root directory"); err != nil {
		return nil, err
	}
	if h.metaOff+h.metaLen <= uint64(len(first)) {
		r.metaZ = first[h.metaOff : h.metaOff+h.metaLen]
	}
	if h.leafLen > 0 && h.leafLen <= maxPrefetchLeaves {
		if r.leafZ, err = r.section(ctx, first, h.leafOff, h.leafLen); err != nil {
			return nil, err
		}
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "%s\n", info.ETag)
	sum.Write(first)
	r.etag = `"` + hex.EncodeToString(sum.Sum(nil)[:12]) + `"`
	return r, nil
}

// parseHeader checks and decodes the header at the start of first; size is
// the object's size.
func (r *Reader) parseHeader(first []byte, size int64) error {
	if len(first) < headerLen && bytes.HasPrefix(first, []byte("PMTiles")) {
		return r.formatError("truncated: %d bytes, shorter than the %d-byte header", len(first), headerLen)
	}
	if len(first) < headerLen || string(first[:7]) != "PMTiles" {
		if len(first) >= 4 && string(first[:2]) == "PM" && first[3] == 0 {
			return r.formatError("PMTiles spec version %d; only version 3 is supported", first[2])
		}
		return r.formatError("not a PMTiles archive (%d bytes starting %q)", size, first[:min(len(first), 8)])
	}
	if first[7] != 3 {
		return r.formatError("PMTiles spec version %d; only version 3 is supported", first[7])
	}
	h := decodeHeader((*[headerLen]byte)(first))
	if h.tileType != mvtTile {
		return r.formatError("tiles are %s, not MVT", h.tileType)
	}
	for _, c := range []struct {
		what string
		c    compression
	}{{"tile", h.tileCompression}, {"internal", h.internalCompression}} {
		if c.c != gzipCompression && c.c != noCompression {
			return r.formatError("%s compression %s is not supported (gzip or none)", c.what, c.c)
		}
	}
	if h.minZoom > h.maxZoom || h.maxZoom > maxZoom {
		return r.formatError("zoom range %d-%d is invalid", h.minZoom, h.maxZoom)
	}
	for _, s := range []struct {
		what     string
		off, len uint64
		max      uint64
	}{
		{"root directory", h.rootOff, h.rootLen, maxDirectoryBytes},
		{"metadata", h.metaOff, h.metaLen, maxMetadataBytes},
		{"leaf directories", h.leafOff, h.leafLen, uint64(size)},
		{"tile data", h.dataOff, h.dataLen, uint64(size)},
	} {
		if end := s.off + s.len; end < s.off || end > uint64(size) {
			return r.formatError("truncated: the %s end at byte %d but the object has %d bytes", s.what, end, size)
		}
		if s.len > s.max {
			return r.formatError("the %s take %d bytes, more than the %d allowed", s.what, s.len, s.max)
		}
	}
	r.h = h
	encoding := ""
	if h.tileCompression == gzipCompression {
		encoding = "gzip"
	}
	r.header = Header{
		MinZoom:         h.minZoom,
		MaxZoom:         h.maxZoom,
		Bounds:          orb.Bound{Min: orb.Point{deg(h.minLonE7), deg(h.minLatE7)}, Max: orb.Point{deg(h.maxLonE7), deg(h.maxLatE7)}},
		Center:          orb.Point{deg(h.centerLonE7), deg(h.centerLatE7)},
		CenterZoom:      h.centerZoom,
		ContentEncoding: encoding,
		AddressedTiles:  h.addressedTiles,
		TileEntries:     h.tileEntries,
		TileContents:    h.tileContents,
		Clustered:       h.clustered,
	}
	return nil
}

// Header returns what the archive's header says.
func (r *Reader) Header() Header { return r.header }

// ETag is a strong HTTP entity tag (quoted) for the archive's content: a
// hash of the store's version tag and the archive's first 16 KiB.
func (r *Reader) ETag() string { return r.etag }

// Version is the store's version tag of the object this Reader reads.
func (r *Reader) Version() string { return r.version }

// Reads is the number of range reads issued so far, Open's included.
func (r *Reader) Reads() int64 { return r.reads.Load() }

// Tile returns the stored bytes of tile z/x/y, still compressed as
// Header().ContentEncoding says, or ok false when the archive has no such
// tile. A cold lookup reads at most one leaf directory and the tile; leaves
// stay cached, so a warm one reads only the tile.
func (r *Reader) Tile(ctx context.Context, z uint8, x, y uint32) (data []byte, ok bool, err error) {
	if z < r.h.minZoom || z > r.h.maxZoom || x >= 1<<z || y >= 1<<z {
		return nil, false, nil
	}
	id := tile.ID(z, x, y)
	dir := r.root
	for range 4 { // the root and up to three levels of leaves, as the spec allows
		e, found := findTile(dir, id)
		if !found {
			return nil, false, nil
		}
		if e.runLength > 0 {
			if e.offset > r.h.dataLen || uint64(e.length) > r.h.dataLen-e.offset {
				return nil, false, r.formatError("tile %d/%d/%d lies outside the tile data", z, x, y)
			}
			data, err := r.read(ctx, r.h.dataOff+e.offset, int64(e.length))
			if err != nil {
				return nil, false, err
			}
			return data, true, nil
		}
		if dir, err = r.leaf(ctx, e.offset, e.length); err != nil {
			return nil, false, err
		}
	}
	return nil, false, r.formatError("leaf directories nested too deep")
}

// leaf returns the decoded leaf directory at off in the leaf section.
func (r *Reader) leaf(ctx context.Context, off uint64, length uint32) ([]entry, error) {
	if entries, ok := r.leaves.get(off); ok {
		return entries, nil
	}
	if off > r.h.leafLen || uint64(length) > r.h.leafLen-off {
		return nil, r.formatError("a leaf directory lies outside the leaf section")
	}
	var z []byte
	if r.leafZ != nil {
		z = r.leafZ[off : off+uint64(length)]
	} else {
		var err error
		if z, err = r.read(ctx, r.h.leafOff+off, int64(length)); err != nil {
			return nil, err
		}
	}
	entries, err := r.directory(z, "leaf directory")
	if err != nil {
		return nil, err
	}
	r.leaves.put(off, entries)
	return entries, nil
}

// Metadata returns the archive's metadata, with Bounds, Center and the zooms
// taken from the header. It is read once and cached.
func (r *Reader) Metadata(ctx context.Context) (Metadata, error) {
	if err := r.loadMetadata(ctx); err != nil {
		return Metadata{}, err
	}
	return r.meta.clone(), nil
}

// MetadataJSON returns the archive's metadata JSON as stored (decompressed),
// for serving it as is. It is read once and cached; do not modify it.
func (r *Reader) MetadataJSON(ctx context.Context) ([]byte, error) {
	if err := r.loadMetadata(ctx); err != nil {
		return nil, err
	}
	return r.metaJSON, nil
}

func (r *Reader) loadMetadata(ctx context.Context) error {
	r.metaMu.Lock()
	defer r.metaMu.Unlock()
	if r.meta != nil {
		return nil
	}
	raw := []byte("{}")
	if r.h.metaLen > 0 {
		z := r.metaZ
		if z == nil {
			var err error
			if z, err = r.read(ctx, r.h.metaOff, int64(r.h.metaLen)); err != nil {
				return err
			}
		}
		var err error
		if raw, err = decompress(z, r.h.internalCompression, maxMetadataBytes); err != nil {
			return r.formatError("metadata: %v", err)
		}
	}
	m, err := decodeMetadata(raw)
	if err != nil {
		return r.formatError("metadata: %v", err)
	}
	m.Bounds, m.Center, m.CenterZoom = r.header.Bounds, r.header.Center, r.header.CenterZoom
	m.MinZoom, m.MaxZoom = r.header.MinZoom, r.header.MaxZoom
	r.meta, r.metaJSON, r.metaZ = &m, raw, nil
	return nil
}

// section returns the bytes at off of length n, from first when they are in
// it.
func (r *Reader) section(ctx context.Context, first []byte, off, n uint64) ([]byte, error) {
	if off+n <= uint64(len(first)) {
		return first[off : off+n], nil
	}
	return r.read(ctx, off, int64(n))
}

// directory decompresses and decodes a directory.
func (r *Reader) directory(z []byte, what string) ([]entry, error) {
	raw, err := decompress(z, r.h.internalCompression, maxDirectoryBytes)
	if err != nil {
		return nil, r.formatError("%s: %v", what, err)
	}
	entries, err := decodeDirectory(raw)
	if err != nil {
		return nil, r.formatError("%s: %v", what, err)
	}
	return entries, nil
}

// read reads n bytes at off of the version opened, all of them or an error.
// A store that cannot pin reads (a test's stub) is read unpinned.
func (r *Reader) read(ctx context.Context, off uint64, n int64) ([]byte, error) {
	r.reads.Add(1)
	var b []byte
	var err error
	if r.pinned != nil {
		b, err = r.pinned.ReadRangeIf(ctx, r.key, r.version, int64(off), n)
	} else {
		b, err = r.store.ReadRange(ctx, r.key, int64(off), n)
	}
	if err != nil {
		return nil, r.storeError(err)
	}
	if int64(len(b)) != n {
		return nil, r.formatError("truncated: read %d bytes at %d, want %d", len(b), off, n)
	}
	return b, nil
}

// storeError wraps a store failure as the 503 of package apierr.
func (r *Reader) storeError(err error) error {
	return blob.AsAPIError(fmt.Errorf("archive: read %s: %w", r.key, err), "the tile archive")
}

func (r *Reader) formatError(format string, args ...any) error {
	return &FormatError{Key: r.key, Reason: fmt.Sprintf(format, args...)}
}

func deg(e7 int32) float64 { return float64(e7) / 1e7 }

// Info returns the extent and attribution recorded in the archive, for the
// layer's TileJSON (tile.Describer).
func (r *Reader) Info(ctx context.Context) (tile.ArchiveInfo, error) {
	m, err := r.Metadata(ctx)
	if err != nil {
		return tile.ArchiveInfo{}, err
	}
	return tile.ArchiveInfo{Bounds: m.Bounds, Attribution: m.Attribution}, nil
}
