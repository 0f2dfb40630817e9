// Package ingest is the small toolkit every dataset reader shares: the
// error that rejects a file whole (*Error, naming the file, the line or
// record and the reason; BadValue for a value outside the published list),
// the notices of values that are new but placeable (Notices), the
// declaration of a published layout and how sure the team is of it
// (Layout, printed by `meridian ingest … -check`), the table reader,
// number and text parsing (ParseNumber, ParseUint, AllDigits, DecodeText)
// and the date a file's name carries (FileDate, one rule for every
// dataset).
//
// # The table reader
//
// Source names a file and its format; Open opens one from disk by its
// extension, and Source.Open returns its Table: CSV, a DBF on its own, a
// shapefile (.shp with .dbf, .prj and .cpg) or a GeoJSON FeatureCollection
// as rows of values by column name, geometry alongside (in longitude and
// latitude) for the spatial formats. A Table is read a record at a time
// (Next, Each), so memory is bounded by the largest record, never the
// file. Errors give the line for CSV and GeoJSON and the record number for
// DBF and shapefiles. Columns are found by name (Row.Get, Row.Has) or by
// index (Table.Col, which also takes a column's aliases, then Row.At).
//
// The zero Source follows the report datasets' rules (package agingest),
// which read files as real downloads come: in a CSV file, title rows
// before the header, empty rows anywhere, notes, contact lines and totals
// after the records and trailing delimiters are skipped and counted in the
// Notices; in a shapefile or GeoJSON file, coordinates within 1e-6° outside
// longitude and latitude (float noise) are clamped, open GeoJSON rings
// closed, and a feature whose geometry is still invalid is skipped with a
// notice naming it, so that one bad feature never rejects a national
// file. Its other fields give the survey grids' rules (gridingest: Strict,
// where a wrong row is an error; header names as headerName folds them,
// polygons only, a .prj required, rows of a GeoJSON file numbered by
// feature) and the regulators' CSV (energyingest: rows before the header,
// footers of another width, lenient quoting, GeoJSON properties that must
// be scalars).
//
// A reader of several layouts chooses one by the columns the file holds
// (Candidate, Table.Choose, ChooseLayout): never a layout whose required
// columns the file lacks; a file that matches none is an *Error whose
// Mismatch names the columns it has and the closest layout's missing
// ones.
//
// Readers that stay outside the table, because their files are not tables
// of named columns: the ATS v4.1 SEQ file (gridingest, fixed-width columns
// by position), AER ST37's WellList.txt (energyingest, a headerless
// fixed-width file), the XLSX inventory of the Orphan Well Association
// (energyingest, sheets of cells by reference inside a zip) and GeoTIFF
// rasters (package geotiff). The energyingest shapefile readers (ST37's
// well holes, AER's pipelines) use the table but check the .prj
// themselves: they refuse a projected file rather than convert it.
//
// The readers themselves live with their domain: package gridingest
// (survey grids), energyingest and agingest (report datasets); the file
// formats they share are packages shp, geojsonfc, geotiff and proj below
// this one, and this package imports none of the domain packages.
package ingest

import "fmt"

// Error is a problem in an input file.
type Error struct {
	File   string // base name of the file
	Line   int    // 1-based line, or record number for binary formats; 0 when not known
	Reason string
	// Mismatch, when set, says that the file's columns match none of the
	// reader's layouts: the columns it has and the closest layout's
	// missing ones (see ChooseLayout).
	Mismatch *Mismatch
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// Errorf returns an *Error for file and line.
func Errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Reason: fmt.Sprintf(format, args...)}
}
