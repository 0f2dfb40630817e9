package geotiff

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Compression schemes (TIFF tag 259) this package reads and writes.
const (
	CompressionNone       = 1
	CompressionLZW        = 5
	CompressionDeflate    = 8
	compressionOldDeflate = 32946
)

// Predictors (TIFF tag 317).
const (
	PredictorNone       = 1
	PredictorHorizontal = 2
)

// TIFF tags read.
const (
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagPlanarConfig    = 284
	tagPredictor       = 317
	tagTileWidth       = 322
	tagTileLength      = 323
	tagTileOffsets     = 324
	tagTileByteCounts  = 325
	tagSampleFormat    = 339
	tagModelPixelScale = 33550
	tagModelTiepoint   = 33922
	tagModelTransform  = 34264
	tagGeoKeyDirectory = 34735
	tagGeoDoubleParams = 34736
	tagGeoASCIIParams  = 34737
	tagGDALNoData      = 42113
)

// Field types.
const (
	typeByte      = 1
	typeASCII     = 2
	typeShort     = 3
	typeLong      = 4
	typeRational  = 5
	typeSByte     = 6
	typeUndefined = 7
	typeSShort    = 8
	typeSLong     = 9
	typeSRational = 10
	typeFloat     = 11
	typeDouble    = 12
	typeLong8     = 16
	typeSLong8    = 17
	typeIFD8      = 18
)

var typeSize = map[uint16]int{
	typeByte: 1, typeASCII: 1, typeShort: 2, typeLong: 4, typeRational: 8, typeSByte: 1, typeUndefined: 1,
	typeSShort: 2, typeSLong: 4, typeSRational: 8, typeFloat: 4, typeDouble: 8, typeLong8: 8, typeSLong8: 8, typeIFD8: 8,
}

// ErrFormat is returned (wrapped in a *FormatError) for a file this
// package cannot read.
var ErrFormat = errors.New("geotiff: unsupported or malformed file")

// FormatError says what is wrong with a file.
type FormatError struct{ Reason string }

func (e *FormatError) Error() string { return "geotiff: " + e.Reason }
func (e *FormatError) Unwrap() error { return ErrFormat }

func errorf(format string, args ...any) error {
	return &FormatError{Reason: fmt.Sprintf(format, args...)}
}

// Options bound what Open accepts.
type Options struct {
	// MaxBlockRowBytes is the largest buffer Rows allocates for one row
	// of blocks; 0 means 256 MiB.
	MaxBlockRowBytes int
}

// Image is the first image of a TIFF file.
type Image struct {
	Width, Height int
	BitsPerSample int  // 8 or 16
	Signed        bool // SampleFormat 2
	Compression   int  // CompressionNone, CompressionLZW or CompressionDeflate
	Predictor     int
	Tiled         bool
	// BlockWidth and BlockHeight are a tile's size, or the image width and
	// RowsPerStrip for a striped image.
	BlockWidth, BlockHeight int
	BigTIFF                 bool
	ByteOrder               binary.ByteOrder
	// NoData is GDAL's nodata value when HasNoData.
	NoData    int
	HasNoData bool
	Geo       Geo

	r                io.ReaderAt
	size             int64
	offsets, counts  []uint64
	blocksX, blocksY int
	maxRowBytes      int
}

// Open reads the header and the first image's tags of a TIFF of size
// bytes.
func Open(r io.ReaderAt, size int64, o Options) (*Image, error) {
	im := &Image{r: r, size: size, maxRowBytes: o.MaxBlockRowBytes}
	if im.maxRowBytes <= 0 {
		im.maxRowBytes = 256 << 20
	}
	var h [16]byte
	if size < 8 {
		return nil, errorf("file of %d bytes is not a TIFF", size)
	}
	if _, err := r.ReadAt(h[:8], 0); err != nil {
		return nil, fmt.Errorf("geotiff: read header: %w", err)
	}
	switch string(h[:2]) {
	case "II":
		im.ByteOrder = binary.LittleEndian
	case "MM":
		im.ByteOrder = binary.BigEndian
	default:
		return nil, errorf("byte order mark %q: not a TIFF", h[:2])
	}
	var ifd uint64
	switch im.ByteOrder.Uint16(h[2:]) {
	case 42:
		ifd = uint64(im.ByteOrder.Uint32(h[4:]))
	case 43:
		im.BigTIFF = true
		if size < 16 {
			return nil, errorf("BigTIFF header truncated")
		}
		if _, err := r.ReadAt(h[8:16], 8); err != nil {
			return nil, fmt.Errorf("geotiff: read header: %w", err)
		}
		if im.ByteOrder.Uint16(h[4:]) != 8 || im.ByteOrder.Uint16(h[6:]) != 0 {
			return nil, errorf("BigTIFF offset size %d: want 8", im.ByteOrder.Uint16(h[4:]))
		}
		ifd = im.ByteOrder.Uint64(h[8:])
	default:
		return nil, errorf("version %d: want 42 (TIFF) or 43 (BigTIFF)", im.ByteOrder.Uint16(h[2:]))
	}
	tags, err := im.readIFD(ifd)
	if err != nil {
		return nil, err
	}
	if err := im.setTags(tags); err != nil {
		return nil, err
	}
	return im, nil
}

