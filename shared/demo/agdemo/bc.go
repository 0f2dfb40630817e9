package agdemo

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
	"meridian/shared/report"
)

// demoBCTownships are the Peace River Block townships of the BC layers.
var demoBCTownships = []string{"83-18-W6", "84-19-W6"}

func bcAlbers() proj.Projection {
	p, err := proj.FromEPSG(proj.EPSGBCAlbers)
	if err != nil {
		panic(err) // a constant code
	}
	return p
}

// densify adds points along a polygon's edges, n per edge, so that its
// straight lng/lat edges stay where they were once projected.
func densify(b orb.Bound, n int) orb.Polygon {
	corners := b.ToRing()
	var r orb.Ring
	for i := 0; i+1 < len(corners); i++ {
		a, c := corners[i], corners[i+1]
		for k := range n {
			f := float64(k) / float64(n)
			r = append(r, orb.Point{a[0] + (c[0]-a[0])*f, a[1] + (c[1]-a[1])*f})
		}
	}
	return orb.Polygon{append(r, r[0])}
}

// bcCapability writes capability polygons in the CLI layout over blocks of
// nine sections, classes 2 to 5 with climate (C) and other limitations.
func (d *demo) bcCapability() error {
	var fields []shp.Field
	for _, x := range []string{"A", "B", "C"} {
		fields = append(fields, cField("Class_"+x, 1), nField("Percent_"+x, 2, 0), cField("Subclas_"+x+"1", 1), cField("Subclas_"+x+"2", 1))
	}
	ratings := [][12]string{
		{"2", "10", "C", "", "", "", "", "", "", "", "", ""},
		{"3", "7", "C", "", "4", "3", "W", "", "", "", "", ""},
		{"3", "", "C", "T", "", "", "", "", "", "", "", ""},
		{"4", "6", "W", "", "5", "4", "T", "", "", "", "", ""},
		{"5", "8", "T", "", "O", "2", "", "", "", "", "", ""},
	}
	return d.projectedShapefile(BCCapability, bcAlbers(), shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, twp := range demoBCTownships {
			// sections 1-36 run in rows of six; blocks of 3x3 sections
			for i, block := range [][]int{{1, 2, 3, 10, 11, 12, 13, 14, 15}, {4, 5, 6, 7, 8, 9, 16, 17, 18},
				{19, 20, 21, 28, 29, 30, 31, 32, 33}, {22, 23, 24, 25, 26, 27, 34, 35, 36}} {
				r := newDemoRand(fmt.Sprintf("bc capability %s %d", twp, i))
				if err := add(densify(demoSections(twp, block...), 8), ratings[r.Intn(len(ratings))][:]...); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// alr writes Agricultural Land Reserve polygons: most of each township but
// a strip along a river valley, with the Warehouse's columns cut to ten
// characters as a shapefile download has them.
func (d *demo) alr() error {
	fields := []shp.Field{cField("STATUS", 10), cField("FTRCD", 10), nField("OBJECTID", 10, 0), nField("AREA_SQM", 19, 4), nField("FEAT_LEN", 19, 4)}
	p := bcAlbers()
	return d.projectedShapefile(ALR, p, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		id := 40210
		for _, twp := range demoBCTownships {
			for _, secs := range [][]int{demoRange(1, 18), demoRange(25, 36)} {
				id++
				poly := densify(demoSections(twp, secs...), 12)
				xy, err := project(poly, p)
				if err != nil {
					return err
				}
				area, length := math.Abs(planar.Area(xy)), planar.Length(xy)
				// FTRCD is left empty: the demo does not know the ALR's feature code.
				if err := add(poly, "ALR", "", fmt.Sprint(id), fmt.Sprintf("%.4f", area), fmt.Sprintf("%.4f", length)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// fwaWetlands writes small wetland polygons (octagons) scattered over the
// townships, two named, as GeoJSON with the Warehouse's column names
// (FWAWarehouseLayout) in longitude and latitude; the areas are measured
// in BC Albers as the Warehouse measures them. The watershed codes the
// demo cannot know are null.
func (d *demo) fwaWetlands() error {
	p := bcAlbers()
	names := []string{"Demo Marsh A", "", "", "Demo Slough B", "", ""}
	var g geoJSONWriter
	id := 700100
	for _, twp := range demoBCTownships {
		b := demoBound(twp)
		r := newDemoRand("fwa " + twp)
		for i := range 6 {
			c := orb.Point{b.Min[0] + (0.1+0.8*r.Float())*(b.Max[0]-b.Min[0]), b.Min[1] + (0.1+0.8*r.Float())*(b.Max[1]-b.Min[1])}
			rx, ry := 0.002+0.004*r.Float(), 0.001+0.002*r.Float()
			var ring orb.Ring
			for k := range 8 {
				a := float64(k) * math.Pi / 4
				ring = append(ring, orb.Point{c[0] + rx*math.Cos(a), c[1] + ry*math.Sin(a)})
			}
			poly := orb.Polygon{append(ring, ring[0])}
			xy, err := project(poly, p)
			if err != nil {
				return err
			}
			id++
			var name any
			if names[i] != "" {
				name = names[i]
			}
			g.add(poly, prop{"WATERBODY_POLY_ID", id}, prop{"WATERSHED_GROUP_ID", nil}, prop{"WATERBODY_TYPE", "W"},
				prop{"GNIS_NAME_1", name}, prop{"FWA_WATERSHED_CODE", nil}, prop{"LOCAL_WATERSHED_CODE", nil},
				prop{"WATERSHED_GROUP_CODE", "LPCE"}, prop{"LEFT_RIGHT_TRIBUTARY", nil},
				prop{"FEATURE_AREA_SQM", report.Round(math.Abs(planar.Area(xy)), 1)}, prop{"FEATURE_LENGTH_M", report.Round(planar.Length(xy), 1)})
		}
	}
	return d.writeGeoJSON(FWAWetlands, &g)
}
