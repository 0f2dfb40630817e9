package geotiff

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
)

// WriteOptions describe a single-band GeoTIFF to write.
type WriteOptions struct {
	Width, Height int
	// Tiled writes tiles of BlockWidth × BlockHeight (multiples of 16);
	// otherwise strips of BlockHeight rows (BlockWidth is ignored).
	Tiled                   bool
	BlockWidth, BlockHeight int
	BitsPerSample           int // 8 (default) or 16
	Compression             int // CompressionNone (default), CompressionLZW or CompressionDeflate
	Predictor               int // PredictorNone (default) or PredictorHorizontal; ignored uncompressed
	BigEndian, BigTIFF      bool
	// EPSG is the coordinate reference system: a geographic code (4269,
	// 4326) writes GTModelType 2 and GeographicType, anything else
	// GTModelType 1 and ProjectedCSType.
	EPSG int
	// Origin is the map position of the image's top-left corner and
	// PixelSize the pixel's width and height in map units (rows go south).
	Origin    [2]float64
	PixelSize [2]float64
	NoData    *int // written as GDAL_NODATA when set
}

// Write writes an image whose pixels block returns: block fills px
// (BlockWidth × BlockHeight samples, row-major; for strips, Width ×
// BlockHeight) with the pixels of the block whose top-left pixel is
// (x0, y0). Samples outside the image (the padding of edge tiles) are
// ignored. Blocks are compressed one at a time and kept until the end:
// memory is the compressed image plus one block.
func Write(w io.Writer, o WriteOptions, block func(x0, y0 int, px []uint16) error) error {
	if o.BitsPerSample == 0 {
		o.BitsPerSample = 8
	}
	if o.Compression == 0 {
		o.Compression = CompressionNone
	}
	if o.Predictor == 0 || o.Compression == CompressionNone {
		o.Predictor = PredictorNone // as libtiff: no predictor without a codec
	}
	if !o.Tiled {
		o.BlockWidth = o.Width
	}
	switch {
	case o.Width <= 0 || o.Height <= 0 || o.BlockWidth <= 0 || o.BlockHeight <= 0:
		return fmt.Errorf("geotiff: write: image %d × %d, blocks %d × %d", o.Width, o.Height, o.BlockWidth, o.BlockHeight)
	case o.Tiled && (o.BlockWidth%16 != 0 || o.BlockHeight%16 != 0):
		return fmt.Errorf("geotiff: write: tiles of %d × %d: want multiples of 16", o.BlockWidth, o.BlockHeight)
	case o.BitsPerSample != 8 && o.BitsPerSample != 16:
		return fmt.Errorf("geotiff: write: %d bits per sample", o.BitsPerSample)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if o.BigEndian {
		order = binary.BigEndian
	}
	bps := o.BitsPerSample / 8
	bx, by := (o.Width+o.BlockWidth-1)/o.BlockWidth, (o.Height+o.BlockHeight-1)/o.BlockHeight
	px := make([]uint16, o.BlockWidth*o.BlockHeight)
	raw := make([]byte, len(px)*bps)
	var data bytes.Buffer
	offsets := make([]uint64, 0, bx*by)
	counts := make([]uint64, 0, bx*by)
	head := 8
	if o.BigTIFF {
		head = 16
	}
	for j := 0; j < by; j++ {
		for i := 0; i < bx; i++ {
			clear(px)
			if err := block(i*o.BlockWidth, j*o.BlockHeight, px); err != nil {
				return err
			}
			h := o.BlockHeight
			if !o.Tiled {
				h = min(h, o.Height-j*o.BlockHeight)
			}
			b := raw[:o.BlockWidth*h*bps]
			for k := range o.BlockWidth * h {
				if bps == 1 {
					b[k] = byte(px[k])
				} else {
					order.PutUint16(b[2*k:], px[k])
				}
			}
			if o.Predictor == PredictorHorizontal {
				predict(b, o.BlockWidth, h, bps, order)
			}
			offsets = append(offsets, uint64(head+data.Len()))
			switch o.Compression {
			case CompressionNone:
				data.Write(b)
			case CompressionLZW:
				data.Write(lzwEncode(b))
			case CompressionDeflate:
				zw := zlib.NewWriter(&data)
				zw.Write(b)
				if err := zw.Close(); err != nil {
					return err
				}
			default:
				return fmt.Errorf("geotiff: write: compression %d", o.Compression)
			}
			counts = append(counts, uint64(head+data.Len())-offsets[len(offsets)-1])
			if data.Len()%2 == 1 {
				data.WriteByte(0) // word alignment
			}
		}
	}
	t := &tagWriter{order: order, big: o.BigTIFF}
	t.short(tagImageWidth, uint64(o.Width))
	t.short(tagImageLength, uint64(o.Height))
	t.short(tagBitsPerSample, uint64(o.BitsPerSample))
	t.short(tagCompression, uint64(o.Compression))
	t.short(tagPhotometric, 1) // min-is-black
	t.short(tagSamplesPerPixel, 1)
	t.short(tagPlanarConfig, 1)
	t.short(tagSampleFormat, 1)
	if o.Predictor != PredictorNone {
		t.short(tagPredictor, uint64(o.Predictor))
	}
	offType := uint16(typeLong)
	if o.BigTIFF {
		offType = typeLong8
	}
	if o.Tiled {
		t.short(tagTileWidth, uint64(o.BlockWidth))
		t.short(tagTileLength, uint64(o.BlockHeight))
		t.ints(tagTileOffsets, offType, offsets)
		t.ints(tagTileByteCounts, offType, counts)
	} else {
		t.short(tagRowsPerStrip, uint64(o.BlockHeight))
		t.ints(tagStripOffsets, offType, offsets)
		t.ints(tagStripByteCounts, offType, counts)
	}
	t.doubles(tagModelPixelScale, []float64{o.PixelSize[0], o.PixelSize[1], 0})
	t.doubles(tagModelTiepoint, []float64{0, 0, 0, o.Origin[0], o.Origin[1], 0})
	keys := []uint64{1, 1, 0, 3, keyGTModelType, 0, 1, ModelProjected, keyGTRasterType, 0, 1, 1, keyProjectedCSType, 0, 1, uint64(o.EPSG)}
	if o.EPSG == 4269 || o.EPSG == 4326 || o.EPSG == 4617 {
		keys[7], keys[12] = ModelGeographic, keyGeographicType
	}
	t.ints(tagGeoKeyDirectory, typeShort, keys)
	if o.NoData != nil {
		t.ascii(tagGDALNoData, strconv.Itoa(*o.NoData))
	}
	return t.write(w, head, data.Bytes())
}

// predict applies horizontal differencing to a block, in place.
func predict(b []byte, w, h, bps int, order binary.ByteOrder) {
	for y := 0; y < h; y++ {
		row := b[y*w*bps : (y+1)*w*bps]
		if bps == 1 {
			for x := w - 1; x > 0; x-- {
				row[x] -= row[x-1]
			}
			continue
		}
		for x := w - 1; x > 0; x-- {
			order.PutUint16(row[2*x:], order.Uint16(row[2*x:])-order.Uint16(row[2*x-2:]))
		}
	}
}

// tagWriter collects IFD entries and lays them out after the image data.
type tagWriter struct {
	order   binary.ByteOrder
	big     bool
	entries []entry
}

type entry struct {
	tag, typ uint16
	count    uint64
	raw      []byte
}

func (t *tagWriter) add(tag, typ uint16, count uint64, raw []byte) {
	t.entries = append(t.entries, entry{tag, typ, count, raw})
}

func (t *tagWriter) short(tag uint16, v uint64) {
	typ, b := uint16(typeShort), make([]byte, 2)
	if v > math.MaxUint16 {
		typ, b = typeLong, make([]byte, 4)
		t.order.PutUint32(b, uint32(v))
	} else {
		t.order.PutUint16(b, uint16(v))
	}
	t.add(tag, typ, 1, b)
}

func (t *tagWriter) ints(tag, typ uint16, vs []uint64) {
	sz := typeSize[typ]
	b := make([]byte, len(vs)*sz)
	for i, v := range vs {
		switch sz {
		case 2:
			t.order.PutUint16(b[2*i:], uint16(v))
		case 4:
			t.order.PutUint32(b[4*i:], uint32(v))
		default:
			t.order.PutUint64(b[8*i:], v)
		}
	}
	t.add(tag, typ, uint64(len(vs)), b)
}

func (t *tagWriter) doubles(tag uint16, vs []float64) {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		t.order.PutUint64(b[8*i:], math.Float64bits(v))
	}
	t.add(tag, typeDouble, uint64(len(vs)), b)
}

