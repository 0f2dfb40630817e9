package energyingest

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"meridian/shared/ingest"
)

// BA is one business associate: a row of AER's ST104A code list
// (docs/data-sources.md §4.1) or of Petrinex's PRABAIdentifiers.csv.
type BA struct {
	Code    string // 4 letters or digits: "0045", "A5D4"
	Name    string // Company Name (ST104A) or BAName (Petrinex)
	Address string // "" when the file has no Address column
	Phone   string // "" when the file has no Phone column
	// CorpStatus is Petrinex's corporate status as published ("" in
	// ST104A); its vocabulary has not been seen, so it is not checked.
	CorpStatus string
}

// The layouts of the business associate list ReadBACodes and
// ReadBACodesXLSX read.
var (
	ST104AWorkbookLayout = ingest.Layout{
		Dataset:   "AER ST104A business associate codes",
		Publisher: "Alberta Energy Regulator",
		Form: "BusinessAssociate_Codes.xlsx (data/codes/, monthly), first sheet: a title, the header BA Code, Company Name, " +
			"Address, Phone, an empty row, one row per code, then a notice and AER's contact rows",
		Verified: true,
		Evidence: "the real workbook of April 2017 (evjrob/aertidywells tests/testthat/extdata/BusinessAssociate_Codes.xlsx, " +
			"commit bc031f3; testdata/real/aer-st104a/PROVENANCE.md): 14,815 codes on sheet rows 5 to 14819",
	}
	ST104ALayout = ingest.Layout{
		Dataset:   "AER ST104A business associate codes",
		Publisher: "Alberta Energy Regulator",
		Form:      "ST104A workbook saved as CSV: title rows, header BA Code, Company Name[, Address, Phone], empty rows, a notice and contact rows after the codes",
		Verified:  true,
		Evidence:  "samples/aer-ba-codes (the April 2017 register saved as CSV, row for row, evjrob/aertidywells)",
	}
	PetrinexBALayout = ingest.Layout{
		Dataset:   "Petrinex business associate identifiers",
		Publisher: "Petrinex",
		Form:      "PRABAIdentifiers.csv: header row with BACode, BAName, CorpStatus",
		Verified:  false,
		Evidence: "the column names BAName, BACode, CorpStatus come from a project's description of the real file " +
			"(docs/real-layouts.md, id 1416037198), not from a header: check the header, the width of BACode " +
			"(4 characters assumed, as ST104A) and whether title rows precede it in a real download",
	}
)

var petrinexBAColumns = []column{{"BACode", true}, {"BAName", true}, {"CorpStatus", false}}

const (
	pbaCode = iota
	pbaName
	pbaStatus
)

// The columns of ST104A, by header name; the first two are required.
var baColumns = [...]string{"BA Code", "Company Name", "Address", "Phone"}

const (
	baCode = iota
	baName
	baAddress
	baPhone
)

// Why ST104A rows are passed over (ReadOptions.Skip; Summary.Skipped).
const (
	SkipBAEmpty   = "ST104A empty rows"
	SkipBATitle   = "ST104A title rows before the header"
	SkipBATrailer = "ST104A notice and contact rows after the last code"
	SkipBAText    = "ST104A text rows between codes"
)

