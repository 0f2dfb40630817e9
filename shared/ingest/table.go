package ingest

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/geojsonfc"
	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
)

// Format is a file format a Table reads.
type Format uint8

// Formats. A reader of a spatial dataset refuses the two that carry no
// geometry, CSV and DBF (Table.Spatial is false for them).
const (
	FormatUnknown Format = iota
	CSV                  // comma-separated text with a header row (RFC 4180), UTF-8 or Windows-1252
	DBF                  // a dBASE table on its own (the SLC CMP, SNT and SLT tables as released)
	Shapefile            // .shp with its .dbf (and optionally .prj and .cpg)
	GeoJSON              // a FeatureCollection (RFC 7946)
)

var formatNames = [...]string{"unknown", "CSV", "DBF", "Shapefile", "GeoJSON"}

// String returns the format's name ("CSV", "Shapefile", ...).
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Source is one input file for a reader; Open returns its Table.
type Source struct {
	// Name is the file's base name. Errors name it, and a reader may
	// read more from it (agingest.ReadDrought reads the month).
	Name   string
	Format Format
	// R is the file: CSV, DBF or GeoJSON text, or a shapefile's .shp.
	R io.Reader
	// DBF is a shapefile's .dbf; required for Shapefile.
	DBF io.Reader
	// PRJ is the WKT of a shapefile's .prj. Empty means longitude and
	// latitude, which every coordinate is then checked to be.
	PRJ string
	// CPG is the content of a shapefile's or DBF's .cpg file, if any
	// ("UTF-8", "1252"); it decides how .dbf text is decoded.
	CPG string
	// Notices collects the values a reader had not seen before but could
	// place (each reader's documentation says which); nil discards them.
	Notices *Notices
	// Recognised, when set, is called once with the layout the reader
	// took the file to be, as soon as it knows (from the header, or from
	// the first feature of a GeoJSON file; a GeoJSON file without
	// features is taken to be the reader's first layout).
	Recognised func(Layout)

	// The fields below adapt the table to a family of readers; their zero
	// values are the rules of the report datasets (package agingest).

	// Names normalises column names, in Table.Cols and for Row.Get and
	// Row.Has; nil means Key.
	Names func(string) string
	// Geometry, when set, checks the geometry of a spatial row, already
	// converted to longitude and latitude, and returns the geometry to
	// use or why the record is refused (the whole reason of the error).
	// Nil means every point must be a longitude and latitude, GeoJSON
	// polygon rings closed and oriented as package shp returns them.
	Geometry func(orb.Geometry) (orb.Geometry, string)
	// Features, when set, are the rules of package geojsonfc for the
	// features of a GeoJSON file; nil allows points, lines and polygons
	// of closed rings.
	Features *geojsonfc.Options
	// ScalarProperties refuses a GeoJSON feature with an object or an
	// array as a property value; without it they read as JSON text.
	ScalarProperties bool
	// FeatureNumbers makes Row.Line, and the errors, of a GeoJSON file the
	// 1-based number of the feature rather than the line where it starts.
	FeatureNumbers bool
	// RequirePRJ refuses a shapefile without a .prj instead of reading its
	// coordinates as longitude and latitude.
	RequirePRJ bool
	// ShapeTypes, when set, are the only shapefile shape types accepted;
	// nil accepts all but multipoints.
	ShapeTypes []shp.ShapeType
	// UnnamedColumns accepts CSV header cells that are empty (a trailing
	// comma, say): such columns cannot be asked for. Without it they are
	// an error.
	UnnamedColumns bool
	// HeaderCell, when set, allows rows before the header of a CSV file
	// (a title, a date): the header is the first row whose first cell is
	// HeaderCell (case-insensitive), within the first 50 rows.
	HeaderCell string
	// AnyWidth lets the rows of a CSV file have another number of fields
	// than the header (a footer, say; Row.Width tells how many): the
	// reader checks what it needs. Absent fields read as "".
	AnyWidth bool
	// Strict is the survey grids' rule, where a wrong row could put a
	// parcel in the wrong place: a CSV file's first row is its header and
	// every later row a record of the header's width (no row is skipped
	// but wholly empty lines), and a feature whose geometry is invalid
	// stops the read with an error. Without it (the report datasets'
	// rules) rows that are not records are skipped and counted (see
	// openCSV), and so are invalid features (see Source.Geometry).
	Strict bool
	// LazyQuotes accepts a quote in an unquoted field and a lone quote in
	// a quoted one, as encoding/csv's LazyQuotes (regulators' exports have
	// both).
	LazyQuotes bool
}

