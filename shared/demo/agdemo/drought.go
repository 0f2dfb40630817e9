package agdemo

import (
	"fmt"

	"github.com/paulmach/orb"
)

// demoDroughtMonths are the Canadian Drought Monitor months of the demo,
// oldest first, each with the classes that have a file.
var demoDroughtMonths = []struct {
	yymm    string
	classes int // D0 … D(classes-1)
}{{"2506", 1}, {"2507", 2}, {"2508", 3}}

// Drought returns the file names of the demo's Canadian Drought
// Monitor releases, named as AAFC names them, one file per month and
// class (CDM_{yy}{mm}_D{d}_LR.geojson), oldest month first and D0 first
// within a month; the last month (2025-08) is the current one.
func Drought() []string {
	var out []string
	for _, m := range demoDroughtMonths {
		for d := range m.classes {
			out = append(out, fmt.Sprintf("CDM_%s_D%d_LR.geojson", m.yymm, d))
		}
	}
	return out
}

// drought writes the releases as AAFC publishes them: a GeoJSON file per
// month and class, whose features carry no attributes (the class and
// month are in the file name). Classes nest: each D1 area lies in a D0
// area, each D2 area in a D1 area.
func (d *demo) drought() error {
	ab := demoPad(demoBound("10-15-W4"), 0.05)
	calgary := demoPad(demoBound("24-1-W5").Union(demoBound("25-1-W5")), 0.05)
	d1 := demoPart(demoBound("10-15-W4"), 0, 0, 1, 0.66).ToPolygon()
	d2 := demoPart(demoBound("10-15-W4"), 0, 0, 1, 0.33).ToPolygon()
	// NE-18-38-5-W3 is a hole in the D0 area around 38-5-W3.
	hole := demoBound("NE-18-38-5-W3").ToRing()
	sk := orb.MultiPolygon{
		demoPad(demoBound("10-14-W2"), 0.05).ToPolygon(),
		{demoPad(demoBound("38-5-W3"), 0.05).ToRing(), hole},
	}
	areas := map[string][][]orb.Geometry{ // month: class: features
		"2506": {{ab.ToPolygon()}},
		"2507": {{orb.MultiPolygon{ab.ToPolygon(), calgary.ToPolygon()}}, {d1}},
		"2508": {
			{orb.MultiPolygon{ab.ToPolygon(), calgary.ToPolygon(), demoPad(demoBound("50-26-W4"), 0.05).ToPolygon()}, sk, demoPad(demoBound("5-6-W1"), 0.05).ToPolygon()},
			{d1},
			{d2},
		},
	}
	for _, m := range demoDroughtMonths {
		for class, feats := range areas[m.yymm] {
			var g geoJSONWriter
			for _, f := range feats {
				g.add(f)
			}
			if err := d.writeGeoJSON(fmt.Sprintf("CDM_%s_D%d_LR.geojson", m.yymm, class), &g); err != nil {
				return err
			}
		}
	}
	return nil
}
