package gridingest

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"meridian/shared/ingest"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// Manitoba accuracy bounds, metres.
const (
	// mbAccuracyCentroid: the Original Survey file gives the official
	// centroid of each parcel; its polygon is unknown. 1 m covers the
	// EPSG:3857 round trip and NAD83 vs WGS84 in the source's own tools.
	mbAccuracyCentroid = 1
	// mbAccuracyCorners: a quarter drawn as straight lines between its four
	// published corners.
	mbAccuracyCorners = 1
)

// The Manitoba layouts the readers recognise.
var (
	MBSurveyLayout = ingest.Layout{
		Dataset: "Manitoba Original Survey Legal Descriptions", Publisher: "Manitoba (DataMB)",
		Form:     "CSV: FID, Informal Legal Description, Formal Legal Description, Type, Quarter, SECTION, TOWNSHIP, RANGE, LOT NO, MERIDIAN, PARISH NAME, RANGEADD, x, y (x, y EPSG:3857)",
		Verified: true,
		Evidence: "ropensci/mbquartR data/mbquartR_example.rda (docs/real-layouts.md): those 14 columns, x/y EPSG:3857, Type Quarter, PL, RL (hosted layer: Lot, OT, PL, Quarter, RL, SL, WL), MERIDIAN E1/W1",
	}
	MBCornersLayout = ingest.Layout{
		Dataset: "Manitoba township system corners", Publisher: "Manitoba Land Initiative (mb_township_system_corners.zip)",
		Form:     "MB_QuarterSectionCorners.csv, one row per quarter: DLS_KEY, EASTING, NORTHING, NE_E, NE_N, NW_E, NW_N, SW_E, SW_N, SE_E, SE_N in NAD83 / UTM zone 14N metres",
		Verified: true,
		Evidence: "R scripts over the real zip (evidence ids 25433851628, 25942240827, docs/real-layouts.md): DLS_KEY substrings, EASTING/NORTHING centroid, corners NE_E:SE_N, +proj=utm +zone=14 +datum=NAD83, blank corners dropped; our reading: DLS_KEY character 2 (meridian number, 1) and the order of the corner columns between NE_E and SE_N (read by name)",
	}
)

// ManitobaOptions are the Manitoba readers' options; the zero value is
// usable.
type ManitobaOptions struct {
	// Notices receives Type values the survey reader does not know (the
	// row is skipped); nil discards them.
	Notices *ingest.Notices
	// Layout, when set, is called once with the layout the file's header
	// matched (MBSurveyLayout or MBCornersLayout), before the first record.
	Layout func(ingest.Layout)
}

// Manitoba's extent with a margin, for sanity checks of converted points.
var mbBound = orb.Bound{Min: orb.Point{-102.2, 48.9}, Max: orb.Point{-88.8, 60.1}}

