package energyingest

import (
	"archive/zip"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"meridian/shared/ingest"
)

// An XLSX workbook (Office Open XML, ECMA-376) is a zip of XML parts:
// xl/workbook.xml lists the sheets by name with a relationship id,
// xl/_rels/workbook.xml.rels maps the id to the sheet's part
// (xl/worksheets/sheetN.xml), and xl/sharedStrings.xml holds the text that
// cells of type "s" index. xlsxSheet streams one sheet's rows with an XML
// token reader, so memory is bounded by the shared strings and one row.

const (
	maxXLSXPart    = 16 << 20  // workbook.xml, its rels
	maxXLSXStrings = 256 << 20 // sharedStrings.xml, uncompressed
	maxXLSXColumns = 16384     // Excel's limit (XFD)
)

// xlsxError is a problem in the workbook; row is 0 outside the sheet data.
type xlsxError struct {
	row int
	msg string
}

func (e *xlsxError) Error() string { return e.msg }

func xlsxErrorf(row int, format string, args ...any) error {
	return &xlsxError{row: row, msg: fmt.Sprintf(format, args...)}
}

// xlsxSheet reads the rows of one worksheet.
type xlsxSheet struct {
	rc      io.ReadCloser
	dec     *xml.Decoder
	strings []string
	row     int // number of the last row returned
	cells   []string
}

