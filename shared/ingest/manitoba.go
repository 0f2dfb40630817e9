package ingest

import (
	"fmt"
	"io"
	"strings"

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
	// official corners (the corners file layout is our unverified reading).
	mbAccuracyCorners = 1
)

// Manitoba's extent with a margin, for sanity checks of converted points.
var mbBound = orb.Bound{Min: orb.Point{-102.2, 48.9}, Max: orb.Point{-88.8, 60.1}}

// ReadManitobaSurvey reads Manitoba's "Original Survey Legal Descriptions"
// CSV (DataMB item 11fa11f9015b45438d6493dcb3d8071c) and emits one record
// per quarter section and per river, parish, outer two-mile, settlement and
// wood lot: Province MB, the official centroid (HasCentroid), no geometry,
// AccuracyM 1.
//
// Columns (see csvTable for header matching): x and y (EPSG:3857, the
// centroid) are required; then Informal Legal Description (or, failing
// that, Formal Legal Description), Type, and the parts Quarter, SECTION,
// TOWNSHIP, RANGE, MERIDIAN, RANGEADD, LOT NO, PARISH NAME are used when
// present. FID and any other column are ignored.
//
// Each row is classified by Type (our reading of the values; mbquartR shows
// "Quarter" and lists the codes RL, Lot, OT, PL, SL, WL):
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
func ReadManitobaSurvey(r io.Reader, file string, emit Emit) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	t, err := newCSVTable(r, file)
	if err != nil {
		return st, err
	}
	merc, err := proj.FromEPSG(proj.EPSGWebMercator)
	if err != nil {
		return st, Errorf(file, 0, "%v", err)
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
		return st, Errorf(file, 1, "header has no x and y columns (the EPSG:3857 centroid)")
	}
	if c.informal < 0 && c.formal < 0 && c.quarter < 0 && c.lot < 0 {
		return st, Errorf(file, 1, "header has no legal description (Informal Legal Description, Formal Legal Description) and no parts (Quarter, SECTION, ...; LOT NO, PARISH NAME)")
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
	if allDigits(m) {
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
// (mb_township_system_corners.zip → MB_QuarterSectionCorners.csv) and emits
// one record per quarter: Province MB, the quarter polygon (SW, SE, NE, NW,
// counter-clockwise, closed), no centroid, AccuracyM 1. The index merges it
// with the Original Survey centroid of the same quarter (gridindex.Merge).
//
// The layout is OUR READING, UNVERIFIED: only DLS_KEY is known publicly (a
// public R script reads it as meridian(1) range(2) township(3) section(2)
// quarter(2)); the other columns are not documented. Two forms are
// accepted, by header (see csvTable for matching):
//
//	long: DLS_KEY, CORNER, X, Y         one row per corner, CORNER SE|SW|NW|NE
//	wide: DLS_KEY, SE_X, SE_Y, SW_X, SW_Y, NW_X, NW_Y, NE_X, NE_Y
//
// X and Y are EPSG:3857. DLS_KEY is 10 characters, "1" = W1 or "2" = E1
// then range, township, section, quarter ("21201201NE" = NE-1-12-12E1), or
// 11 with the meridian written out ("E11201201NE"; W1, E1, E2); both
// readings of the meridian are ours.
//
// In the long form the rows of one quarter may be scattered: a quarter is
// emitted as soon as its four corners have been read and only incomplete
// quarters are kept, so memory grows with the number of quarters open at
// once, not with the file. A quarter still incomplete at the end rejects the
// file at the line of its first row (the earliest such line). A corner given
// twice must agree within 0.5 m. The four corners must make a convex,
// counter-clockwise quadrilateral in that order.
func ReadManitobaCorners(r io.Reader, file string, emit Emit) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	t, err := newCSVTable(r, file)
	if err != nil {
		return st, err
	}
	merc, err := proj.FromEPSG(proj.EPSGWebMercator)
	if err != nil {
		return st, Errorf(file, 0, "%v", err)
	}
	key := t.col("dls key", "dlskey")
	if key < 0 {
		return st, Errorf(file, 1, "header has no DLS_KEY column")
	}
	corner, x, y := t.col("corner"), t.col("x"), t.col("y")
	var wide [4][2]int
	for i, n := range mbCornerNames {
		wide[i] = [2]int{t.col(strings.ToLower(n) + " x"), t.col(strings.ToLower(n) + " y")}
	}
	long := corner >= 0 && x >= 0 && y >= 0
	if !long {
		for i, w := range wide {
			if w[0] < 0 || w[1] < 0 {
				return st, Errorf(file, 1, "header has neither CORNER, X, Y (one row per corner) nor SE_X ... NE_Y (one row per quarter): no %s_X/%s_Y", mbCornerNames[i], mbCornerNames[i])
			}
		}
	}
	pending := make(map[lld.Location]*mbQuarter)
	for {
		if err := t.next(); err == io.EOF {
			break
		} else if err != nil {
			return st, err
		}
		st.Rows++
		loc, err := parseDLSKey(t.get(key))
		if err != nil {
			return st, t.errorf("DLS_KEY %q: %v", t.get(key), err)
		}
		if !long {
			var q mbQuarter
			for i, w := range wide {
				pt, err := mbPoint(t, merc, t.get(w[0]), t.get(w[1]))
				if err != nil {
					return st, err
				}
				q.pts[i], q.have = pt, q.have|1<<i
			}
			if err := q.emit(t, loc, out); err != nil {
				return st, err
			}
			continue
		}
		ci := mbCornerIndex(t.get(corner))
		if ci < 0 {
			return st, t.errorf("CORNER %q: want SE, SW, NW or NE", t.get(corner))
		}
		pt, err := mbPoint(t, merc, t.get(x), t.get(y))
		if err != nil {
			return st, err
		}
		q := pending[loc]
		if q == nil {
			q = &mbQuarter{line: t.line}
			pending[loc] = q
		}
		if q.have&(1<<ci) != 0 {
			if d := distanceM(q.pts[ci], pt); d > atsAgreeM {
				return st, t.errorf("%s corner of %s given again %.1f m from the first (a quarter's rows start on line %d)", mbCornerNames[ci], loc, d, q.line)
			}
			continue
		}
		q.pts[ci], q.have = pt, q.have|1<<ci
		if q.have == 0xF {
			delete(pending, loc)
			if err := q.emit(t, loc, out); err != nil {
				return st, err
			}
		}
	}
	if len(pending) > 0 {
		var first lld.Location
		var fq *mbQuarter
		for l, q := range pending {
			if fq == nil || q.line < fq.line {
				first, fq = l, q
			}
		}
		var missing []string
		for i, n := range mbCornerNames {
			if fq.have&(1<<i) == 0 {
				missing = append(missing, n)
			}
		}
		return st, Errorf(file, fq.line, "quarter %s has no %s corner by the end of the file (%d quarters incomplete)", first, strings.Join(missing, ", "), len(pending))
	}
	return st, nil
}

// mbCornerNames in polygon order: counter-clockwise from the south-west.
var mbCornerNames = [4]string{"SW", "SE", "NE", "NW"}

func mbCornerIndex(s string) int {
	s = strings.ToUpper(strings.TrimSpace(s))
	for i, n := range mbCornerNames {
		if s == n {
			return i
		}
	}
	return -1
}

type mbQuarter struct {
	pts  [4]orb.Point
	have uint8
	line int
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

// parseDLSKey reads a corners-file DLS_KEY (see ReadManitobaCorners).
func parseDLSKey(k string) (lld.Location, error) {
	k = strings.ToUpper(k)
	var mer lld.Meridian
	switch {
	case len(k) == 10 && k[0] == '1':
		mer, k = lld.W1, k[1:]
	case len(k) == 10 && k[0] == '2':
		mer, k = lld.E1, k[1:]
	case len(k) == 11 && k[:2] == "W1":
		mer, k = lld.W1, k[2:]
	case len(k) == 11 && k[:2] == "E1":
		mer, k = lld.E1, k[2:]
	case len(k) == 11 && k[:2] == "E2":
		mer, k = lld.E2, k[2:]
	default:
		return lld.Location{}, fmt.Errorf("want 10 characters (meridian 1 = W1 or 2 = E1, range 2, township 3, section 2, quarter 2, e.g. 21201201NE) or 11 with the meridian as W1, E1 or E2")
	}
	rng, ok1 := parseUint(k[0:2])
	twp, ok2 := parseUint(k[2:5])
	sec, ok3 := parseUint(k[5:7])
	if !ok1 || !ok2 || !ok3 || !allDigits(k[0:7]) {
		return lld.Location{}, fmt.Errorf("range, township and section must be digits")
	}
	if rng < 1 || rng > 34 || twp < 1 || twp > 126 || sec < 1 || sec > 36 {
		return lld.Location{}, fmt.Errorf("range %d, township %d or section %d out of range", rng, twp, sec)
	}
	var a lld.Aliquot
	switch k[7:9] {
	case "NE":
		a = lld.NE
	case "NW":
		a = lld.NW
	case "SW":
		a = lld.SW
	case "SE":
		a = lld.SE
	default:
		return lld.Location{}, fmt.Errorf("quarter %q: want NE, NW, SW or SE", k[7:9])
	}
	return lld.Location{System: lld.DLS, Unit: lld.QuarterSection, Meridian: mer, Range: uint8(rng), Township: uint8(twp), Section: uint8(sec), Aliquot: a}, nil
}