// ReadManitobaSurvey reads Manitoba's "Original Survey Legal Descriptions"
// CSV (DataMB item 11fa11f9015b45438d6493dcb3d8071c) and emits one record
// per quarter section and per river, parish, outer two-mile, settlement and
// wood lot: Province MB, the official centroid (HasCentroid), no geometry,
// AccuracyM 1. See MBSurveyLayout.
//
// Columns (see csvTable for header matching): x and y (EPSG:3857, the
// centroid) are required; then Informal Legal Description (or, failing
// that, Formal Legal Description), Type, and the parts Quarter, SECTION,
// TOWNSHIP, RANGE, MERIDIAN, RANGEADD, LOT NO, PARISH NAME are used when
// present. FID and any other column are ignored.
//
// Each row is classified by Type (the hosted layer's vocabulary is Lot,
// OT, PL, Quarter, RL, SL, WL; the long names are our reading):
//
//	Quarter, Quarter Section, QS       a quarter section
//	RL PL OT SL WL, or River Lot,      a Manitoba lot (River/Parish Lot)
//	Parish Lot, Outer Two Mile Lot,
//	Settlement Lot, Wood Lot
//	Lot, Township Lot                  a township lot (10-54-27W1): skipped,
//	                                   Location has no such unit
//	any other value                    skipped, counted by type
//	empty or no Type column            decided by the description: a quarter
//	                                   or a lot as lld.Parse reads it; a
//	                                   section-shaped one is a township lot
//
// The Location comes from lld.Parse of the description (the informal one,
// or the formal one where the informal is empty or does not parse); when
// that fails or
// names another kind of block, from the parts ("NE-1-12-12E1" from
// Quarter, SECTION, TOWNSHIP, RANGE and MERIDIAN, the meridian taken as
// RANGEADD+MERIDIAN when MERIDIAN is only a digit; "RL-22-St. Norbert"
// from the type, LOT NO and PARISH NAME). A quarter that neither gives is
// a malformed row; a lot whose label or parish lld cannot represent is
// skipped and counted. Quarters must be W1, E1 or E2.
//
// x and y must be numbers that convert to a point in Manitoba; anything
// else rejects the file with the row's line. Rows are not de-duplicated.
//
// Fatal: bad x, y; a quarter neither its description nor its parts give.
// Notices: a Type value not in the vocabulary above (the row is skipped
// and counted, as before: a new kind of parcel cannot be placed as a
// quarter or a lot safely).
func ReadManitobaSurvey(r io.Reader, file string, emit Emit, opt ManitobaOptions) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	t, err := newCSVTable(r, file)
	if err != nil {
		return st, err
	}
	merc, err := proj.FromEPSG(proj.EPSGWebMercator)
	if err != nil {
		return st, ingest.Errorf(file, 0, "%v", err)
	}
	c := mbSurveyColumns{
		x:        t.col("x"),
		y:        t.col("y"),
		informal: t.col("informal legal description"),
		formal:   t.col("formal legal description"),
		typ:      t.col("type"),
		quarter:  t.col("quarter"),
		section:  t.col("section"),
		township: t.col("township"),
		rng:      t.col("range"),
		meridian: t.col("meridian"),
		rangeAdd: t.col("rangeadd", "range add"),
		lot:      t.col("lot no", "lot no.", "lot number", "lot"),
		parish:   t.col("parish name", "parish"),
	}
	if c.x < 0 || c.y < 0 {
		return st, ingest.Errorf(file, 1, "header has no x and y columns (the EPSG:3857 centroid)")
	}
	if c.informal < 0 && c.formal < 0 && c.quarter < 0 && c.lot < 0 {
		return st, ingest.Errorf(file, 1, "header has no legal description (Informal Legal Description, Formal Legal Description) and no parts (Quarter, SECTION, ...; LOT NO, PARISH NAME)")
	}
	if opt.Layout != nil {
		opt.Layout(MBSurveyLayout)
	}
	for {
		if err := t.next(); err == io.EOF {
			break
		} else if err != nil {
			return st, err
		}
		st.Rows++
		loc, skip, err := c.location(t)
		if err != nil {
			return st, err
		}
		if skip != "" {
			if strings.HasPrefix(skip, "type ") {
				opt.Notices.Add(ingest.Notice{File: file, Line: t.line, Column: "Type", Value: t.get(c.typ), Reason: "row skipped: not a quarter (Quarter) or a lot (RL, PL, OT, SL, WL, Lot)"})
			}
			st.skip(skip)
			continue
		}
		pt, err := mbPoint(t, merc, t.get(c.x), t.get(c.y))
		if err != nil {
			return st, err
		}
		if err := out.send(gridindex.Record{Location: loc, Province: survey.MB, Centroid: pt, HasCentroid: true, AccuracyM: mbAccuracyCentroid}); err != nil {
			return st, err
		}
	}
	return st, nil
}

type mbSurveyColumns struct {
	x, y, informal, formal, typ               int
	quarter, section, township, rng, meridian int
	rangeAdd, lot, parish                     int
}

// mbKinds maps a normalised Type value to Q (quarter), a lot kind, or TL
// (township lot).
var mbKinds = map[string]string{
	"quarter": "Q", "quartersection": "Q", "qs": "Q",
	"rl": "RL", "riverlot": "RL",
	"pl": "PL", "parishlot": "PL",
	"ot": "OT", "outertwomilelot": "OT", "outer2milelot": "OT", "outerlot": "OT",
	"sl": "SL", "settlementlot": "SL",
	"wl": "WL", "woodlot": "WL",
	"lot": "TL", "townshiplot": "TL", "tl": "TL",
}

