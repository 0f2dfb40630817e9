package energyingest

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"meridian/shared/ingest"
)

// Amount is a number as a regulator publishes it: a value, an empty cell,
// or a value withheld as confidential. Petrinex writes "***" for a
// confidential value: it is unknown, not zero.
type Amount struct {
	Value        float64 // the number; 0 when Empty or Confidential
	Empty        bool    // the cell was empty (or JSON null)
	Confidential bool    // the cell was "***"
}

// Known reports whether a holds a published number.
func (a Amount) Known() bool { return !a.Empty && !a.Confidential }

// String returns the number as Petrinex writes it, "***" or "".
func (a Amount) String() string {
	switch {
	case a.Confidential:
		return ConfidentialText
	case a.Empty:
		return ""
	}
	return strconv.FormatFloat(a.Value, 'f', -1, 64)
}

// ConfidentialText is what Petrinex writes in a cell it withholds.
const ConfidentialText = "***"

const utf8BOM = "\xef\xbb\xbf"

// trimPad removes the fixed-width padding (spaces) and stray carriage
// returns around a value.
func trimPad(s string) string { return strings.Trim(s, " \r") }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// allDigits reports whether s is non-empty and only 0-9.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isUpperAlnum(c byte) bool { return isDigit(c) || 'A' <= c && c <= 'Z' }

// allUpperAlnum reports whether s is non-empty and only A-Z and 0-9.
func allUpperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isUpperAlnum(s[i]) {
			return false
		}
	}
	return s != ""
}

// parseNumber parses a plain decimal number (ingest.ParseNumber: no
// spaces, NaN, Inf, hexadecimal or underscores).
func parseNumber(s string) (float64, bool) { return ingest.ParseNumber(s) }

// parseAmount reads a numeric cell: "" is Empty, "***" Confidential.
func parseAmount(s string) (Amount, error) {
	switch s {
	case "":
		return Amount{Empty: true}, nil
	case ConfidentialText:
		return Amount{Confidential: true}, nil
	}
	f, ok := parseNumber(s)
	if !ok {
		return Amount{}, fmt.Errorf("%q is not a number", s)
	}
	return Amount{Value: f}, nil
}

// date builds a date from its parts, refusing impossible ones (2023-02-30)
// and years no dataset has.
func date(y, m, d int) (time.Time, bool) {
	if y < 1800 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}

// parseDate reads the date spellings of the published files: YYYYMMDD
// (ST37, dBASE), YYYY-MM-DD (Petrinex) and YYYY/MM/DD (AER pipelines),
// optionally followed by a time of day ("T00:00:00", " 00:00:00") that is
// dropped, and YYYY-MM (Petrinex operator history), read as the month's
// first day. "", "00000000", "0000-00-00" and "0000/00/00" are no date (the
// zero time).
func parseDate(s string) (time.Time, error) {
	switch s {
	case "", "00000000", "0000-00-00", "0000/00/00":
		return time.Time{}, nil
	}
	d := s
	if len(d) > 10 && (d[10] == 'T' || d[10] == ' ') && (d[4] == '-' || d[4] == '/') {
		d = d[:10]
	}
	var y, m, day int
	var ok bool
	switch {
	case len(d) == 8 && ingest.AllDigits(d):
		y, _ = ingest.ParseUint(d[:4])
		m, _ = ingest.ParseUint(d[4:6])
		day, _ = ingest.ParseUint(d[6:])
		ok = true
	case len(d) == 10 && (d[4] == '-' && d[7] == '-' || d[4] == '/' && d[7] == '/'):
		var ok1, ok2, ok3 bool
		y, ok1 = ingest.ParseUint(d[:4])
		m, ok2 = ingest.ParseUint(d[5:7])
		day, ok3 = ingest.ParseUint(d[8:])
		ok = ok1 && ok2 && ok3
	case len(d) == 7 && d[4] == '-':
		var ok1, ok2 bool
		y, ok1 = ingest.ParseUint(d[:4])
		m, ok2 = ingest.ParseUint(d[5:])
		day, ok = 1, ok1 && ok2
	}
	if !ok {
		return time.Time{}, fmt.Errorf("%q is not a date (want YYYYMMDD, YYYY-MM-DD, YYYY/MM/DD or YYYY-MM)", s)
	}
	t, ok := date(y, m, day)
	if !ok {
		return time.Time{}, fmt.Errorf("%q is not a valid date", s)
	}
	return t, nil
}

