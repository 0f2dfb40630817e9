package ingest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
)

// openDBF reads a dBASE table on its own with package shp's reader, which
// reads a .dbf only beside a .shp: it is given a .shp of Null shapes with
// as many records as the .dbf header promises, generated as it is read.
func openDBF(s Source, name string) (*Table, error) {
	br := bufio.NewReaderSize(s.R, 64<<10)
	h, err := br.Peek(8)
	if err != nil {
		return nil, Errorf(name, 0, ".dbf: truncated: file ends within the 32-byte header")
	}
	n := int64(binary.LittleEndian.Uint32(h[4:8]))
	if 100+nullRecLen*n > 2*math.MaxInt32 {
		return nil, Errorf(name, 0, ".dbf: header promises %d records, more than a dBASE table can hold", n)
	}
	sr, err := shp.NewReader(&nullShapes{n: n}, br, shp.ReaderOptions{CPG: s.CPG})
	if err != nil {
		return nil, shpError(name, err)
	}
	return shpTable(sr, nil, name, false, s), nil
}

// nullRecLen is the size of a Null shape record: an 8-byte record header
// and the 4-byte shape type.
const nullRecLen = 12

// nullShapes generates a .shp file of n Null shapes.
type nullShapes struct {
	n   int64 // records
	off int64 // bytes produced
	buf [100]byte
	k   int // bytes of buf not yet produced are buf[k:len]
	len int
}

func (z *nullShapes) Read(p []byte) (int, error) {
	total := 100 + nullRecLen*z.n
	w := 0
	for w < len(p) && z.off < total {
		if z.k == z.len {
			z.chunk()
		}
		c := copy(p[w:], z.buf[z.k:z.len])
		z.k += c
		w += c
		z.off += int64(c)
	}
	if w == 0 {
		return 0, io.EOF
	}
	return w, nil
}

// chunk puts the next piece of the file in buf: the header, then one
// record at a time.
func (z *nullShapes) chunk() {
	z.buf, z.k = [100]byte{}, 0
	if z.off == 0 {
		binary.BigEndian.PutUint32(z.buf[0:4], 9994)
		binary.BigEndian.PutUint32(z.buf[24:28], uint32((100+nullRecLen*z.n)/2))
		binary.LittleEndian.PutUint32(z.buf[28:32], 1000)
		z.len = 100 // shape type 0 (Null), bounding box zero
		return
	}
	rec := (z.off-100)/nullRecLen + 1
	binary.BigEndian.PutUint32(z.buf[0:4], uint32(rec))
	binary.BigEndian.PutUint32(z.buf[4:8], 2) // content: 2 words, the shape type 0
	z.len = nullRecLen
}

// openShapefile reads a .shp and its .dbf, converting coordinates from
// the .prj's system (longitude and latitude when there is no .prj, unless
// s.RequirePRJ).
func openShapefile(s Source, name string) (*Table, error) {
	if s.RequirePRJ && strings.TrimSpace(s.PRJ) == "" {
		return nil, Errorf(name, 0, "no .prj: the coordinate system is unknown")
	}
	var p proj.Projection
	if strings.TrimSpace(s.PRJ) != "" {
		var err error
		if p, err = proj.FromWKT(s.PRJ); err != nil {
			return nil, Errorf(name, 0, ".prj: unsupported coordinate system: %v", err)
		}
	}
	if s.DBF == nil {
		return nil, Errorf(name, 0, "no .dbf: the attributes are needed")
	}
	lenient := !s.Strict && s.Geometry == nil
	sr, err := shp.NewReader(s.R, s.DBF, shp.ReaderOptions{CPG: s.CPG, KeepInvalid: lenient})
	if err != nil {
		return nil, shpError(name, err)
	}
	st := sr.ShapeType()
	switch {
	case s.ShapeTypes != nil && !slices.Contains(s.ShapeTypes, st):
		return nil, Errorf(name, 0, "shape type %v: want %v", st, s.ShapeTypes[0])
	case s.ShapeTypes == nil && (st == shp.MultiPoint || st == shp.MultiPointZ || st == shp.MultiPointM):
		return nil, Errorf(name, 0, "shape type %v: want polygons, lines or points", st)
	}
	return shpTable(sr, p, name, true, s), nil
}

