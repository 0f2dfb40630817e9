// Package writer writes the PMTiles v3 archives that package archive reads:
// gzip-compressed MVT tiles, added in ascending tile-ID order, with gzip
// directories and metadata, clustered, identical tiles stored once and
// consecutive identical tiles run-length encoded within a zoom.
//
// A Writer streams tile data to a temporary file and keeps only a directory
// entry per run of tiles and a 16-byte hash per distinct content, so
// building an archive takes memory proportional to the tile count, never to
// the data.
//
// The header and directories are laid out by this package (format.go).
// go-pmtiles, the format's reference implementation, reads every archive in
// the tests but is not imported here: it pulls in some 300 cloud-storage
// packages (GCS, Azure, gocloud) that no binary of ours needs.
package writer

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/paulmach/orb"

	"meridian/shared/tile"
	"meridian/shared/tile/archive"
)

// maxZoom is the deepest zoom a tile ID can address in 64 bits.
const maxZoom = 31

// rootBudget is the most the root directory may take: readers fetch the
// first 16 KiB, which the spec says hold the header and the root.
const rootBudget = 16<<10 - headerLen

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
	meta     archive.Metadata // what goes into the header
	metaJSON []byte           // the metadata section: gzip-compressed JSON
	tmp      *os.File
	buf      *bufio.Writer
	size     uint64 // bytes of tile data written

	entries    []entry
	offsets    map[[16]byte]uint64 // content hash -> offset in the tile data
	minZ, maxZ uint8               // zooms of the first and the last entry

	added        bool   // a tile, possibly empty, was added
	lastID       uint64 // the last tile added: its ID and z/x/y
	lastZ        uint8
	lastX, lastY uint32
	lastHash     [16]byte // content of the last entry
	tiles        uint64
	done         bool
}

// New returns a Writer of an archive described by meta, whose temporary
// file is in tmpDir (os.TempDir when empty). Call Close when done with it.
func New(tmpDir string, meta archive.Metadata) (*Writer, error) {
	if err := validate(&meta); err != nil {
		return nil, err
	}
	raw, err := meta.JSON()
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	metaJSON := gzipBest(raw)
	f, err := os.CreateTemp(tmpDir, "meridian-archive-*.tiles")
	if err != nil {
		return nil, fmt.Errorf("writer: temporary file: %w", err)
	}
	return &Writer{
		meta: archive.Metadata{ // the header's fields; the rest is in metaJSON
			Bounds: meta.Bounds, Center: meta.Center, CenterZoom: meta.CenterZoom,
			MinZoom: meta.MinZoom, MaxZoom: meta.MaxZoom,
		},
		metaJSON: metaJSON,
		tmp:      f,
		buf:      bufio.NewWriterSize(f, 1<<20),
		offsets:  map[[16]byte]uint64{},
	}, nil
}

// validate checks what a Writer needs of m beyond what m.JSON checks.
func validate(m *archive.Metadata) error {
	b := m.Bounds
	if !(b.Min[0] >= -180 && b.Min[0] < b.Max[0] && b.Max[0] <= 180 && b.Min[1] >= -90 && b.Min[1] < b.Max[1] && b.Max[1] <= 90) {
		return fmt.Errorf("writer: metadata bounds %v are not a longitude/latitude box with an area", b)
	}
	if m.MinZoom > m.MaxZoom || m.MaxZoom > maxZoom {
		return fmt.Errorf("writer: metadata zooms %d-%d: want min <= max <= %d", m.MinZoom, m.MaxZoom, maxZoom)
	}
	if len(m.VectorLayers) == 0 {
		return errors.New("writer: metadata has no vector layers (MVT archives must list them)")
	}
	seen := map[string]bool{}
	for _, l := range m.VectorLayers {
		if l.ID == "" || seen[l.ID] {
			return fmt.Errorf("writer: vector layer id %q is empty or repeated", l.ID)
		}
		seen[l.ID] = true
	}
	return nil
}

