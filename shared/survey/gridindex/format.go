package gridindex

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

const (
	magic     = "MRDNGIX2"
	magicV1   = "MRDNGIX1" // one gzip member a page: read no more
	headerLen = 96
	leafSize  = 256      // groups per directory leaf
	firstRead = 16 << 10 // bytes read to get header, metadata and root at once
	// maxPrefetchLeaves bounds the directory leaves an open reads whole
	// and keeps (compressed); larger leaf sections are read a leaf at a
	// time, on first use.
	maxPrefetchLeaves = 4 << 20
	coordScale        = 1e7
	// maxFileSize bounds every offset and length read from a file, so a
	// corrupt header cannot ask for absurd ranges.
	maxFileSize = 1 << 40
)

// header is the fixed start of an index file.
type header struct {
	metaOff, rootOff, leavesOff, pagesOff uint64
	metaLen, rootLen                      uint32
	leavesLen, pagesLen                   uint64
	records                               uint64
	groups                                uint32
	bounds                                orb.Bound
}

func (h header) marshal() []byte {
	b := make([]byte, headerLen)
	copy(b, magic)
	le := binary.LittleEndian
	le.PutUint64(b[8:], h.metaOff)
	le.PutUint32(b[16:], h.metaLen)
	le.PutUint64(b[20:], h.rootOff)
	le.PutUint32(b[28:], h.rootLen)
	le.PutUint64(b[32:], h.leavesOff)
	le.PutUint64(b[40:], h.leavesLen)
	le.PutUint64(b[48:], h.pagesOff)
	le.PutUint64(b[56:], h.pagesLen)
	le.PutUint64(b[64:], h.records)
	le.PutUint32(b[72:], h.groups)
	putBound(b[76:], h.bounds)
	return b
}

func unmarshalHeader(b []byte) (header, error) {
	var h header
	if len(b) >= headerLen && string(b[:8]) == magicV1 {
		return h, ErrOldFormat
	}
	if len(b) < headerLen || string(b[:8]) != magic {
		return h, errors.New("gridindex: not a grid index (bad magic)")
	}
	le := binary.LittleEndian
	h.metaOff, h.metaLen = le.Uint64(b[8:]), le.Uint32(b[16:])
	h.rootOff, h.rootLen = le.Uint64(b[20:]), le.Uint32(b[28:])
	h.leavesOff, h.leavesLen = le.Uint64(b[32:]), le.Uint64(b[40:])
	h.pagesOff, h.pagesLen = le.Uint64(b[48:]), le.Uint64(b[56:])
	h.records, h.groups = le.Uint64(b[64:]), le.Uint32(b[72:])
	h.bounds = getBound(b[76:])
	if h.metaLen > maxUncompressed || h.rootLen > maxUncompressed {
		return h, errors.New("gridindex: corrupt header (metadata or root too large)")
	}
	for _, s := range [][2]uint64{{h.metaOff, uint64(h.metaLen)}, {h.rootOff, uint64(h.rootLen)}, {h.leavesOff, h.leavesLen}, {h.pagesOff, h.pagesLen}} {
		if s[0] < headerLen || s[0] > maxFileSize || s[1] > maxFileSize {
			return h, errors.New("gridindex: corrupt header (section out of range)")
		}
	}
	return h, nil
}

func e7(v float64) int32 { return int32(math.Round(v * coordScale)) }

func putBound(b []byte, bd orb.Bound) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(e7(bd.Min[0])))
	le.PutUint32(b[4:], uint32(e7(bd.Min[1])))
	le.PutUint32(b[8:], uint32(e7(bd.Max[0])))
	le.PutUint32(b[12:], uint32(e7(bd.Max[1])))
}

func getBound(b []byte) orb.Bound {
	le := binary.LittleEndian
	f := func(i int) float64 { return float64(int32(le.Uint32(b[i:]))) / coordScale }
	return orb.Bound{Min: orb.Point{f(0), f(4)}, Max: orb.Point{f(8), f(12)}}
}

