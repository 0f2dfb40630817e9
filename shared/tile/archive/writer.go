package archive

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/paulmach/orb"
	"github.com/protomaps/go-pmtiles/pmtiles"
)

// maxZoom is the deepest zoom a tile ID can address in 64 bits.
const maxZoom = 31

// firstRead is how many bytes a reader fetches first: the header and the
// root directory must fit in it.
const firstRead = 16 << 10

// Stats describe a written archive.
type Stats struct {
	Tiles    uint64 // addressed tiles: every non-empty tile added
	Entries  uint64 // directory entries, after run-length encoding
	Contents uint64 // distinct tile contents stored
	Leaves   int    // leaf directories
	Bytes    int64  // archive size
}

// Writer builds an archive from tiles added in ascending tile-ID order.
// Tile data goes to a temporary file as it arrives; memory holds one
// directory entry (24 bytes) per run of tiles and one hash and offset per
// distinct content. A Writer is not safe for concurrent use.
type Writer struct {
	meta Metadata
	tmp  *os.File
	buf  *bufio.Writer
	size uint64 // bytes of tile data written

	entries []pmtiles.EntryV3
	offsets map[[16]byte]uint64 // content hash -> offset in the tile data

	added    bool   // a tile, possibly empty, was added
	lastID   uint64 // tile ID of the last tile added
	lastZ    uint8  // zoom of the last entry
	lastHash [16]byte
	tiles    uint64
	done     bool
}

// NewWriter returns a Writer whose temporary file is in tmpDir (os.TempDir
// when empty). Call Close when done with it.
func NewWriter(tmpDir string, meta Metadata) (*Writer, error) {
	if err := meta.validate(); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(tmpDir, "meridian-archive-*.tiles")
	if err != nil {
		return nil, fmt.Errorf("archive: temporary file: %w", err)
	}
	return &Writer{
		meta:    meta.clone(),
		tmp:     f,
		buf:     bufio.NewWriterSize(f, 1<<20),
		offsets: map[[16]byte]uint64{},
	}, nil
}

// Add adds the gzip-compressed MVT tile z/x/y. Tiles must come in strictly
// ascending order of pmtiles.ZxyToID (zoom by zoom, along the Hilbert curve
// within a zoom), and within the Metadata's zoom range. Empty data means there
// is no tile there: it is skipped, but still counts for the order. Add does
// not keep data.
func (w *Writer) Add(z uint8, x, y uint32, data []byte) error {
	if w.done {
		return errors.New("archive: Add after Finish or Close")
	}
	if z < w.meta.MinZoom || z > w.meta.MaxZoom {
		return fmt.Errorf("archive: tile %d/%d/%d is outside the zoom range %d-%d", z, x, y, w.meta.MinZoom, w.meta.MaxZoom)
	}
	if x >= 1<<z || y >= 1<<z {
		return fmt.Errorf("archive: tile %d/%d/%d does not exist", z, x, y)
	}
	id := pmtiles.ZxyToID(z, x, y)
	if w.added && id <= w.lastID {
		pz, px, py := pmtiles.IDToZxy(w.lastID)
		return fmt.Errorf("archive: tile %d/%d/%d added after %d/%d/%d: tiles must be added in ascending tile-ID order", z, x, y, pz, px, py)
	}
	w.added, w.lastID = true, id
	if len(data) == 0 {
		return nil
	}
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return fmt.Errorf("archive: tile %d/%d/%d is not gzip-compressed", z, x, y)
	}
	if len(data) > math.MaxUint32 {
		return fmt.Errorf("archive: tile %d/%d/%d is too large (%d bytes)", z, x, y, len(data))
	}
	sum := sha256.Sum256(data)
	h := [16]byte(sum[:16])
	w.tiles++

	if n := len(w.entries); n > 0 {
		last := &w.entries[n-1]
		if h == w.lastHash && z == w.lastZ && id == last.TileID+uint64(last.RunLength) && last.RunLength < math.MaxUint32 {
			last.RunLength++
			return nil
		}
	}
	off, seen := w.offsets[h]
	if !seen {
		if _, err := w.buf.Write(data); err != nil {
			return fmt.Errorf("archive: write tile data: %w", err)
		}
		off = w.size
		w.offsets[h] = off
		w.size += uint64(len(data))
	}
	w.entries = append(w.entries, pmtiles.EntryV3{TileID: id, Offset: off, Length: uint32(len(data)), RunLength: 1})
	w.lastHash, w.lastZ = h, z
	return nil
}