func (t *tagWriter) ascii(tag uint16, s string) {
	t.add(tag, typeASCII, uint64(len(s)+1), append([]byte(s), 0))
}

// write writes the header, data (which starts at offset head) and the IFD.
func (t *tagWriter) write(w io.Writer, head int, data []byte) error {
	sort.Slice(t.entries, func(i, j int) bool { return t.entries[i].tag < t.entries[j].tag })
	entrySize, countSize, inline := 12, 2, 4
	if t.big {
		entrySize, countSize, inline = 20, 8, 8
	}
	ifd := head + len(data)
	extra := ifd + countSize + len(t.entries)*entrySize + inline // values too long to inline
	var out bytes.Buffer
	if t.order == binary.LittleEndian {
		out.WriteString("II")
	} else {
		out.WriteString("MM")
	}
	var scratch [8]byte
	u16 := func(v uint16) { t.order.PutUint16(scratch[:], v); out.Write(scratch[:2]) }
	u32 := func(v uint32) { t.order.PutUint32(scratch[:], v); out.Write(scratch[:4]) }
	u64 := func(v uint64) { t.order.PutUint64(scratch[:], v); out.Write(scratch[:8]) }
	if t.big {
		u16(43)
		u16(8)
		u16(0)
		u64(uint64(ifd))
	} else {
		u16(42)
		u32(uint32(ifd))
	}
	out.Write(data)
	var tail bytes.Buffer
	if t.big {
		u64(uint64(len(t.entries)))
	} else {
		u16(uint16(len(t.entries)))
	}
	for _, e := range t.entries {
		u16(e.tag)
		u16(e.typ)
		if t.big {
			u64(e.count)
		} else {
			u32(uint32(e.count))
		}
		if len(e.raw) <= inline {
			v := make([]byte, inline)
			copy(v, e.raw)
			out.Write(v)
			continue
		}
		at := extra + tail.Len()
		if t.big {
			u64(uint64(at))
		} else {
			u32(uint32(at))
		}
		tail.Write(e.raw)
		if tail.Len()%2 == 1 {
			tail.WriteByte(0)
		}
	}
	if t.big {
		u64(0) // no next IFD
	} else {
		u32(0)
	}
	out.Write(tail.Bytes())
	_, err := w.Write(out.Bytes())
	return err
}
