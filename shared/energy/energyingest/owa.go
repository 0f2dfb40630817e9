package energyingest

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// OWALayout is the Orphan Well Association's monthly site-specific
// inventory workbook as the association publishes it on its inventory
// page (a date-stamped "... Full Inventory ... .xlsx").
var OWALayout = ingest.Layout{
	Dataset:   "Orphan Well Association site-specific inventory",
	Publisher: "Orphan Well Association (orphanwell.ca)",
	Form:      `monthly .xlsx, sheet "Full Inventory", title rows above a header row with "Site Name"`,
	Verified:  true,
	Evidence: "a script that reads the real monthly workbook: marsojuji-cmyk/reclamation-evidence-ledger ledger/sites.py " +
		"(read_file id 70539072207; not yet in docs/real-layouts.md): sheet Full Inventory, header row found by its Site Name cell, " +
		"columns Site Name, Licensee, License Number, Component Type, Responsible Department, Current Project Type; " +
		`Site Names such as "01-01-002-19W4 (100)", "06-26-019-27W4 (100) - WIPA", "07-16-020-27W4 (102_10-16)"; ` +
		`Component Type "Well & Access Road"; licensees in upper case ("LEXIN RESOURCES LTD")`,
}

// OrphanSite is one row (one component of a site) of the Orphan Well
// Association's site-specific inventory (docs/data-sources.md §4.3).
type OrphanSite struct {
	// SiteName is as published: "06-26-019-27W4 (100) - WIPA". Location,
	// Qualifier and Suffix are its parts (see ParseSiteName).
	SiteName              string
	Location              lld.Location
	Qualifier             string // "100", "102", "Facility", "Multi"
	Suffix                string // "WIPA", "MIXED"; "" when none
	Licensee              string
	LicenceNumber         string // License Number, as published
	ComponentType         string // well, facility, pipeline ...
	ResponsibleDepartment string
	ProjectType           string // Current Project Type: decommissioning, reclamation ...
}

// LE returns the location exception when Qualifier is a UWI prefix, survey
// system 1 and the two-character location exception ("100" -> "00",
// "102" -> "02"), alone or followed by the well's own LSD and section when
// they differ from the site's ("102_10-16" -> "02"); false for "Facility",
// "Multi" and others.
func (s OrphanSite) LE() (string, bool) {
	q := s.Qualifier
	if i := strings.IndexByte(q, '_'); i == 3 {
		q = q[:i]
	}
	if len(q) == 3 && q[0] == '1' && allUpperAlnum(q) {
		return q[1:], true
	}
	return "", false
}

// IsWell reports whether the row is a well: the inventory writes "Well &
// Access Road" (older exports, and the demo before it followed the real
// file, wrote "Well").
func (s OrphanSite) IsWell() bool {
	c := strings.ToLower(strings.TrimSpace(s.ComponentType))
	return c == "well" || strings.HasPrefix(c, "well ")
}

// ParseSiteName splits an OWA Site Name, an LSD in the regulators' fixed
// spelling, an optional qualifier in parentheses and an optional suffix
// after " - ":
//
//	01-01-002-19W4 (100)            -> 1-1-2-19-W4, "100", ""
//	06-26-019-27W4 (100) - WIPA     -> 6-26-19-27-W4, "100", "WIPA"
//	01-28-020-27W4 (Facility)       -> 1-28-20-27-W4, "Facility", ""
//	06-36-018-26W4 (Multi) - MIXED  -> 6-36-18-26-W4, "Multi", "MIXED"
func ParseSiteName(s string) (loc lld.Location, qualifier, suffix string, err error) {
	rest := strings.TrimSpace(s)
	if i := strings.Index(rest, " - "); i >= 0 {
		rest, suffix = strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[i+3:])
	}
	if i := strings.IndexByte(rest, '('); i >= 0 {
		if !strings.HasSuffix(rest, ")") {
			return lld.Location{}, "", "", fmt.Errorf("site name %q: unbalanced parenthesis", s)
		}
		qualifier = strings.TrimSpace(rest[i+1 : len(rest)-1])
		rest = strings.TrimSpace(rest[:i])
	}
	loc, ok := parseLSDText(rest)
	if !ok {
		return lld.Location{}, "", "", fmt.Errorf("site name %q does not start with an LSD (LS-SC-TWP-RGEWM)", s)
	}
	return loc, qualifier, suffix, nil
}