// Finish writes the archive to out: header, root directory, metadata, leaf
// directories and tile data, in that order. The Writer accepts no tiles
// after it.
func (w *Writer) Finish(out io.Writer) (Stats, error) {
	if w.done {
		return Stats{}, errors.New("archive: Finish called twice")
	}
	w.done = true
	if len(w.entries) == 0 {
		return Stats{}, errors.New("archive: no tiles added")
	}
	if err := w.buf.Flush(); err != nil {
		return Stats{}, fmt.Errorf("archive: write tile data: %w", err)
	}

	root, leaves, numLeaves := pmtiles.BuildDirectories(w.entries, firstRead-pmtiles.HeaderV3LenBytes, pmtiles.Gzip)
	meta, err := pmtiles.SerializeMetadata(w.meta.jsonMap(), pmtiles.Gzip)
	if err != nil {
		return Stats{}, fmt.Errorf("archive: metadata: %w", err)
	}
	h := w.header()
	h.RootOffset = pmtiles.HeaderV3LenBytes
	h.RootLength = uint64(len(root))
	h.MetadataOffset = h.RootOffset + h.RootLength
	h.MetadataLength = uint64(len(meta))
	h.LeafDirectoryOffset = h.MetadataOffset + h.MetadataLength
	h.LeafDirectoryLength = uint64(len(leaves))
	h.TileDataOffset = h.LeafDirectoryOffset + h.LeafDirectoryLength
	h.TileDataLength = w.size

	st := Stats{
		Tiles:    h.AddressedTilesCount,
		Entries:  h.TileEntriesCount,
		Contents: h.TileContentsCount,
		Leaves:   numLeaves,
		Bytes:    int64(h.TileDataOffset + h.TileDataLength),
	}
	for _, part := range [][]byte{pmtiles.SerializeHeader(h), root, meta, leaves} {
		if _, err := out.Write(part); err != nil {
			return Stats{}, fmt.Errorf("archive: write: %w", err)
		}
	}
	if _, err := w.tmp.Seek(0, io.SeekStart); err != nil {
		return Stats{}, fmt.Errorf("archive: rewind tile data: %w", err)
	}
	n, err := io.Copy(out, w.tmp)
	if err != nil {
		return Stats{}, fmt.Errorf("archive: write tile data: %w", err)
	}
	if uint64(n) != w.size {
		return Stats{}, fmt.Errorf("archive: copied %d bytes of tile data, want %d", n, w.size)
	}
	w.entries, w.offsets = nil, nil
	return st, nil
}

// header fills in everything but the section offsets and lengths.
func (w *Writer) header() pmtiles.HeaderV3 {
	first, last := w.entries[0], w.entries[len(w.entries)-1]
	minZ, _, _ := pmtiles.IDToZxy(first.TileID)
	maxZ, _, _ := pmtiles.IDToZxy(last.TileID) // runs never cross zooms
	center := w.meta.Center
	if center == (orb.Point{}) {
		center = w.meta.Bounds.Center()
	}
	h := pmtiles.HeaderV3{
		SpecVersion:         3,
		TileEntriesCount:    uint64(len(w.entries)),
		TileContentsCount:   uint64(len(w.offsets)),
		AddressedTilesCount: w.tiles,
		Clustered:           true,
		InternalCompression: pmtiles.Gzip,
		TileCompression:     pmtiles.Gzip,
		TileType:            pmtiles.Mvt,
		MinZoom:             minZ,
		MaxZoom:             maxZ,
		MinLonE7:            e7(w.meta.Bounds.Min[0]),
		MinLatE7:            e7(w.meta.Bounds.Min[1]),
		MaxLonE7:            e7(w.meta.Bounds.Max[0]),
		MaxLatE7:            e7(w.meta.Bounds.Max[1]),
		CenterZoom:          min(max(w.meta.CenterZoom, minZ), maxZ),
		CenterLonE7:         e7(center[0]),
		CenterLatE7:         e7(center[1]),
	}
	return h
}

// Close removes the temporary file. It may be called more than once.
func (w *Writer) Close() error {
	if w.tmp == nil {
		return nil
	}
	name := w.tmp.Name()
	err := w.tmp.Close()
	if rmErr := os.Remove(name); err == nil {
		err = rmErr
	}
	w.tmp, w.entries, w.offsets = nil, nil, nil
	w.done = true
	return err
}

// e7 converts degrees to the header's 1e-7 degree integers.
func e7(deg float64) int32 { return int32(math.Round(deg * 1e7)) }
