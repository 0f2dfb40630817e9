// Package agdemo generates the agriculture demo data: a small invented
// dataset for eleven townships of AB, SK and MB and two of BC (Write),
// and the same file set at the prairie provinces' published sizes for
// scale tests (WriteScale), every file in the layout of the real dataset
// (AAFC crop inventory and land use GeoTIFFs, SLC, AGRASID and SLC LSRS,
// CLI, the Canadian Drought Monitor, NHN/CanVec hydro, municipal
// boundaries, Saskatchewan Crown land and pastures, the BC layers) so that
// the local server ingests them with agingest exactly as it ingests the
// real files. Each report section is present for some quarters and absent
// for others (see the README Write writes), and the output is the same,
// byte for byte, on every run. It is separate from agingest so that
// production ingest never links a generator; it imports agingest for the
// crop legend, the CLI field letters and the pixels a raster reader counts
// for a quarter (PixelZone). Files whose names carry no date are as of
// demo.AsOf.
//
// There is one file per dataset, named as agingest's reader of it
// (aci.go, landuse.go, slc.go, lsrs.go, cli.go, drought.go, hydro.go,
// municipal.go, crown.go, bc.go), beside raster.go (the GeoTIFF clips
// both rasters share), writers.go (shapefile sets through shp.SetWriter,
// GeoJSON through package demo) and scale*.go (WriteScale).
package agdemo

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"

	"github.com/paulmach/orb"

	demodata "meridian/shared/demo"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

// The demo dataset: eleven townships of AB, SK and MB, every dataset in
// the format the readers take, all values invented. Which sections of the
// report each township can fill is laid out in demoReadme.

// demoTownships are the townships the demo dataset covers.
var demoTownships = []string{
	"24-1-W5", "25-1-W5", "50-26-W4", "48-7-W5", "10-15-W4", // AB
	"10-14-W2", "38-5-W3", "50-20-W3", // SK
	"5-6-W1", "10-9-W1", "14-26-W1", // MB
}

// Townships returns the townships the demo dataset covers: AB
// 24-1-W5, 25-1-W5, 50-26-W4, 48-7-W5, 10-15-W4; SK 10-14-W2, 38-5-W3,
// 50-20-W3; MB 5-6-W1, 10-9-W1, 14-26-W1.
func Townships() []string { return slices.Clone(demoTownships) }

// Demo file names, relative to the directory Write writes.
const (
	CropLegend       = "aci_class_legend.csv"
	SLCPolygons      = "ca_all_slc_v3r2.shp"
	SLCComponents    = "ca_all_slc_v3r2_cmp.dbf"
	SoilNames        = "soil_name_ab_sk_mb_demo.dbf"
	SoilLayers       = "soil_layer_ab_sk_mb_demo.dbf"
	AGRASIDLSRS      = "DominantAGRASID_LSRSforQuarterSections.shp"
	SLCLSRS          = "slc_lsrs_sk_mb.csv"
	CLI              = "cli_agriculture_250k.shp"
	WaterBodies      = "waterbody_2.geojson"
	Watercourses     = "NHN_HN_NLFLOW_1.shp"
	Municipalities   = "municipalities.geojson"    // AB and SK, census subdivisions
	MBMunicipalities = "municipalities_mb.geojson" // Manitoba's layout
	CrownLand        = "sk_ag_crown_land.shp"
	Pastures         = "sk_pastures.geojson"

	// British Columbia map layers, in BC Albers (EPSG:3005) as DataBC
	// publishes them, around Fort St. John in the Peace River Block.
	BCCapability = "bc_ag_capability.shp"
	ALR          = "TSLRPLS_polygon.shp"       // DataBC's shapefile of OATS_ALR_POLYS
	FWAWetlands  = "FWA_WETLANDS_POLY.geojson" // the Warehouse layer's names, longitude and latitude
)

// Write writes the demo agriculture dataset into dir (created if
// needed): the files named by the file name constants, the drought releases,
// .shx, .dbf, .prj and .cpg files beside each shapefile, and a README.md
// saying that everything is invented. The output is the same, byte for
// byte, on every run.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("ag: demo: %w", err)
	}
	d := &demo{dir: dir}
	for _, step := range []func() error{
		d.readme, d.cropLegend, d.crops, d.landUse, d.slc, d.lsrs, d.cli,
		d.drought, d.hydro, d.municipalities, d.crownLand, d.pastures,
		d.bcCapability, d.alr, d.fwaWetlands,
	} {
		if err := step(); err != nil {
			return fmt.Errorf("ag: demo: %w", err)
		}
	}
	return nil
}

type demo struct{ dir string }

func (d *demo) write(name string, b []byte) error {
	return os.WriteFile(filepath.Join(d.dir, name), b, 0o644)
}

// Geometry and randomness helpers of the demo tables.

func demoLoc(s string) lld.Location {
	l, err := lld.Parse(s)
	if err != nil {
		panic(err) // the demo tables are constants
	}
	return l
}

func demoBound(s string) orb.Bound { return dls.Bound(demoLoc(s)) }

// demoSections is the bound of some sections of a township.
func demoSections(twp string, secs ...int) orb.Bound {
	var b orb.Bound
	for i, s := range secs {
		sb := demoBound(fmt.Sprintf("%d-%s", s, twp))
		if i == 0 {
			b = sb
		} else {
			b = b.Union(sb)
		}
	}
	return b
}

func demoRange(from, to int) []int {
	var s []int
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

// demoQuarters returns the 144 quarters of a township: sections 1 to 36,
// each NE, NW, SW, SE.
func demoQuarters(twp string) []lld.Location {
	var qs []lld.Location
	for s := 1; s <= 36; s++ {
		for _, q := range []string{"NE", "NW", "SW", "SE"} {
			qs = append(qs, demoLoc(fmt.Sprintf("%s-%d-%s", q, s, twp)))
		}
	}
	return qs
}

// demoPart returns the part of b between fractions x0..x1 of its width
// (west to east) and y0..y1 of its height (south to north).
func demoPart(b orb.Bound, x0, y0, x1, y1 float64) orb.Bound {
	w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
	return orb.Bound{
		Min: orb.Point{b.Min[0] + x0*w, b.Min[1] + y0*h},
		Max: orb.Point{b.Min[0] + x1*w, b.Min[1] + y1*h},
	}
}

func demoPad(b orb.Bound, deg float64) orb.Bound { return b.Pad(deg) }

// newDemoRand is a demo stream seeded by a string, so each quarter's
// values depend on nothing else.
func newDemoRand(key string) *demodata.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return demodata.NewRand(h.Sum64())
}
