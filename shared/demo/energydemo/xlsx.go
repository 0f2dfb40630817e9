package energydemo

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
)

// Sheet is one sheet of a workbook WriteXLSX writes.
type Sheet struct {
	Name string
	Rows [][]string // text cells; a cell of digits only is written as a number
}

const (
	nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRel  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// WriteXLSX writes a minimal workbook (content types, relationships,
// workbook, styles, shared strings, one part per sheet), deterministic for
// a given modification time.
func WriteXLSX(sheets []Sheet, modified time.Time) ([]byte, error) {
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
		for r, row := range sh.Rows {
			if len(row) == 0 {
				continue
			}
			fmt.Fprintf(&b, `<row r="%d">`, r+1)
			for c, v := range row {
				ref := energyingest.XLSXColumn(c) + strconv.Itoa(r+1)
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
		fmt.Fprintf(&wb, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, esc(sh.Name), i+1, i+1)
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
