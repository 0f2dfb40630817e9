package agdemo

import (
	"fmt"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
	"meridian/shared/survey/dls"
)

func (d *demo) crownLand() error {
	fields := []shp.Field{cField("LLD", 16), cField("LEASE_TYPE", 12), cField("STATUS", 8), cField("DISP_NO", 10)}
	types := []string{"Grazing", "Grazing", "Cultivation", "Hay"}
	n := 0
	return d.shapefile(CrownLand, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, twp := range []string{"38-5-W3", "50-20-W3"} {
			for _, loc := range demoQuarters(twp) {
				r := newDemoRand("crown " + loc.String())
				if loc.Section < 25 || r.Float() > 0.35 {
					continue
				}
				n++
				status := "Leased"
				if r.Float() < 0.2 {
					status = "Vacant"
				}
				if err := add(dls.Bound(loc).ToPolygon(), loc.String(), types[r.Intn(len(types))], status, fmt.Sprintf("GL%06d", 900000+n)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (d *demo) pastures() error {
	var g geoJSONWriter
	g.add(demoSections("10-14-W2", demoRange(25, 36)...).ToPolygon(), prop{"PASTURE", "Demo Community Pasture A"}, prop{"PROGRAM", "Saskatchewan Pastures Program"})
	g.add(demoSections("38-5-W3", demoRange(31, 36)...).ToPolygon(), prop{"PASTURE", "Demo Pasture B"}, prop{"PROGRAM", "Former PFRA"})
	return d.writeGeoJSON(Pastures, &g)
}
