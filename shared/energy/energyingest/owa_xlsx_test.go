package energyingest_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"meridian/shared/demo/energydemo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
)

func inventory(t *testing.T, rows [][]string) []byte {
	t.Helper()
	b, err := energydemo.WriteXLSX([]energydemo.Sheet{{Name: "Summary", Rows: [][]string{{"x"}}}, {Name: energyingest.OWASheet, Rows: rows}}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var owaHeader = []string{"Site Name", "Licensee", "Licence Number", "Component Type", "Responsible Department", "Current Project Type"}

// nsMain is the SpreadsheetML namespace of the sheets patched below.
const nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"

func readOWA(b []byte) ([]energyingest.OrphanSite, error) {
	var out []energyingest.OrphanSite
	err := energyingest.ReadOrphanInventory(bytes.NewReader(b), int64(len(b)), "owa.xlsx", func(s energyingest.OrphanSite) error {
		out = append(out, s)
		return nil
	})
	return out, err
}

func TestReadOrphanInventoryLayout(t *testing.T) {
	t.Parallel()
	b := inventory(t, [][]string{
		{"Orphan Well Association"}, {}, {"Site Name", "Licensee"}, // header in row 3
		{"01-01-002-19W4 (100)", "Demo Co. <& \"quoted\">"},
		{},
		{"06-26-019-27W4 (100) - WIPA", "Other", "0123456"}, // the third column has no header
	})
	got, err := readOWA(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Licensee != `Demo Co. <& "quoted">` || got[1].Suffix != "WIPA" || got[1].LicenceNumber != "" {
		t.Errorf("ReadOrphanInventory = %+v", got)
	}
	// Licence Number (Canadian spelling) is found too.
	got, err = readOWA(inventory(t, [][]string{owaHeader, {"01-01-002-19W4 (100)", "X", "0123456", "Well"}}))
	if err != nil || len(got) != 1 || got[0].LicenceNumber != "0123456" || got[0].ComponentType != "Well" {
		t.Errorf("ReadOrphanInventory = %+v, %v", got, err)
	}
}

// The real workbook (energyingest.OWALayout): titles above the header, the US spelling
// "License Number", "Well & Access Road", upper-case licensees, and a
// qualifier naming the well's own LSD and section ("102_10-16").
func TestReadOrphanInventoryRealLayout(t *testing.T) {
	t.Parallel()
	b := inventory(t, [][]string{
		{"Orphan Well Association"}, {"Site Specific Inventory"}, {},
		{"Site Name", "Licensee", "License Number", "Component Type", "Responsible Department", "Current Project Type"},
		{"07-16-020-27W4 (102_10-16)", "PRAIRIE SUNSET PETROLEUM LTD (DEMO)", "0412345", "Well & Access Road", "Environment", "Rec Cert"},
		{"01-28-020-27W4 (Facility)", "PRAIRIE SUNSET PETROLEUM LTD (DEMO)", "F12345", "Facility", "Decommissioning", "Decommissioning"},
	})
	got, err := readOWA(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d sites", len(got))
	}
	w := got[0]
	if w.LicenceNumber != "0412345" || w.Qualifier != "102_10-16" || !w.IsWell() || w.ResponsibleDepartment != "Environment" || w.ProjectType != "Rec Cert" ||
		w.Location.String() != "7-16-20-27-W4" {
		t.Errorf("well site %+v", w)
	}
	if le, ok := w.LE(); !ok || le != "02" {
		t.Errorf("LE of (102_10-16) = %q, %v", le, ok)
	}
	if got[1].IsWell() {
		t.Errorf("a facility is a well: %+v", got[1])
	}
	if !energyingest.OWALayout.Verified || !strings.Contains(energyingest.OWALayout.Evidence, "70539072207") {
		t.Errorf("OWALayout %+v", energyingest.OWALayout)
	}
}

func TestReadOrphanInventoryRejects(t *testing.T) {
	t.Parallel()
	wantErr := func(t *testing.T, err error, line int, part string) {
		t.Helper()
		var ie *ingest.Error
		if !errors.As(err, &ie) || ie.Line != line || !strings.Contains(ie.Reason, part) {
			t.Errorf("error %v, want an ingest.Error at line %d mentioning %q", err, line, part)
		}
	}
	_, err := readOWA(inventory(t, [][]string{{"title"}, owaHeader, {"01-01-002-19W4 (100)"}, {"Totals", "12"}}))
	wantErr(t, err, 4, "Site Name")
	_, err = readOWA(inventory(t, [][]string{{"title"}, owaHeader, {"", "licensee without a site"}}))
	wantErr(t, err, 3, "no Site Name")
	_, err = readOWA(inventory(t, [][]string{{"title"}, {"no header here"}}))
	wantErr(t, err, 2, "no header row")
	b, err := energydemo.WriteXLSX([]energydemo.Sheet{{Name: "Sheet1", Rows: [][]string{owaHeader}}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = readOWA(b)
	wantErr(t, err, 0, `no sheet "Full Inventory"`)
	_, err = readOWA([]byte("not a zip"))
	wantErr(t, err, 0, "not an XLSX")

	// A cell pointing past the shared strings, in row 2.
	sheet := `<worksheet xmlns="` + nsMain + `"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>7</v></c></row></sheetData></worksheet>`
	_, err = readOWA(patchZip(t, inventory(t, [][]string{owaHeader}), "xl/worksheets/sheet2.xml", sheet))
	wantErr(t, err, 2, "shared string")
	// Rows out of order.
	sheet = `<worksheet xmlns="` + nsMain + `"><sheetData><row r="3"><c r="A3" t="s"><v>0</v></c></row><row r="2"></row></sheetData></worksheet>`
	_, err = readOWA(patchZip(t, inventory(t, [][]string{owaHeader}), "xl/worksheets/sheet2.xml", sheet))
	wantErr(t, err, 3, "row number")
	// Truncated XML.
	_, err = readOWA(patchZip(t, inventory(t, [][]string{owaHeader}), "xl/worksheets/sheet2.xml", sheet[:60]))
	wantErr(t, err, 0, "sheet XML")
}

// TestXLSXInlineAndRichText reads cells the demo writer never writes:
// inline strings, rich-text shared strings with phonetic runs, booleans,
// cells without references and an "x:" namespace prefix.
func TestXLSXInlineAndRichText(t *testing.T) {
	t.Parallel()
	b := inventory(t, [][]string{owaHeader})
	b = patchZip(t, b, "xl/sharedStrings.xml", `<sst xmlns="`+nsMain+`"><si><t>Site Name</t></si><si><r><t>01-01-002-</t></r><r><t>19W4 (100)</t></r><rPh><t>ignored</t></rPh></si></sst>`)
	b = patchZip(t, b, "xl/worksheets/sheet2.xml", `<x:worksheet xmlns:x="`+nsMain+`"><x:sheetData>`+
		`<x:row><x:c t="s"><x:v>0</x:v></x:c><x:c t="inlineStr"><x:is><x:t>Licensee</x:t></x:is></x:c></x:row>`+
		`<x:row><x:c t="s"><x:v>1</x:v></x:c><x:c t="inlineStr"><x:is><x:r><x:t>Demo </x:t></x:r><x:r><x:t>Co.</x:t></x:r></x:is></x:c><x:c t="b"><x:v>1</x:v></x:c></x:row>`+
		`</x:sheetData></x:worksheet>`)
	got, err := readOWA(b)
	if err != nil || len(got) != 1 || got[0].SiteName != "01-01-002-19W4 (100)" || got[0].Licensee != "Demo Co." {
		t.Errorf("ReadOrphanInventory = %+v, %v", got, err)
	}
}

// patchZip replaces one part of a zip.
func patchZip(t *testing.T, b []byte, name, data string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == name {
			w.Write([]byte(data))
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(rc)
		rc.Close()
		w.Write(buf.Bytes())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func FuzzReadOrphanInventory(f *testing.F) {
	small, err := energydemo.WriteXLSX([]energydemo.Sheet{{Name: energyingest.OWASheet, Rows: [][]string{{"t"}, owaHeader, {"01-01-002-19W4 (100)", "X", "0123456", "Well"}}}}, time.Time{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	files, err := energydemo.Generate()
	if err != nil {
		f.Fatal(err)
	}
	for _, df := range files {
		if strings.HasSuffix(df.Name, ".xlsx") {
			f.Add(df.Data)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		err := energyingest.ReadOrphanInventory(bytes.NewReader(in), int64(len(in)), "owa.xlsx", func(s energyingest.OrphanSite) error {
			if s.SiteName == "" || s.Location.Unit == 0 {
				t.Fatalf("site %+v", s)
			}
			return nil
		})
		var ie *ingest.Error
		if err != nil && (!errors.As(err, &ie) || ie.File != "owa.xlsx" || ie.Reason == "" || ie.Line < 0) {
			t.Fatalf("error %v (%T), want an *ingest.Error", err, err)
		}
	})
}
