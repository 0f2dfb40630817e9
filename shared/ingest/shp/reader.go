package shp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/paulmach/orb"
)

// ReaderOptions configures a Reader.
type ReaderOptions struct {
	// CPG is the content of the shapefile's .cpg file, if it has one
	// ("UTF-8", "1252", "ISO-8859-1"). It takes precedence over the
	// language driver byte of the .dbf header. Text in a code page neither
	// declares as UTF-8 or Windows-1252 is accepted only where it is
	// ASCII.
	CPG string
	// KeepInvalid reads on past a record whose shape cannot be decoded
	// though the record itself is whole (a point not finite, a ring of
	// fewer than 4 points, parts out of order): its Feature comes with a
	// nil Geometry and Invalid saying why, and a polygon ring that is not
	// closed is closed rather than refused. Without it such a record
	// stops the reader with a *FormatError. A record that is not whole (a
	// truncated file, a content length past the end) stops it either way.
	KeepInvalid bool
}

// Feature is one record: the shape and its attributes.
type Feature struct {
	// Number is the record number, from 1, in both files.
	Number int
	// Geometry is in the file's coordinates; nil for a Null shape or a
	// shape without points.
	Geometry orb.Geometry
	// Invalid, with ReaderOptions.KeepInvalid, says why the record's
	// shape could not be decoded (Geometry is then nil); "" otherwise.
	Invalid string
	// Attrs holds the .dbf values in Fields order, as UTF-8 text with
	// trailing blanks removed (numbers, dates and logicals also without
	// leading blanks). Null markers read as "": a number of '*', the date
	// 00000000 and the logical '?'. Nil without a .dbf.
	Attrs []string

	fields []Field
}

// Get returns the value of the first field called name, compared without
// regard to case.
func (f Feature) Get(name string) (string, bool) {
	for i, fd := range f.fields {
		if i < len(f.Attrs) && strings.EqualFold(fd.Name, name) {
			return f.Attrs[i], true
		}
	}
	return "", false
}

// Reader reads a shapefile's .shp and .dbf files in step, one record at a
// time. It does not read the .shx index.
type Reader struct {
	shp    *bufio.Reader
	header header
	off    int64 // bytes of .shp read
	dbf    *dbfReader
	rec    int // records read
	buf    []byte
	err    error // sticky: io.EOF or the first error

	keepInvalid bool // ReaderOptions.KeepInvalid
}

// minChunk is the first read of a record's content. Later reads double
// with the bytes already read, so a content length in a damaged file
// cannot make the reader allocate more than twice what the file really
// holds, plus minChunk.
const minChunk = 64 << 10

// NewReader reads the headers of a .shp file and, unless dbf is nil, of
// its .dbf file.
func NewReader(shp io.Reader, dbf io.Reader, opts ReaderOptions) (*Reader, error) {
	r := &Reader{shp: bufio.NewReaderSize(shp, 64<<10), keepInvalid: opts.KeepInvalid}
	var h [headerLen]byte
	if _, err := io.ReadFull(r.shp, h[:]); err != nil {
		return nil, readError("shp", 0, "the 100-byte header", err)
	}
	var err error
	if r.header, err = parseHeader(h[:]); err != nil {
		return nil, err
	}
	r.off = headerLen
	if dbf != nil {
		if r.dbf, err = newDBFReader(dbf, opts.CPG); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ShapeType returns the shape type of the file header.
func (r *Reader) ShapeType() ShapeType { return r.header.shapeType }

// Bound returns the bounding box of the file header.
func (r *Reader) Bound() orb.Bound { return r.header.bound }

// Fields returns the .dbf field descriptors (none without a .dbf).
func (r *Reader) Fields() []Field {
	if r.dbf == nil {
		return nil
	}
	return slices.Clone(r.dbf.fields)
}

// Next returns the next feature that is not marked deleted in the .dbf,
// or io.EOF after the last. After an error every call returns it again.
func (r *Reader) Next() (Feature, error) {
	for r.err == nil {
		f, deleted, err := r.next()
		if err != nil {
			r.err = err
			break
		}
		if !deleted {
			return f, nil
		}
	}
	return Feature{}, r.err
}

func (r *Reader) next() (Feature, bool, error) {
	if r.off == r.header.fileLen {
		return Feature{}, false, r.end()
	}
	rec := r.rec + 1
	if left := r.header.fileLen - r.off; left < recHeadLen {
		return Feature{}, false, shpError(rec, "%d bytes left by the file length in the header, too few for a record header", left)
	}
	var rh [recHeadLen]byte
	if _, err := io.ReadFull(r.shp, rh[:]); err != nil {
		return Feature{}, false, r.truncated(rec, "the record header", err)
	}
	r.off += recHeadLen
	if num := int64(int32(binary.BigEndian.Uint32(rh[0:4]))); num != int64(rec) {
		return Feature{}, false, shpError(rec, "record number %d, want %d", num, rec)
	}
	words := int32(binary.BigEndian.Uint32(rh[4:8]))
	n := 2 * int64(words)
	if n < 0 {
		return Feature{}, false, shpError(rec, "negative content length %d words", words)
	}
	if n > r.header.fileLen-r.off {
		return Feature{}, false, shpError(rec, "content length %d words runs past the file length of %d bytes in the header", words, r.header.fileLen)
	}
	if err := r.readContent(int(n)); err != nil {
		return Feature{}, false, r.truncated(rec, fmt.Sprintf("the %d-byte content", n), err)
	}
	r.off += n
	g, err := decodeShape(r.buf, r.header.shapeType, rec, r.keepInvalid)
	invalid := ""
	if err != nil {
		var fe *FormatError
		if !r.keepInvalid || !errors.As(err, &fe) {
			return Feature{}, false, err
		}
		invalid = fe.Msg
	}
	r.rec = rec
	f := Feature{Number: rec, Geometry: g, Invalid: invalid}
	if r.dbf == nil {
		return f, false, nil
	}
	attrs, deleted, err := r.dbf.next()
	if err == io.EOF {
		return Feature{}, false, dbfError(0, "%d records, but the .shp has more", r.dbf.numRecords)
	}
	if err != nil {
		return Feature{}, false, err
	}
	f.Attrs, f.fields = attrs, r.dbf.fields
	return f, deleted, nil
}

// readContent reads n bytes into r.buf, growing it only as data arrives.
func (r *Reader) readContent(n int) error {
	r.buf = r.buf[:0]
	for len(r.buf) < n {
		k := min(n-len(r.buf), max(minChunk, len(r.buf)))
		r.buf = slices.Grow(r.buf, k)
		m, err := io.ReadFull(r.shp, r.buf[len(r.buf):len(r.buf)+k])
		r.buf = r.buf[:len(r.buf)+m]
		if err != nil {
			return err
		}
	}
	return nil
}

// truncated reports a .shp that ends before the length in its header.
func (r *Reader) truncated(rec int, what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return shpError(rec, "truncated: file ends within %s, before the %d bytes its header gives", what, r.header.fileLen)
	}
	return fmt.Errorf("shp: read .shp record %d: %w", rec, err)
}

// end checks, at the file length of the header, that nothing follows in
// the .shp and that the .dbf has no more records.
func (r *Reader) end() error {
	if _, err := r.shp.ReadByte(); err == nil {
		return shpError(0, "data after the file length of %d bytes", r.header.fileLen)
	} else if err != io.EOF {
		return fmt.Errorf("shp: read .shp: %w", err)
	}
	if r.dbf != nil && r.dbf.read < r.dbf.numRecords {
		return dbfError(0, "%d records, but the .shp has %d", r.dbf.numRecords, r.rec)
	}
	return io.EOF
}
