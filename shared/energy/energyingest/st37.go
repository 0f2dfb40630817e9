package energyingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
)

// Well is one row of AER ST37 "List of Wells in Alberta" (WellList.txt):
// one well event (docs/data-sources.md §1).
type Well struct {
	// UWI is UWI-DISPLAY-FORMAT as published: "00/06-06-001-01W4/0". Its
	// parts follow; UWI16 gives the Petrinex form.
	UWI      string
	LE       string       // location exception, 2 letters or digits: "00", "02", "F1", "AA"
	Location lld.Location // the LSD (the bottom hole for directional wells)
	Event    int          // event sequence, 0-9
	// Key is KEY-LIST-OF-WELLS, "0014010606000" (the file's sort key).
	Key        string
	UpdateFlag string
	Name       string // WELL-NAME, Latin-1 decoded
	FieldCode  string // 4 digits (ST103), "" when blank
	PoolCode   string // 7 digits, "0000000" for none
	// OilSandsArea and OilSandsDeposit are OS-AREA-CODE and OS-DEP-CODE
	// ("" and "0000000" for none).
	OilSandsArea    string
	OilSandsDeposit string
	Licence         string // LICENSE-NO without padding: "0065081", "A0000049"
	// LicenceStatus is LICENCE-STATUS without padding: Issued, Amended,
	// Re-Entered, Suspension, Abandoned, RecCertified, RecExempt ...; see
	// the derived status bucket is package meridian/shared/energy's WellBucket.
	LicenceStatus    string
	LicenceIssueDate time.Time // zero for 00000000
	// LicenseeBA, AgentBA and OperatorBA are the 4-character BA codes: the
	// first 4 of ST37's 5-character codes ("A5D40" -> "A5D4"); "" when
	// blank.
	LicenseeBA     string
	AgentBA        string
	OperatorBA     string
	FinalDrillDate time.Time // FIN-DRL-DATE; zero for 00000000 (not drilled)
	TotalDepth     float64   // WELL-TOTAL-DEPTH, metres; 0 when not drilled
	Status         WellStatus
	StatusDate     time.Time
	// Columns 19-24 of the current layout (since ~2022); empty in the
	// 18-column layout.
	FluidShort, ModeShort, TypeShort, StructureShort string
	SchemeType, SchemeSubType                        string
	// Columns is the layout of the file: 18 or 24.
	Columns int
}

// UWI16 returns the 16-character UWI ("100060600101W400") that joins the
// well to Petrinex.
func (w Well) UWI16() string {
	return DLSUWI{
		LE: w.LE, LSD: int(w.Location.LSD), Section: int(w.Location.Section),
		Township: int(w.Location.Township), Range: int(w.Location.Range),
		Meridian: w.Location.Meridian.Number(), Event: w.Event,
	}.UWI16()
}

// Bucket returns LicenceBucket(w.LicenceStatus).

// The two layouts of WellList.txt; Well.Columns says which a row came
// from, WellListLayout maps it to its Layout.
var (
	WellList18Layout = ingest.Layout{
		Dataset:   "AER ST37 list of wells",
		Publisher: "Alberta Energy Regulator",
		Form:      "WellList.txt, tab-separated, no header, 18 columns (until ~2022)",
		Verified:  true,
		Evidence:  "samples/aer-st37/WellList_2017-04_excerpt.txt (evjrob/aertidywells)",
	}
	WellList24Layout = ingest.Layout{
		Dataset:   "AER ST37 list of wells",
		Publisher: "Alberta Energy Regulator",
		Form:      "WellList.txt, tab-separated, no header, 24 columns (the 18, four short status descriptions, scheme type and subtype)",
		Verified:  true,
		Evidence:  "a reader of the current file names all 24 columns (docs/real-layouts.md, id 29486165729)",
	}
)

// WellListLayout returns the layout of a WellList.txt whose rows have
// columns fields (Well.Columns); false for another count.
func WellListLayout(columns int) (ingest.Layout, bool) {
	switch columns {
	case 18:
		return WellList18Layout, true
	case 24:
		return WellList24Layout, true
	}
	return ingest.Layout{}, false
}

