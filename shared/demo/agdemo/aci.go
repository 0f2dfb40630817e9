package agdemo

import (
	"bytes"
	"fmt"

	"meridian/shared/ag/agingest"
	demodata "meridian/shared/demo"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/lld"
)

// demoYears are the crop inventory years of the demo, 2021 to 2025.
var demoYears = []int{2021, 2022, 2023, 2024, 2025}

func (d *demo) cropLegend() error {
	var b bytes.Buffer
	b.WriteString("value,hex_colour,label\n")
	for _, c := range agingest.CropClasses() {
		fmt.Fprintf(&b, "%d,%s,%s\n", c.Code, c.Colour, c.Label)
	}
	return d.write(CropLegend, b.Bytes())
}

// CropRasters returns the file names of the demo's Annual Crop
// Inventory clips: aci_<year>_<prov>_demo-<township>.tif, 2021 to 2025.
func CropRasters() []string {
	var names []string
	for _, y := range demoYears {
		for _, c := range demoClusters {
			names = append(names, fmt.Sprintf("aci_%d_%s_demo-%s.tif", y, c.prov, c.twps[0]))
		}
	}
	return names
}

func (d *demo) crops() error {
	for i, y := range demoYears {
		for _, c := range demoClusters {
			name := fmt.Sprintf("aci_%d_%s_demo-%s.tif", y, c.prov, c.twps[0])
			err := d.raster(name, c.epsg, geotiff.CompressionLZW, c.twps, func(loc lld.Location, twp string) []agingest.ClassShare {
				if twp == "50-20-W3" && loc.Section >= 19 && loc.Section <= 24 {
					return nil // outside the inventory
				}
				kind, cycle, off := demoQuarterKind(twp, loc)
				r := newDemoRand(fmt.Sprintf("crop %s %d", loc, y))
				main := demoCropClass(kind, cycle, i+off, r)
				return demoShares(r, main, demoFarms[twp].minors)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// demoCropClass is a quarter's main crop inventory class in one year, by
// the kind of farm it is on (demoQuarterKind): a crop rotation (cycle, at
// step), mostly pasture (122, some 110), or mostly grassland (230, some
// 210). The demo's rule and the province-size generator's.
func demoCropClass(kind int, cycle []int, step int, r *demodata.Rand) int {
	switch kind {
	case 0:
		return cycle[step%len(cycle)]
	case 1:
		if r.Float() < 0.15 {
			return 110
		}
		return 122
	}
	if r.Float() < 0.3 {
		return 210
	}
	return 230
}
