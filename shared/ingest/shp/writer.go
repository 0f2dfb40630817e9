package shp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/paulmach/orb"
)

// WriterOptions configures a Writer.
type WriterOptions struct {
	// Encoding of the .dbf text: UTF8 (also for EncodingAuto) or
	// Windows1252, which also sets the language driver byte to 0x57.
	// Write Encoding.CPG() to the .cpg file.
	Encoding Encoding
	// Date is the .dbf last-update date; the zero time writes 1900-01-01
	// so that output is reproducible.
	Date time.Time
}

// Writer writes a shapefile's .shp, .shx and .dbf files. Close patches the
// headers, so the files must be seekable.
type Writer struct {
	files     [3]io.WriteSeeker // .shp, .shx, .dbf
	starts    [3]int64          // where each file began
	bufs      [3]*bufio.Writer
	shapeType ShapeType
	fields    []Field
	opts      WriterOptions
	shpLen    int64 // bytes written to .shp, header included
	records   int
	bound     orb.Bound
	hasBound  bool
	recLen    int
	content   []byte
	closed    bool
}

// maxFileLen is the largest file length the 32-bit word count can hold.
const maxFileLen = 2 * math.MaxInt32

// NewWriter starts a shapefile of shapeType with the given .dbf fields
// (Character, Numeric, Float, Date or Logical) at the current positions of
// shp, shx and dbf.
func NewWriter(shp, shx, dbf io.WriteSeeker, shapeType ShapeType, fields []Field, opts WriterOptions) (*Writer, error) {
	if shp == nil || shx == nil || dbf == nil {
		return nil, errors.New("shp: NewWriter needs .shp, .shx and .dbf writers")
	}
	if !shapeType.Supported() {
		return nil, fmt.Errorf("shp: cannot write shape type %v", shapeType)
	}
	if opts.Encoding == EncodingAuto {
		opts.Encoding = UTF8
	}
	w := &Writer{files: [3]io.WriteSeeker{shp, shx, dbf}, shapeType: shapeType, opts: opts, recLen: 1}
	seen := map[string]bool{}
	for _, f := range fields {
		if err := checkField(f); err != nil {
			return nil, err
		}
		k := strings.ToUpper(f.Name)
		if seen[k] {
			return nil, fmt.Errorf("shp: field name %q appears twice", f.Name)
		}
		seen[k] = true
		w.recLen += f.Length
	}
	if len(fields) == 0 {
		return nil, errors.New("shp: a .dbf needs at least one field")
	}
	w.fields = append([]Field(nil), fields...)
	for i, f := range w.files {
		start, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, fmt.Errorf("shp: seek: %w", err)
		}
		w.starts[i] = start
		w.bufs[i] = bufio.NewWriterSize(f, 64<<10)
	}
	// Headers now, patched by Close.
	w.shpLen = headerLen
	zero := make([]byte, headerLen)
	for i, h := range [][]byte{zero, zero, w.dbfHeader()} {
		if _, err := w.bufs[i].Write(h); err != nil {
			return nil, fmt.Errorf("shp: write header: %w", err)
		}
	}
	return w, nil
}

