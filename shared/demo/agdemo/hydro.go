package agdemo

import (
	"fmt"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
)

// demoWater are the water bodies: township, part of the township (fractions
// west..east, south..north), definition, permanency and name.
var demoWater = []struct {
	twp            string
	x0, y0, x1, y1 float64
	def, perm      string
	name           string
}{
	{"24-1-W5", 0.55, 0.50, 0.70, 0.62, "Lake", "Permanent", "Demo Lake 1"},
	{"24-1-W5", 0.20, 0.22, 0.26, 0.27, "Wetland", "Permanent", ""},
	{"25-1-W5", 0.30, 0.70, 0.60, 0.85, "Reservoir", "Permanent", "Demo Reservoir 1"},
	{"25-1-W5", 0.80, 0.10, 0.86, 0.15, "Wetland", "Intermittent", ""},
	{"50-26-W4", 0.10, 0.40, 0.16, 0.45, "Wetland", "Permanent", ""},
	{"50-26-W4", 0.70, 0.75, 0.74, 0.79, "Wetland", "Intermittent", ""},
	{"50-26-W4", 0.45, 0.12, 0.48, 0.15, "Pond", "Permanent", ""},
	{"48-7-W5", 0.35, 0.55, 0.55, 0.70, "Lake", "Permanent", "Demo Lake 2"},
	{"48-7-W5", 0.65, 0.80, 0.80, 0.92, "Wetland", "Permanent", "Demo Fen 1"},
	{"10-15-W4", 0.05, 0.60, 0.30, 0.80, "Reservoir", "Permanent", "Demo Reservoir 2"},
	{"38-5-W3", 0.60, 0.30, 0.72, 0.38, "Lake", "Intermittent", "Demo Lake 3"},
	{"50-20-W3", 0.40, 0.40, 0.47, 0.46, "Wetland", "Permanent", ""},
	{"50-20-W3", 0.10, 0.80, 0.25, 0.92, "Lake", "Permanent", "Demo Lake 4"},
	{"10-9-W1", 0.50, 0.50, 0.55, 0.54, "Wetland", "Intermittent", ""},
	{"14-26-W1", 0.20, 0.15, 0.35, 0.25, "Lake", "Permanent", "Demo Lake 5"},
	{"14-26-W1", 0.75, 0.60, 0.80, 0.65, "Wetland", "Permanent", ""},
}

// demoStreams are the watercourses: township, points as fractions of the
// township, definition, permanency and name.
var demoStreams = []struct {
	twp       string
	pts       [][2]float64
	def, perm string
	name      string
}{
	{"24-1-W5", [][2]float64{{0, 0.8}, {0.3, 0.7}, {0.6, 0.75}, {1, 0.6}}, "Watercourse", "Permanent", "Demo Creek 1"},
	{"25-1-W5", [][2]float64{{0.1, 0}, {0.2, 0.4}, {0.15, 0.7}, {0.3, 1}}, "Watercourse", "Permanent", "Demo River 1"},
	{"48-7-W5", [][2]float64{{0, 0.2}, {0.5, 0.3}, {1, 0.1}}, "Watercourse", "Permanent", "Demo River 2"},
	{"10-15-W4", [][2]float64{{0.3, 0.7}, {0.6, 0.5}, {1, 0.45}}, "Canal", "Permanent", "Demo Canal 1"},
	{"38-5-W3", [][2]float64{{0, 0.5}, {0.4, 0.45}, {0.6, 0.34}}, "Watercourse", "Intermittent", ""},
	{"5-6-W1", [][2]float64{{0.7, 0}, {0.65, 0.5}, {0.8, 1}}, "Watercourse", "Permanent", "Demo River 3"},
	{"14-26-W1", [][2]float64{{0.28, 0.25}, {0.5, 0.6}, {0.6, 1}}, "Watercourse", "Permanent", "Demo Creek 2"},
}

func (d *demo) hydro() error {
	var g geoJSONWriter
	for i, w := range demoWater {
		b := demoPart(demoBound(w.twp), w.x0, w.y0, w.x1, w.y1)
		var name any
		if w.name != "" {
			name = w.name
		}
		g.add(b.ToPolygon(), prop{"feature_id", fmt.Sprintf("demo-wb-%03d", i+1)}, prop{"definit_en", w.def}, prop{"perm_en", w.perm}, prop{"name_en", name})
	}
	if err := d.writeGeoJSON(WaterBodies, &g); err != nil {
		return err
	}
	// The watercourses as the NHN's flow lines (NHNLayout): DEFINITION as
	// the NHN code (9 watercourse, 1 canal), PERMANENCY as a code (⚠ 1
	// permanent, 2 intermittent: not verified).
	nhnCode := map[string]string{"Watercourse": "9", "Canal": "1"}
	permCode := map[string]string{"Permanent": "1", "Intermittent": "2"}
	fields := []shp.Field{cField("NID", 32), nField("DEFINITION", 2, 0), nField("PERMANENCY", 2, 0), cField("NAME_EN", 40)}
	return d.shapefile(Watercourses, shp.PolyLine, fields, func(add func(orb.Geometry, ...string) error) error {
		for i, s := range demoStreams {
			b := demoBound(s.twp)
			var ls orb.LineString
			for _, p := range s.pts {
				ls = append(ls, demoPart(b, 0, 0, p[0], p[1]).Max) // the point at fractions p of b
			}
			if err := add(ls, fmt.Sprintf("demo-nhn-flow-%03d", i+1), nhnCode[s.def], permCode[s.perm], s.name); err != nil {
				return err
			}
		}
		return nil
	})
}