// ReadBACodes streams a business associate list saved as CSV to fn, in
// either of its layouts, told apart by the first row: Petrinex's
// PRABAIdentifiers.csv (PetrinexBALayout) when that row has a BACode
// cell, else AER's ST104A register saved as CSV (ST104ALayout); opt.Layout
// is told which. ReadBACodesXLSX reads the register as AER publishes it.
//
// PRABAIdentifiers.csv: a header row naming BACode and BAName (CorpStatus
// read when present, other columns ignored), then one row per BA. A code
// that is not 4 upper-case letters or digits, or an empty name, rejects
// the file (BadValue); CorpStatus is kept as published.
//
// ST104A, in either form, is the register's sheet row for row: a title
// ("Business Associate List_Codes(ST104A) April 7, 2017") and an empty
// row, the header "BA Code, Company Name[, Address, Phone]" (at most 50
// rows down), an empty styled row, one row per BA, then empty rows, a
// "NOTICE TO USER" paragraph and AER's contact rows (Alberta Energy
// Regulator, Information Services, address, Tel, Fax, e-mail, web site).
// A row is a code row when its BA Code is 4 upper-case letters or digits,
// or up to 8 letters or digits beside a Company Name: a code row must have
// a 4-character code and a name, else the file is rejected with its line
// and reason. A code of one to three digits is a code a spreadsheet stored
// as a number ("0045" became 45): its leading zeros are restored, with a
// notice. Every other
// row is passed over and counted through opt.Skip: empty rows
// (SkipBAEmpty), text before the header (SkipBATitle), text after the
// last code (SkipBATrailer) and text between codes (SkipBAText); the
// three text kinds are also told to opt.Notices, once per kind with the
// first such row's line and first cell. Text after the codes never ends
// the list: a code row after it is read.
func ReadBACodes(r io.Reader, file string, opt ReadOptions, fn func(BA) error) error {
	br := bufio.NewReaderSize(r, 64*1024)
	if isPetrinexBA(br) {
		return readPetrinexBA(br, file, opt, fn)
	}
	// The header is found by the register reader, not the table: the
	// table's first row is whatever row comes first (a title, say), its
	// cells names of nothing (so that no title is refused as a header).
	tab, err := ingest.Source{
		Name: file, Format: ingest.CSV, R: br,
		Names: func(string) string { return "" }, UnnamedColumns: true, AnyWidth: true, LazyQuotes: true,
	}.Open()
	if err != nil {
		return err
	}
	reg := newST104A(file, opt, fn, true)
	if err := reg.row(tab.HeaderAt, tab.Header); err != nil {
		return err
	}
	var cells []string
	for {
		row, err := tab.Next()
		if err == io.EOF {
			return reg.end()
		}
		if err != nil {
			return err
		}
		cells = cells[:0]
		for i := 0; i < row.Width(); i++ {
			cells = append(cells, row.At(i))
		}
		if err := reg.row(row.Line, cells); err != nil {
			return err
		}
	}
}

// ReadBACodesXLSX streams AER's ST104A register as AER publishes it,
// BusinessAssociate_Codes.xlsx (size bytes readable through r), to fn:
// the rows of the workbook's first sheet, read as ReadBACodes reads the
// register saved as CSV (ST104AWorkbookLayout). Errors name the sheet row
// as the line. Rows the sheet leaves out between two rows it has are
// counted as empty rows.
func ReadBACodesXLSX(r io.ReaderAt, size int64, file string, opt ReadOptions, fn func(BA) error) error {
	sh, err := openXLSXSheet(r, size, "")
	if err != nil {
		return xlsxToIngest(file, err)
	}
	defer sh.close()
	reg := newST104A(file, opt, fn, false)
	last := 0
	for {
		row, cells, err := sh.next()
		if err == io.EOF {
			return reg.end()
		}
		if err != nil {
			return xlsxToIngest(file, err)
		}
		for n := last + 1; n < row; n++ {
			if err := reg.row(n, nil); err != nil {
				return err
			}
		}
		last = row
		if err := reg.row(row, cells); err != nil {
			return err
		}
	}
}

// st104a reads the register's rows, whatever their form.
type st104a struct {
	file   string
	opt    ReadOptions
	fn     func(BA) error
	header bool
	col    [len(baColumns)]int // cell of each of baColumns; -1 when absent
	// width is the header's number of fields, which a CSV code row must
	// have; 0 for a sheet, which leaves out empty cells at a row's end.
	width   int
	csv     bool
	rows    int           // rows before the header
	last    int           // line of the last row
	codes   int           // code rows read
	pending []pendingText // text rows since the last code row
	titles  []pendingText
}

type pendingText struct {
	line  int
	first string
}

func newST104A(file string, opt ReadOptions, fn func(BA) error, csv bool) *st104a {
	return &st104a{file: file, opt: opt, fn: fn, csv: csv}
}

func (s *st104a) skip(reason string, n int) {
	if s.opt.Skip != nil {
		for range n {
			s.opt.Skip(reason)
		}
	}
}

// notice tells opt.Notices of rows passed over, as one notice counted
// once per row.
func (s *st104a) notice(rows []pendingText, reason string) {
	v := rows[0].first
	if r := []rune(v); len(r) > 60 {
		v = string(r[:60]) + "…"
	}
	for range rows {
		s.opt.Notices.Add(ingest.Notice{File: s.file, Line: rows[0].line, Column: baColumns[baCode], Value: v, Reason: reason})
	}
}