// field is one IFD entry, its values still raw.
type field struct {
	typ   uint16
	count uint64
	raw   []byte
}

// maxFieldBytes bounds one tag's values (a block table of 8 million
// 8-byte offsets).
const maxFieldBytes = 64 << 20

func (im *Image) readIFD(off uint64) (map[uint16]field, error) {
	entrySize, countSize, inline := 12, 2, 4
	if im.BigTIFF {
		entrySize, countSize, inline = 20, 8, 8
	}
	if off < 8 || off >= uint64(im.size) {
		return nil, errorf("first IFD offset %d outside the file", off)
	}
	cb := make([]byte, countSize)
	if _, err := im.r.ReadAt(cb, int64(off)); err != nil {
		return nil, fmt.Errorf("geotiff: read IFD: %w", err)
	}
	var n uint64
	if im.BigTIFF {
		n = im.ByteOrder.Uint64(cb)
	} else {
		n = uint64(im.ByteOrder.Uint16(cb))
	}
	if n == 0 || n > 4096 || off+uint64(countSize)+n*uint64(entrySize) > uint64(im.size) {
		return nil, errorf("IFD of %d entries at %d does not fit the file", n, off)
	}
	buf := make([]byte, n*uint64(entrySize))
	if _, err := im.r.ReadAt(buf, int64(off)+int64(countSize)); err != nil {
		return nil, fmt.Errorf("geotiff: read IFD: %w", err)
	}
	tags := make(map[uint16]field, n)
	for i := uint64(0); i < n; i++ {
		e := buf[i*uint64(entrySize):]
		tag, typ := im.ByteOrder.Uint16(e), im.ByteOrder.Uint16(e[2:])
		var count uint64
		var val []byte
		if im.BigTIFF {
			count, val = im.ByteOrder.Uint64(e[4:]), e[12:20]
		} else {
			count, val = uint64(im.ByteOrder.Uint32(e[4:])), e[8:12]
		}
		sz, ok := typeSize[typ]
		if !ok {
			continue // a type no tag we read uses
		}
		if count > maxFieldBytes/uint64(sz) {
			return nil, errorf("tag %d: %d values is too many", tag, count)
		}
		total := count * uint64(sz)
		f := field{typ: typ, count: count}
		if total <= uint64(inline) {
			f.raw = append([]byte(nil), val[:total]...)
		} else {
			var at uint64
			if im.BigTIFF {
				at = im.ByteOrder.Uint64(val)
			} else {
				at = uint64(im.ByteOrder.Uint32(val))
			}
			if at > uint64(im.size) || total > uint64(im.size)-at {
				return nil, errorf("tag %d: values at %d (+%d bytes) outside the file", tag, at, total)
			}
			if !wanted(tag) {
				continue
			}
			f.raw = make([]byte, total)
			if _, err := im.r.ReadAt(f.raw, int64(at)); err != nil {
				return nil, fmt.Errorf("geotiff: read tag %d: %w", tag, err)
			}
		}
		tags[tag] = f
	}
	return tags, nil
}

func wanted(tag uint16) bool {
	switch tag {
	case tagBitsPerSample, tagStripOffsets, tagStripByteCounts, tagTileOffsets, tagTileByteCounts, tagSampleFormat,
		tagModelPixelScale, tagModelTiepoint, tagModelTransform, tagGeoKeyDirectory, tagGeoDoubleParams,
		tagGeoASCIIParams, tagGDALNoData:
		return true
	}
	return false
}