// checkMonth validates a "YYYY-MM" production month.
func checkMonth(s string) error {
	if len(s) == 7 && s[4] == '-' {
		y, ok1 := ingest.ParseUint(s[:4])
		m, ok2 := ingest.ParseUint(s[5:])
		if _, ok := date(y, m, 1); ok && ok1 && ok2 {
			return nil
		}
	}
	return fmt.Errorf("%q is not a month (want YYYY-MM)", s)
}

// flagForms are the yes/no spellings parseFlag accepts, for messages.
var flagForms = []string{"Y", "N", "YES", "NO", "TRUE", "FALSE", "T", "F", "1", "0", `"" (no)`}

// parseFlag reads a yes/no cell: Y/N (any case, also YES/NO, TRUE/FALSE,
// T/F, 1/0); "" is false.
func parseFlag(s string) (bool, error) {
	switch strings.ToUpper(s) {
	case "Y", "YES", "TRUE", "T", "1":
		return true, nil
	case "", "N", "NO", "FALSE", "F", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a yes/no flag", s)
}

// ReadOptions are what a reader takes besides its file.
type ReadOptions struct {
	// Notices receives the values the reader had not seen before but
	// could still place (a new status word, say); nil discards them.
	Notices *ingest.Notices
	// Layout, when set, is told once, before the first record, which of
	// the reader's declared layouts the file's header matched.
	Layout func(ingest.Layout)
	// Skip, when set, is told of each row the reader passed over without
	// a record (an empty row, a title, a trailer), by reason.
	Skip func(reason string)
}

func (o ReadOptions) recognised(l ingest.Layout) {
	if o.Layout != nil {
		o.Layout(l)
	}
}

// column is one column a CSV reader looks for by header name.
type column struct {
	name     string
	required bool
}

// csvTable reads a CSV file with a header row through ingest.Table: RFC
// 4180 quoting, lenient (a stray quote is kept as text; commas and line
// breaks inside quotes; every field quoted or not), UTF-8 with or without
// a byte order mark or Windows-1252, CRLF or LF. Columns are found by
// header name, case-insensitively and in any order, under their own name
// or an alias; columns nobody asks for are ignored and may be unnamed;
// every row must have as many fields as the header (unless anyWidth).
type csvTable struct {
	file string
	tab  *ingest.Table
	cols []column
	idx  []int // index in the row of each requested column, -1 if absent
	// names holds, for each requested column, the name the header gave it
	// ("" when absent): the column's own name or one of its aliases.
	names []string
	width int
	line  int         // line where the current row starts
	row   *ingest.Row // the current row
	err   error       // first bad cell of the current row (see fail)
	// anyWidth stops next from checking the number of fields (for footers).
	anyWidth bool
}

// csvOptions changes how newCSVTable finds the header.
type csvOptions struct {
	// headerCell, when set, makes rows before the header allowed: the
	// header is the first row whose first cell is headerCell
	// (case-insensitive). At most 50 rows may come before it.
	headerCell string
	// aliases are other names a column is published under, by the
	// column's own name: the first name present in the header is read.
	aliases map[string][]string
}

// maxPreamble is how many rows may come before the header of a
// spreadsheet (the limit ingest.Table has for CSV).
const maxPreamble = 50

func newCSVTable(r io.Reader, file string, cols []column, opt csvOptions) (*csvTable, error) {
	tab, err := ingest.Source{
		Name: file, Format: ingest.CSV, R: r,
		Names: strings.ToLower, UnnamedColumns: true, AnyWidth: true, LazyQuotes: true,
		HeaderCell: opt.headerCell,
	}.Open()
	if err != nil {
		return nil, err
	}
	t := &csvTable{file: file, tab: tab, cols: cols, width: len(tab.Cols), line: tab.HeaderAt}
	t.idx = make([]int, len(cols))
	t.names = make([]string, len(cols))
	for i, c := range cols {
		t.idx[i] = -1
		for _, n := range append([]string{c.name}, opt.aliases[c.name]...) {
			if j := tab.Col(strings.ToLower(n)); j >= 0 {
				t.idx[i], t.names[i] = j, n
				break
			}
		}
		if t.idx[i] < 0 && c.required {
			if a := opt.aliases[c.name]; len(a) > 0 {
				return nil, ingest.Errorf(file, t.line, "header has no %s column (nor %s)", c.name, strings.Join(a, ", "))
			}
			return nil, ingest.Errorf(file, t.line, "header has no %s column", c.name)
		}
	}
	return t, nil
}

// next reads the next row; false at the end of the file.
func (t *csvTable) next() (bool, error) {
	row, err := t.tab.Next()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	t.row, t.line, t.err = row, row.Line, nil
	if row.Width() != t.width && !t.anyWidth {
		return false, t.errorf("row has %d fields, want %d as in the header", row.Width(), t.width)
	}
	return true, nil
}

// has reports whether requested column i is in the file.
func (t *csvTable) has(i int) bool { return t.idx[i] >= 0 }

// str returns requested column i of the current row as UTF-8, trimmed of
// padding; "" when the column is absent.
func (t *csvTable) str(i int) string { return t.row.At(t.idx[i]) }

func (t *csvTable) errorf(format string, args ...any) error {
	return ingest.Errorf(t.file, max(t.line, 1), format, args...)
}

// badValue records, as the first bad cell of the current row, a value of
// requested column i that is none of accepted.
func (t *csvTable) badValue(i int, value string, accepted []string) {
	if t.err == nil {
		t.err = ingest.BadValue(t.file, max(t.line, 1), t.colName(i), value, accepted)
	}
}

// notice reports a new value of requested column i that the reader kept.
func (t *csvTable) notice(ns *ingest.Notices, i int, value, reason string) {
	ns.Add(ingest.Notice{File: t.file, Line: max(t.line, 1), Column: t.colName(i), Value: value, Reason: reason})
}

// colName is the name the file's header gives requested column i (an
// alias, say), or the column's own name.
func (t *csvTable) colName(i int) string {
	if i < len(t.names) && t.names[i] != "" {
		return t.names[i]
	}
	return t.cols[i].name
}

// fail records the first bad cell of the current row; t.err reports it.
func (t *csvTable) fail(i int, err error) {
	if t.err == nil {
		t.err = t.errorf("%s: %v", t.colName(i), err)
	}
}

// amount reads requested column i as an Amount.
func (t *csvTable) amount(i int) Amount {
	a, err := parseAmount(t.str(i))
	if err != nil {
		t.fail(i, err)
	}
	return a
}

// date reads requested column i as a date (zero when empty).
func (t *csvTable) date(i int) time.Time {
	d, err := parseDate(t.str(i))
	if err != nil {
		t.fail(i, err)
	}
	return d
}

// flag reads requested column i as a yes/no flag (any case).
func (t *csvTable) flag(i int) bool {
	s := t.str(i)
	f, err := parseFlag(s)
	if err != nil {
		t.badValue(i, s, flagForms)
	}
	return f
}

// month reads requested column i as a "YYYY-MM" month; empty is an error
// when required.
func (t *csvTable) month(i int, required bool) string {
	s := t.str(i)
	if s == "" && !required {
		return ""
	}
	if err := checkMonth(s); err != nil {
		t.fail(i, err)
	}
	return s
}

// text reads requested column i, failing when it is empty and required.
func (t *csvTable) text(i int, required bool) string {
	s := t.str(i)
	if s == "" && required {
		t.fail(i, errors.New("empty"))
	}
	return s
}

// isoDate is t as YYYY-MM-DD, "" for the zero time.
func isoDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02")
}