// OWASheet is the name of the inventory's sheet in the OWA workbook.
const OWASheet = "Full Inventory"

var owaColumns = []struct {
	names    []string
	required bool
}{
	{[]string{"Site Name"}, true},
	{[]string{"Licensee"}, false},
	{[]string{"License Number", "Licence Number"}, false},
	{[]string{"Component Type"}, false},
	{[]string{"Responsible Department"}, false},
	{[]string{"Current Project Type"}, false},
}

// ReadOrphanInventory streams the OWA monthly inventory workbook
// ("Reporting - Full Inventory - <date>.xlsx", size bytes readable through
// r) to fn, one OrphanSite per row of the sheet "Full Inventory". The
// header is not on row 1: it is the first row with a cell "Site Name"
// (within the first 50 rows); rows above it are titles. Columns are found
// by name (License Number or Licence Number); only Site Name is required.
// Empty rows are skipped; a row with cells but no Site Name, or whose Site
// Name does not parse, rejects the file. Licensee, Component Type,
// Responsible Department and Current Project Type are kept as given (no
// notices: their vocabulary is not known well enough to call a word new).
//
// The workbook is read with archive/zip and encoding/xml: the shared
// string table is held in memory, the sheet is streamed row by row. Errors
// name the sheet row as Line (0 for problems outside the sheet data).
// The layout is OWALayout: the column names and the header search follow a
// script that reads the real workbook.
func ReadOrphanInventory(r io.ReaderAt, size int64, file string, fn func(OrphanSite) error) error {
	sh, err := openXLSXSheet(r, size, OWASheet)
	if err != nil {
		return xlsxToIngest(file, err)
	}
	defer sh.close()
	idx := make([]int, len(owaColumns))
	header := false
	for {
		row, cells, err := sh.next()
		if err == io.EOF {
			if !header {
				return ingest.Errorf(file, max(sh.row, 1), "no header row (a row with a %q cell)", "Site Name")
			}
			return nil
		}
		if err != nil {
			return xlsxToIngest(file, err)
		}
		cell := func(i int) string {
			if idx[i] < 0 || idx[i] >= len(cells) {
				return ""
			}
			return strings.TrimSpace(cells[idx[i]])
		}
		if !header {
			if !hasCell(cells, "Site Name") {
				if row > maxPreamble {
					return ingest.Errorf(file, row, "no header row (a row with a %q cell) in the first %d rows", "Site Name", maxPreamble)
				}
				continue
			}
			for i, c := range owaColumns {
				idx[i] = -1
				for j, v := range cells {
					for _, n := range c.names {
						if strings.EqualFold(strings.TrimSpace(v), n) && idx[i] < 0 {
							idx[i] = j
						}
					}
				}
			}
			header = true
			continue
		}
		if emptyCells(cells) {
			continue
		}
		s := OrphanSite{
			SiteName:              cell(0),
			Licensee:              cell(1),
			LicenceNumber:         cell(2),
			ComponentType:         cell(3),
			ResponsibleDepartment: cell(4),
			ProjectType:           cell(5),
		}
		if s.SiteName == "" {
			return ingest.Errorf(file, row, "row has no Site Name")
		}
		s.Location, s.Qualifier, s.Suffix, err = ParseSiteName(s.SiteName)
		if err != nil {
			return ingest.Errorf(file, row, "Site Name: %v", err)
		}
		if err := fn(s); err != nil {
			return err
		}
	}
}

func hasCell(cells []string, v string) bool {
	for _, c := range cells {
		if strings.EqualFold(strings.TrimSpace(c), v) {
			return true
		}
	}
	return false
}

func emptyCells(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func xlsxToIngest(file string, err error) error {
	var xe *xlsxError
	if errors.As(err, &xe) {
		return ingest.Errorf(file, xe.row, "%s", xe.msg)
	}
	return ingest.Errorf(file, 0, "%v", err)
}
