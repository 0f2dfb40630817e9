package gridingest

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"meridian/shared/ingest"

	"github.com/paulmach/orb"

	"meridian/shared/survey/dls"
)

// AltaLIS ATS v4.1 coordinate file (ATS_V4_1.SEQ)
//
// Fixed width, 0-based offsets (docs/survey-geometry.md §3):
//
//	 0  1  meridian (4, 5 or 6: W4-W6)
//	 1  2  range
//	 3  3  township
//	 6  2  section
//	 8  2  point code (below)
//	10 11  latitude, decimal degrees
//	21 12  longitude, decimal degrees, west positive or negative
//	33  8  year, month, day computed (YYYYMMDD)
//	41  1  station code        42 1 status          43 1 horizontal class
//	44 12  comment             56 1 horizontal origin
//	57  1  horizontal method   58 1 datum           59 1 road-allowance code
//	60  6  elevation           66 8 elevation date (YYYYMMDD)
//	74-77  elevation origin, method, accuracy, vertical datum (1 each)
//	94 14  update timestamp (YYYYMMDDhhmmss)
//
// A line must reach the end of the longitude (33 characters); the fields
// after it are optional, may be blank and may be cut off by a shorter line,
// but a numeric field that is present must be complete digits (the dates)
// or a number (the elevation). Lines end in LF or CRLF; blank lines are
// ignored; anything but spaces past column 108 is an error. The text fields
// are not used.
//
// The layout is ATSCoordinateLayout.
//
// # Point codes
//
// Columns 9-10 hold the point code. AltaLIS's codes (docs/real-layouts.md,
// "AltaLIS ATS v4.1 coordinate file": a function over the same table,
// evidence id 9021271365, accepts exactly these and throws on anything
// else):
//
//	SE SW NW NE   the section's corners
//	S4 N4 E4 W4   quarter points on the south, north, east and west
//	              boundaries: where the quarter lines meet the boundary
//	CS            the centre of the section, where the quarter lines cross
//	P? Q? X?      custom governing points (any second character: a letter,
//	              a digit or a space)
//
// Any other code rejects the file with a BadValue error (column "point
// code", the value and the accepted codes), so that a convention we do not
// know shows up at once instead of as wrong polygons.
//
// A custom governing point does not change the grid: it is checked like
// every record (columns, order, in Alberta), counted in Stats.Skipped
// under "custom governing point (P/Q/X), not used for polygons" and
// reported as a Notice (Notices keeps one line per distinct code, with
// its count), and the section's polygons
// are built from its standard corners and quarter points alone. The file
// does not say which corner or quarter point a custom point governs, nor
// how; making it replace the nearest lattice point would move a published
// corner on a guess, and a missed replacement only leaves the standard
// corner that AltaLIS also publishes. A custom point alone does not name
// its section (a section given only by custom points is not emitted).
//
// Codes are compared exactly (upper case, as published).
//
// A physical corner is shared by up to four sections, and the file may give
// it under any one of its names: the NW corner of a section is the NE
// corner of its west neighbour, the SW corner of its north neighbour and
// the SE corner of its north-west neighbour (quarter points likewise have
// two names). The reader files every point under its physical position in a
// per-meridian lattice, so any name finds it. West neighbours of sections
// 6, 7, 18, 19, 30 and 31 are in range R+1, east neighbours of sections 1,
// 12, 13, 24, 25 and 36 in range R-1. Correction lines (the north boundary
// of townships 2, 6, 10, ..., 4k+2) are never crossed: sections 31-36 of
// those townships and sections 1-6 of the township above do not share
// corners. Meridians are not crossed either.
//
// A point given under two names must agree within 0.5 m; otherwise the file
// is rejected with both lines.
//
// # Output
//
// For every section the file names (under its own number, in any record),
// all four corners must be found, directly or through a neighbour's name;
// a missing corner rejects the file at the section's first line. Missing
// quarter points default to the mid-points of the side's corners; a missing
// centre to the intersection of the quarter lines (S-N and W-E), or the
// average of the four quarter points when they are parallel. Then, per
// township, in township order:
//
//   - the township: the outer boundary of its sections (Dissolve, holes
//     left by missing sections dropped);
//   - per section, in section order: the section (8 vertices: corners and
//     quarter points), its quarters NE, NW, SW, SE (corner, two quarter
//     points, centre) and its 16 LSDs 1-16: each quarter split in half both
//     ways through the mid-points of its sides and the mean of its corners,
//     numbered boustrophedon from the south-east (§1.5).
//
// Province is AB. AccuracyM (our choice): 5 m for townships and sections
// (straight lines between surveyed corners; the corner coordinates are
// published to 1e-7°, 1 cm), 5 m for quarters when the four quarter points
// are in the file and 20 m when they are interpolated, 20 m for LSDs (the
// file has no LSD corners; they are subdivided without road allowances,
// which AltaLIS's own LSD polygons carry).
//
// # Memory
//
// The file is sorted by meridian, range, township (AltaLIS writes it that
// way); a record out of that order is an error with its line. Sections
// within a township may come in any order. The reader keeps the range
// columns it still needs (at most three: the one being read and its
// neighbours) and emits a column once the column west of it has been read,
// so memory is bounded by three range columns of points (a full column of
// 126 townships has about 21,000: 49 corners, 84 quarter points and 36
// centres per township), not by the file.