// names returns s.Names, or Key.
func (s Source) names() func(string) string {
	if s.Names != nil {
		return s.Names
	}
	return Key
}

// Recognise reports l to the Source's Recognised, once per table.
func (t *Table) Recognise(l Layout) {
	if t.recognised || t.onLayout == nil {
		return
	}
	t.recognised = true
	t.onLayout(l)
}

// Notice records a placeable new value at line of the table's file.
func (t *Table) Notice(line int, column, value, reason string) {
	t.notices.Add(Notice{File: t.Name, Line: line, Column: column, Value: value, Reason: reason})
}

// BadValue returns the error for a value a reader cannot place.
func (t *Table) BadValue(line int, column, value string, accepted []string) error {
	return BadValue(t.Name, line, column, value, accepted)
}

// File is a Source opened from disk by Open.
type File struct {
	Source
	files []*os.File
}

// Close closes the files Open opened.
func (f *File) Close() error {
	var errs []error
	for _, fl := range f.files {
		errs = append(errs, fl.Close())
	}
	f.files = nil
	return errors.Join(errs...)
}

// Open opens path as a Source, its format chosen by extension: .csv (and
// .txt), .dbf, .shp (with the .dbf beside it, and the .prj and .cpg when
// present) and .geojson or .json.
func Open(path string) (*File, error) {
	ext := strings.ToLower(filepath.Ext(path))
	f := &File{Source: Source{Name: filepath.Base(path)}}
	open := func(p string) (*os.File, error) {
		fl, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		f.files = append(f.files, fl)
		return fl, nil
	}
	var err error
	switch ext {
	case ".csv", ".txt":
		f.Format = CSV
	case ".dbf":
		f.Format = DBF
	case ".geojson", ".json":
		f.Format = GeoJSON
	case ".shp":
		f.Format = Shapefile
	default:
		return nil, fmt.Errorf("ingest: open %s: unknown extension %q (want .csv, .dbf, .shp, .geojson)", path, ext)
	}
	if f.R, err = open(path); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	base := strings.TrimSuffix(path, filepath.Ext(path))
	if f.Format == Shapefile {
		if f.DBF, err = open(sibling(base, ".dbf")); err != nil {
			f.Close()
			return nil, fmt.Errorf("ingest: %w", err)
		}
		if b, err := os.ReadFile(sibling(base, ".prj")); err == nil {
			f.PRJ = string(b)
		} else if !errors.Is(err, os.ErrNotExist) {
			f.Close()
			return nil, fmt.Errorf("ingest: %w", err)
		}
	}
	if f.Format == Shapefile || f.Format == DBF {
		if b, err := os.ReadFile(sibling(base, ".cpg")); err == nil {
			f.CPG = strings.TrimSpace(string(b))
		}
	}
	return f, nil
}

// sibling returns base+ext, or base+EXT when only the upper-case spelling
// exists (shapefiles from Windows tools often have SLC.DBF beside slc.shp).
func sibling(base, ext string) string {
	p := base + ext
	if _, err := os.Stat(p); err != nil {
		if _, err := os.Stat(base + strings.ToUpper(ext)); err == nil {
			return base + strings.ToUpper(ext)
		}
	}
	return p
}