// ST37 column names (AER layout), for messages.
var st37Columns = [...]string{
	"UWI-DISPLAY-FORMAT", "KEY-LIST-OF-WELLS", "UPDATE-FLAG", "WELL-NAME", "FIELD-CODE", "POOL-CODE",
	"OS-AREA-CODE", "OS-DEP-CODE", "LICENSE-NO", "LICENCE-STATUS", "LICENSE-ISSUE-DATE",
	"LICENSEE-CODE", "AGENT-CODE", "OPERATOR-CODE", "FIN-DRL-DATE", "WELL-TOTAL-DEPTH",
	"WELL-STAT-CODE", "WELL-STAT-DATE", "FLUID-SHORT-DESCRIPTION", "MODE-SHORT-DESCRIPTION",
	"TYPE-SHORT-DESCRIPTION", "STRUCTURE-SHORT-DESCRIPTION", "SCHEME-TYPE", "SCHEME-SUB-TYPE",
}

// maxLine bounds a line of the tab-delimited files (an ST37 row is ~190
// bytes).
const maxLine = 64 * 1024

// ReadWellList streams AER ST37 WellList.txt to fn, one Well per row:
// tab-delimited, no header, Latin-1 (UTF-8 is accepted too), values
// space-padded to fixed widths, CRLF or LF. Every row of a file has the 18
// columns of the 2017 layout or the 24 of the current one (the 18 plus the
// four short status descriptions and the scheme type and subtype); a file
// mixing them is rejected. Blank lines are skipped.
//
// A row is rejected when its UWI is not LE/LS-SC-TWP-RGWM/E with valid
// ranges, its key (KEY-LIST-OF-WELLS) does not match the UWI (in the
// 24-column layout, whose column 2 is unverified, only a 13-character key
// is compared), a date is not YYYYMMDD (00000000 and blank are none), the
// depth is not a number, the status code is not 10 digits, a BA code is not
// 4-5 letters or digits, or field, pool or licence codes hold other
// characters than their kind allows.
func ReadWellList(r io.Reader, file string, fn func(Well) error) error {
	return ReadWellListWith(r, file, ReadOptions{}, fn)
}

// SkipST37Text is the reason a row of text with no tab (a title, a
// "records selected" line or a notice a tool wrote around the list) is
// passed over.
const SkipST37Text = "ST37 text rows that are not wells"

// ReadWellListWith is ReadWellList that tells opt of the rows it passes
// over: a row with no tab at all is text around the list, not a well, and
// is skipped (opt.Skip with SkipST37Text, one notice for the first such
// row); a row with tabs is a well and must be whole.
func ReadWellListWith(r io.Reader, file string, opt ReadOptions, fn func(Well) error) error {
	br := bufio.NewReaderSize(r, maxLine)
	textRows := 0
	line, columns := 0, 0
	var fields [len(st37Columns)]string
	for {
		b, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			return ingest.Errorf(file, line+1, "line is longer than %d bytes: not an ST37 well list", maxLine)
		}
		if rerr != nil && rerr != io.EOF {
			return ingest.Errorf(file, line+1, "read: %v", rerr)
		}
		last := rerr == io.EOF
		if len(b) == 0 && last {
			break
		}
		line++
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte(utf8BOM))
		}
		b = bytes.TrimRight(b, "\r\n")
		if len(bytes.Trim(b, " \t\x1a")) == 0 {
			if last {
				break
			}
			continue
		}
		s := string(b)
		n := strings.Count(s, "\t") + 1
		if n == 1 {
			if textRows++; textRows == 1 {
				v := strings.TrimSpace(ingest.DecodeText(s))
				if r := []rune(v); len(r) > 60 {
					v = string(r[:60]) + "…"
				}
				opt.Notices.Add(ingest.Notice{File: file, Line: line, Column: "UWI", Value: v, Reason: "a row of text with no tab, not a well: skipped"})
			}
			if opt.Skip != nil {
				opt.Skip(SkipST37Text)
			}
			if last {
				break
			}
			continue
		}
		if n != 18 && n != 24 {
			return ingest.Errorf(file, line, "row has %d tab-separated columns, want 18 (2017 layout) or 24 (current layout)", n)
		}
		for i := 0; i < n-1; i++ {
			j := strings.IndexByte(s, '\t')
			fields[i], s = s[:j], s[j+1:]
		}
		fields[n-1] = s
		if columns == 0 {
			columns = n
		} else if n != columns {
			return ingest.Errorf(file, line, "row has %d columns but the file's first row has %d", n, columns)
		}
		w, perr := parseWell(fields[:n])
		if perr != nil {
			return ingest.Errorf(file, line, "%v", perr)
		}
		if err := fn(w); err != nil {
			return err
		}
		if last {
			return nil
		}
	}
	return nil
}