func normKind(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c != ' ' && c != '-' && c != '_' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// location decides what the current row names. It returns the Location, or
// a skip reason, or an *Error for a malformed row.
func (c *mbSurveyColumns) location(t *csvTable) (lld.Location, string, error) {
	desc := t.get(c.informal)
	if desc == "" {
		desc = t.get(c.formal)
	}
	typ := t.get(c.typ)
	kind := mbKinds[normKind(typ)]
	if typ != "" && kind == "" {
		return lld.Location{}, fmt.Sprintf("type %q", typ), nil
	}
	parsed, perr := lld.Location{}, error(nil)
	if desc != "" {
		parsed, perr = lld.Parse(desc)
		if formal := t.get(c.formal); perr != nil && formal != "" && formal != desc {
			if l, err := lld.Parse(formal); err == nil {
				parsed, perr = l, nil
			}
		}
	}
	if kind == "" { // no Type: go by the description
		switch {
		case desc == "":
			return lld.Location{}, "", t.errorf("row has no Type and no legal description")
		case perr == nil && parsed.Unit == lld.QuarterSection:
			kind = "Q"
		case perr == nil && parsed.Unit == lld.RiverParishLot:
			kind = parsed.LotKind
		case perr == nil && parsed.System == lld.DLS && parsed.Unit == lld.Section:
			kind = "TL"
		case perr != nil && mbLotPrefix(desc):
			return lld.Location{}, "lot lld cannot parse", nil
		case perr != nil:
			return lld.Location{}, "", t.errorf("legal description %q: %v", desc, perr)
		default:
			return lld.Location{}, fmt.Sprintf("description of a %s", parsed.Unit), nil
		}
	}
	switch kind {
	case "TL":
		return lld.Location{}, "township lot", nil
	case "Q":
		l := parsed
		if perr != nil || l.Unit != lld.QuarterSection {
			var err error
			if l, err = c.quarterFromParts(t); err != nil {
				if desc != "" {
					return lld.Location{}, "", t.errorf("quarter %q: %v", desc, err)
				}
				return lld.Location{}, "", t.errorf("quarter: %v", err)
			}
		}
		if m := l.Meridian; m != lld.W1 && m != lld.E1 && m != lld.E2 {
			return lld.Location{}, "", t.errorf("quarter %s: meridian %s is not in Manitoba (W1, E1, E2)", l, m)
		}
		return l, "", nil
	}
	// A lot kind.
	if perr == nil && parsed.Unit == lld.RiverParishLot && parsed.LotKind == kind {
		return parsed, "", nil
	}
	lot, parish := t.get(c.lot), t.get(c.parish)
	if lot != "" && parish != "" {
		if l, err := lld.Parse(kind + "-" + lot + "-" + parish); err == nil && l.Unit == lld.RiverParishLot {
			return l, "", nil
		}
	}
	return lld.Location{}, "lot lld cannot parse", nil
}

// quarterFromParts builds a quarter from Quarter, SECTION, TOWNSHIP, RANGE
// and MERIDIAN (+ RANGEADD).
func (c *mbSurveyColumns) quarterFromParts(t *csvTable) (lld.Location, error) {
	q, s, tw, r, m := t.get(c.quarter), t.get(c.section), t.get(c.township), t.get(c.rng), t.get(c.meridian)
	if q == "" || s == "" || tw == "" || r == "" || m == "" {
		return lld.Location{}, fmt.Errorf("description does not parse and the parts (Quarter, SECTION, TOWNSHIP, RANGE, MERIDIAN) are incomplete")
	}
	if ingest.AllDigits(m) {
		add := strings.ToUpper(t.get(c.rangeAdd))
		if add != "E" && add != "W" {
			return lld.Location{}, fmt.Errorf("MERIDIAN %q gives no direction and RANGEADD %q is not E or W", m, add)
		}
		m = add + m
	}
	l, err := lld.Parse(q + "-" + s + "-" + tw + "-" + r + m)
	if err != nil {
		return lld.Location{}, err
	}
	if l.Unit != lld.QuarterSection {
		return lld.Location{}, fmt.Errorf("parts name a %s, not a quarter section", l.Unit)
	}
	return l, nil
}

// mbLotPrefix reports whether desc starts like a Manitoba lot ("RL-...").
func mbLotPrefix(desc string) bool {
	if len(desc) < 3 || (desc[2] != '-' && desc[2] != ' ') {
		return false
	}
	switch strings.ToUpper(desc[:2]) {
	case "RL", "PL", "OT", "SL", "WL":
		return true
	}
	return false
}

// mbPoint converts an EPSG:3857 x, y pair to lng/lat and checks it is in
// Manitoba.
func mbPoint(t *csvTable, p proj.Projection, xs, ys string) (orb.Point, error) {
	x, ok := parseNumber(xs)
	if !ok {
		return orb.Point{}, t.errorf("x %q is not a number", xs)
	}
	y, ok := parseNumber(ys)
	if !ok {
		return orb.Point{}, t.errorf("y %q is not a number", ys)
	}
	pt, err := p.ToLngLat(x, y)
	if err != nil {
		return orb.Point{}, t.errorf("x, y %s, %s: %v", xs, ys, err)
	}
	if !mbBound.Contains(pt) {
		return orb.Point{}, t.errorf("x, y %s, %s (%.6f, %.6f) is not in Manitoba: the file's coordinates must be EPSG:3857", xs, ys, pt[1], pt[0])
	}
	return pt, nil
}

// ReadManitobaCorners reads Manitoba's quarter-section corner file
// (mb_township_system_corners.zip → MB_QuarterSectionCorners.csv, see
// MBCornersLayout): one row per quarter, NAD83 / UTM zone 14N metres
// (EPSG:26914, not EPSG:3857). It emits one record per quarter: Province
// MB and the quarter polygon (SW, SE, NE, NW, counter-clockwise, closed)
// built from the four corners, AccuracyM 1; the index merges it with the
// Original Survey centroid of the same quarter (gridindex.Merge).
//
// Columns (matched by name, any order, others ignored): DLS_KEY; EASTING,
// NORTHING, the quarter's centroid; NE_E, NE_N, NW_E, NW_N, SW_E, SW_N,
// SE_E, SE_N, its corners. DLS_KEY has 11 characters (see parseDLSKey):
// "W12903311NE" is NE-11-33-29W1.
//
// Some corners are blank in the real file. A quarter with any corner blank
// gets no polygon (three corners do not make a quarter): it is emitted
// with its EASTING, NORTHING centroid alone and counted under Skipped
// "polygon: blank corners, centroid kept"; with no centroid either it is
// skipped, counted as "quarter with blank corners and no centroid".
//
// Fatal (the dataset is rejected; file, line, column, value and what is
// accepted are named): a DLS_KEY that is not 11 characters of that form;
// a coordinate that is not a number, or a corner with one of E, N blank;
// a point outside Manitoba; corners that do not go counter-clockwise round
// a convex quadrilateral about a quarter wide. The file is read one row at
// a time.
func ReadManitobaCorners(r io.Reader, file string, emit Emit, opt ManitobaOptions) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	t, err := newCSVTable(r, file)
	if err != nil {
		return st, err
	}
	utm, err := proj.FromEPSG(mbCornersEPSG)
	if err != nil {
		return st, ingest.Errorf(file, 0, "%v", err)
	}
	key, east, north := t.col("dls key", "dlskey"), t.col("easting"), t.col("northing")
	var corners [4][2]int
	var missing []string
	for i, n := range mbCornerNames {
		corners[i] = [2]int{t.col(strings.ToLower(n) + " e"), t.col(strings.ToLower(n) + " n")}
		if corners[i][0] < 0 {
			missing = append(missing, n+"_E")
		}
		if corners[i][1] < 0 {
			missing = append(missing, n+"_N")
		}
	}
	if key < 0 {
		missing = append([]string{"DLS_KEY"}, missing...)
	}
	if east < 0 || north < 0 {
		missing = append(missing, "EASTING", "NORTHING")
	}
	if len(missing) > 0 {
		return st, ingest.Errorf(file, 1, "header has no %s: want %s", strings.Join(missing, ", "), MBCornersLayout.Form)
	}
	if opt.Layout != nil {
		opt.Layout(MBCornersLayout)
	}
	for {
		if err := t.next(); err == io.EOF {
			break
		} else if err != nil {
			return st, err
		}
		st.Rows++
		loc, err := parseDLSKey(t.get(key))
		if err != nil {
			return st, ingest.BadValue(file, t.line, "DLS_KEY", t.get(key), []string{err.Error()})
		}
		var q mbQuarter
		for i, c := range corners {
			pt, ok, err := mbUTMPoint(t, utm, c[0], c[1], mbCornerNames[i]+"_E", mbCornerNames[i]+"_N")
			if err != nil {
				return st, err
			}
			if ok {
				q.pts[i], q.have = pt, q.have|1<<i
			}
		}
		centroid, hasCentroid, err := mbUTMPoint(t, utm, east, north, "EASTING", "NORTHING")
		if err != nil {
			return st, err
		}
		if q.have != 0xF {
			if !hasCentroid {
				st.skip("quarter with blank corners and no centroid")
				continue
			}
			st.skip("polygon: blank corners, centroid kept")
			if err := out.send(gridindex.Record{Location: loc, Province: survey.MB, Centroid: centroid, HasCentroid: true, AccuracyM: mbAccuracyCentroid}); err != nil {
				return st, err
			}
			continue
		}
		if err := q.emit(t, loc, out); err != nil {
			return st, err
		}
	}
	return st, nil
}