// Row is one record of any format: its values by column name (see Key)
// and, for spatial formats, its geometry in longitude and latitude. A Row
// and its slices are reused by the next call of Table.Next.
type Row struct {
	// Line is the 1-based line where a CSV record starts, the feature's
	// line in a GeoJSON file, or the record number in a DBF or shapefile.
	Line int
	// Geom is the record's geometry in longitude and latitude; nil for
	// CSV and DBF, and for a feature or shape without geometry.
	Geom orb.Geometry
	idx  map[string]int // Key(column) -> index into vals
	vals []string
}

// Get returns the trimmed value of the first of names (already normalised
// with Key) that the row has, or "".
func (r *Row) Get(names ...string) string {
	for _, n := range names {
		if i, ok := r.idx[n]; ok && i < len(r.vals) {
			return r.vals[i]
		}
	}
	return ""
}

// At returns the value of column i (see Table.Col), or "" when i < 0.
func (r *Row) At(i int) string {
	if i < 0 || i >= len(r.vals) {
		return ""
	}
	return r.vals[i]
}

// Width is the number of values of the row: the fields of a CSV record
// (see Source.AnyWidth), the columns of a DBF or shapefile record, the
// properties of a GeoJSON feature.
func (r *Row) Width() int { return len(r.vals) }

// Has reports whether the row has a column called one of names.
func (r *Row) Has(names ...string) bool {
	for _, n := range names {
		if _, ok := r.idx[n]; ok {
			return true
		}
	}
	return false
}

