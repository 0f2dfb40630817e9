package gridingest

import (
	"io"
	"strings"

	"meridian/shared/ingest"
)

// csvTable reads a CSV file with a header row through ingest.Table: RFC
// 4180 quoting (commas and line breaks inside quotes, "" for a quote),
// UTF-8 with or without a byte order mark, and Windows-1252 text where a
// field is not valid UTF-8 (see ingest.DecodeText). Columns are found by
// header name as headerName normalises it: case-insensitive, trimmed, '_'
// read as a space and runs of spaces as one ("LOT_NO" = "Lot No"), in any
// order; columns nobody asks for are ignored, and may be unnamed. The
// table is Strict: the first row is the header and every row must have as
// many fields as the header (a row that is not a parcel's is an error,
// never skipped: a shifted row would put a parcel in the wrong place).
type csvTable struct {
	file string
	t    *ingest.Table
	row  *ingest.Row
	line int // line where the current row starts
}

func newCSVTable(r io.Reader, file string) (*csvTable, error) {
	t, err := ingest.Source{Name: file, Format: ingest.CSV, R: r, Names: headerName, UnnamedColumns: true, Strict: true}.Open()
	if err != nil {
		return nil, err
	}
	return &csvTable{file: file, t: t}, nil
}

// headerName normalises a header for lookup.
func headerName(h string) string {
	h = strings.ToLower(strings.ReplaceAll(h, "_", " "))
	return strings.Join(strings.Fields(h), " ")
}

// col returns the index of the first of names present in the header, or
// -1. names are given normalised (lower case, spaces).
func (t *csvTable) col(names ...string) int { return t.t.Col(names...) }

// next reads the next row; it returns io.EOF at the end.
func (t *csvTable) next() error {
	r, err := t.t.Next()
	if err != nil {
		return err
	}
	t.row, t.line = r, r.Line
	return nil
}

// get returns the trimmed field i of the current row, or "" when i < 0.
func (t *csvTable) get(i int) string { return t.row.At(i) }

func (t *csvTable) errorf(format string, args ...any) error {
	return ingest.Errorf(t.file, t.line, format, args...)
}
