package gridingest

import (
	"math"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
)

// From the points of an ATS township to its polygons: each section's 5×5
// lattice of points resolved and checked, its LSD and quarter cells, the
// section, and the township as the outline of its sections.

// atsSection is a section's 5×5 lattice of points, [column from west][row
// from south]: corners at 0 and 4, quarter points and centre at 2.
type atsSection struct {
	no       int
	p        [5][5]orb.Point
	surveyed bool // all four quarter points were in the file
}

func (a *atsReader) emitTownship(rng, twp int, first *[37]int) error {
	mer := lld.Meridian(a.mer)
	var secs []atsSection
	firstLine := 0
	for s := 1; s <= 36; s++ {
		if first[s] == 0 {
			continue
		}
		if firstLine == 0 || first[s] < firstLine {
			firstLine = first[s]
		}
		sec, err := a.section(rng, twp, s, first[s])
		if err != nil {
			return err
		}
		secs = append(secs, sec)
	}
	polys := make([]orb.Polygon, len(secs))
	for i := range secs {
		polys[i] = secs[i].polygon()
	}
	g, err := survey.Dissolve(polys)
	if err != nil {
		return a.errorf(firstLine, "township %d-%d-%s: sections do not fit together: %v", twp, rng, mer, err)
	}
	base := lld.Location{System: lld.DLS, Unit: lld.Township, Meridian: mer, Range: uint8(rng), Township: uint8(twp)}
	if err := a.out.send(gridindex.Record{Location: base, Province: survey.AB, Geometry: outerOnly(g), AccuracyM: atsAccuracySection}); err != nil {
		return err
	}
	for i := range secs {
		if err := a.emitSection(base, &secs[i], polys[i]); err != nil {
			return err
		}
	}
	return nil
}

// outerOnly drops the holes of g: a township is the outer boundary of its
// sections even where a section is missing from the file.
func outerOnly(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case orb.Polygon:
		return g[:1]
	case orb.MultiPolygon:
		for i := range g {
			g[i] = g[i][:1]
		}
		return g
	}
	return g
}

// section resolves the points of section s of township (rng, twp).
func (a *atsReader) section(rng, twp, s, line int) (atsSection, error) {
	mer := a.mer
	sec := atsSection{no: s}
	get := func(code string) (orb.Point, bool) {
		p, ok := a.points[atsPointKey(mer, rng, twp, s, atsCodes[code])]
		return p.p, ok
	}
	for _, c := range [...]struct {
		code string
		i, j int
	}{{"SW", 0, 0}, {"SE", 4, 0}, {"NE", 4, 4}, {"NW", 0, 4}} {
		p, ok := get(c.code)
		if !ok {
			return sec, a.errorf(line, "section %d-%d-%d-W%d: no %s corner in the file (looked for it as %s)",
				s, twp, rng, mer, c.code, strings.Join(atsAliases(mer, rng, twp, s, c.code), ", "))
		}
		sec.p[c.i][c.j] = p
	}
	P := &sec.p
	sec.surveyed = true
	for _, q := range [...]struct {
		code           string
		i, j           int
		ai, aj, bi, bj int
	}{
		{"S4", 2, 0, 0, 0, 4, 0}, {"N4", 2, 4, 0, 4, 4, 4},
		{"W4", 0, 2, 0, 0, 0, 4}, {"E4", 4, 2, 4, 0, 4, 4},
	} {
		if p, ok := get(q.code); ok {
			P[q.i][q.j] = p
		} else {
			P[q.i][q.j] = survey.Mid(P[q.ai][q.aj], P[q.bi][q.bj])
			sec.surveyed = false
		}
	}
	if p, ok := get("CS"); ok {
		P[2][2] = p
	} else {
		P[2][2] = centre(P[2][0], P[2][4], P[0][2], P[4][2])
	}
	// Mid-points of the quarter sides and the quarters' centres.
	for _, i := range [...]int{0, 2, 4} {
		P[i][1], P[i][3] = survey.Mid(P[i][0], P[i][2]), survey.Mid(P[i][2], P[i][4])
		P[1][i], P[3][i] = survey.Mid(P[0][i], P[2][i]), survey.Mid(P[2][i], P[4][i])
	}
	for _, i := range [...]int{1, 3} {
		for _, j := range [...]int{1, 3} {
			a, b, c, d := P[i-1][j-1], P[i+1][j-1], P[i+1][j+1], P[i-1][j+1]
			P[i][j] = orb.Point{(a[0] + b[0] + c[0] + d[0]) / 4, (a[1] + b[1] + c[1] + d[1]) / 4}
		}
	}
	// Every LSD must be a proper counter-clockwise quadrilateral; that
	// also rules out corners given in the wrong places.
	for i := range 4 {
		for j := range 4 {
			if survey.TwiceSignedArea(sec.cell(i, j, 1)) <= 0 {
				return sec, a.errorf(line, "section %d-%d-%d-W%d: its corners and quarter points do not form a section (a corner or quarter point is misplaced)", s, twp, rng, mer)
			}
		}
	}
	return sec, nil
}

