package energyingest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"meridian/shared/ingest"
)

// demoOrphanRow is one row of the OWA inventory.
type demoOrphanRow struct {
	site, licensee, licence, component, department, project string
}

func siteLSD(lsd, sec int, t *demoTownship) string {
	return fmt.Sprintf("%02d-%02d-%03d-%02dW%d", lsd, sec, t.Twp, t.Rge, t.Mer)
}

// addOrphans lists the orphan wells of the Alberta townships (their
// suspended or abandoned lines too in every other township), the two
// orphan facility sites and one mixed site (a well and a battery).
func (w *demoWorld) addOrphans() {
	for _, t := range w.townships {
		if t.Prov != "AB" {
			continue
		}
		var well *demoWell
		for _, d := range w.wells {
			if d.t == t && d.orphan {
				well = d
			}
		}
		o := op(t.defunct)
		dept, project := "Decommissioning", "Decommissioning"
		if well.status == "Abandoned" {
			dept, project = "Environment", []string{"Environment", "Environment", "Rec Cert"}[t.index%3]
		}
		site := siteLSD(well.u.LSD, well.u.Section, t) + " (1" + well.u.LE + ")"
		switch t.index {
		case 1, 5:
			site += " - WIPA"
		case 3:
			site = siteLSD(well.u.LSD, well.u.Section, t) + " (Multi) - MIXED"
		}
		w.orphans = append(w.orphans, demoOrphanRow{site, owaLicensee(o), well.licence, "Well & Access Road", dept, project})
		for _, f := range w.facilities {
			if f.t != t || !f.orphan {
				continue
			}
			fsite := siteLSD(f.lsd, f.sec, t) + " (Facility)"
			if f.lsd == well.u.LSD && f.sec == well.u.Section {
				fsite = site
			}
			w.orphans = append(w.orphans, demoOrphanRow{fsite, owaLicensee(o), f.licence, "Facility", "Decommissioning", "Decommissioning"})
		}
		if t.index%2 == 0 {
			for _, p := range w.pipelines {
				if p.get("BA_CODE") == t.defunct && p.get("FROM_LOC") == siteLSD(well.u.LSD, well.u.Section, t) {
					w.orphans = append(w.orphans, demoOrphanRow{site, owaLicensee(o), p.get("LICENCE_NO"), "Pipeline", dept, project})
				}
			}
		}
	}
}

// owaLicensee writes a licensee as the real inventory does: upper case,
// without the period of "LTD." ("LEXIN RESOURCES LTD").
func owaLicensee(o demoOperator) string { return strings.ReplaceAll(o.Upper(), ".", "") }

// orphanInventory renders the OWA workbook: a summary sheet, then "Full
// Inventory" with three title rows and a blank row above the header.
func (w *demoWorld) orphanInventory() ([]byte, error) {
	summary := [][]string{
		{"Orphan Well Association (demo data)"},
		{"Inventory date", "2026-11-01"},
		{"Rows", strconv.Itoa(len(w.orphans))},
	}
	inv := [][]string{
		{"Orphan Well Association"},
		{"Site Specific Inventory - Full Inventory"},
		{"Report generated 2026-11-01 13:41:42 (synthetic demo data)"},
		{},
		{"Site Name", "Licensee", "License Number", "Component Type", "Responsible Department", "Current Project Type"},
	}
	for _, r := range w.orphans {
		inv = append(inv, []string{r.site, r.licensee, r.licence, r.component, r.department, r.project})
	}
	return writeXLSX([]xlsxSheetData{{"Summary", summary}, {owaSheet, inv}}, time.Date(2026, 11, 1, 13, 41, 42, 0, time.UTC))
}

type xlsxSheetData struct {
	name string
	rows [][]string // text cells; a cell of digits only is written as a number
}

const (
	nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRel  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// writeXLSX writes a minimal workbook (content types, relationships,
// workbook, styles, shared strings, one part per sheet), deterministic for
// a given modification time.
func writeXLSX(sheets []xlsxSheetData, modified time.Time) ([]byte, error) {
	esc := func(s string) string {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var shared []string
	index := map[string]int{}
	sheetXML := make([]string, len(sheets))
	for i, sh := range sheets {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
		b.WriteString(`<worksheet xmlns="` + nsMain + `" xmlns:r="` + nsRel + `"><sheetData>`)
		for r, row := range sh.rows {
			if len(row) == 0 {
				continue
			}
			fmt.Fprintf(&b, `<row r="%d">`, r+1)
			for c, v := range row {
				ref := columnName(c) + strconv.Itoa(r+1)
				if v == "" {
					continue
				}
				if ingest.AllDigits(v) && len(v) < 10 && (v[0] != '0' || v == "0") {
					fmt.Fprintf(&b, `<c r="%s"><v>%s</v></c>`, ref, v)
					continue
				}
				k, ok := index[v]
				if !ok {
					k = len(shared)
					index[v] = k
					shared = append(shared, v)
				}
				fmt.Fprintf(&b, `<c r="%s" t="s"><v>%d</v></c>`, ref, k)
			}
			b.WriteString(`</row>`)
		}
		b.WriteString(`</sheetData></worksheet>`)
		sheetXML[i] = b.String()
	}
	var sst strings.Builder
	fmt.Fprintf(&sst, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n"+`<sst xmlns="%s" count="%d" uniqueCount="%d">`, nsMain, len(shared), len(shared))
	for _, s := range shared {
		space := ""
		if strings.TrimSpace(s) != s {
			space = ` xml:space="preserve"`
		}
		fmt.Fprintf(&sst, `<si><t%s>%s</t></si>`, space, esc(s))
	}
	sst.WriteString(`</sst>`)

	var types, wb, rels strings.Builder
	types.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
		`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
		`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>`)
	wb.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<workbook xmlns="` + nsMain + `" xmlns:r="` + nsRel + `"><sheets>`)
	rels.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	for i, sh := range sheets {
		fmt.Fprintf(&types, `<Override PartName="/xl/worksheets/sheet%d.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`, i+1)
		fmt.Fprintf(&wb, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, esc(sh.name), i+1, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="%s/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, nsRel, i+1)
	}
	n := len(sheets)
	fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="%s/styles" Target="styles.xml"/>`, n+1, nsRel)
	fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="%s/sharedStrings" Target="sharedStrings.xml"/>`, n+2, nsRel)
	types.WriteString(`</Types>`)
	wb.WriteString(`</sheets></workbook>`)
	rels.WriteString(`</Relationships>`)

	parts := []struct{ name, data string }{
		{"[Content_Types].xml", types.String()},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="` + nsRel + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{"xl/workbook.xml", wb.String()},
		{"xl/_rels/workbook.xml.rels", rels.String()},
		{"xl/styles.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<styleSheet xmlns="` + nsMain + `"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
			`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
			`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
			`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
			`<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs></styleSheet>`},
		{"xl/sharedStrings.xml", sst.String()},
	}
	for i, s := range sheetXML {
		parts = append(parts, struct{ name, data string }{fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), s})
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return nil, err
		}
		if _, err := f.Write([]byte(p.data)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// baCodes renders the demo operators in the layout of the team's ST104A
// sample: "BA Code,Company Name", CRLF.
func (w *demoWorld) baCodes() []byte {
	codes := make([]string, 0, len(demoOperators))
	for c := range demoOperators {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var b bytes.Buffer
	b.WriteString("BA Code,Company Name\r\n")
	for _, c := range codes {
		name := demoOperators[c].Name
		if strings.ContainsAny(name, ",\"") {
			name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
		b.WriteString(c + "," + name + "\r\n")
	}
	return b.Bytes()
}