// dbfHeader returns the .dbf header and field descriptors for the records
// written so far.
func (w *Writer) dbfHeader() []byte {
	b := make([]byte, dbfHeaderLen, dbfHeaderLen+dbfFieldLen*len(w.fields)+1)
	b[0] = dbfVersion
	d := w.opts.Date
	year := d.Year() - 1900
	if d.IsZero() || year < 0 || year > 255 {
		year, d = 0, time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	b[1], b[2], b[3] = byte(year), byte(d.Month()), byte(d.Day())
	binary.LittleEndian.PutUint32(b[4:8], uint32(w.records))
	binary.LittleEndian.PutUint16(b[8:10], uint16(dbfHeaderLen+dbfFieldLen*len(w.fields)+1))
	binary.LittleEndian.PutUint16(b[10:12], uint16(w.recLen))
	if w.opts.Encoding == Windows1252 {
		b[dbfLDIDOffset] = 0x57
	}
	for _, f := range w.fields {
		b = appendDBFField(b, f)
	}
	return append(b, dbfFieldEnd)
}

// Write appends a record: geom (nil or empty for a Null shape) and one
// attribute per field. Polygon rings must be closed, with 4 points or
// more; they are written outer rings clockwise, holes counter-clockwise,
// whatever their orientation in geom.
func (w *Writer) Write(geom orb.Geometry, attrs []string) error {
	if w.closed {
		return errors.New("shp: write after Close")
	}
	if len(attrs) != len(w.fields) {
		return fmt.Errorf("shp: record %d: %d attributes for %d fields", w.records+1, len(attrs), len(w.fields))
	}
	row := make([]byte, 1, w.recLen)
	row[0] = ' '
	for i, f := range w.fields {
		var err error
		if row, err = appendValue(row, f, attrs[i], w.opts.Encoding); err != nil {
			return fmt.Errorf("shp: record %d: %w", w.records+1, err)
		}
	}
	content, bound, err := w.encodeShape(geom)
	if err != nil {
		return fmt.Errorf("shp: record %d: %w", w.records+1, err)
	}
	if w.shpLen+recHeadLen+int64(len(content)) > maxFileLen {
		return fmt.Errorf("shp: record %d: the .shp would pass %d bytes", w.records+1, int64(maxFileLen))
	}
	w.records++
	var rh [recHeadLen]byte
	binary.BigEndian.PutUint32(rh[0:4], uint32(w.records))
	binary.BigEndian.PutUint32(rh[4:8], uint32(len(content)/2))
	var ix [shxEntryLen]byte
	binary.BigEndian.PutUint32(ix[0:4], uint32(w.shpLen/2))
	binary.BigEndian.PutUint32(ix[4:8], uint32(len(content)/2))
	for _, out := range []struct {
		i int
		b []byte
	}{{0, rh[:]}, {0, content}, {1, ix[:]}, {2, row}} {
		if _, err := w.bufs[out.i].Write(out.b); err != nil {
			return fmt.Errorf("shp: record %d: write: %w", w.records, err)
		}
	}
	w.shpLen += recHeadLen + int64(len(content))
	if bound != nil {
		if w.hasBound {
			w.bound = w.bound.Union(*bound)
		} else {
			w.bound, w.hasBound = *bound, true
		}
	}
	return nil
}

// Close writes the end-of-file mark of the .dbf and patches the three
// headers with the lengths, record count and bounding box. It does not
// close the underlying files.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("shp: Close called twice")
	}
	w.closed = true
	if err := w.bufs[2].WriteByte(dbfEOF); err != nil {
		return fmt.Errorf("shp: write: %w", err)
	}
	for i, b := range w.bufs {
		if err := b.Flush(); err != nil {
			return fmt.Errorf("shp: write: %w", err)
		}
		if _, err := w.files[i].Seek(w.starts[i], io.SeekStart); err != nil {
			return fmt.Errorf("shp: seek: %w", err)
		}
	}
	var zm [4]float64
	shxLen := int64(headerLen + shxEntryLen*w.records)
	headers := [3][]byte{
		appendHeader(nil, w.shpLen, w.shapeType, w.bound, zm),
		appendHeader(nil, shxLen, w.shapeType, w.bound, zm),
		w.dbfHeader()[:dbfHeaderLen],
	}
	for i, h := range headers {
		if _, err := w.files[i].Write(h); err != nil {
			return fmt.Errorf("shp: write header: %w", err)
		}
		if _, err := w.files[i].Seek(0, io.SeekEnd); err != nil {
			return fmt.Errorf("shp: seek: %w", err)
		}
	}
	return nil
}