// parseWell reads one ST37 row, split on tabs (18 or 24 fields).
func parseWell(f []string) (Well, error) {
	var firstErr error
	fail := func(col int, format string, args ...any) {
		if firstErr == nil {
			firstErr = fmt.Errorf("column %d %s: %s", col+1, st37Columns[col], fmt.Sprintf(format, args...))
		}
	}
	get := func(col int) string { return trimPad(f[col]) }
	w := Well{Columns: len(f)}

	w.UWI = get(0)
	u, err := parseDisplayUWI(w.UWI)
	if err != nil {
		return Well{}, fmt.Errorf("column 1 %s: %v", st37Columns[0], err)
	}
	w.LE, w.Event = u.LE, u.Event
	w.Location, _ = u.Location()

	w.Key = get(1)
	if (len(f) == 18 || len(w.Key) == 13) && w.Key != u.STKey() {
		fail(1, "%q does not match the UWI %s (want %s)", w.Key, w.UWI, u.STKey())
	}
	w.UpdateFlag = ingest.DecodeText(get(2))
	w.Name = ingest.DecodeText(get(3))
	w.FieldCode = get(4)
	if w.FieldCode != "" && !ingest.AllDigits(w.FieldCode) {
		fail(4, "%q is not a numeric field code", w.FieldCode)
	}
	w.PoolCode = get(5)
	if w.PoolCode != "" && !ingest.AllDigits(w.PoolCode) {
		fail(5, "%q is not a numeric pool code", w.PoolCode)
	}
	w.OilSandsArea = ingest.DecodeText(get(6))
	w.OilSandsDeposit = get(7)
	if w.OilSandsDeposit != "" && !allUpperAlnum(w.OilSandsDeposit) {
		fail(7, "%q is not a deposit code", w.OilSandsDeposit)
	}
	w.Licence = get(8)
	if !allUpperAlnum(w.Licence) {
		fail(8, "%q is not a licence number", w.Licence)
	}
	w.LicenceStatus = ingest.DecodeText(get(9))
	date := func(col int) time.Time {
		s := get(col)
		if s != "" && !(len(s) == 8 && ingest.AllDigits(s)) {
			fail(col, "%q is not a YYYYMMDD date", s)
			return time.Time{}
		}
		d, err := parseDate(s)
		if err != nil {
			fail(col, "%v", err)
		}
		return d
	}
	ba := func(col int) string {
		s := get(col)
		if s == "" {
			return ""
		}
		if (len(s) != 5 && len(s) != 4) || !allUpperAlnum(s) {
			fail(col, "%q is not a 5-character BA code", s)
			return ""
		}
		return s[:4]
	}
	w.LicenceIssueDate = date(10)
	w.LicenseeBA = ba(11)
	w.AgentBA = ba(12)
	w.OperatorBA = ba(13)
	w.FinalDrillDate = date(14)
	if s := get(15); s != "" {
		d, ok := parseNumber(s)
		if !ok || d < 0 {
			fail(15, "%q is not a depth in metres", s)
		}
		w.TotalDepth = d
	}
	w.Status, err = ParseWellStatus(get(16))
	if err != nil {
		fail(16, "%v", err)
	}
	w.StatusDate = date(17)
	if len(f) == 24 {
		w.FluidShort = ingest.DecodeText(get(18))
		w.ModeShort = ingest.DecodeText(get(19))
		w.TypeShort = ingest.DecodeText(get(20))
		w.StructureShort = ingest.DecodeText(get(21))
		w.SchemeType = ingest.DecodeText(get(22))
		w.SchemeSubType = ingest.DecodeText(get(23))
	}
	if firstErr != nil {
		return Well{}, firstErr
	}
	return w, nil
}

