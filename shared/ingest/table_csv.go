package ingest

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

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
