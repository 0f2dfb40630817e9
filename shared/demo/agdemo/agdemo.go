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
package agdemo

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/ag/agingest"
	demodata "meridian/shared/demo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/report"
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

// demoYears are the crop inventory years of the demo, 2021 to 2025.
var demoYears = []int{2021, 2022, 2023, 2024, 2025}

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

// --- geometry and randomness helpers ---

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

// --- file writers ---

const nad83WKT = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

// bcAlbersWKT is the .prj of NAD83 / BC Albers (EPSG:3005) as ArcGIS
// writes it.
const bcAlbersWKT = `PROJCS["NAD_1983_BC_Environment_Albers",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Albers"],PARAMETER["False_Easting",1000000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-126.0],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",58.5],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Meter",1.0]]`

// shapefile writes name (.shp) with its .shx, .dbf, .prj and .cpg, in
// NAD83 longitude and latitude.
func (d *demo) shapefile(name string, t shp.ShapeType, fields []shp.Field, rec func(add func(orb.Geometry, ...string) error) error) error {
	return d.projectedShapefile(name, nil, t, fields, rec)
}

// projectedShapefile writes a shapefile whose coordinates are converted
// from longitude and latitude by p, with p's .prj; nil p: NAD83 longitude
// and latitude. Only BC Albers is written this way.
func (d *demo) projectedShapefile(name string, p proj.Projection, t shp.ShapeType, fields []shp.Field, rec func(add func(orb.Geometry, ...string) error) error) error {
	prj := nad83WKT
	if p != nil {
		if p.EPSG() != proj.EPSGBCAlbers {
			return fmt.Errorf("%s: no .prj for %s", name, p.Name())
		}
		prj = bcAlbersWKT
	}
	// The set streams to its files: the writer seeks back only to fill
	// in the headers. A table on its own (Null) is the .dbf alone.
	var w *shp.SetWriter
	var err error
	if t == shp.Null {
		w, err = shp.NewTableWriter(shp.Dir(d.dir), name, fields, shp.WriterOptions{Encoding: shp.UTF8})
	} else {
		w, err = shp.NewSetWriter(shp.Dir(d.dir), strings.TrimSuffix(name, ".shp"), t, fields, shp.SetOptions{
			WriterOptions: shp.WriterOptions{Encoding: shp.UTF8}, PRJ: prj, CPG: true})
	}
	if err != nil {
		return err
	}
	if err := rec(func(g orb.Geometry, attrs ...string) error {
		if p != nil {
			var err error
			if g, err = project(g, p); err != nil {
				return err
			}
		}
		return w.Write(g, attrs)
	}); err != nil {
		w.Abort()
		return fmt.Errorf("%s: %w", name, err)
	}
	return w.Close()
}

// dbfTable writes a dBASE table on its own.
func (d *demo) dbfTable(name string, fields []shp.Field, rows [][]string) error {
	return d.shapefile(name, shp.Null, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, r := range rows {
			if err := add(nil, r...); err != nil {
				return err
			}
		}
		return nil
	})
}

func cField(name string, n int) shp.Field {
	return shp.Field{Name: name, Type: shp.Character, Length: n}
}
func nField(name string, n, dec int) shp.Field {
	return shp.Field{Name: name, Type: shp.Numeric, Length: n, Decimals: dec}
}

// geoJSONWriter builds a FeatureCollection with package demo's writer
// (one feature per line, geometries through orb), rings oriented as RFC
// 7946 asks and coordinates at 6 decimals, as the agencies' GeoJSON
// downloads give them.
type geoJSONWriter struct {
	b  bytes.Buffer
	fc *demodata.FeatureCollection
}

type prop struct {
	k string
	v any
}

func (g *geoJSONWriter) add(geom orb.Geometry, props ...prop) {
	if g.fc == nil {
		g.fc = demodata.NewFeatureCollection(&g.b, "", 0)
	}
	ps := make([]demodata.Prop, len(props))
	for i, p := range props {
		ps[i] = demodata.Prop{Key: p.k, Value: p.v}
	}
	switch t := geom.(type) {
	case orb.Polygon:
		geom = ingest.OrientRings(clonePolygon(t))
	case orb.MultiPolygon:
		m := make(orb.MultiPolygon, len(t))
		for i, p := range t {
			m[i] = ingest.OrientRings(clonePolygon(p))
		}
		geom = m
	case orb.LineString:
	default:
		geom = nil // written as null
	}
	if geom != nil {
		geom = demodata.Round(geom, 6)
	}
	g.fc.Feature(geom, ps...)
}

// len is the number of features added.
func (g *geoJSONWriter) len() int {
	if g.fc == nil {
		return 0
	}
	return g.fc.Len()
}

// flush writes the features added so far to w and forgets them, so that a
// large collection streams; finish ends it.
func (g *geoJSONWriter) flush(w io.Writer) error {
	_, err := w.Write(g.b.Bytes())
	g.b.Reset()
	return err
}