// encoder appends varint-encoded values.
type encoder struct{ b []byte }

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) byte1(v byte)     { e.b = append(e.b, v) }
func (e *encoder) bound(bd orb.Bound) {
	e.varint(int64(e7(bd.Min[0])))
	e.varint(int64(e7(bd.Min[1])))
	e.varint(int64(e7(bd.Max[0])))
	e.varint(int64(e7(bd.Max[1])))
}

// decoder reads what encoder wrote; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

var errCorrupt = errors.New("gridindex: corrupt data")

// ErrOldFormat is Open's error for an index of format 1 (a page one gzip
// member), which this version does not read.
var ErrOldFormat = errors.New("gridindex: an index of format 1 (pages not split into blocks): rebuild it with this meridian's ingest grid")

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length that must fit in the remaining bytes, each item
// taking at least min bytes.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)/min) {
		d.err = errCorrupt
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count(1)
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) byte1() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCorrupt
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) coord() float64 { return float64(d.varint()) / coordScale }

func (d *decoder) bound() orb.Bound {
	return orb.Bound{Min: orb.Point{d.coord(), d.coord()}, Max: orb.Point{d.coord(), d.coord()}}
}

// record flags.
const (
	flagGeometry     = 1 << 0
	flagMultiPolygon = 1 << 1
	flagCentroid     = 1 << 2 // official centroid (not computed)
)

// encodeRecord appends r.
func encodeRecord(e *encoder, r *Record) {
	e.str(r.Location.String())
	e.byte1(byte(r.Province))
	var flags byte
	if r.Geometry != nil {
		flags |= flagGeometry
		if _, ok := r.Geometry.(orb.MultiPolygon); ok {
			flags |= flagMultiPolygon
		}
	}
	if r.HasCentroid {
		flags |= flagCentroid
	}
	e.byte1(flags)
	cx, cy := int64(e7(r.Centroid[0])), int64(e7(r.Centroid[1]))
	e.varint(cx)
	e.varint(cy)
	e.uvarint(uint64(math.Round(r.AccuracyM * 10)))
	if r.Geometry == nil {
		return
	}
	px, py := cx, cy
	polygon := func(p orb.Polygon) {
		e.uvarint(uint64(len(p)))
		for _, ring := range p {
			e.uvarint(uint64(len(ring)))
			for _, pt := range ring {
				x, y := int64(e7(pt[0])), int64(e7(pt[1]))
				e.varint(x - px)
				e.varint(y - py)
				px, py = x, y
			}
		}
	}
	switch g := r.Geometry.(type) {
	case orb.Polygon:
		polygon(g)
	case orb.MultiPolygon:
		e.uvarint(uint64(len(g)))
		for _, p := range g {
			polygon(p)
		}
	}
}

// decodeRecord reads one record.
func decodeRecord(d *decoder) (Record, error) {
	key := d.str()
	if d.err != nil {
		return Record{}, d.err
	}
	l, err := lld.Parse(key)
	if err != nil || l.String() != key {
		return Record{}, fmt.Errorf("gridindex: corrupt record key %q", key)
	}
	return decodeRecordBody(d, l)
}

// decodeRecordAt reads one record whose key is known to be l's canonical
// text (a page's key table matched it): the key is skipped, not parsed.
func decodeRecordAt(d *decoder, l lld.Location) (Record, error) {
	d.b = d.b[d.count(1):]
	return decodeRecordBody(d, l)
}

// decodeRecordBody reads what follows a record's key.
func decodeRecordBody(d *decoder, l lld.Location) (Record, error) {
	r := Record{Location: l}
	r.Province = survey.Province(d.byte1())
	flags := d.byte1()
	cx, cy := d.varint(), d.varint()
	r.Centroid = orb.Point{float64(cx) / coordScale, float64(cy) / coordScale}
	r.HasCentroid = flags&flagCentroid != 0
	r.AccuracyM = float64(d.uvarint()) / 10
	if d.err != nil {
		return r, d.err
	}
	return r, decodeGeometry(d, &r, flags, cx, cy)
}

