package energy

import (
	"io"
)

// BA is one business associate of AER's ST104A code list
// (docs/data-sources.md §4.1).
type BA struct {
	Code    string // 4 letters or digits: "0045", "A5D4"
	Name    string // Company Name: "Chevron Canada Limited"
	Address string // "" when the file has no Address column
	Phone   string // "" when the file has no Phone column
}

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

// ReadBACodes streams an ST104A business associate list saved as CSV to
// fn. The layout is the register's: optional title rows (the XLSX has
// "Business Associate List_Codes(ST104A) <date>" and a blank row), then the
// header "BA Code, Company Name[, Address, Phone]" (the team's sample keeps
// only the first two), then one row per BA. The list ends at the first row
// with an empty BA Code or with text in the first cell only: the
// disclaimer rows at the bottom of the register are ignored, but a
// well-formed BA row after that point rejects the file (a blank row inside
// the list would otherwise drop the rest silently).
//
// Codes are 4 upper-case letters or digits; names must not be empty.
func ReadBACodes(r io.Reader, file string, fn func(BA) error) error {
	t, err := newCSVTable(r, file, baColumns, csvOptions{headerCell: "BA Code"})
	if err != nil {
		return err
	}
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
		if len(t.row) != t.width {
			return t.errorf("row has %d fields, want %d as in the header", len(t.row), t.width)
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
func onlyFirstCell(row []string) bool {
	for _, c := range row[1:] {
		if trimPad(c) != "" {
			return false
		}
	}
	return true
}