// uints returns an integer field's values.
func (im *Image) uints(f field) ([]uint64, bool) {
	sz := typeSize[f.typ]
	out := make([]uint64, f.count)
	for i := range out {
		b := f.raw[i*sz:]
		switch f.typ {
		case typeByte, typeUndefined:
			out[i] = uint64(b[0])
		case typeShort:
			out[i] = uint64(im.ByteOrder.Uint16(b))
		case typeLong:
			out[i] = uint64(im.ByteOrder.Uint32(b))
		case typeLong8, typeIFD8:
			out[i] = im.ByteOrder.Uint64(b)
		default:
			return nil, false
		}
	}
	return out, true
}

// floats returns a numeric field's values as float64.
func (im *Image) floats(f field) ([]float64, bool) {
	if f.typ == typeDouble {
		out := make([]float64, f.count)
		for i := range out {
			out[i] = math.Float64frombits(im.ByteOrder.Uint64(f.raw[8*i:]))
		}
		return out, true
	}
	if f.typ == typeFloat {
		out := make([]float64, f.count)
		for i := range out {
			out[i] = float64(math.Float32frombits(im.ByteOrder.Uint32(f.raw[4*i:])))
		}
		return out, true
	}
	u, ok := im.uints(f)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(u))
	for i, v := range u {
		out[i] = float64(v)
	}
	return out, true
}

// one returns a single-valued integer tag, or def when it is absent.
func (im *Image) one(tags map[uint16]field, tag uint16, name string, def uint64) (uint64, error) {
	f, ok := tags[tag]
	if !ok {
		return def, nil
	}
	v, ok := im.uints(f)
	if !ok || len(v) == 0 {
		return 0, errorf("%s (tag %d): want an integer", name, tag)
	}
	for _, x := range v[1:] {
		if x != v[0] {
			return 0, errorf("%s (tag %d): samples differ (%v)", name, tag, v)
		}
	}
	return v[0], nil
}

// maxDim bounds width and height: Canada at 30 m is under 200 000 pixels
// across.
const maxDim = 1 << 24

