// Package ingest is the small toolkit every dataset reader shares: the
// error that rejects a file whole (*Error, naming the file, the line or
// record and the reason; BadValue for a value outside the published list),
// the notices of values that are new but placeable (Notices), the
// declaration of a published layout and how sure the team is of it
// (Layout, printed by `meridian ingest … -check`), the table reader
// (Source, Open, Table: CSV, DBF, shapefile and GeoJSON files as rows of
// columns found by header name, geometry alongside for the spatial ones,
// streamed a record at a time), number parsing, and the date a file's name
// carries (FileDate).
// The readers themselves live with their domain: package gridingest
// (survey grids), energyingest and agingest (report datasets); the file
// formats they share are packages shp, geojsonfc, geotiff and proj below
// this one.
package ingest

import "fmt"

// Error is a problem in an input file.
type Error struct {
	File   string // base name of the file
	Line   int    // 1-based line, or record number for binary formats; 0 when not known
	Reason string
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