// ATSCoordinateLayout is the AltaLIS ATS v4.1 coordinate file as
// ReadATS reads it.
var ATSCoordinateLayout = ingest.Layout{
	Dataset:   "AltaLIS ATS v4.1 coordinates",
	Publisher: "AltaLIS",
	Form:      "ATS_V4_1.SEQ fixed-width text (point codes SE SW NW NE, S4 N4 E4 W4, CS, P/Q/X custom)",
	Verified:  true,
	Evidence:  "docs/real-layouts.md \"AltaLIS ATS v4.1 coordinate file\": column offsets from an importer (id 9428853597), point codes from a function over the same table (id 9021271365)",
}

// ATSOptions tune ReadATS and ReadATSPolygons.
type ATSOptions struct {
	// Notices receives the values the reader could place but had not
	// seen before (see each reader's documentation); nil discards them.
	Notices *ingest.Notices
}

// atsSkipCustom is the Stats.Skipped reason of custom governing points.
const atsSkipCustom = "custom governing point (P/Q/X), not used for polygons"

// atsAccepted lists the point codes for BadValue errors.
var atsAccepted = []string{"SE", "SW", "NW", "NE", "S4", "N4", "E4", "W4", "CS", "P?", "Q?", "X?"}

// atsCustom reports whether code is a custom governing point's: P, Q or X
// then a letter, a digit or a space.
func atsCustom(code string) bool {
	if len(code) != 2 || (code[0] != 'P' && code[0] != 'Q' && code[0] != 'X') {
		return false
	}
	c := code[1]
	return c == ' ' || isDigit(c) || ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z')
}

// ATS accuracy bounds, metres (see the ATS documentation above).
const (
	atsAccuracySection       = 5
	atsAccuracyQuarter       = 5
	atsAccuracyQuarterInterp = 20
	atsAccuracyLSD           = 20
)

const (
	atsMinLine = 33  // a line must reach the end of the longitude
	atsMaxLine = 108 // the layout ends with the update timestamp
	atsAgreeM  = 0.5 // two names of one point must agree within this
)