// shpTable iterates over a shp.Reader's features.
func shpTable(sr *shp.Reader, p proj.Projection, name string, spatial bool, s Source) *Table {
	t := &Table{Name: name, Spatial: spatial, Fixed: true}
	norm := s.names()
	idx := make(map[string]int)
	for i, f := range sr.Fields() {
		k := norm(f.Name)
		t.Cols = append(t.Cols, k)
		t.Header = append(t.Header, f.Name)
		if _, dup := idx[k]; !dup {
			idx[k] = i
		}
	}
	t.idx = idx
	rw := &Row{idx: idx}
	geographic := p == nil || proj.Geographic(p)
	if !geographic {
		// Parcels share their corners: each is converted about once.
		p = proj.Memo(p, proj.MemoPoints) // 2 MiB
	}
	lenient := !s.Strict && s.Geometry == nil
	var bad skippedFeatures
	t.next = func() (*Row, error) {
		for {
			f, err := sr.Next()
			if err == io.EOF {
				return nil, bad.end()
			}
			if err != nil {
				return nil, shpError(name, err)
			}
			rw.Line, rw.vals, rw.Geom = f.Number, f.Attrs, nil
			if !spatial && lenient && values(f.Attrs) == 0 {
				// A table on its own: a record of no value is an empty
				// row (a spreadsheet's, saved as dBASE), not a record.
				s.Notices.Add(Notice{File: name, Line: f.Number, Value: "empty row", Reason: "no value in any field"})
				continue
			}
			if f.Invalid != "" { // only when lenient (shp.ReaderOptions.KeepInvalid)
				bad.skip(s.Notices, Errorf(name, f.Number, ".shp: %s", f.Invalid), f.Number)
				continue
			}
			if !spatial || f.Geometry == nil {
				bad.good = true
				return rw, nil
			}
			g, why := shpGeometry(f.Geometry, p, geographic, s.Geometry)
			if why == "" {
				rw.Geom, bad.good = g, true
				return rw, nil
			}
			e := Errorf(name, f.Number, "%s", why)
			if !lenient {
				return nil, e
			}
			bad.skip(s.Notices, e, f.Number)
		}
	}
	return t
}

// shpGeometry converts a shapefile record's geometry to longitude and
// latitude: float noise at the range's boundary clamped (a geographic
// file's coordinates before the check, see clampLngLat), then the .prj's
// conversion, then geom's check (or checkLngLat when geom is nil). It
// returns why the geometry is refused, or "".
func shpGeometry(g orb.Geometry, p proj.Projection, geographic bool, geom func(orb.Geometry) (orb.Geometry, string)) (orb.Geometry, string) {
	if geographic {
		g = clampLngLat(g)
	}
	if p != nil {
		var err error
		if g, err = proj.Geometry(g, p); err != nil {
			return nil, fmt.Sprintf("%s: %v", p.Name(), err)
		}
	}
	if geom != nil {
		return geom(g)
	}
	if why := checkLngLat(g); why != "" {
		if p == nil {
			why += "; without a .prj coordinates must be longitude and latitude"
		}
		return nil, why
	}
	return g, ""
}

// skippedFeatures tracks the features a table skipped for their
// geometry. Each is its own notice, naming the feature and why; but a file
// of which not one feature could be read (a projected file without its
// .prj, say) is an error, the first feature's, not an empty result.
type skippedFeatures struct {
	first *Error // the first feature skipped
	good  bool   // a feature was read
}

// skip notes the feature e refuses, the n-th of its file.
func (b *skippedFeatures) skip(ns *Notices, e *Error, n int) {
	if b.first == nil {
		b.first = e
	}
	ns.Add(Notice{File: e.File, Line: e.Line, Value: fmt.Sprintf("feature %d", n), Reason: "invalid geometry: " + e.Reason})
}

// end is what the table returns after its last feature: io.EOF, or the
// first skipped feature's error when no feature was read.
func (b *skippedFeatures) end() error {
	if !b.good && b.first != nil {
		return b.first
	}
	return io.EOF
}

// shpError turns a package shp error into an *Error.
func shpError(name string, err error) error {
	var fe *shp.FormatError
	if errors.As(err, &fe) {
		return Errorf(name, fe.Record, ".%s: %s", fe.File, fe.Msg)
	}
	return Errorf(name, 0, "%v", err)
}
