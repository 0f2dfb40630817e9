package agdemo

import (
	"fmt"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/lld"
)

// LandUseRasters returns the file names of the demo's Land Use clips:
// IMG_AAFC_LANDUSE_Z<zone>_<year>_demo-<township>.tif, 2015 and 2020,
// in EPSG:3978; 10-9-W1 has none.
func LandUseRasters() []string {
	var names []string
	for _, y := range []int{2015, 2020} {
		for _, c := range demoClusters {
			if c.twps[0] != "10-9-W1" {
				names = append(names, fmt.Sprintf("IMG_AAFC_LANDUSE_Z%02d_%d_demo-%s.tif", c.zone, y, c.twps[0]))
			}
		}
	}
	return names
}

func (d *demo) landUse() error {
	for _, y := range []int{2015, 2020} {
		for _, c := range demoClusters {
			if c.twps[0] == "10-9-W1" {
				continue // not in the land use demo
			}
			name := fmt.Sprintf("IMG_AAFC_LANDUSE_Z%02d_%d_demo-%s.tif", c.zone, y, c.twps[0])
			err := d.raster(name, 3978, geotiff.CompressionDeflate, c.twps, func(loc lld.Location, twp string) []agingest.ClassShare {
				kind, _, _ := demoQuarterKind(twp, loc)
				r := newDemoRand(fmt.Sprintf("landuse %s %d", loc, y))
				main, minors := demoLandUseClasses(kind)
				return demoShares(r, main, minors)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// demoLandUseClasses is a quarter's main land-use class and its minor
// classes by the kind of farm it is on: the demo's rule and the
// province-size generator's.
func demoLandUseClasses(kind int) (main int, minors []int) {
	switch kind {
	case 1:
		return 61, []int{62, 71, 25}
	case 2:
		return 41, []int{46, 62, 71}
	}
	return 52, []int{25, 71, 21}
}
