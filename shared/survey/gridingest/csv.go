package gridingest

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"meridian/shared/ingest"
)

// csvTable reads a CSV file with a header row, RFC 4180 quoting (commas and
// line breaks inside quotes, "" for a quote), UTF-8 with or without a byte
// order mark, and Windows-1252 text where a field is not valid UTF-8 (see
// decodeText). Columns are found by header name: case-insensitive, trimmed,
// '_' read as a space and runs of spaces as one ("LOT_NO" = "Lot No"),
// in any order; columns nobody asks for are ignored. Every row must have as
// many fields as the header.
type csvTable struct {
	file string
	r    *csv.Reader
	cols map[string]int
	line int // line where the current row starts
	row  []string
}

func newCSVTable(r io.Reader, file string) (*csvTable, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	t := &csvTable{file: file, r: cr, cols: make(map[string]int)}
	head, err := cr.Read()
	if err == io.EOF {
		return nil, ingest.Errorf(file, 1, "empty file: want a header row")
	}
	if err != nil {
		return nil, t.csvError(err)
	}
	for i, h := range head {
		name := headerName(ingest.DecodeText(h))
		if _, dup := t.cols[name]; dup && name != "" {
			return nil, ingest.Errorf(file, 1, "column %q appears twice in the header", strings.TrimSpace(h))
		}
		t.cols[name] = i
	}
	return t, nil
}

// headerName normalises a header for lookup.
func headerName(h string) string {
	h = strings.ToLower(strings.ReplaceAll(h, "_", " "))
	return strings.Join(strings.Fields(h), " ")
}

// col returns the index of the first of names present in the header, or
// -1. names are given normalised (lower case, spaces).
func (t *csvTable) col(names ...string) int {
	for _, n := range names {
		if i, ok := t.cols[n]; ok {
			return i
		}
	}
	return -1
}

// next reads the next row; it returns io.EOF at the end.
func (t *csvTable) next() error {
	row, err := t.r.Read()
	if err != nil {
		if err == io.EOF {
			return io.EOF
		}
		return t.csvError(err)
	}
	t.line, _ = t.r.FieldPos(0)
	for i, f := range row {
		row[i] = ingest.DecodeText(f)
	}
	t.row = row
	return nil
}

// get returns the trimmed field i of the current row, or "" when i < 0.
func (t *csvTable) get(i int) string {
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(t.row[i])
}

func (t *csvTable) errorf(format string, args ...any) error {
	return ingest.Errorf(t.file, t.line, format, args...)
}

func (t *csvTable) csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		reason := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			reason = "wrong number of fields: every row must have as many fields as the header"
		}
		return ingest.Errorf(t.file, pe.Line, "%s (column %d)", reason, pe.Column)
	}
	return ingest.Errorf(t.file, t.line, "read: %v", err)
}