// ReadATS reads an AltaLIS ATS v4.1 coordinate file (ATS_V4_1.SEQ) and
// emits, per township, the township, section, quarter-section and LSD
// records; see the documentation at the top of ats.go for the codes, the
// alias rules and the accuracy values. file names the input in errors.
//
// Fatal: a malformed or truncated line, a value out of range, an unknown
// point code, records out of order, two names of a point that disagree, a
// section without its four corners. Notices (opts.Notices): each distinct
// custom governing point code (P?, Q?, X?), which is counted and kept out
// of the polygons.
func ReadATS(r io.Reader, file string, emit Emit, opts ATSOptions) (Stats, error) {
	a := &atsReader{
		notices: opts.Notices,
		file:    file,
		points:  make(map[atsKey]atsPoint),
		out:     emitter{emit: emit},
	}
	a.out.stats = &a.stats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 64*1024)
	line := 0
	for sc.Scan() {
		line++
		if err := a.readLine(sc.Text(), line); err != nil {
			return a.stats, err
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return a.stats, ingest.Errorf(file, line+1, "line longer than 64 KiB: not an ATS v4.1 coordinate file")
		}
		return a.stats, ingest.Errorf(file, line, "read: %v", err)
	}
	if err := a.flushAll(); err != nil {
		return a.stats, err
	}
	if a.stats.Rows == 0 {
		return a.stats, ingest.Errorf(file, 0, "no ATS records")
	}
	return a.stats, nil
}

// atsKey is a point's physical position: a lattice per meridian in
// half-section steps, x counted west from the meridian and y north from the
// 49th parallel. below marks the points on a correction line that belong to
// the township south of it.
type atsKey struct {
	mer   uint8
	below bool
	x, y  int32
}

type atsPoint struct {
	p    orb.Point
	line int32
	// The name it was given, for messages.
	code          [2]byte
	mer, rng, sec uint8
	twp           uint8
}

func (p atsPoint) name() string {
	return atsName(string(p.code[:]), int(p.mer), int(p.rng), int(p.twp), int(p.sec))
}

// atsColumn is one range column of a meridian as read so far.
type atsColumn struct {
	rng     int
	emitted bool
	keys    []atsKey         // points named by this column's records
	twps    []int            // townships in file order (ascending)
	first   map[int]*[37]int // township -> section -> first line naming it
}

type atsReader struct {
	notices *ingest.Notices
	file    string
	stats   Stats
	out     emitter
	points  map[atsKey]atsPoint
	mer     int
	cols    []*atsColumn // ascending range, same meridian
	prev    [3]int       // meridian, range, township of the previous record
	prevLn  int
}

func (a *atsReader) errorf(line int, format string, args ...any) error {
	return ingest.Errorf(a.file, line, format, args...)
}