// centre is where the quarter lines s-n and w-e cross, or the mean of the
// four points when the lines are (nearly) parallel.
func centre(s, n, w, e orb.Point) orb.Point {
	d1x, d1y := n[0]-s[0], n[1]-s[1]
	d2x, d2y := e[0]-w[0], e[1]-w[1]
	den := d1x*d2y - d1y*d2x
	if math.Abs(den) > 1e-12*math.Hypot(d1x, d1y)*math.Hypot(d2x, d2y) && den != 0 {
		t := ((w[0]-s[0])*d2y - (w[1]-s[1])*d2x) / den
		if t >= 0 && t <= 1 {
			return orb.Point{s[0] + t*d1x, s[1] + t*d1y}
		}
	}
	return orb.Point{(s[0] + n[0] + w[0] + e[0]) / 4, (s[1] + n[1] + w[1] + e[1]) / 4}
}

// cell returns the closed counter-clockwise ring of the lattice cell with
// south-west point (i, j) and size k (1: an LSD, 2: a quarter).
func (s *atsSection) cell(i, j, k int) orb.Ring {
	P := &s.p
	return orb.Ring{P[i][j], P[i+k][j], P[i+k][j+k], P[i][j+k], P[i][j]}
}

// polygon is the section with its corners and quarter points as vertices.
func (s *atsSection) polygon() orb.Polygon {
	P := &s.p
	return orb.Polygon{{P[0][0], P[2][0], P[4][0], P[4][2], P[4][4], P[2][4], P[0][4], P[0][2], P[0][0]}}
}

func (a *atsReader) emitSection(base lld.Location, s *atsSection, poly orb.Polygon) error {
	sl := base
	sl.Unit, sl.Section = lld.Section, uint8(s.no)
	if err := a.out.send(gridindex.Record{Location: sl, Province: survey.AB, Geometry: poly, AccuracyM: atsAccuracySection}); err != nil {
		return err
	}
	acc := float64(atsAccuracyQuarterInterp)
	if s.surveyed {
		acc = atsAccuracyQuarter
	}
	for _, q := range [...]struct {
		a    lld.Aliquot
		i, j int
	}{{lld.NE, 2, 2}, {lld.NW, 0, 2}, {lld.SW, 0, 0}, {lld.SE, 2, 0}} {
		ql := sl
		ql.Unit, ql.Aliquot = lld.QuarterSection, q.a
		if err := a.out.send(gridindex.Record{Location: ql, Province: survey.AB, Geometry: orb.Polygon{s.cell(q.i, q.j, 2)}, AccuracyM: acc}); err != nil {
			return err
		}
	}
	for n := 1; n <= 16; n++ {
		row, col := dls.LSDCell(n)
		ll := sl
		ll.Unit, ll.LSD = lld.LSD, uint8(n)
		if err := a.out.send(gridindex.Record{Location: ll, Province: survey.AB, Geometry: orb.Polygon{s.cell(col, row, 1)}, AccuracyM: atsAccuracyLSD}); err != nil {
			return err
		}
	}
	return nil
}

// distanceM is the approximate ground distance between two lng/lat points
// in metres (equirectangular; fine at the metre scale of survey checks).
func distanceM(a, b orb.Point) float64 {
	const r = 6371008.8
	lat := (a[1] + b[1]) / 2 * math.Pi / 180
	dx := (a[0] - b[0]) * math.Pi / 180 * math.Cos(lat) * r
	dy := (a[1] - b[1]) * math.Pi / 180 * r
	return math.Hypot(dx, dy)
}