// finish writes the rest of the collection to w (flush, then bytes).
func (g *geoJSONWriter) finish(w io.Writer) error {
	b, err := g.bytes()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// bytes ends the collection and returns what was not flushed.
func (g *geoJSONWriter) bytes() ([]byte, error) {
	if g.fc == nil {
		g.fc = demodata.NewFeatureCollection(&g.b, "", 0)
	}
	err := g.fc.End()
	return g.b.Bytes(), err
}

// writeGeoJSON ends g and writes it as name.
func (d *demo) writeGeoJSON(name string, g *geoJSONWriter) error {
	b, err := g.bytes()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return d.write(name, b)
}

func clonePolygon(p orb.Polygon) orb.Polygon {
	c := make(orb.Polygon, len(p))
	for i, r := range p {
		c[i] = append(orb.Ring(nil), r...)
	}
	return c
}

// --- README ---

const demoReadme = `# Meridian demo agriculture data — INVENTED

Every value in these files is invented for demonstration and testing
(package meridian/shared/demo/agdemo, Write). The files have the layouts
of the real datasets (AAFC Annual Crop Inventory and Land Use GeoTIFFs,
clipped around the demo townships and named with a _demo-<township> suffix, Soil Landscapes of Canada v3.2, AGRASID LSRS, Canada Land
Inventory, Canadian Drought Monitor, NHN/CanVec hydro, municipal
boundaries, Saskatchewan Crown land and pastures, BC agricultural capability,
the BC Agricultural Land Reserve and Freshwater Atlas wetlands), but soil names,
ratings and crops are made up, and every name the demo gives a
municipality, water body, watercourse, pasture or wetland is invented and
contains "Demo" ("Demo Lake 1", "RM of Demo East No. 901"): no real place
is named at a made-up spot. SLC polygon ids 990001-990012 (ecodistrict
990) do not exist in the real SLC. Municipalities carry DEMO=Y; ALR
polygon ids 40211-40214 and wetland ids 700101-700112 are invented.

The Canadian Drought Monitor is written as AAFC publishes it: one GeoJSON
file per month and class, CDM_{yy}{mm}_D{d}_LR.geojson (2025-06: D0;
2025-07: D0, D1; 2025-08: D0 to D2), features without attributes.
Municipal boundaries: AB and SK as Statistics Canada census subdivisions
(municipalities.geojson), Manitoba in its own layout (MUNI_NAME,
MUNI_TYPE, MUNI_LIST_NAME_WITH_TYPE; municipalities_mb.geojson).

Townships: AB 24-1-W5, 25-1-W5, 50-26-W4, 48-7-W5, 10-15-W4; SK 10-14-W2,
38-5-W3, 50-20-W3; MB 5-6-W1, 10-9-W1, 14-26-W1 (all 144 quarters each).
BC map layers only (the report does not cover BC), in BC Albers
(EPSG:3005) as DataBC publishes them: 83-18-W6 and 84-19-W6 near Fort
St. John.

What is deliberately missing, so that every report section is absent
somewhere:

| section | missing for |
|---|---|
| productivity.lsrs | 50-20-W3 (no SLC LSRS row); AB 48-7-W5 sections 31-36 (no AGRASID row); NE-36-10-15-W4 not rated |
| productivity.cli | 50-20-W3, 14-26-W1 |
| cropping | 50-20-W3 sections 19-24 |
| soil | 14-26-W1 sections 19-36 (no SLC polygon) |
| land_use | 10-9-W1 |
| drought (2025-08) | 48-7-W5, 50-20-W3, 10-9-W1, 14-26-W1, and NE-18-38-5-W3 (a hole in the D0 area) |
| wetlands | 10-15-W4, 10-14-W2, 38-5-W3, 5-6-W1 |
| hydrology | 10-14-W2 (no water at all) |
| parcel_context | 50-20-W3 (no municipality) |
| provincial_detail | AB (none by design); SK Crown land only in 38-5-W3 and 50-20-W3, pastures in 10-14-W2 and 38-5-W3 |
`

func (d *demo) readme() error { return d.write("README.md", []byte(demoReadme)) }

// --- crops ---

// demoFarm says how a township's quarters are farmed.
type demoFarm struct {
	cycles  [][]int // crop rotations (ACI codes), one chosen per quarter
	pasture float64 // share of quarters in pasture and forage
	forest  float64 // share of quarters mostly forest
	minors  []int   // classes that share a quarter with its main class
}

var demoFarms = map[string]demoFarm{
	"24-1-W5":  {[][]int{{153, 133, 146}, {153, 133, 136, 133}}, 0.35, 0.05, []int{110, 80, 34}},
	"25-1-W5":  {[][]int{{153, 133, 146}, {133, 122, 122, 153}}, 0.30, 0.08, []int{110, 80, 20}},
	"50-26-W4": {[][]int{{153, 146, 133, 162}, {153, 146}}, 0.10, 0.02, []int{80, 34, 220}},
	"48-7-W5":  {[][]int{{153, 133, 136}}, 0.45, 0.30, []int{230, 80, 110}},
	"10-15-W4": {[][]int{{146, 177, 153, 178}, {147, 167, 146}, {146, 153}}, 0.12, 0, []int{110, 34, 20}},
	"10-14-W2": {[][]int{{146, 153, 174, 154}, {146, 174}}, 0.08, 0, []int{110, 80}},
	"38-5-W3":  {[][]int{{146, 153, 162, 131}, {146, 174, 153}}, 0.10, 0, []int{110, 80, 34}},
	"50-20-W3": {[][]int{{153, 146, 133, 136}}, 0.25, 0.10, []int{220, 80, 110}},
	"5-6-W1":   {[][]int{{158, 147, 146, 153}, {158, 146, 157}}, 0.03, 0, []int{34, 80}},
	"10-9-W1":  {[][]int{{146, 153, 158, 136}, {146, 153}}, 0.06, 0.02, []int{80, 34, 220}},
	"14-26-W1": {[][]int{{153, 146, 136, 133}, {153, 146}}, 0.20, 0.08, []int{220, 80, 110}},
}

// demoQuarterKind is how a quarter is used: 0 cropland, 1 pasture, 2 forest.
func demoQuarterKind(twp string, loc lld.Location) (kind int, cycle []int, offset int) {
	f := demoFarms[twp]
	r := newDemoRand("use " + loc.String())
	x := r.Float()
	switch {
	case x < f.forest:
		return 2, nil, 0
	case x < f.forest+f.pasture:
		return 1, nil, 0
	}
	cycle = f.cycles[r.Intn(len(f.cycles))]
	return 0, cycle, r.Intn(len(cycle))
}

// demoShares splits a quarter's pixels between a main class and up to two
// minor ones.
func demoShares(r *demodata.Rand, main int, minors []int) []agingest.ClassShare {
	total := 690 + r.Intn(60)
	var cs []agingest.ClassShare
	left := total
	var picked []int
	for _, m := range minors {
		if m != main && len(picked) < 2 && r.Float() < 0.45 {
			picked = append(picked, m)
		}
	}
	mainPx := total
	if len(picked) > 0 {
		mainPx = int(float64(total) * (0.78 + 0.2*r.Float()))
	}
	cs = append(cs, agingest.ClassShare{Code: main, Pixels: mainPx})
	left -= mainPx
	for i, m := range picked {
		px := left
		if i < len(picked)-1 {
			px = max(1, left/2)
		}
		if px < 1 {
			break
		}
		cs = append(cs, agingest.ClassShare{Code: m, Pixels: px})
		left -= px
	}
	for i := range cs {
		cs[i].Pct = report.Round(100*float64(cs[i].Pixels)/float64(total), 2)
	}
	return cs
}

func (d *demo) cropLegend() error {
	var b bytes.Buffer
	b.WriteString("value,hex_colour,label\n")
	for _, c := range agingest.CropClasses() {
		fmt.Fprintf(&b, "%d,%s,%s\n", c.Code, c.Colour, c.Label)
	}
	return d.write(CropLegend, b.Bytes())
}

// The crop inventory and land use rasters. AAFC ships one ACI GeoTIFF per
// province and year and one Land Use GeoTIFF per UTM zone and vintage;
// the demo ships clips of them around its townships (as `gdal_translate
// -projwin` would cut), named as the published file with a
// "_demo-<township>" suffix, so that a few hundred kilobytes stand for
// gigabytes. Pixels are 30 m on a grid aligned to multiples of 30 m, so
// clips of one file line up; every pixel whose centre is in a demo quarter
// (by the grid model's polygon) holds a class, the others nodata (0).
// Each quarter's classes are laid out as strips, the minor classes first
// (a slough, a yard), in the shares demoShares draws.

// demoClusters are the demo townships grouped into clips: adjacent
// townships share one, so that no pixel is in two clips.
var demoClusters = []struct {
	prov string // the ACI file's province
	zone int    // the Land Use file's UTM zone
	epsg int    // the ACI clip's coordinate system (the real one is unverified)
	twps []string
}{
	{"ab", 11, 26912, []string{"24-1-W5", "25-1-W5"}},
	{"ab", 12, 26912, []string{"50-26-W4"}},
	{"ab", 11, 26912, []string{"48-7-W5"}},
	{"ab", 12, 26912, []string{"10-15-W4"}},
	{"sk", 13, 26913, []string{"10-14-W2"}},
	{"sk", 13, 26913, []string{"38-5-W3"}},
	{"sk", 12, 26913, []string{"50-20-W3"}},
	{"mb", 14, 26914, []string{"5-6-W1"}},
	{"mb", 14, 26914, []string{"10-9-W1"}},
	{"mb", 14, 26914, []string{"14-26-W1"}},
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

// demoClass is a quarter's classes in one year, in pixel shares.
type demoClass func(loc lld.Location, twp string) []agingest.ClassShare

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

// raster writes a clip over townships twps in EPSG code epsg, 8-bit,
// tiled 256 × 256, nodata 0, each quarter's pixels split by classes.
func (d *demo) raster(name string, epsg, compression int, twps []string, classes demoClass) error {
	p, err := proj.FromEPSG(epsg)
	if err != nil {
		return err
	}
	type quarter struct {
		loc   lld.Location
		twp   string
		polys orb.MultiPolygon
	}
	var qs []quarter
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, twp := range twps {
		for _, loc := range demoQuarters(twp) {
			blk, ok := dls.Resolve(loc)
			if !ok {
				return fmt.Errorf("%s: not in the grid model", loc)
			}
			var polys orb.MultiPolygon
			switch g := blk.Geometry.(type) {
			case orb.Polygon:
				polys = orb.MultiPolygon{g}
			case orb.MultiPolygon:
				polys = g
			}
			for _, poly := range polys {
				for _, ll := range poly[0] {
					x, y, err := p.FromLngLat(ll)
					if err != nil {
						return err
					}
					minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
				}
			}
			qs = append(qs, quarter{loc, twp, polys})
		}
	}
	// A 300 m margin, on the 30 m grid.
	x0, y0 := math.Floor(minX/30)*30-300, math.Ceil(maxY/30)*30+300
	w, h := int(math.Ceil((maxX+300-x0)/30)), int(math.Ceil((y0-(minY-300))/30))
	geo := geotiff.Geo{Transform: [6]float64{x0, 30, 0, y0, 0, -30}}
	px := make([]byte, w*h) // a clip is a few hundred pixels each way
	for _, q := range qs {
		shares := classes(q.loc, q.twp)
		if len(shares) == 0 {
			continue
		}
		z, err := agingest.NewPixelZone(q.loc, q.polys, p, geo, w, h)
		if err != nil || z == nil {
			return fmt.Errorf("%s: %v", q.loc, err)
		}
		top, bot := z.Rows()
		n := 0
		for y := top; y <= bot; y++ {
			z.Spans(y, w, func(a, b int) { n += b - a })
		}
		// Quotas by largest remainder, each class at least one pixel;
		// minor classes first, from the quarter's north edge.
		order := append(slices.Clone(shares[1:]), shares[0])
		quota := make([]int, len(order))
		left := n
		for i, c := range order[:len(order)-1] {
			quota[i] = max(1, int(math.Round(float64(n)*c.Pct/100)))
			left -= quota[i]
		}
		quota[len(order)-1] = left
		k := 0
		for y := top; y <= bot; y++ {
			z.Spans(y, w, func(a, b int) {
				for x := a; x < b; x++ {
					for k < len(quota)-1 && quota[k] == 0 {
						k++
					}
					px[y*w+x] = byte(order[k].Code)
					quota[k]--
				}
			})
		}
	}
	nodata := 0
	o := geotiff.WriteOptions{Width: w, Height: h, Tiled: true, BlockWidth: 256, BlockHeight: 256,
		Compression: compression, Predictor: geotiff.PredictorHorizontal, EPSG: epsg,
		Origin: [2]float64{x0, y0}, PixelSize: [2]float64{30, 30}, NoData: &nodata}
	var b bytes.Buffer
	err = geotiff.Write(&b, o, func(bx, by int, buf []uint16) error {
		for i := range buf {
			if x, y := bx+i%o.BlockWidth, by+i/o.BlockWidth; x < w && y < h {
				buf[i] = uint16(px[y*w+x])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return d.write(name, b.Bytes())
}

// --- soils ---

// demoSoils are the invented soil names (SOIL_ID, name, kind, drainage,
// order, great group, subgroup, parent material deposition).
var demoSoils = [][8]string{
	{"ABDMA~~~~~A", "ELBOW RIDGE", "M", "W", "CH", "BLC", "O", "TILL"},
	{"ABDMB~~~~~A", "JUMPING FLATS", "M", "MW", "CH", "DGC", "O", "TILL"},
	{"ABDMC~~~~~A", "BEAVER MEADOW", "M", "P", "GL", "HG", "R", "LACU"},
	{"ABDMD~~~~~A", "TOFIELD WEST", "M", "W", "CH", "BLC", "E", "LACU"},
	{"ABDME~~~~~N", "MODESTE HILLS", "M", "W", "LU", "GL", "O", "TILL"},
	{"ABDMF~~~~~N", "PEMBINA FEN", "O", "VP", "OR", "M", "T", "FNPT"},
	{"ABDMG~~~~~A", "CHIN COULEE", "M", "W", "CH", "BC", "O", "LACU"},
	{"ABDMH~~~~~A", "TABER BENCH", "M", "W", "CH", "DBC", "O", "FLUV"},
	{"ABDMI~~~~~A", "RETLAW FLATS", "M", "MW", "SZ", "SS", "B", "TILL"},
	{"SKDMA~~~~~A", "SOURIS PLAIN", "M", "W", "CH", "DBC", "O", "TILL"},
	{"SKDMB~~~~~A", "RADVILLE BENCH", "M", "W", "CH", "BC", "CA", "TILL"},
	{"SKDMC~~~~~A", "OUTRAM FLATS", "M", "I", "SZ", "SZ", "DB", "TILL"},
	{"SKDMD~~~~~A", "GOOSE LAKE", "M", "W", "CH", "DBC", "O", "LACU"},
	{"SKDME~~~~~A", "HARRIS PLAIN", "M", "W", "CH", "DBC", "R", "GLFL"},
	{"SKDMF~~~~~A", "MEADOW CREEK", "M", "W", "CH", "BLC", "O", "TILL"},
	{"SKDMG~~~~~N", "WATERHEN RIDGE", "M", "W", "LU", "GL", "O", "TILL"},
	{"MBDMA~~~~~A", "PLUM VALLEY CLAY", "M", "I", "VE", "HV", "O", "LACU"},
	{"MBDMB~~~~~A", "ALTONA PLAIN", "M", "W", "CH", "BLC", "O", "LACU"},
	{"MBDMC~~~~~A", "BOYNE PLAINS", "M", "I", "CH", "BLC", "GLR", "LACU"},
	{"MBDMD~~~~~A", "SILVER RIDGE", "M", "W", "CH", "BLC", "O", "TILL"},
	{"MBDME~~~~~A", "ASSINIBOINE BENCH", "M", "MW", "CH", "DGC", "GL", "GLFL"},
}

// demoSLC are the SLC polygons: id, township, sections covered (all when
// nil) and components (SOIL_ID, percent, slope, stone, surface form).
var demoSLC = []struct {
	id   int
	twp  string
	secs []int
	cmps [][5]string
}{
	{990001, "24-1-W5", nil, [][5]string{{"ABDMA~~~~~A", "60", "C", "S", "H"}, {"ABDMB~~~~~A", "30", "D", "S", "H"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990002, "25-1-W5", nil, [][5]string{{"ABDMB~~~~~A", "50", "C", "S", "R"}, {"ABDMA~~~~~A", "40", "C", "S", "H"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990003, "50-26-W4", demoRange(1, 18), [][5]string{{"ABDMD~~~~~A", "70", "B", "N", "U"}, {"ABDMC~~~~~A", "30", "A", "N", "L"}}},
	{990004, "50-26-W4", demoRange(19, 36), [][5]string{{"ABDMA~~~~~A", "55", "B", "S", "U"}, {"ABDMD~~~~~A", "35", "B", "N", "U"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990005, "48-7-W5", nil, [][5]string{{"ABDME~~~~~N", "65", "C", "S", "H"}, {"ABDMF~~~~~N", "25", "A", "N", "L"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990006, "10-15-W4", nil, [][5]string{{"ABDMG~~~~~A", "45", "A", "N", "L"}, {"ABDMH~~~~~A", "35", "A", "N", "U"}, {"ABDMI~~~~~A", "20", "B", "N", "U"}}},
	{990007, "10-14-W2", nil, [][5]string{{"SKDMA~~~~~A", "50", "B", "S", "U"}, {"SKDMB~~~~~A", "30", "B", "S", "U"}, {"SKDMC~~~~~A", "20", "A", "N", "L"}}},
	{990008, "38-5-W3", nil, [][5]string{{"SKDMD~~~~~A", "60", "A", "N", "L"}, {"SKDME~~~~~A", "40", "B", "N", "U"}}},
	{990009, "50-20-W3", nil, [][5]string{{"SKDMF~~~~~A", "55", "C", "S", "H"}, {"SKDMG~~~~~N", "45", "C", "S", "H"}}},
	{990010, "5-6-W1", nil, [][5]string{{"MBDMA~~~~~A", "70", "A", "N", "L"}, {"MBDMB~~~~~A", "30", "A", "N", "L"}}},
	// Components 1 and 2 tie: the first listed is dominant.
	{990011, "10-9-W1", nil, [][5]string{{"MBDMC~~~~~A", "40", "A", "N", "L"}, {"MBDMB~~~~~A", "40", "A", "N", "L"}, {"MBDME~~~~~A", "20", "B", "N", "U"}}},
	// Covers the south half only: no soil north of section 18.
	{990012, "14-26-W1", demoRange(1, 18), [][5]string{{"MBDMD~~~~~A", "75", "B", "S", "U"}, {"MBDME~~~~~A", "25", "B", "S", "U"}}},
}

func (d *demo) slcBound(i int) orb.Bound {
	p := demoSLC[i]
	if p.secs == nil {
		return demoBound(p.twp)
	}
	return demoSections(p.twp, p.secs...)
}

func (d *demo) slc() error {
	pat := []shp.Field{nField("AREA", 12, 9), nField("PERIMETER", 12, 9), nField("POLY_ID", 10, 0), nField("ECO_ID", 6, 0)}
	err := d.shapefile(SLCPolygons, shp.Polygon, pat, func(add func(orb.Geometry, ...string) error) error {
		for i, p := range demoSLC {
			b := d.slcBound(i)
			w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
			if err := add(b.ToPolygon(), strconv.FormatFloat(w*h, 'f', 9, 64), strconv.FormatFloat(2*(w+h), 'f', 9, 64), strconv.Itoa(p.id), strconv.Itoa(p.id/1000)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var rows [][]string
	for _, p := range demoSLC {
		for i, c := range p.cmps {
			id := c[0]
			rows = append(rows, []string{strconv.Itoa(p.id), strconv.Itoa(i + 1), c[1], c[2], c[3], c[4], id[:2], id[2:5], id[5:10], id[10:], id, strconv.Itoa(p.id*100 + i + 1)})
		}
	}
	cmpFields := []shp.Field{nField("POLY_ID", 10, 0), nField("CMP", 2, 0), nField("PERCENT", 3, 0), cField("SLOPE", 1), cField("STONE", 1), cField("LOCSF", 3),
		cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), cField("SOIL_ID", 11), nField("CMP_ID", 12, 0)}
	if err := d.dbfTable(SLCComponents, cmpFields, rows); err != nil {
		return err
	}
	return writeSoilTables(demoSoils, d.dbfTable)
}

// writeSoilTables writes the SLC soil name and layer tables of soils
// (SOIL_ID, name, kind, drainage, ...; see demoSoils) through table: the
// demo's and the province-size generator's.
func writeSoilTables(soils [][8]string, table func(name string, fields []shp.Field, rows [][]string) error) error {
	var rows [][]string
	for _, s := range soils {
		id := s[0]
		rows = append(rows, []string{id, id[:2], id[2:5], id[5:10], id[10:], s[1], s[2], "NO", "0", "-", s[3], "M", "-", "-", "VC", "-", "-", s[7], "-", "-", "", "", "", s[4], s[5], s[6]})
	}
	sntFields := []shp.Field{cField("SOIL_ID", 11), cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), cField("SOILNAME", 30),
		cField("KIND", 1), cField("WATERTBL", 2), cField("ROOTRESTRI", 1), cField("RESTR_TYPE", 2), cField("DRAINAGE", 2),
		cField("PMTEX1", 2), cField("PMTEX2", 2), cField("PMTEX3", 2), cField("PMCHEM1", 2), cField("PMCHEM2", 2), cField("PMCHEM3", 2),
		cField("MDEP1", 4), cField("MDEP2", 4), cField("MDEP3", 4), cField("ORDER2", 2), cField("G_GROUP2", 3), cField("S_GROUP2", 4),
		cField("ORDER3", 2), cField("G_GROUP3", 3), cField("S_GROUP3", 4)}
	if err := table(SoilNames, sntFields, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, s := range soils {
		id := s[0]
		for i, l := range demoLayers(s) {
			rows = append(rows, append([]string{id, id[:2], id[2:5], id[5:10], id[10:], strconv.Itoa(i + 1)}, l...))
		}
	}
	sltFields := []shp.Field{cField("SOIL_ID", 11), cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), nField("LAYER_NO", 2, 0),
		nField("UDEPTH", 4, 0), nField("LDEPTH", 4, 0), cField("HZN_MAS", 3), nField("TSAND", 4, 0), nField("TSILT", 4, 0), nField("TCLAY", 4, 0),
		nField("ORGCARB", 5, 1), nField("PH2", 4, 1), nField("CEC", 4, 0), nField("BD", 5, 2), nField("EC", 4, 1), nField("KSAT", 5, 1)}
	return table(SoilLayers, sltFields, rows)
}

// demoLayers invents three horizons for a soil: A, B and C (or three
// organic tiers).
func demoLayers(s [8]string) [][]string {
	r := newDemoRand("layers " + s[0])
	clay := 15 + r.Intn(30)
	if s[4] == "VE" {
		clay = 55 + r.Intn(15)
	}
	sand := max(5, 70-clay-r.Intn(25))
	oc := 1.5 + 4*r.Float()
	if s[5] == "BC" || s[5] == "DBC" {
		oc /= 2
	}
	ec := 0.0
	if s[4] == "SZ" {
		ec = 4 + 4*r.Float()
	}
	if s[4] == "OR" {
		return [][]string{
			{"0", "40", "O", "-9", "-9", "-9", "45.0", "5.8", "120", "0.12", "0.0", "-9"},
			{"40", "120", "O", "-9", "-9", "-9", "40.0", "6.0", "110", "0.15", "0.0", "-9"},
			{"120", "160", "C", "30", "40", "30", "1.0", "7.2", "20", "1.40", "0.0", "1.0"},
		}
	}
	layer := func(u, l int, h string, sand, clay int, oc, ph, ec float64) []string {
		silt := 100 - sand - clay
		cec := clay/2 + int(oc*3)
		bd := 1.1 + float64(sand)/200 + float64(u)/400
		ks := max(0.1, float64(sand)/4-float64(clay)/8)
		return []string{strconv.Itoa(u), strconv.Itoa(l), h, strconv.Itoa(sand), strconv.Itoa(silt), strconv.Itoa(clay),
			strconv.FormatFloat(oc, 'f', 1, 64), strconv.FormatFloat(ph, 'f', 1, 64), strconv.Itoa(cec),
			strconv.FormatFloat(bd, 'f', 2, 64), strconv.FormatFloat(ec, 'f', 1, 64), strconv.FormatFloat(ks, 'f', 1, 64)}
	}
	top := 10 + r.Intn(15)
	return [][]string{
		layer(0, top, "A", sand, clay, oc, 6.2+r.Float(), ec/4),
		layer(top, top+30, "B", max(5, sand-5), min(80, clay+8), oc/4, 6.8+r.Float(), ec/2),
		layer(top+30, 100, "C", sand, clay+3, 0.4, 7.6+r.Float()/2, ec),
	}
}

// --- productivity ---

// demoAGRASID are the Dom_LSRS values drawn from for each Alberta township.
var demoAGRASID = map[string][]string{
	"24-1-W5":  {"2H", "3H", "2H", "3HT", "2H(3M)"},
	"25-1-W5":  {"3H", "3T", "2H 7:3 4W", "4T"},
	"50-26-W4": {"2H", "1", "2W", "2H 8:2 4W"},
	"48-7-W5":  {"3H", "4W", "3HW", "5W"},
	"10-15-W4": {"3A", "4A", "3A(2M)", "5N", "4AM"},
}

func (d *demo) lsrs() error {
	fields := []shp.Field{cField("PARCEL_ID", 12), nField("M", 1, 0), nField("RGE", 2, 0), nField("TWP", 3, 0), nField("SEC", 2, 0), cField("QS", 2), cField("Dom_LSRS", 16)}
	n := 0
	err := d.shapefile(AGRASIDLSRS, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, twp := range demoTownships[:5] {
			for _, loc := range demoQuarters(twp) {
				if twp == "48-7-W5" && loc.Section >= 31 {
					continue // not in AGRASID
				}
				ratings := demoAGRASID[twp]
				rating := ratings[newDemoRand("lsrs "+loc.String()).Intn(len(ratings))]
				if loc.String() == "NE-36-10-15-W4" {
					rating = "" // not rated
				}
				n++
				err := add(dls.Bound(loc).ToPolygon(), fmt.Sprintf("AB%010d", 9000000+n), strconv.Itoa(loc.Meridian.Number()),
					strconv.Itoa(int(loc.Range)), strconv.Itoa(int(loc.Township)), strconv.Itoa(int(loc.Section)), loc.Aliquot.String(), rating)
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// SK and MB by SLC polygon; none for 50-20-W3's polygon 990009.
	csv := "POLY_ID,PROVINCE,CROP,RATING\n" +
		"990007,SK,SSSG,3A\n" +
		"990008,SK,SSSG,2A 7:3 4N\n" +
		"990010,MB,SSSG,2W\n" +
		"990011,MB,SSSG,2W 6:4 3D\n" +
		"990012,MB,SSSG,3H\n"
	return d.write(SLCLSRS, []byte(csv))
}

// demoCLI are the CLI polygons: township, sections (all when nil) and
// Class_A, Percent_A, Subclas_A1, Subclas_A2, then the same for B and C.
var demoCLI = []struct {
	twp   string
	secs  []int
	attrs [12]string
}{
	{"24-1-W5", nil, [12]string{"3", "7", "T", "C", "4", "3", "T", "", "", "", "", ""}},
	{"25-1-W5", nil, [12]string{"4", "", "C", "T", "", "", "", "", "", "", "", ""}},
	{"50-26-W4", nil, [12]string{"2", "10", "C", "", "", "", "", "", "", "", "", ""}},
	{"48-7-W5", demoRange(1, 18), [12]string{"4", "6", "W", "", "5", "4", "W", "", "", "", "", ""}},
	{"48-7-W5", demoRange(19, 36), [12]string{"O", "10", "", "", "", "", "", "", "", "", "", ""}},
	{"10-15-W4", nil, [12]string{"3", "8", "M", "", "5", "2", "N", "", "", "", "", ""}},
	{"10-14-W2", nil, [12]string{"2", "10", "M", "", "", "", "", "", "", "", "", ""}},
	{"38-5-W3", nil, [12]string{"3", "6", "M", "", "4", "3", "T", "", "5", "1", "W", ""}},
	{"5-6-W1", nil, [12]string{"2", "10", "W", "D", "", "", "", "", "", "", "", ""}},
	{"10-9-W1", nil, [12]string{"1", "10", "", "", "", "", "", "", "", "", "", ""}},
}

// cliFields are the fields of AAFC's CLI layout (CLIServiceLayout):
// CLASS_A…CLASS_F, PERCENT_A…PERCENT_F, SUBCLAS_A1…SUBCLAS_D2.
func cliFields() []shp.Field {
	letters := agingest.CLIComponentLetters()
	var fields []shp.Field
	for _, x := range letters {
		fields = append(fields, cField("CLASS_"+x, 1))
	}
	for _, x := range letters {
		fields = append(fields, nField("PERCENT_"+x, 2, 0))
	}
	for _, x := range letters[:4] {
		fields = append(fields, cField("SUBCLAS_"+x+"1", 1), cField("SUBCLAS_"+x+"2", 1))
	}
	return fields
}

// cli writes the CLI in the layout of AAFC's cli_agr_cap_250k service
// (CLIServiceLayout): CLASS_A…CLASS_F, PERCENT_A…PERCENT_F,
// SUBCLAS_A1…SUBCLAS_D2, components D to F empty here.
func (d *demo) cli() error {
	return d.shapefile(CLI, shp.Polygon, cliFields(), func(add func(orb.Geometry, ...string) error) error {
		for _, c := range demoCLI {
			b := demoBound(c.twp)
			if c.secs != nil {
				b = demoSections(c.twp, c.secs...)
			}
			vals := make([]string, 20)
			for i := range 3 { // components A to C of the table
				vals[i], vals[6+i], vals[12+2*i], vals[13+2*i] = c.attrs[4*i], c.attrs[4*i+1], c.attrs[4*i+2], c.attrs[4*i+3]
			}
			if err := add(b.ToPolygon(), vals...); err != nil {
				return err
			}
		}
		return nil
	})
}

// --- drought ---

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

// --- hydrology ---

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

// --- municipalities ---

var demoMunicipalities = []struct {
	twps      []string
	uid, name string
	typ       string
	pr        string
}{
	{[]string{"24-1-W5", "25-1-W5"}, "4806901", "Demo County A", "MD", "48"},
	{[]string{"50-26-W4"}, "4811902", "Demo County B", "MD", "48"},
	{[]string{"48-7-W5"}, "4811903", "Demo County C", "MD", "48"},
	{[]string{"10-15-W4"}, "4802904", "Demo Municipal District D", "MD", "48"},
	{[]string{"10-14-W2"}, "4702905", "RM of Demo East No. 901", "RM", "47"},
	{[]string{"38-5-W3"}, "4711906", "RM of Demo West No. 902", "RM", "47"},
}

// demoMBMunicipalities are Manitoba's, in Manitoba's layout: MUNI_NAME,
// MUNI_TYPE, MUNI_LIST_NAME_WITH_TYPE.
var demoMBMunicipalities = []struct {
	twp, name, typ string
}{
	{"5-6-W1", "Demo South", "Municipality"},
	{"10-9-W1", "Demo Plains", "Rural Municipality"},
	{"14-26-W1", "Demo North", "Municipality"},
}

// municipalities writes AB and SK as Statistics Canada census
// subdivisions (CSDLayout) and Manitoba in its own layout
// (MBMunicipalLayout), each municipality marked DEMO=Y.
func (d *demo) municipalities() error {
	var g geoJSONWriter
	for _, m := range demoMunicipalities {
		b := demoBound(m.twps[0])
		for _, t := range m.twps[1:] {
			b = b.Union(demoBound(t))
		}
		g.add(b.ToPolygon(), prop{"CSDUID", m.uid}, prop{"CSDNAME", m.name}, prop{"CSDTYPE", m.typ}, prop{"PRUID", m.pr}, prop{"DEMO", "Y"})
	}
	if err := d.writeGeoJSON(Municipalities, &g); err != nil {
		return err
	}
	var mb geoJSONWriter
	for _, m := range demoMBMunicipalities {
		mb.add(demoBound(m.twp).ToPolygon(), prop{"MUNI_NAME", m.name}, prop{"MUNI_TYPE", m.typ},
			prop{"MUNI_LIST_NAME_WITH_TYPE", strings.ToUpper(m.name + " (" + m.typ + ")")}, prop{"DEMO", "Y"})
	}
	return d.writeGeoJSON(MBMunicipalities, &mb)
}

// --- Saskatchewan Crown land and pastures ---

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

// --- British Columbia: capability, ALR, wetlands (map layers only) ---

// demoBCTownships are the Peace River Block townships of the BC layers.
var demoBCTownships = []string{"83-18-W6", "84-19-W6"}

// project converts a lng/lat polygon to p's coordinates.
func project(g orb.Geometry, p proj.Projection) (orb.Geometry, error) {
	poly, ok := g.(orb.Polygon)
	if !ok {
		return nil, fmt.Errorf("project: %T", g)
	}
	out := make(orb.Polygon, len(poly))
	for i, r := range poly {
		out[i] = make(orb.Ring, len(r))
		for j, pt := range r {
			x, y, err := p.FromLngLat(pt)
			if err != nil {
				return nil, err
			}
			out[i][j] = orb.Point{x, y}
		}
	}
	return out, nil
}

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