// readLine parses one line and files its point.
func (a *atsReader) readLine(s string, line int) error {
	s = strings.TrimSuffix(s, "\r")
	if isBlank(s) {
		return nil
	}
	a.stats.Rows++
	if len(s) < atsMinLine {
		return a.errorf(line, "line is %d characters, the ATS v4.1 layout needs at least %d (through the longitude): truncated line?", len(s), atsMinLine)
	}
	if len(s) > atsMaxLine && !isBlank(s[atsMaxLine:]) {
		return a.errorf(line, "line is %d characters, the ATS v4.1 layout has %d", len(s), atsMaxLine)
	}
	mer := int(s[0] - '0')
	if s[0] < '4' || s[0] > '6' {
		return a.errorf(line, "meridian %q at column 1: want 4, 5 or 6 (W4-W6, Alberta)", s[0:1])
	}
	rng, ok := parseUint(s[1:3])
	if !ok || rng < 1 || rng > 34 {
		return a.errorf(line, "range %q at columns 2-3: want 1-34", s[1:3])
	}
	twp, ok := parseUint(s[3:6])
	if !ok || twp < 1 || twp > 126 {
		return a.errorf(line, "township %q at columns 4-6: want 1-126", s[3:6])
	}
	sec, ok := parseUint(s[6:8])
	if !ok || sec < 1 || sec > 36 {
		return a.errorf(line, "section %q at columns 7-8: want 1-36", s[6:8])
	}
	code := s[8:10]
	off, ok := atsCodes[code]
	custom := !ok && atsCustom(code)
	if !ok && !custom {
		return ingest.BadValue(a.file, line, "point code", code, atsAccepted)
	}
	lat, ok := parseNumber(s[10:21])
	if !ok {
		return a.errorf(line, "latitude %q at columns 11-21 is not a number", strings.TrimSpace(s[10:21]))
	}
	lng, ok := parseNumber(s[21:33])
	if !ok {
		return a.errorf(line, "longitude %q at columns 22-33 is not a number", strings.TrimSpace(s[21:33]))
	}
	if lng > 0 {
		lng = -lng
	}
	if lat < 48.9 || lat > 60.1 || lng < -121 || lng > -109 {
		return a.errorf(line, "point %.7f, %.7f is not in Alberta", lat, lng)
	}
	if err := a.checkTrailing(s, line); err != nil {
		return err
	}

	// Order: meridian, range, township.
	k := [3]int{mer, rng, twp}
	if a.prevLn > 0 && less3(k, a.prev) {
		return a.errorf(line, "record for township %d-%d-W%d comes after %d-%d-W%d (line %d): the file must be sorted by meridian, range, township",
			twp, rng, mer, a.prev[2], a.prev[1], a.prev[0], a.prevLn)
	}
	a.prev, a.prevLn = k, line
	if custom {
		a.stats.skip(atsSkipCustom)
		a.notices.Add(ingest.Notice{File: a.file, Line: line, Column: "point code", Value: code,
			Reason: "custom governing point: checked and counted, not used for the polygons"})
		return nil
	}

	if mer != a.mer {
		if err := a.flushAll(); err != nil {
			return err
		}
		a.mer = mer
	}
	col, err := a.column(rng)
	if err != nil {
		return err
	}
	first := col.first[twp]
	if first == nil {
		first = new([37]int)
		col.first[twp] = first
		col.twps = append(col.twps, twp)
	}
	if first[sec] == 0 {
		first[sec] = line
	}

	key := atsPointKey(mer, rng, twp, sec, off)
	pt := orb.Point{lng, lat}
	if old, ok := a.points[key]; ok {
		if d := distanceM(old.p, pt); d > atsAgreeM {
			return a.errorf(line, "%s is %.1f m from the same point given as %s on line %d", atsName(code, mer, rng, twp, sec), d, old.name(), old.line)
		}
		return nil
	}
	a.points[key] = atsPoint{p: pt, line: int32(line), code: [2]byte{code[0], code[1]}, mer: uint8(mer), rng: uint8(rng), twp: uint8(twp), sec: uint8(sec)}
	col.keys = append(col.keys, key)
	return nil
}

// checkTrailing validates the optional numeric fields after the longitude.
func (a *atsReader) checkTrailing(s string, line int) error {
	type field struct {
		off, n int
		name   string
		digits bool
	}
	for _, f := range [...]field{
		{33, 8, "date computed", true},
		{60, 6, "elevation", false},
		{66, 8, "elevation date", true},
		{94, 14, "update timestamp", true},
	} {
		if len(s) <= f.off {
			return nil
		}
		v := s[f.off:min(len(s), f.off+f.n)]
		if isBlank(v) {
			continue
		}
		if len(v) < f.n {
			return a.errorf(line, "%s %q at columns %d-%d is cut off by the end of the line", f.name, v, f.off+1, f.off+f.n)
		}
		if f.digits && !ingest.AllDigits(v) {
			return a.errorf(line, "%s %q at columns %d-%d is not %d digits", f.name, v, f.off+1, f.off+f.n, f.n)
		}
		if !f.digits {
			if _, ok := parseNumber(v); !ok {
				return a.errorf(line, "%s %q at columns %d-%d is not a number", f.name, strings.TrimSpace(v), f.off+1, f.off+f.n)
			}
		}
	}
	return nil
}