// HoleKind tells ST37's two shapefiles apart.
type HoleKind uint8

// The two ST37 shapefiles.
const (
	SurfaceHole HoleKind = iota + 1 // ST37_SH_GCS_NAD83.shp
	BottomHole                      // ST37_BH_GCS_NAD83.shp
)

func (k HoleKind) String() string {
	switch k {
	case SurfaceHole:
		return "surface hole"
	case BottomHole:
		return "bottom hole"
	}
	return fmt.Sprintf("HoleKind(%d)", uint8(k))
}

// WellHole is one record of the ST37 shapefiles AER ships beside
// WellList.txt: a well licence's surface hole (ST37_SH_GCS_NAD83.shp) or
// bottom hole (ST37_BH_GCS_NAD83.shp) as a point in NAD83 longitude,
// latitude.
//
// Against WellList.txt, the shapefiles add coordinates: the surface hole
// (which WellList does not give at all; its LSD is the bottom hole's) and
// the bottom hole as a point rather than an LSD. What they lack, as far as
// the fields known from a real loader go (docs/real-layouts.md, id
// 23718322573): the UWI, the well status code and dates, the BA codes (the
// company is a name, CompName or Operator), the field, pool and depth. A
// hole joins the WellList rows by licence number (Licence in SH, License
// in BH; several well events share a licence). Fields other than the ones
// read here are kept as published in Other.
type WellHole struct {
	Kind    HoleKind
	Licence string // Licence (SH) or License (BH), as published
	Company string // CompName (SH) or Operator (BH)
	// Point is the hole: from the Latitude/Longitude (SH) or BH_Lat/BH_Long
	// (BH) fields when both are set, else the shape (the first point of a
	// multipoint).
	Point orb.Point
	// LicenceStatusDate is LicStatDat (SH); LicenceDate and StatusDate are
	// LicDate and StatDate (BH). Zero when absent or empty.
	LicenceStatusDate time.Time
	LicenceDate       time.Time
	StatusDate        time.Time
	// Other holds the remaining fields by their .dbf name, as published.
	Other map[string]string
}

// The layouts of the ST37 shapefiles, told apart by their fields.
var (
	ST37SurfaceHoleLayout = ingest.Layout{
		Dataset:   "AER ST37 list of wells",
		Publisher: "Alberta Energy Regulator",
		Form:      "ST37_SH_GCS_NAD83.shp surface holes: Licence, CompName, Latitude, Longitude, LicStatDat",
		Verified:  true,
		Evidence:  "a loader of the real shapefiles reads these fields (docs/real-layouts.md, id 23718322573); other fields are kept unread in Other",
	}
	ST37BottomHoleLayout = ingest.Layout{
		Dataset:   "AER ST37 list of wells",
		Publisher: "Alberta Energy Regulator",
		Form:      "ST37_BH_GCS_NAD83.shp bottom holes: License, Operator, BH_Lat, BH_Long, LicDate, StatDate",
		Verified:  true,
		Evidence:  "a loader of the real shapefiles reads these fields (docs/real-layouts.md, id 23718322573); other fields are kept unread in Other",
	}
)

// holeFields are the fields each kind reads: licence, company, latitude,
// longitude, then dates.
var holeFields = map[HoleKind][]string{
	SurfaceHole: {"Licence", "CompName", "Latitude", "Longitude", "LicStatDat"},
	BottomHole:  {"License", "Operator", "BH_Lat", "BH_Long", "LicDate", "StatDate"},
}