// mbCornersEPSG is the corner file's coordinate system: NAD83 / UTM zone
// 14N (the evidence scripts' +proj=utm +zone=14 +ellps=GRS80 +datum=NAD83).
const mbCornersEPSG = 26914

// mbUTMPoint reads the point in columns e, n of the current row: ok false
// when both are blank; an error when one is blank, either is not a number,
// or the point is not in Manitoba.
func mbUTMPoint(t *csvTable, p proj.Projection, e, n int, eName, nName string) (orb.Point, bool, error) {
	es, ns := t.get(e), t.get(n)
	if es == "" && ns == "" {
		return orb.Point{}, false, nil
	}
	accepted := []string{"metres in NAD83 / UTM zone 14N (EPSG:26914)", "blank with " + nName + " blank"}
	x, ok := parseNumber(es)
	if !ok {
		return orb.Point{}, false, ingest.BadValue(t.file, t.line, eName, es, accepted)
	}
	accepted[1] = "blank with " + eName + " blank"
	y, ok := parseNumber(ns)
	if !ok {
		return orb.Point{}, false, ingest.BadValue(t.file, t.line, nName, ns, accepted)
	}
	pt, err := p.ToLngLat(x, y)
	if err != nil || !mbBound.Contains(pt) {
		return orb.Point{}, false, t.errorf("%s, %s %s, %s is not in Manitoba in NAD83 / UTM zone 14N (EPSG:26914, the corner file's system)", eName, nName, es, ns)
	}
	return pt, true, nil
}