// decodeGeometry reads a record's geometry, coordinates delta-encoded from
// its centroid.
func decodeGeometry(d *decoder, r *Record, flags byte, cx, cy int64) error {
	if flags&flagGeometry == 0 {
		return nil
	}
	px, py := cx, cy
	polygon := func() orb.Polygon {
		p := make(orb.Polygon, d.count(1))
		for i := range p {
			ring := make(orb.Ring, d.count(2))
			for j := range ring {
				px += d.varint()
				py += d.varint()
				ring[j] = orb.Point{float64(px) / coordScale, float64(py) / coordScale}
			}
			p[i] = ring
		}
		return p
	}
	if flags&flagMultiPolygon != 0 {
		mp := make(orb.MultiPolygon, d.count(1))
		for i := range mp {
			mp[i] = polygon()
		}
		r.Geometry = mp
	} else {
		r.Geometry = polygon()
	}
	return d.err
}

// gzipWriters keeps compressors between calls: a writer at
// BestCompression allocates about 1 MiB when made, and a page writes one
// gzip member a block (37 for a DLS township).
var gzipWriters sync.Pool

// gzipBytes compresses b.
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzipWriters.Get().(*stdgzip.Writer)
	if zw == nil {
		zw, _ = stdgzip.NewWriterLevel(&buf, stdgzip.BestCompression)
	} else {
		zw.Reset(&buf)
	}
	zw.Write(b)
	zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// maxUncompressed bounds what a page or leaf may inflate to, so a corrupt
// or hostile file cannot exhaust memory.
const maxUncompressed = 64 << 20

// gzipReaders keeps inflaters between reads: a gzip.Reader allocates its
// window and tables (about 40 KiB) when made, which a page miss paid each
// time. They are klauspost/compress's: BenchmarkLookupMiss (a block
// inflated every lookup) took 11.2 µs against 12.5 with the standard
// library's. Pages are still written by the standard library, so an
// index's bytes do not change.
var gzipReaders sync.Pool

// gunzip inflates one gzip member into a slice of exactly its size (from
// the trailer, when plausible), so that what the page cache keeps has no
// slack.
func gunzip(b []byte) ([]byte, error) {
	br := bytes.NewReader(b)
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(br)
	} else {
		err = zr.Reset(br)
	}
	if err != nil {
		return nil, fmt.Errorf("gridindex: %w", err)
	}
	defer gzipReaders.Put(zr)
	size := 512
	if len(b) >= 18 { // ISIZE: the inflated length mod 2^32
		if n := int(binary.LittleEndian.Uint32(b[len(b)-4:])); n <= maxUncompressed {
			size = n + 1 // one more byte, so a full slice means a lying trailer, not EOF
		}
	}
	out := make([]byte, 0, size)
	for {
		if len(out) == cap(out) {
			if len(out) > maxUncompressed {
				return nil, errors.New("gridindex: section inflates past 64 MiB")
			}
			out = append(out, 0)[:len(out)]
		}
		n, err := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("gridindex: %w", err)
		}
	}
	if len(out) > maxUncompressed {
		return nil, errors.New("gridindex: section inflates past 64 MiB")
	}
	return out[:len(out):len(out)], nil
}

// GroupKey returns the group a location belongs to in an index: its DLS
// township, Manitoba parish or Ontario geographic township. NTS has no
// groups: it is exact math and never indexed.
func GroupKey(l lld.Location) (string, bool) {
	b, ok := appendGroupKey(nil, l)
	return string(b), ok
}

// appendGroupKey appends l's group key (GroupKey) to b: a lookup builds it
// in a buffer on its stack.
func appendGroupKey(b []byte, l lld.Location) ([]byte, bool) {
	switch l.System {
	case lld.DLS:
		if l.Township == 0 {
			return b, false
		}
		t := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: l.Meridian, Range: l.Range, Township: l.Township}
		return t.AppendText(append(b, "DLS:"...)), true
	case lld.RiverLot:
		return append(append(b, "MB:"...), strings.ToUpper(l.Place)...), l.Place != ""
	case lld.GeoTownship:
		return append(append(b, "ON:"...), strings.ToUpper(l.Place)...), l.Place != ""
	}
	return b, false
}
