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

// The two layouts of the business associate list ReadBACodes reads.
var (
	ST104ALayout = ingest.Layout{
		Dataset:   "AER ST104A business associate codes",
		Publisher: "Alberta Energy Regulator",
		Form:      "ST104A list saved as CSV: title rows, header BA Code, Company Name[, Address, Phone]",
		Verified:  true,
		Evidence:  "samples/aer-ba-codes (the April 2017 register, evjrob/aertidywells)",
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

var baColumns = []column{
	{"BA Code", true},
	{"Company Name", true},
	{"Address", false},
	{"Phone", false},
}

const (
	baCode = iota
	baName
	baAddress
	baPhone
)

// ReadBACodes streams a business associate list to fn, in either of its
// layouts, told apart by the first row: Petrinex's PRABAIdentifiers.csv
// (PetrinexBALayout) when that row has a BACode cell, else AER's ST104A
// saved as CSV (ST104ALayout); opt.Layout is told which.
//
// PRABAIdentifiers.csv: a header row naming BACode and BAName (CorpStatus
// read when present, other columns ignored), then one row per BA. A code
// that is not 4 upper-case letters or digits, or an empty name, rejects
// the file (BadValue); CorpStatus is kept as published.
//
// ST104A: the layout is the register's: optional title rows (the XLSX has
// "Business Associate List_Codes(ST104A) <date>" and a blank row), then the
// header "BA Code, Company Name[, Address, Phone]" (the team's sample keeps
// only the first two), then one row per BA. The list ends at the first row
// with an empty BA Code or with text in the first cell only: the
// disclaimer rows at the bottom of the register are ignored, but a
// well-formed BA row after that point rejects the file (a blank row inside
// the list would otherwise drop the rest silently).
//
// Codes are 4 upper-case letters or digits; names must not be empty.
func ReadBACodes(r io.Reader, file string, opt ReadOptions, fn func(BA) error) error {
	br := bufio.NewReaderSize(r, 64*1024)
	if isPetrinexBA(br) {
		return readPetrinexBA(br, file, opt, fn)
	}
	t, err := newCSVTable(br, file, baColumns, csvOptions{headerCell: "BA Code"})
	if err != nil {
		return err
	}
	opt.recognised(ST104ALayout)
	t.anyWidth = true // footer rows need not have the header's width; data rows are checked below
	footer := 0
	for {
		ok, err := t.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		code := t.str(baCode)
		valid := len(code) == 4 && allUpperAlnum(code)
		if footer > 0 {
			if valid && t.str(baName) != "" {
				return t.errorf("BA %s comes after the end of the list (line %d)", code, footer)
			}
			continue
		}
		if code == "" || !valid && onlyFirstCell(t.row) {
			footer = t.line
			continue
		}
		if t.row.Width() != t.width {
			return t.errorf("row has %d fields, want %d as in the header", t.row.Width(), t.width)
		}
		if !valid {
			return t.errorf("BA Code: %q is not a 4-character code", code)
		}
		b := BA{Code: code, Name: t.str(baName), Address: t.str(baAddress), Phone: t.str(baPhone)}
		if b.Name == "" {
			return t.errorf("Company Name: empty for BA %s", code)
		}
		if err := fn(b); err != nil {
			return err
		}
	}
}

// onlyFirstCell reports whether every cell of row but the first is empty.
func onlyFirstCell(row *ingest.Row) bool {
	for i := 1; i < row.Width(); i++ {
		if row.At(i) != "" {
			return false
		}
	}
	return true
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