// mbCornerNames in polygon order: counter-clockwise from the south-west.
var mbCornerNames = [4]string{"SW", "SE", "NE", "NW"}

type mbQuarter struct {
	pts  [4]orb.Point
	have uint8
}

func (q *mbQuarter) emit(t *csvTable, loc lld.Location, out emitter) error {
	ring := orb.Ring{q.pts[0], q.pts[1], q.pts[2], q.pts[3], q.pts[0]}
	for i := range 4 {
		a, b, c := ring[i], ring[i+1], ring[(i+2)%4]
		if (b[0]-a[0])*(c[1]-b[1])-(b[1]-a[1])*(c[0]-b[0]) <= 0 {
			return t.errorf("corners of %s do not make a quarter: SW, SE, NE, NW must go counter-clockwise round a convex quadrilateral (is a corner in the wrong column?)", loc)
		}
	}
	if d := distanceM(q.pts[0], q.pts[2]); d > 3000 {
		return t.errorf("corners of %s are %.0f m apart across the quarter (want about 1,100 m)", loc, d)
	}
	return out.send(gridindex.Record{Location: loc, Province: survey.MB, Geometry: orb.Polygon{ring}, AccuracyM: mbAccuracyCorners})
}

// parseDLSKey reads a corners-file DLS_KEY: 11 characters,
//
//	1     E or W: the side of the Principal Meridian the range lies on
//	      (the evidence scripts append it to the description: "29W")
//	2     the meridian's number, 1 (our reading: the scripts do not read
//	      it; Manitoba's townships are all counted from the Principal
//	      Meridian, so E1 or W1)
//	3-4   range, zero-padded
//	5-7   township, zero-padded
//	8-9   section, zero-padded
//	10-11 quarter: NE, NW, SW or SE
//
// "W12903311NE" is NE-11-33-29W1. The error says what is accepted.
func parseDLSKey(k string) (lld.Location, error) {
	const want = "11 characters: E or W, meridian 1, range (2 digits), township (3), section (2), quarter NE/NW/SW/SE, e.g. W12903311NE"
	if len(k) != 11 {
		return lld.Location{}, errors.New(want)
	}
	var mer lld.Meridian
	switch strings.ToUpper(k[:2]) {
	case "W1":
		mer = lld.W1
	case "E1":
		mer = lld.E1
	default:
		return lld.Location{}, errors.New(want)
	}
	rng, ok1 := parseUint(k[2:4])
	twp, ok2 := parseUint(k[4:7])
	sec, ok3 := parseUint(k[7:9])
	if !ok1 || !ok2 || !ok3 || !ingest.AllDigits(k[2:9]) || rng < 1 || rng > 34 || twp < 1 || twp > 126 || sec < 1 || sec > 36 {
		return lld.Location{}, errors.New(want + " (range 1-34, township 1-126, section 1-36)")
	}
	var a lld.Aliquot
	switch strings.ToUpper(k[9:11]) {
	case "NE":
		a = lld.NE
	case "NW":
		a = lld.NW
	case "SW":
		a = lld.SW
	case "SE":
		a = lld.SE
	default:
		return lld.Location{}, errors.New(want)
	}
	return lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: mer, Range: uint8(rng), Township: uint8(twp), Section: uint8(sec), Aliquot: a}, nil
}