func (im *Image) setTags(tags map[uint16]field) error {
	var err error
	get := func(tag uint16, name string, def uint64) int {
		if err != nil {
			return 0
		}
		var v uint64
		v, err = im.one(tags, tag, name, def)
		if v > math.MaxInt32 {
			err = errorf("%s (tag %d) = %d: too large", name, tag, v)
		}
		return int(v)
	}
	im.Width = get(tagImageWidth, "ImageWidth", 0)
	im.Height = get(tagImageLength, "ImageLength", 0)
	im.BitsPerSample = get(tagBitsPerSample, "BitsPerSample", 1)
	spp := get(tagSamplesPerPixel, "SamplesPerPixel", 1)
	im.Compression = get(tagCompression, "Compression", CompressionNone)
	im.Predictor = get(tagPredictor, "Predictor", PredictorNone)
	format := get(tagSampleFormat, "SampleFormat", 1)
	if err != nil {
		return err
	}
	switch {
	case im.Width <= 0 || im.Height <= 0 || im.Width > maxDim || im.Height > maxDim:
		return errorf("image of %d × %d pixels: want 1 to %d each way", im.Width, im.Height, maxDim)
	case spp != 1:
		return errorf("%d samples per pixel: only single-band rasters are read", spp)
	case im.BitsPerSample != 8 && im.BitsPerSample != 16:
		return errorf("%d bits per sample: want 8 or 16", im.BitsPerSample)
	case format != 1 && format != 2:
		return errorf("SampleFormat %d: want 1 (unsigned) or 2 (signed integer)", format)
	}
	im.Signed = format == 2
	switch im.Compression {
	case CompressionNone, CompressionLZW, CompressionDeflate:
	case compressionOldDeflate:
		im.Compression = CompressionDeflate
	default:
		return errorf("compression %d: want 1 (none), 5 (LZW) or 8 (Deflate)", im.Compression)
	}
	if im.Compression == CompressionNone {
		im.Predictor = PredictorNone // libtiff applies a predictor only in its codecs
	}
	if im.Predictor != PredictorNone && im.Predictor != PredictorHorizontal {
		return errorf("predictor %d: want 1 or 2", im.Predictor)
	}
	offTag, cntTag := uint16(tagStripOffsets), uint16(tagStripByteCounts)
	if _, ok := tags[tagTileWidth]; ok {
		im.Tiled = true
		im.BlockWidth = get(tagTileWidth, "TileWidth", 0)
		im.BlockHeight = get(tagTileLength, "TileLength", 0)
		offTag, cntTag = tagTileOffsets, tagTileByteCounts
		if err == nil && (im.BlockWidth <= 0 || im.BlockHeight <= 0 || im.BlockWidth > maxDim || im.BlockHeight > maxDim) {
			err = errorf("tile of %d × %d pixels", im.BlockWidth, im.BlockHeight)
		}
	} else {
		im.BlockWidth = im.Width
		im.BlockHeight = min(get(tagRowsPerStrip, "RowsPerStrip", math.MaxInt32), im.Height)
		if err == nil && im.BlockHeight <= 0 {
			err = errorf("RowsPerStrip %d", im.BlockHeight)
		}
	}
	if err != nil {
		return err
	}
	im.blocksX = (im.Width + im.BlockWidth - 1) / im.BlockWidth
	im.blocksY = (im.Height + im.BlockHeight - 1) / im.BlockHeight
	if rowBytes := int64(im.blocksX) * int64(im.BlockWidth) * int64(im.BlockHeight) * int64(im.BitsPerSample/8); rowBytes > int64(im.maxRowBytes) {
		return errorf("a row of blocks takes %d bytes, more than the %d allowed", rowBytes, im.maxRowBytes)
	}
	for _, t := range []struct {
		tag  uint16
		dst  *[]uint64
		name string
	}{{offTag, &im.offsets, "offsets"}, {cntTag, &im.counts, "byte counts"}} {
		f, ok := tags[t.tag]
		if !ok {
			return errorf("no block %s (tag %d)", t.name, t.tag)
		}
		v, ok := im.uints(f)
		if !ok || len(v) != im.blocksX*im.blocksY {
			return errorf("block %s (tag %d): %d values for %d blocks", t.name, t.tag, len(v), im.blocksX*im.blocksY)
		}
		*t.dst = v
	}
	if f, ok := tags[tagGDALNoData]; ok && f.typ == typeASCII {
		s := strings.TrimSpace(strings.TrimRight(string(f.raw), "\x00"))
		v, perr := strconv.ParseFloat(s, 64)
		if perr != nil || v != math.Trunc(v) || math.Abs(v) > 1<<31 {
			return errorf("GDAL_NODATA %q: want an integer", s)
		}
		im.NoData, im.HasNoData = int(v), true
	}
	geo, err := im.readGeo(tags)
	if err != nil {
		return err
	}
	im.Geo = geo
	return nil
}

// Rows is a horizontal band of the image, Height rows from Y.
type Rows struct {
	Y, Height, Width int
	bits             int
	signed           bool
	buf              []byte // samples, row-major, width padded to whole blocks; 16-bit little-endian
	stride           int    // samples per row in buf
}

// At returns the sample at column x of image row y (Y ≤ y < Y+Height).
func (r *Rows) At(x, y int) int {
	i := (y-r.Y)*r.stride + x
	if r.bits == 8 {
		if r.signed {
			return int(int8(r.buf[i]))
		}
		return int(r.buf[i])
	}
	v := binary.LittleEndian.Uint16(r.buf[2*i:])
	if r.signed {
		return int(int16(v))
	}
	return int(v)
}

// Row returns the 8-bit samples of image row y, Width of them; nil for a
// 16-bit image.
func (r *Rows) Row(y int) []byte {
	if r.bits != 8 {
		return nil
	}
	i := (y - r.Y) * r.stride
	return r.buf[i : i+r.Width]
}

// BlockRows is the number of rows of blocks, the number of calls Rows
// makes to fn.
func (im *Image) BlockRows() int { return im.blocksY }