func less3(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// column returns the column of range rng, opening it (and emitting and
// dropping the columns that no longer need to wait) when it is new.
func (a *atsReader) column(rng int) (*atsColumn, error) {
	if n := len(a.cols); n > 0 && a.cols[n-1].rng == rng {
		return a.cols[n-1], nil
	}
	// A new column (the order check guarantees rng is larger than every
	// stored one). Every column whose west neighbour is complete can go.
	for _, c := range a.cols {
		if !c.emitted && c.rng+1 < rng {
			if err := a.emitColumn(c); err != nil {
				return nil, err
			}
		}
	}
	a.drop(rng)
	c := &atsColumn{rng: rng, first: make(map[int]*[37]int)}
	a.cols = append(a.cols, c)
	return c, nil
}

// drop forgets the points of every emitted column whose west neighbour has
// been emitted or will never come (reading has reached range next).
func (a *atsReader) drop(next int) {
	keep := a.cols[:0]
	for _, c := range a.cols {
		westDone := c.rng+1 < next
		for _, w := range a.cols {
			if w.rng == c.rng+1 {
				westDone = w.emitted
			}
		}
		if c.emitted && westDone {
			for _, k := range c.keys {
				delete(a.points, k)
			}
			continue
		}
		keep = append(keep, c)
	}
	clear(a.cols[len(keep):])
	a.cols = keep
}

// flushAll emits every stored column and forgets everything: the meridian
// changed or the file ended.
func (a *atsReader) flushAll() error {
	for _, c := range a.cols {
		if !c.emitted {
			if err := a.emitColumn(c); err != nil {
				return err
			}
		}
	}
	a.cols = a.cols[:0]
	clear(a.points)
	return nil
}

func (a *atsReader) emitColumn(c *atsColumn) error {
	c.emitted = true
	for _, t := range c.twps {
		if err := a.emitTownship(c.rng, t, c.first[t]); err != nil {
			return err
		}
	}
	return nil
}

// atsCodes maps each code to the point's offset in the section's lattice,
// in half-section steps from the south-east corner: x westward, y
// northward.
var atsCodes = map[string][2]int32{
	"SE": {0, 0}, "SW": {2, 0}, "NW": {2, 2}, "NE": {0, 2},
	"S4": {1, 0}, "W4": {2, 1}, "N4": {1, 2}, "E4": {0, 1},
	"CS": {1, 1},
}

// atsPointKey is the physical position of the point named code (as its
// lattice offset) of section s of township (rng, twp) west of meridian
// mer.
func atsPointKey(mer, rng, twp, s int, off [2]int32) atsKey {
	row, col := dls.SectionCell(s)
	x := int32(2*((rng-1)*6+(5-col))) + off[0]
	y := int32(2*((twp-1)*6+row)) + off[1]
	// The north edge of a 4k+2 township is a correction line: its points
	// belong to that township only.
	below := row == 5 && off[1] == 2 && twp%4 == 2
	return atsKey{mer: uint8(mer), below: below, x: x, y: y}
}

// atsAliases lists the names under which the file may give the point code
// of section s, for error messages: "NW of 25-24-1-W5", ...
func atsAliases(mer, rng, twp, s int, code string) []string {
	want := atsPointKey(mer, rng, twp, s, atsCodes[code])
	var names []string
	for r := rng - 1; r <= rng+1; r++ {
		for t := twp - 1; t <= twp+1; t++ {
			if r < 1 || r > 34 || t < 1 || t > 126 {
				continue
			}
			for sec := 1; sec <= 36; sec++ {
				for _, c := range [...]string{"SE", "SW", "NW", "NE", "S4", "W4", "N4", "E4", "CS"} {
					if atsPointKey(mer, r, t, sec, atsCodes[c]) == want {
						names = append(names, atsName(c, mer, r, t, sec))
					}
				}
			}
		}
	}
	return names
}

func atsName(code string, mer, rng, twp, sec int) string {
	return fmt.Sprintf("%s of %d-%d-%d-W%d", strings.TrimSpace(code), sec, twp, rng, mer)
}