// Add adds the gzip-compressed MVT tile z/x/y. Tiles must come in strictly
// ascending order of tile.ID (zoom by zoom, along the Hilbert curve within
// a zoom), and within the Metadata's zoom range. Empty data means there is
// no tile there: it is skipped, but still counts for the order. Add does not
// keep data.
func (w *Writer) Add(z uint8, x, y uint32, data []byte) error {
	if w.done {
		return errors.New("writer: Add after Finish or Close")
	}
	if z < w.meta.MinZoom || z > w.meta.MaxZoom {
		return fmt.Errorf("writer: tile %d/%d/%d is outside the zoom range %d-%d", z, x, y, w.meta.MinZoom, w.meta.MaxZoom)
	}
	if x >= 1<<z || y >= 1<<z {
		return fmt.Errorf("writer: tile %d/%d/%d does not exist", z, x, y)
	}
	id := tile.ID(z, x, y)
	if w.added && id <= w.lastID {
		return fmt.Errorf("writer: tile %d/%d/%d added after %d/%d/%d: tiles must be added in ascending tile-ID order", z, x, y, w.lastZ, w.lastX, w.lastY)
	}
	w.added, w.lastID, w.lastZ, w.lastX, w.lastY = true, id, z, x, y
	if len(data) == 0 {
		return nil
	}
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return fmt.Errorf("writer: tile %d/%d/%d is not gzip-compressed", z, x, y)
	}
	if len(data) > math.MaxUint32 {
		return fmt.Errorf("writer: tile %d/%d/%d is too large (%d bytes)", z, x, y, len(data))
	}
	sum := sha256.Sum256(data)
	h := [16]byte(sum[:16])
	w.tiles++

	if n := len(w.entries); n > 0 {
		last := &w.entries[n-1]
		if h == w.lastHash && z == w.maxZ && id == last.id+uint64(last.run) && last.run < math.MaxUint32 {
			last.run++
			return nil
		}
	}
	off, seen := w.offsets[h]
	if !seen {
		if _, err := w.buf.Write(data); err != nil {
			return fmt.Errorf("writer: write tile data: %w", err)
		}
		off = w.size
		w.offsets[h] = off
		w.size += uint64(len(data))
	}
	if len(w.entries) == 0 {
		w.minZ = z
	}
	w.entries = append(w.entries, entry{id: id, offset: off, length: uint32(len(data)), run: 1})
	w.lastHash, w.maxZ = h, z
	return nil
}

// Finish writes the archive to out: header, root directory, metadata, leaf
// directories and tile data, in that order. The Writer accepts no tiles
// after it.
func (w *Writer) Finish(out io.Writer) (Stats, error) {
	if w.done {
		return Stats{}, errors.New("writer: Finish called twice")
	}
	w.done = true
	if len(w.entries) == 0 {
		return Stats{}, errors.New("writer: no tiles added")
	}
	if err := w.buf.Flush(); err != nil {
		return Stats{}, fmt.Errorf("writer: write tile data: %w", err)
	}

	root, leaves, numLeaves := directories(w.entries, rootBudget)
	h := w.header()
	h.rootOffset = headerLen
	h.rootLength = uint64(len(root))
	h.metaOffset = h.rootOffset + h.rootLength
	h.metaLength = uint64(len(w.metaJSON))
	h.leafOffset = h.metaOffset + h.metaLength
	h.leafLength = uint64(len(leaves))
	h.dataOffset = h.leafOffset + h.leafLength
	h.dataLength = w.size

	st := Stats{
		Tiles:    h.addressedTiles,
		Entries:  h.tileEntries,
		Contents: h.tileContents,
		Leaves:   numLeaves,
		Bytes:    int64(h.dataOffset + h.dataLength),
	}
	for _, part := range [][]byte{h.marshal(), root, w.metaJSON, leaves} {
		if _, err := out.Write(part); err != nil {
			return Stats{}, fmt.Errorf("writer: write: %w", err)
		}
	}
	if _, err := w.tmp.Seek(0, io.SeekStart); err != nil {
		return Stats{}, fmt.Errorf("writer: rewind tile data: %w", err)
	}
	n, err := io.Copy(out, w.tmp)
	if err != nil {
		return Stats{}, fmt.Errorf("writer: write tile data: %w", err)
	}
	if uint64(n) != w.size {
		return Stats{}, fmt.Errorf("writer: copied %d bytes of tile data, want %d", n, w.size)
	}
	w.entries, w.offsets = nil, nil
	return st, nil
}

// header fills in everything but the section offsets and lengths.
func (w *Writer) header() header {
	center := w.meta.Center
	if center == (orb.Point{}) {
		center = w.meta.Bounds.Center()
	}
	return header{
		tileEntries:         uint64(len(w.entries)),
		tileContents:        uint64(len(w.offsets)),
		addressedTiles:      w.tiles,
		clustered:           true,
		internalCompression: compressionGzip,
		tileCompression:     compressionGzip,
		tileType:            tileTypeMVT,
		minZoom:             w.minZ,
		maxZoom:             w.maxZ, // the last entry's, since runs never cross zooms
		minLonE7:            e7(w.meta.Bounds.Min[0]),
		minLatE7:            e7(w.meta.Bounds.Min[1]),
		maxLonE7:            e7(w.meta.Bounds.Max[0]),
		maxLatE7:            e7(w.meta.Bounds.Max[1]),
		centerZoom:          min(max(w.meta.CenterZoom, w.minZ), w.maxZ),
		centerLonE7:         e7(center[0]),
		centerLatE7:         e7(center[1]),
	}
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
