package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/geojsonfc"
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
	// Rows, when set, is incremented for every record the table returns:
	// the file's own rows read (rows skipped are not records), whatever
	// a reader makes of them (agingest groups a polygon's component rows
	// into one value). `meridian ingest … -check` prints it per file.
	Rows *int
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
	if s.Rows != nil {
		next, n := t.next, s.Rows
		t.next = func() (*Row, error) {
			r, err := next()
			if err == nil {
				*n++
			}
			return r, err
		}
	}
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