// Key normalises a column name: upper case, with spaces and hyphens as
// underscores ("Dom_LSRS" -> "DOM_LSRS", "poly id" -> "POLY_ID").
func Key(s string) string {
	s = strings.TrimSpace(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-':
			return '_'
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// Table iterates over the rows of a Source, one at a time: a file is
// never held in memory whole.
type Table struct {
	Name    string   // the file's base name, as errors give it
	Spatial bool     // rows carry geometry (shapefile, GeoJSON)
	Fixed   bool     // every row has the same columns (all formats but GeoJSON)
	Cols    []string // the header's columns by Key (or Source.Names), in order; nil for GeoJSON
	Header  []string // the same columns as the file spells them
	// HeaderAt is where column names are: line 1 of a CSV file, 0 (the
	// header) in the binary formats.
	HeaderAt int
	next     func() (*Row, error) // io.EOF after the last row
	idx      map[string]int       // column -> index, for a Fixed table

	notices    *Notices
	onLayout   func(Layout)
	recognised bool
}

// Col returns the index of the first of names (normalised as the Source's
// Names does) that the header has, for Row.At; -1 when it has none, and
// always for GeoJSON, whose features each have their own properties.
// Giving a column's other published names after its own reads whichever
// the file has (see Lookup for which).
func (t *Table) Col(names ...string) int {
	i, _ := t.Lookup(names...)
	return i
}

// Lookup is Col that also returns the one of names the header has ("" when
// none), for messages that name the column as the file does.
func (t *Table) Lookup(names ...string) (int, string) {
	for _, n := range names {
		if i, ok := t.idx[n]; ok {
			return i, n
		}
	}
	return -1, ""
}

// Next returns the next row, or io.EOF after the last. The Row is reused
// by the next call.
func (t *Table) Next() (*Row, error) { return t.next() }

// Errorf returns an *Error for the table's file.
func (t *Table) Errorf(line int, format string, args ...any) error {
	return Errorf(t.Name, line, format, args...)
}

// Need checks that a fixed-schema table has every column in names; a
// GeoJSON table is checked feature by feature by the readers instead. Its
// error carries a Mismatch (with no Closest layout: the reader's one).
func (t *Table) Need(names ...string) error {
	if !t.Fixed {
		return nil
	}
	have := make(map[string]bool, len(t.Cols))
	for _, c := range t.Cols {
		have[c] = true
	}
	var missing []string
	for _, n := range names {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		e := Errorf(t.Name, t.HeaderAt, "missing column %s (the file has %s)", strings.Join(missing, ", "), strings.Join(t.Cols, ", "))
		e.Mismatch = &Mismatch{Have: slices.DeleteFunc(slices.Clone(t.Cols), func(s string) bool { return s == "" }), Missing: missing}
		return e
	}
	return nil
}

// Open returns the table of s.
func (s Source) Open() (*Table, error) {
	t, err := s.openTable()
	if err != nil {
		return nil, err
	}
	t.notices, t.onLayout = s.Notices, s.Recognised
	return t, nil
}

func (s Source) openTable() (*Table, error) {
	name := s.Name
	if name == "" {
		name = "input"
	}
	if s.R == nil {
		return nil, Errorf(name, 0, "no reader for the %s file", s.Format)
	}
	switch s.Format {
	case CSV:
		return openCSV(s, name)
	case DBF:
		return openDBF(s, name)
	case Shapefile:
		return openShapefile(s, name)
	case GeoJSON:
		return openGeoJSON(s, name), nil
	}
	return nil, Errorf(name, 0, "unknown format %v", s.Format)
}

// openCSV reads a header row and then one row per record: RFC 4180
// quoting, an optional UTF-8 byte order mark, CRLF or LF line ends, values
// trimmed, text that is not valid UTF-8 read as Windows-1252.
//
// By default (the report datasets' rules) it reads a file as real
// downloads come: rows before the header that hold one value at most (a
// title, a date) are skipped, the header being the first row of two
// values or more within the first 50 (the first row with a value when
// none has two); empty rows (no value in any field) are skipped wherever
// they are; after the header a row of one value, when the header has three
// columns or more (a notice, a contact line), and a row whose first value
// is "Total" (a totals row) are not records and are skipped too; empty
// fields after the last column (a trailing delimiter) are dropped, from
// the header as from the rows. Every skip is counted in the Source's
// Notices, never taken for the end of the data. A row that is a record of
// the wrong width is still an error. Source.Strict keeps the first row as
// the header and every row a record of the header's width;
// Source.HeaderCell and Source.AnyWidth are the regulators' rules.
func openCSV(s Source, name string) (*Table, error) {
	norm := s.names()
	br := bufio.NewReaderSize(s.R, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.LazyQuotes = s.LazyQuotes
	cr.FieldsPerRecord = -1 // widths are checked here
	lenient := !s.Strict && !s.AnyWidth && s.HeaderCell == ""
	skipped := func(line int, what, why string) {
		s.Notices.Add(Notice{File: name, Line: line, Value: what, Reason: why})
	}
	t := &Table{Name: name, Fixed: true, HeaderAt: 1}
	var head []string
	var held []heldRow // one-value rows read while looking for the header
	titles := false    // the held rows came before the header
	for n := 0; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			if lenient && len(held) > 0 {
				head, t.HeaderAt, held = held[0].rec, held[0].line, held[1:]
				break
			}
			if s.HeaderCell != "" {
				return nil, t.Errorf(max(t.HeaderAt, 1), "no header row (a row starting with %q)", s.HeaderCell)
			}
			return nil, t.Errorf(1, "empty file: want a header row")
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		t.HeaderAt, _ = cr.FieldPos(0)
		if !lenient {
			if s.HeaderCell == "" || strings.EqualFold(text(rec[0]), s.HeaderCell) {
				head = slices.Clone(rec)
				break
			}
			if n >= maxPreamble {
				return nil, t.Errorf(t.HeaderAt, "no header row (a row starting with %q) in the first %d rows", s.HeaderCell, maxPreamble)
			}
			continue
		}
		switch values(rec) {
		case 0:
			skipped(t.HeaderAt, "empty row", "no value in any field")
			continue
		case 1:
			held = append(held, heldRow{slices.Clone(rec), t.HeaderAt})
			if len(held) <= maxPreamble {
				continue
			}
			// No row of two values: the file has one column, its header
			// the first row; the rows held after it are records.
			head, t.HeaderAt, held = held[0].rec, held[0].line, held[1:]
		default:
			head, titles = slices.Clone(rec), true
		}
		break
	}
	if titles {
		for _, h := range held {
			skipped(h.line, "row before the header", "a title or note, not the header (one value)")
		}
		held = nil
	}
	headAt := t.HeaderAt
	if lenient && !s.UnnamedColumns {
		head = trimEmptyTail(head)
	}
	idx := make(map[string]int, len(head))
	for i, h := range head {
		k := norm(text(h))
		t.Cols = append(t.Cols, k)
		t.Header = append(t.Header, text(h))
		if k == "" {
			if s.UnnamedColumns {
				continue
			}
			return nil, t.Errorf(headAt, "column %d has no name", i+1)
		}
		if _, dup := idx[k]; dup {
			return nil, t.Errorf(headAt, "column %s appears twice in the header", k)
		}
		idx[k] = i
	}
	t.idx = idx
	width := len(head)
	rw := &Row{idx: idx, vals: make([]string, width)}
	t.next = func() (*Row, error) {
		for {
			var rec []string
			if len(held) > 0 {
				rec, rw.Line, held = held[0].rec, held[0].line, held[1:]
			} else {
				var err error
				if rec, err = cr.Read(); err != nil {
					if err == io.EOF {
						return nil, io.EOF
					}
					return nil, csvError(name, err)
				}
				rw.Line, _ = cr.FieldPos(0)
			}
			if lenient {
				switch v := values(rec); {
				case v == 0:
					skipped(rw.Line, "empty row", "no value in any field")
					continue
				case v == 1 && width >= 3:
					skipped(rw.Line, "row of one value", "a note, title or contact line, not a record")
					continue
				case isTotal(rec):
					skipped(rw.Line, "totals row", "a total, not a record")
					continue
				}
				for len(rec) > width && strings.TrimSpace(rec[len(rec)-1]) == "" {
					rec = rec[:len(rec)-1] // a trailing delimiter
				}
			}
			if !s.AnyWidth && len(rec) != width {
				return nil, Errorf(name, rw.Line, "wrong number of fields: every row must have as many fields as the header (%d, not %d)", width, len(rec))
			}
			rw.vals = rw.vals[:0]
			for _, v := range rec {
				rw.vals = append(rw.vals, text(v))
			}
			return rw, nil
		}
	}
	return t, nil
}

// heldRow is a CSV row read ahead and its line.
type heldRow struct {
	rec  []string
	line int
}

// values counts the fields of rec that hold something other than spaces.
func values(rec []string) int {
	n := 0
	for _, v := range rec {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	return n
}

// trimEmptyTail drops the empty fields at the end of rec (what a trailing
// delimiter leaves), keeping at least one.
func trimEmptyTail(rec []string) []string {
	n := len(rec)
	for n > 1 && strings.TrimSpace(rec[n-1]) == "" {
		n--
	}
	return rec[:n]
}

// isTotal reports whether rec's first value is a totals label ("Total",
// "Totals", "Grand total", with or without a colon).
func isTotal(rec []string) bool {
	for _, v := range rec {
		if v = strings.TrimSpace(v); v != "" {
			switch strings.ToLower(strings.TrimSuffix(v, ":")) {
			case "total", "totals", "grand total":
				return true
			}
			return false
		}
	}
	return false
}

// maxPreamble is how many rows may come before the header of a CSV file
// with a Source.HeaderCell.
const maxPreamble = 50

// text trims v and decodes it as Windows-1252 when it is not UTF-8.
func text(v string) string {
	v = strings.TrimSpace(v)
	if !utf8.ValidString(v) {
		v = strings.TrimSpace(DecodeText(v))
	}
	return v
}

// csvError turns an encoding/csv error into an *Error.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return Errorf(name, pe.Line, "wrong number of fields: every row must have as many fields as the header")
		}
		return Errorf(name, pe.Line, "malformed CSV at column %d: %v", pe.Column, pe.Err)
	}
	return Errorf(name, 0, "read: %v", err)
}

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

// Each runs fn over every row of t; fn's errors stop it and are returned
// unchanged.
func (t *Table) Each(fn func(*Row) error) error {
	for {
		r, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}
