package agingest

import "meridian/shared/ingest"

// The readers take their files as the toolkit's Source; these aliases keep
// the names callers of agingest have always used.
type (
	// Format is a file format the readers accept (ingest.Format).
	Format = ingest.Format
	// Source is one input file for a reader (ingest.Source).
	Source = ingest.Source
	// File is a Source opened from disk by Open (ingest.File).
	File = ingest.File
)

// Formats. Every reader accepts every format; readers of spatial datasets
// (drought, hydrology, municipalities, Crown land, pastures) refuse the
// two that carry no geometry, CSV and DBF.
const (
	FormatUnknown = ingest.FormatUnknown
	CSV           = ingest.CSV
	DBF           = ingest.DBF
	Shapefile     = ingest.Shapefile
	GeoJSON       = ingest.GeoJSON
)

// Open opens path as a Source (ingest.Open).
func Open(path string) (*File, error) { return ingest.Open(path) }

// errorAt returns an *ingest.Error.
func errorAt(name string, line int, format string, args ...any) error {
	return ingest.Errorf(name, line, format, args...)
}