func (s *st104a) row(line int, cells []string) error {
	s.last = line
	cell := func(i int) string {
		if c := s.col[i]; c >= 0 && c < len(cells) {
			return strings.TrimSpace(cells[c])
		}
		return ""
	}
	first := ""
	if len(cells) > 0 {
		first = strings.TrimSpace(cells[0])
	}
	if emptyCells(cells) {
		s.skip(SkipBAEmpty, 1)
		if !s.header {
			s.rows++
		}
		return nil
	}
	if !s.header {
		if strings.EqualFold(first, baColumns[baCode]) {
			return s.readHeader(line, cells)
		}
		if s.rows++; s.rows > maxPreamble {
			return ingest.Errorf(s.file, line, "no header row (a row starting with %q) in the first %d rows", baColumns[baCode], maxPreamble)
		}
		s.titles = append(s.titles, pendingText{line, first})
		s.skip(SkipBATitle, 1)
		return nil
	}
	code, name := cell(baCode), cell(baName)
	if !(len(code) == 4 && allUpperAlnum(code)) && !(name != "" && len(code) <= 8 && allAlnum(code)) {
		s.pending = append(s.pending, pendingText{line, first})
		return nil
	}
	if s.width > 0 && len(cells) != s.width {
		return ingest.Errorf(s.file, line, "row has %d fields, want %d as in the header", len(cells), s.width)
	}
	if len(code) < 4 && allDigits(code) {
		// A spreadsheet that took the code for a number dropped its
		// leading zeros ("0045" -> 45): the register's codes are four
		// characters, so the zeros are put back, and said.
		s.opt.Notices.Add(ingest.Notice{File: s.file, Line: line, Column: baColumns[baCode], Value: code,
			Reason: "a code stored as a number: leading zeros restored"})
		code = strings.Repeat("0", 4-len(code)) + code
	}
	if len(code) != 4 || !allUpperAlnum(code) {
		return ingest.Errorf(s.file, line, "BA Code: %q is not a 4-character code (%s)", code, codeForms[0])
	}
	if name == "" {
		return ingest.Errorf(s.file, line, "Company Name: empty for BA %s", code)
	}
	if len(s.pending) > 0 {
		s.skip(SkipBAText, len(s.pending))
		s.notice(s.pending, "text between two codes of the register: skipped")
		s.pending = s.pending[:0]
	}
	s.codes++
	return s.fn(BA{Code: code, Name: name, Address: cell(baAddress), Phone: cell(baPhone)})
}

func (s *st104a) readHeader(line int, cells []string) error {
	for i, name := range baColumns {
		s.col[i] = -1
		for j, c := range cells {
			if strings.EqualFold(strings.TrimSpace(c), name) && s.col[i] < 0 {
				s.col[i] = j
			}
		}
		if s.col[i] < 0 && i <= baName {
			return ingest.Errorf(s.file, line, "header has no %s column", name)
		}
	}
	if s.csv {
		s.width = len(cells)
		s.opt.recognised(ST104ALayout)
	} else {
		s.opt.recognised(ST104AWorkbookLayout)
	}
	s.header = true
	if len(s.titles) > 0 {
		s.notice(s.titles, "a title row above the header: skipped")
	}
	return nil
}

// end is the end of the rows: text after the last code is the register's
// trailer.
func (s *st104a) end() error {
	if !s.header {
		return ingest.Errorf(s.file, max(s.last, 1), "no header row (a row starting with %q)", baColumns[baCode])
	}
	if len(s.pending) > 0 {
		s.skip(SkipBATrailer, len(s.pending))
		s.notice(s.pending, "the register's notice and AER's contact rows after the last code: skipped")
	}
	return nil
}

func allAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && !('A' <= c && c <= 'Z') && !('a' <= c && c <= 'z') {
			return false
		}
	}
	return s != ""
}

// isPetrinexBA reports whether the first line of br (left unread) is a
// header with a BACode cell.
func isPetrinexBA(br *bufio.Reader) bool {
	b, _ := br.Peek(4096)
	if i := strings.IndexAny(string(b), "\r\n"); i >= 0 {
		b = b[:i]
	}
	row, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(b), utf8BOM))).Read()
	if err != nil {
		return false
	}
	for _, c := range row {
		if strings.EqualFold(trimPad(c), "BACode") {
			return true
		}
	}
	return false
}

// codeForms describes a valid BA code, for messages.
var codeForms = []string{"4 upper-case letters or digits (0045, A5D4)"}

func readPetrinexBA(r io.Reader, file string, opt ReadOptions, fn func(BA) error) error {
	t, err := newCSVTable(r, file, petrinexBAColumns, csvOptions{})
	if err != nil {
		return err
	}
	opt.recognised(PetrinexBALayout)
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return err
		}
		b := BA{Code: t.str(pbaCode), Name: t.str(pbaName), CorpStatus: t.str(pbaStatus)}
		if len(b.Code) != 4 || !allUpperAlnum(b.Code) {
			t.badValue(pbaCode, b.Code, codeForms)
		}
		if b.Name == "" {
			t.fail(pbaName, errors.New("empty"))
		}
		if t.err != nil {
			return t.err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
}