// Rows decodes the image one row of blocks at a time, top to bottom, and
// calls fn with each; the *Rows and its buffer are reused, so fn must not
// keep them. It stops at fn's first error and returns it.
func (im *Image) Rows(fn func(*Rows) error) error {
	bps := im.BitsPerSample / 8
	stride := im.blocksX * im.BlockWidth
	rows := &Rows{Width: im.Width, bits: im.BitsPerSample, signed: im.Signed, stride: stride,
		buf: make([]byte, stride*im.BlockHeight*bps)}
	dec := &decoder{}
	for by := 0; by < im.blocksY; by++ {
		rows.Y = by * im.BlockHeight
		rows.Height = min(im.BlockHeight, im.Height-rows.Y)
		for bx := 0; bx < im.blocksX; bx++ {
			i := by*im.blocksX + bx
			h := im.BlockHeight
			if !im.Tiled {
				h = rows.Height // the last strip holds only the rows left
			}
			need := im.BlockWidth * h * bps
			data, err := dec.block(im, i, need)
			if err != nil {
				return fmt.Errorf("geotiff: block %d (row %d, column %d): %w", i, by, bx, err)
			}
			if im.Predictor == PredictorHorizontal {
				undoPredictor(data, im.BlockWidth, h, bps, im.ByteOrder)
			}
			for y := 0; y < h && y < rows.Height; y++ {
				src := data[y*im.BlockWidth*bps : (y+1)*im.BlockWidth*bps]
				dst := rows.buf[(y*stride+bx*im.BlockWidth)*bps:]
				if bps == 1 || im.ByteOrder == binary.LittleEndian {
					copy(dst, src)
				} else {
					for k := 0; k < len(src); k += 2 {
						dst[k], dst[k+1] = src[k+1], src[k]
					}
				}
			}
		}
		if err := fn(rows); err != nil {
			return err
		}
	}
	return nil
}

// decoder holds the buffers reused from block to block.
type decoder struct {
	raw, out []byte
	lzw      lzwDecoder
	zr       io.ReadCloser // a zlib reader, reset for each block
	src      bytes.Reader
}

// maxBlockBytes bounds one compressed block.
const maxBlockBytes = 256 << 20

// block reads and decompresses block i into need bytes.
func (d *decoder) block(im *Image, i, need int) ([]byte, error) {
	off, n := im.offsets[i], im.counts[i]
	if cap(d.out) < need {
		d.out = make([]byte, need)
	}
	out := d.out[:need]
	if n == 0 && off == 0 { // a sparse block (GDAL SPARSE_OK): nodata, or 0
		v := 0
		if im.HasNoData {
			v = im.NoData
		}
		fill(out, v, im.BitsPerSample/8, im.ByteOrder)
		return out, nil
	}
	if n > maxBlockBytes || off > uint64(im.size) || n > uint64(im.size)-off {
		return nil, errorf("%d bytes at %d: outside the file", n, off)
	}
	if cap(d.raw) < int(n) {
		d.raw = make([]byte, n)
	}
	raw := d.raw[:n]
	if _, err := im.r.ReadAt(raw, int64(off)); err != nil && !(errors.Is(err, io.EOF) && len(raw) == 0) {
		return nil, err
	}
	switch im.Compression {
	case CompressionNone:
		if len(raw) < need {
			return nil, errorf("%d bytes, want %d", len(raw), need)
		}
		copy(out, raw)
	case CompressionDeflate:
		d.src.Reset(raw)
		var err error
		if d.zr == nil {
			d.zr, err = zlib.NewReader(&d.src)
		} else {
			err = d.zr.(zlib.Resetter).Reset(&d.src, nil)
		}
		if err != nil {
			d.zr = nil
			return nil, errorf("deflate: %v", err)
		}
		if _, err := io.ReadFull(d.zr, out); err != nil {
			return nil, errorf("deflate: %v (want %d bytes)", err, need)
		}
	case CompressionLZW:
		got, err := d.lzw.decode(raw, out)
		if err != nil {
			return nil, err
		}
		if got < need {
			return nil, errorf("lzw: %d bytes, want %d", got, need)
		}
	}
	return out, nil
}

func fill(b []byte, v, bps int, order binary.ByteOrder) {
	for i := 0; i+bps <= len(b); i += bps {
		if bps == 1 {
			b[i] = byte(v)
		} else {
			order.PutUint16(b[i:], uint16(v))
		}
	}
}

// undoPredictor reverses horizontal differencing in a block of w × h
// samples of bps bytes in the file's byte order.
func undoPredictor(b []byte, w, h, bps int, order binary.ByteOrder) {
	for y := 0; y < h; y++ {
		row := b[y*w*bps : (y+1)*w*bps]
		if bps == 1 {
			for x := 1; x < w; x++ {
				row[x] += row[x-1]
			}
			continue
		}
		for x := 1; x < w; x++ {
			order.PutUint16(row[2*x:], order.Uint16(row[2*x:])+order.Uint16(row[2*x-2:]))
		}
	}
}
