package gridingest

import (
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// DeriveManitoba completes one DLS township of Manitoba's data, which
// publishes quarter sections only: a section whose four quarters have
// polygons gets the quadrilateral of their outer corners (the SW quarter's
// SW corner, the SE quarter's SE corner, ...), and a township whose 36
// sections are all complete gets the quadrilateral of its corner sections'
// outer corners. Straight sides between official corners are good to the
// corners' accuracy plus the bow of the side, a few metres on a mile. Other
// groups (river and parish lots) pass through untouched.
func DeriveManitoba(group []gridindex.Record) ([]gridindex.Record, error) {
	quarters := map[[2]uint8]orb.Polygon{} // (section, aliquot) → polygon
	var (
		base lld.Location
		acc  float64
	)
	for _, r := range group {
		l := r.Location
		if l.System != lld.DLS || l.Unit != lld.QuarterSection {
			continue
		}
		p, ok := r.Geometry.(orb.Polygon)
		if !ok {
			continue
		}
		quarters[[2]uint8{l.Section, uint8(l.Aliquot)}] = p
		base = lld.Location{System: lld.DLS, Meridian: l.Meridian, Range: l.Range, Township: l.Township}
		acc = math.Max(acc, r.AccuracyM)
		base.Unit = lld.Township
	}
	if len(quarters) == 0 {
		return nil, nil
	}
	province := group[0].Province
	var out []gridindex.Record
	sections := map[uint8][4]orb.Point{} // section → SW, SE, NE, NW
	for s := uint8(1); s <= 36; s++ {
		sw, ok1 := quarters[[2]uint8{s, uint8(lld.SW)}]
		se, ok2 := quarters[[2]uint8{s, uint8(lld.SE)}]
		ne, ok3 := quarters[[2]uint8{s, uint8(lld.NE)}]
		nw, ok4 := quarters[[2]uint8{s, uint8(lld.NW)}]
		if !ok1 || !ok2 || !ok3 || !ok4 {
			continue
		}
		c := [4]orb.Point{cornerOf(sw, 0), cornerOf(se, 1), cornerOf(ne, 2), cornerOf(nw, 3)}
		sections[s] = c
		l := base
		l.Unit, l.Section = lld.Section, s
		out = append(out, quadRecord(l, province, c, acc))
	}
	if len(sections) == 36 {
		c := [4]orb.Point{sections[6][0], sections[1][1], sections[36][2], sections[31][3]}
		out = append(out, quadRecord(base, province, c, acc))
	}
	return out, nil
}

// cornerOf returns corner i (0 SW, 1 SE, 2 NE, 3 NW) of a quarter polygon.
func cornerOf(p orb.Polygon, i int) orb.Point {
	c, _ := survey.Corners(p)
	return c[i]
}

func quadRecord(l lld.Location, p survey.Province, c [4]orb.Point, acc float64) gridindex.Record {
	return gridindex.Record{Location: l, Province: p, Geometry: orb.Polygon{orb.Ring{c[0], c[1], c[2], c[3], c[0]}}, AccuracyM: acc}
}