// ReadWellHoles streams an ST37 shapefile (its .shp and .dbf; prj the .prj
// text, "" when absent) to fn, one WellHole per record. The kind is told
// from the fields: Licence and Latitude make a surface hole file, License
// and BH_Lat a bottom hole file (opt.Layout is told which); anything else
// is refused. Shapes must be Point or MultiPoint (Z and M dropped) or Null,
// in longitude, latitude (a projected .prj is refused).
//
// Fatal: a record without a licence; a latitude or longitude that is not a
// number or lies outside Alberta's degrees (48.9-60.1 N, 109.9-120.1 W
// with a margin); a date that does not parse; a record with neither
// coordinates nor a shape.
func ReadWellHoles(shpR, dbfR io.Reader, prj, file string, opt ReadOptions, fn func(WellHole) error) error {
	if p := strings.TrimSpace(prj); p != "" && !strings.HasPrefix(strings.ToUpper(p), "GEOGCS") {
		return ingest.Errorf(file, 0, "the .prj is not a geographic coordinate system: want ST37_*_GCS_NAD83")
	}
	t, err := ingest.Source{
		Name: file, Format: ingest.Shapefile, R: shpR, DBF: dbfR,
		Names: strings.ToUpper, ShapeTypes: holeShapes,
		Geometry: func(g orb.Geometry) (orb.Geometry, string) { return g, "" }, // placed and checked below
	}.Open()
	if err != nil {
		return err
	}
	has := func(n string) bool { return t.Col(strings.ToUpper(n)) >= 0 }
	var kind HoleKind
	switch {
	case has("Licence") && has("Latitude"):
		kind = SurfaceHole
		opt.recognised(ST37SurfaceHoleLayout)
	case has("License") && has("BH_Lat"):
		kind = BottomHole
		opt.recognised(ST37BottomHoleLayout)
	default:
		return ingest.Errorf(file, 0, "the .dbf has neither Licence and Latitude (ST37_SH) nor License and BH_Lat (ST37_BH) fields")
	}
	names := holeFields[kind]
	col := make([]int, len(names))
	read := make(map[int]bool)
	for i, n := range names {
		col[i] = t.Col(strings.ToUpper(n))
		read[col[i]] = true
	}
	return t.Each(func(f *ingest.Row) error {
		get := func(i int) string { return strings.TrimSpace(f.At(col[i])) }
		h := WellHole{Kind: kind, Licence: get(0), Company: get(1)}
		if h.Licence == "" {
			return ingest.Errorf(file, f.Line, "%s: empty", names[0])
		}
		var bad error
		date := func(i int) time.Time {
			if i >= len(names) {
				return time.Time{}
			}
			d, err := parseDate(get(i))
			if err != nil && bad == nil {
				bad = fmt.Errorf("%s: %v", names[i], err)
			}
			return d
		}
		if kind == SurfaceHole {
			h.LicenceStatusDate = date(4)
		} else {
			h.LicenceDate, h.StatusDate = date(4), date(5)
		}
		lat, lng := get(2), get(3)
		switch g := f.Geom.(type) {
		case orb.Point:
			h.Point = g
		case orb.MultiPoint:
			if len(g) > 0 {
				h.Point = g[0]
			}
		}
		if lat != "" && lng != "" {
			y, ok1 := parseNumber(lat)
			x, ok2 := parseNumber(lng)
			if !ok1 || !ok2 {
				return ingest.BadValue(file, f.Line, names[2]+"/"+names[3], lat+" "+lng, []string{"decimal degrees"})
			}
			h.Point = orb.Point{x, y}
		} else if f.Geom == nil {
			return ingest.Errorf(file, f.Line, "neither %s/%s nor a shape: the hole has no place", names[2], names[3])
		}
		if !(h.Point[1] >= 48.5 && h.Point[1] <= 60.5 && h.Point[0] >= -120.5 && h.Point[0] <= -109.5) {
			return ingest.Errorf(file, f.Line, "point %v is not in Alberta's longitude, latitude (a projected file, or latitude and longitude swapped?)", h.Point)
		}
		if bad != nil {
			return ingest.Errorf(file, f.Line, "%v", bad)
		}
		for j, name := range t.Header {
			if read[j] || f.At(j) == "" {
				continue
			}
			if h.Other == nil {
				h.Other = make(map[string]string)
			}
			h.Other[name] = strings.TrimSpace(f.At(j))
		}
		return fn(h)
	})
}

// holeShapes are the shape types of an ST37 well hole shapefile.
var holeShapes = []shp.ShapeType{shp.Point, shp.PointZ, shp.PointM, shp.MultiPoint, shp.MultiPointZ, shp.MultiPointM, shp.Null}