// openXLSXSheet opens the worksheet called name (case-insensitive), or the
// workbook's first sheet when name is "".
func openXLSXSheet(ra io.ReaderAt, size int64, name string) (*xlsxSheet, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, xlsxErrorf(0, "not an XLSX workbook (zip): %v", err)
	}
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		files[strings.TrimPrefix(f.Name, "/")] = f
	}
	var wb struct {
		Sheets []struct {
			Name  string     `xml:"name,attr"`
			Attrs []xml.Attr `xml:",any,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := unmarshalPart(files, "xl/workbook.xml", &wb); err != nil {
		return nil, err
	}
	relID := ""
	var names []string
	for _, s := range wb.Sheets {
		names = append(names, s.Name)
		if name == "" && relID == "" || name != "" && strings.EqualFold(strings.TrimSpace(s.Name), name) {
			for _, a := range s.Attrs {
				if a.Name.Local == "id" && a.Name.Space != "" {
					relID = a.Value
				}
			}
			if relID == "" {
				return nil, xlsxErrorf(0, "sheet %q has no relationship id", s.Name)
			}
			break
		}
	}
	if relID == "" && name == "" {
		return nil, xlsxErrorf(0, "the workbook has no sheet")
	}
	if relID == "" {
		return nil, xlsxErrorf(0, "no sheet %q (sheets: %s)", name, strings.Join(names, ", "))
	}
	var rels struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := unmarshalPart(files, "xl/_rels/workbook.xml.rels", &rels); err != nil {
		return nil, err
	}
	target := ""
	for _, r := range rels.Rel {
		if r.ID == relID {
			target = r.Target
		}
	}
	if target == "" {
		return nil, xlsxErrorf(0, "sheet %q: relationship %s not found", name, relID)
	}
	if strings.HasPrefix(target, "/") {
		target = strings.TrimPrefix(target, "/")
	} else {
		target = path.Join("xl", target)
	}
	sf, ok := files[target]
	if !ok {
		return nil, xlsxErrorf(0, "sheet %q: part %s missing", name, target)
	}
	shared, err := readSharedStrings(files["xl/sharedStrings.xml"])
	if err != nil {
		return nil, err
	}
	rc, err := sf.Open()
	if err != nil {
		return nil, xlsxErrorf(0, "open %s: %v", target, err)
	}
	return &xlsxSheet{rc: rc, dec: xml.NewDecoder(rc), strings: shared}, nil
}

func unmarshalPart(files map[string]*zip.File, name string, v any) error {
	f, ok := files[name]
	if !ok {
		return xlsxErrorf(0, "not an XLSX workbook: no %s", name)
	}
	rc, err := f.Open()
	if err != nil {
		return xlsxErrorf(0, "open %s: %v", name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxXLSXPart+1))
	if err != nil {
		return xlsxErrorf(0, "read %s: %v", name, err)
	}
	if len(b) > maxXLSXPart {
		return xlsxErrorf(0, "%s is larger than %d bytes", name, maxXLSXPart)
	}
	if err := xml.Unmarshal(b, v); err != nil {
		return xlsxErrorf(0, "%s: %v", name, err)
	}
	return nil
}

// readSharedStrings reads the shared string table: the text of each <si>,
// its runs joined, phonetic runs (<rPh>) left out.
func readSharedStrings(f *zip.File) ([]string, error) {
	if f == nil {
		return nil, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, xlsxErrorf(0, "open sharedStrings.xml: %v", err)
	}
	defer rc.Close()
	lr := &io.LimitedReader{R: rc, N: maxXLSXStrings + 1}
	dec := xml.NewDecoder(lr)
	var out []string
	var sb strings.Builder
	inSI, inT, phonetic := false, false, 0
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			if lr.N <= 0 {
				return nil, xlsxErrorf(0, "sharedStrings.xml is larger than %d bytes", maxXLSXStrings)
			}
			return nil, xlsxErrorf(0, "sharedStrings.xml: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "si":
				inSI = true
				sb.Reset()
			case "rPh":
				phonetic++
			case "t":
				inT = inSI && phonetic == 0
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "si":
				out = append(out, sb.String())
				inSI = false
			case "rPh":
				phonetic--
			case "t":
				inT = false
			}
		case xml.CharData:
			if inT {
				sb.Write(tok)
			}
		}
	}
	return out, nil
}

// next returns the next row that has a cell: its 1-based number and its
// cell texts by column (A = 0), without trailing empty cells. The slice is
// reused by the following call. It returns io.EOF after the last row.
func (s *xlsxSheet) next() (int, []string, error) {
	inRow := false
	col := -1      // column of the current cell
	typ := ""      // t attribute of the current cell
	var val []byte // text of <v> or of <is><t>
	inV, inIS, inT := false, false, false
	for {
		tok, err := s.dec.RawToken()
		if err == io.EOF {
			if inRow {
				return 0, nil, xlsxErrorf(s.row, "sheet ends inside row %d", s.row)
			}
			return 0, nil, io.EOF
		}
		if err != nil {
			return 0, nil, xlsxErrorf(s.row, "sheet XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "row":
				n := s.row + 1
				if r := attr(tok, "r"); r != "" {
					v, err := strconv.Atoi(r)
					if err != nil || v <= s.row || v > 1<<20 {
						return 0, nil, xlsxErrorf(s.row, "row number %q after row %d", r, s.row)
					}
					n = v
				}
				s.row, inRow = n, true
				s.cells = s.cells[:0]
				col = -1
			case "c":
				if !inRow {
					return 0, nil, xlsxErrorf(s.row, "cell outside a row")
				}
				c := col + 1
				if r := attr(tok, "r"); r != "" {
					v, ok := cellColumn(r)
					if !ok {
						return 0, nil, xlsxErrorf(s.row, "cell reference %q", r)
					}
					c = v
				}
				if c <= col && col >= 0 {
					return 0, nil, xlsxErrorf(s.row, "cell %s out of order", attr(tok, "r"))
				}
				col, typ, val = c, attr(tok, "t"), val[:0]
			case "v":
				inV = true
			case "is":
				inIS = true
			case "t":
				inT = inIS
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "v":
				inV = false
			case "is":
				inIS = false
			case "t":
				inT = false
			case "c":
				text, err := s.cellText(typ, string(val))
				if err != nil {
					return 0, nil, xlsxErrorf(s.row, "cell %s: %v", XLSXColumn(col), err)
				}
				if text != "" {
					for len(s.cells) < col {
						s.cells = append(s.cells, "")
					}
					s.cells = append(s.cells, text)
				}
			case "row":
				if !inRow {
					return 0, nil, xlsxErrorf(s.row, "unbalanced row")
				}
				return s.row, s.cells, nil
			}
		case xml.CharData:
			if inV || inT {
				val = append(val, tok...)
			}
		}
	}
}

func (s *xlsxSheet) cellText(typ, v string) (string, error) {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(s.strings) {
			return "", fmt.Errorf("shared string %q out of range (%d strings)", v, len(s.strings))
		}
		return s.strings[i], nil
	case "b":
		switch strings.TrimSpace(v) {
		case "1":
			return "TRUE", nil
		case "0":
			return "FALSE", nil
		}
		return "", fmt.Errorf("boolean %q", v)
	}
	return v, nil // "", "n", "str", "inlineStr", "e", "d": the text as stored
}

func (s *xlsxSheet) close() error { return s.rc.Close() }

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// cellColumn returns the 0-based column of a cell reference ("B7" -> 1).
func cellColumn(ref string) (int, bool) {
	n, i := 0, 0
	for i < len(ref) && 'A' <= ref[i] && ref[i] <= 'Z' {
		n = n*26 + int(ref[i]-'A'+1)
		i++
		if n > maxXLSXColumns {
			return 0, false
		}
	}
	if i == 0 || i == len(ref) || !ingest.AllDigits(ref[i:]) {
		return 0, false
	}
	return n - 1, true
}

// XLSXColumn is the letters of a 0-based column (1 -> "B").
func XLSXColumn(c int) string {
	if c < 0 {
		return "?"
	}
	var b []byte
	for c++; c > 0; c = (c - 1) / 26 {
		b = append([]byte{byte('A' + (c-1)%26)}, b...)
	}
	return string(b)
}
