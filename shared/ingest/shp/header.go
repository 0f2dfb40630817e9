package shp

import (
	"encoding/binary"
	"math"

	"github.com/paulmach/orb"
)

// Layout of the 100-byte main file header (.shp and .shx), Technical
// Description table 2: big-endian file code and length, little-endian
// version, shape type and bounding box.
const (
	headerLen   = 100
	fileCode    = 9994
	version     = 1000
	recHeadLen  = 8 // record number and content length, big-endian
	shxEntryLen = 8 // offset and content length, big-endian
)

// header is the main file header.
type header struct {
	fileLen   int64 // bytes, from the length in 16-bit words
	shapeType ShapeType
	bound     orb.Bound // Xmin, Ymin, Xmax, Ymax
	zm        [4]float64
}

// parseHeader decodes and checks a main file header.
func parseHeader(b []byte) (header, error) {
	var h header
	if c := int32(binary.BigEndian.Uint32(b[0:4])); c != fileCode {
		return h, shpError(0, "file code %d, want %d", c, fileCode)
	}
	words := int32(binary.BigEndian.Uint32(b[24:28]))
	h.fileLen = 2 * int64(words)
	if h.fileLen < headerLen {
		return h, shpError(0, "file length %d words is shorter than the %d-byte header", words, headerLen)
	}
	if v := int32(binary.LittleEndian.Uint32(b[28:32])); v != version {
		return h, shpError(0, "version %d, want %d", v, version)
	}
	h.shapeType = ShapeType(binary.LittleEndian.Uint32(b[32:36]))
	if !h.shapeType.Supported() {
		return h, shpError(0, "shape type %v is not supported", h.shapeType)
	}
	h.bound = orb.Bound{
		Min: orb.Point{float64At(b, 36), float64At(b, 44)},
		Max: orb.Point{float64At(b, 52), float64At(b, 60)},
	}
	for i := range h.zm {
		h.zm[i] = float64At(b, 68+8*i)
	}
	return h, nil
}

// appendHeader appends the 100-byte header of a file of fileLen bytes.
func appendHeader(b []byte, fileLen int64, t ShapeType, bound orb.Bound, zm [4]float64) []byte {
	b = binary.BigEndian.AppendUint32(b, fileCode)
	b = append(b, make([]byte, 20)...)
	b = binary.BigEndian.AppendUint32(b, uint32(fileLen/2))
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint32(b, uint32(t))
	for _, v := range [4]float64{bound.Min[0], bound.Min[1], bound.Max[0], bound.Max[1]} {
		b = appendFloat64(b, v)
	}
	for _, v := range zm {
		b = appendFloat64(b, v)
	}
	return b
}

func float64At(b []byte, off int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(b[off : off+8]))
}

func appendFloat64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