// encodeShape returns the record content of g and its bounding box (nil
// for a Null shape).
func (w *Writer) encodeShape(g orb.Geometry) ([]byte, *orb.Bound, error) {
	t := w.shapeType
	b := w.content[:0]
	defer func() { w.content = b[:0] }()
	if isEmpty(g) {
		b = binary.LittleEndian.AppendUint32(b, uint32(Null))
		return b, nil, nil
	}
	var parts [][]orb.Point // rings or lines, or one slice of points
	switch t.base() {
	case Point:
		p, ok := g.(orb.Point)
		if !ok {
			return nil, nil, fmt.Errorf("%T cannot be written to a %v file", g, t)
		}
		if !finite(p) {
			return nil, nil, fmt.Errorf("point %v is not finite", p)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(t))
		b = appendFloat64(appendFloat64(b, p[0]), p[1])
		if t.hasZ() {
			b = appendFloat64(b, 0)
		}
		if t.hasZ() || t.hasM() {
			b = appendFloat64(b, 0)
		}
		bound := p.Bound()
		return b, &bound, nil
	case MultiPoint:
		mp, ok := g.(orb.MultiPoint)
		if !ok {
			return nil, nil, fmt.Errorf("%T cannot be written to a %v file", g, t)
		}
		parts = [][]orb.Point{mp}
	case PolyLine:
		switch g := g.(type) {
		case orb.LineString:
			parts = [][]orb.Point{g}
		case orb.MultiLineString:
			for _, ls := range g {
				parts = append(parts, ls)
			}
		default:
			return nil, nil, fmt.Errorf("%T cannot be written to a %v file", g, t)
		}
		for i, p := range parts {
			if len(p) < 2 {
				return nil, nil, fmt.Errorf("line %d has %d points, want 2 or more", i, len(p))
			}
		}
	case Polygon:
		var polys []orb.Polygon
		switch g := g.(type) {
		case orb.Polygon:
			polys = []orb.Polygon{g}
		case orb.MultiPolygon:
			polys = g
		default:
			return nil, nil, fmt.Errorf("%T cannot be written to a %v file", g, t)
		}
		var err error
		if parts, err = shapefileRings(polys); err != nil {
			return nil, nil, err
		}
	}
	var all []orb.Point
	for _, p := range parts {
		all = append(all, p...)
	}
	for i, p := range all {
		if !finite(p) {
			return nil, nil, fmt.Errorf("point %d %v is not finite", i, p)
		}
	}
	bound := orb.MultiPoint(all).Bound()
	b = binary.LittleEndian.AppendUint32(b, uint32(t))
	for _, v := range [4]float64{bound.Min[0], bound.Min[1], bound.Max[0], bound.Max[1]} {
		b = appendFloat64(b, v)
	}
	if t.base() != MultiPoint {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(parts)))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(all)))
	if t.base() != MultiPoint {
		start := 0
		for _, p := range parts {
			b = binary.LittleEndian.AppendUint32(b, uint32(start))
			start += len(p)
		}
	}
	for _, p := range all {
		b = appendFloat64(appendFloat64(b, p[0]), p[1])
	}
	// Z then M: a range and one value per point, all zero.
	if t.hasZ() || t.hasM() {
		b = append(b, make([]byte, 16+8*len(all))...)
	}
	if t.hasZ() {
		b = append(b, make([]byte, 16+8*len(all))...)
	}
	return b, &bound, nil
}

// shapefileRings returns the rings of polys in shapefile orientation:
// each outer ring clockwise followed by its holes counter-clockwise.
func shapefileRings(polys []orb.Polygon) ([][]orb.Point, error) {
	var out [][]orb.Point
	for i, p := range polys {
		for j, r := range p {
			if len(r) < 4 {
				return nil, fmt.Errorf("polygon %d ring %d has %d points, want 4 or more", i, j, len(r))
			}
			if r[0] != r[len(r)-1] {
				return nil, fmt.Errorf("polygon %d ring %d is not closed", i, j)
			}
			a := signedArea(r)
			if a == 0 {
				return nil, fmt.Errorf("polygon %d ring %d has no area", i, j)
			}
			// Outer rings (j == 0) clockwise: negative area.
			if (j == 0) == (a > 0) {
				r = r.Clone()
				r.Reverse()
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// isEmpty reports whether g is nil or has no points.
func isEmpty(g orb.Geometry) bool {
	switch g := g.(type) {
	case nil:
		return true
	case orb.Point:
		return false
	case orb.MultiPoint:
		return len(g) == 0
	case orb.LineString:
		return len(g) == 0
	case orb.MultiLineString:
		return len(g) == 0
	case orb.Polygon:
		return len(g) == 0
	case orb.MultiPolygon:
		for _, p := range g {
			if len(p) > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// Buffer is an in-memory io.WriteSeeker for NewWriter.
type Buffer struct {
	b   []byte
	off int64
}

// Write writes p at the current offset, growing the buffer as needed.
func (b *Buffer) Write(p []byte) (int, error) {
	end := b.off + int64(len(p))
	if end > int64(len(b.b)) {
		b.b = append(b.b, make([]byte, end-int64(len(b.b)))...)
	}
	copy(b.b[b.off:], p)
	b.off = end
	return len(p), nil
}

// Seek sets the offset for the next Write.
func (b *Buffer) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += int64(len(b.b))
	default:
		return 0, errors.New("shp: Buffer.Seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("shp: Buffer.Seek: negative position")
	}
	b.off = offset
	return offset, nil
}

// Bytes returns the buffer's content.
func (b *Buffer) Bytes() []byte { return b.b }
