package agdemo

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	demodata "meridian/shared/demo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/scale"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
)

// The province-size dataset: the demo's file set (Write) over the DLS
// townships of Alberta, Saskatchewan and Manitoba, every value invented.
//
// Extent. Alberta's townships 1 to 126 and Saskatchewan's and Manitoba's
// townships 1 to 92 (to about 57°N: the survey does not go much further
// north there): 17 400 townships, 2.50 million quarter sections by the
// grid model (the AB ones 1.01 million). A fraction f takes every
// (1/f)-th of them in the model's order (meridian, range, township), so a
// small dataset is still spread over the three provinces.
//
// Sizes, and how they compare with the published files:
//   - crop inventory: aci_<year>_<prov>.tif, 2021 to 2025, one a province
//     and year as AAFC ships them, but with ScalePixelM (240 m) pixels on a
//     grid of multiples of 240 m instead of 30 m: 64 times fewer pixels
//     (about 11 a quarter instead of 720), so that three provinces are
//     some 28 million pixels a year, not 1.8 billion. Tiled 256 × 256,
//     LZW, nodata 0, in the province's UTM zone (NAD83).
//   - land use: IMG_AAFC_LANDUSE_Z<zone>_<year>.tif, 2015 and 2020, one a
//     UTM zone (11 to 15) holding the quarters whose centroid is in it,
//     EPSG:3978, 240 m, Deflate.
//   - SLC: one polygon a township (the real SLC's polygons are larger and
//     irregular; the count is of the same order), two or three components
//     each, thirty invented soils a province.
//   - AGRASID LSRS: one polygon a quarter section of Alberta, as the real
//     file has (about a million at fraction 1); SLC LSRS for SK and MB
//     polygons.
//   - CLI: two polygons a township (sections 1-18, 19-36).
//   - drought: three months, one rectangle a block of 10 × 10 townships.
//   - hydrology: up to three water bodies a township (lakes, sloughs,
//     ponds, reservoirs) and a watercourse in half of them.
//   - municipalities: AB counties of 6 × 6 townships, SK rural
//     municipalities of 3 × 3, MB municipalities of 4 × 4, with invented
//     names that all contain "Demo".
//   - SK Crown land on 4% of Saskatchewan's quarters (about 40 000 at
//     fraction 1); a community pasture in 3% of its 3 × 3 blocks.
//   - the BC layers are the demo's (the report does not cover BC).
//
// Memory: the selected townships (at most 17 400, about 2 MB), the
// blocks of the drought, municipality and pasture layers (a few thousand
// bounds), one band of raster pixels (the raster's width × 256 bytes,
// under 2 MB) and the compressed raster being written (a few MB); every
// other file streams to disk. Nothing grows with the fraction but the
// township list, itself bounded by the extent.

// ScalePixelM is the pixel size of the province-size rasters, in metres.
const ScalePixelM = 240

// ScaleQuarters is the number of quarter sections of the province-size
// dataset at fraction 1 (scale.Options.N of it is the target at a
// fraction).
const ScaleQuarters = 2_500_000

// scaleMaxTownship is the northernmost township of SK and MB the dataset
// covers (Alberta's go to 126).
const scaleMaxTownship = 92

// WriteScale writes the agriculture dataset at the three prairie
// provinces' size (o.Fraction of it) into dir, created if needed: the
// file set of Write, province-wide names (aci_2025_sk.tif,
// IMG_AAFC_LANDUSE_Z13_2020.tif), and a README.md saying that everything
// is invented. The same seed and fraction write the same bytes. It
// honours ctx between townships.
func WriteScale(ctx context.Context, dir string, o scale.Options) (scale.Report, error) {
	if err := o.Check(); err != nil {
		return scale.Report{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return scale.Report{}, fmt.Errorf("ag: scale: %w", err)
	}
	g := &scaleGen{ctx: ctx, d: demo{dir: dir}, o: o}
	g.selectTownships()
	for _, step := range []func() error{
		g.readme, g.legend, g.crops, g.landUse, g.slc, g.lsrs, g.cli, g.drought,
		g.hydro, g.municipalities, g.crownLand, g.pastures, g.bc,
	} {
		if err := ctx.Err(); err != nil {
			return g.rep, err
		}
		if err := step(); err != nil {
			return g.rep, fmt.Errorf("ag: scale: %w", err)
		}
	}
	return g.rep, nil
}

type scaleTwp struct {
	i    int // index among all the townships of the extent: a stable id
	loc  lld.Location
	prov survey.Province
	b    orb.Bound
}

type scaleGen struct {
	ctx  context.Context
	d    demo
	o    scale.Options
	twps []scaleTwp
	rep  scale.Report
}

// selectTownships lists the townships of the extent and keeps every
// (1/f)-th.
func (g *scaleGen) selectTownships() {
	all := 0
	b := orb.Bound{Min: orb.Point{-120.5, 48.9}, Max: orb.Point{-88, 60.1}}
	f := g.o.Fraction
	dls.Townships(b, func(t lld.Location) bool {
		blk, ok := dls.Resolve(t)
		switch {
		case !ok:
			return true
		case blk.Province == survey.AB && !whollyInAlberta(blk.Geometry.Bound()):
			// Cut by the AB–BC divide: a few of its quarters are Alberta's,
			// and a sample of whole townships keeps its quarter count.
			return true
		case blk.Province == survey.AB:
		case (blk.Province == survey.SK || blk.Province == survey.MB) && t.Township <= scaleMaxTownship:
		default:
			return true
		}
		i := all
		all++
		if math.Floor(float64(i+1)*f) > math.Floor(float64(i)*f) {
			g.twps = append(g.twps, scaleTwp{i: i, loc: t, prov: blk.Province, b: blk.Geometry.Bound()})
		}
		return true
	})
}

// whollyInAlberta reports whether every corner of b is east of the AB–BC
// boundary.
func whollyInAlberta(b orb.Bound) bool {
	return dls.InAlberta(b.Min) && dls.InAlberta(b.Max) && dls.InAlberta(b.LeftTop()) && dls.InAlberta(b.RightBottom())
}

// quarters calls fn with the quarters of t in AB, SK or MB.
func (t scaleTwp) quarters(fn func(survey.Block) error) error {
	for s := 1; s <= 36; s++ {
		for _, a := range [...]lld.Aliquot{lld.NE, lld.NW, lld.SW, lld.SE} {
			l := t.loc
			l.Unit, l.Section, l.Aliquot = lld.QuarterSection, uint8(s), a
			blk, ok := dls.Resolve(l)
			if !ok || blk.Geometry == nil || (blk.Province != survey.AB && blk.Province != survey.SK && blk.Province != survey.MB) {
				continue
			}
			if err := fn(blk); err != nil {
				return err
			}
		}
	}
	return nil
}

// sections is the bound of sections from..to of t.
func (t scaleTwp) sections(from, to int) orb.Bound {
	var b orb.Bound
	for s := from; s <= to; s++ {
		l := t.loc
		l.Unit, l.Section = lld.Section, uint8(s)
		sb := dls.Bound(l)
		if s == from {
			b = sb
		} else {
			b = b.Union(sb)
		}
	}
	return b
}

// scaleKey packs a DLS location into a number for the random generator:
// the packing agingest uses for its quarters' map key, copied so that the
// generated data does not depend on that key. Changing it changes every
// province-size dataset.
func scaleKey(l lld.Location) uint64 {
	return uint64(l.Meridian)<<48 | uint64(l.Range)<<40 | uint64(l.Township)<<32 | uint64(l.Section)<<24 | uint64(l.Aliquot)<<16 | uint64(l.Unit)<<8 | uint64(l.LSD)
}

// rand returns the generator of one thing (a layer's salt, a location's
// key), from the seed.
func (g *scaleGen) rand(salt string, key uint64) *demodata.Rand {
	h := uint64(14695981039346656037)
	for i := 0; i < len(salt); i++ {
		h = (h ^ uint64(salt[i])) * 1099511628211
	}
	return demodata.NewRand(demodata.Mix64(g.o.Seed ^ demodata.Mix64(h^demodata.Mix64(key))))
}

// file records a written file in the report.
func (g *scaleGen) file(name string, rows int64) error {
	st, err := os.Stat(filepath.Join(g.d.dir, name))
	if err != nil {
		return err
	}
	g.rep.Files = append(g.rep.Files, scale.File{Name: name, Rows: rows, Bytes: st.Size()})
	return nil
}

// shapefile writes a shapefile as the demo does, recording its files.
func (g *scaleGen) shapefile(name string, t shp.ShapeType, fields []shp.Field, rec func(add func(orb.Geometry, ...string) error) error) error {
	var n int64
	err := g.d.shapefile(name, t, fields, func(add func(orb.Geometry, ...string) error) error {
		return rec(func(geom orb.Geometry, attrs ...string) error {
			n++
			return add(geom, attrs...)
		})
	})
	if err != nil {
		return err
	}
	if t == shp.Null {
		return g.file(name, n)
	}
	base := strings.TrimSuffix(name, ".shp")
	for _, ext := range []string{".shp", ".shx", ".dbf", ".prj", ".cpg"} {
		rows := int64(0)
		if ext == ".shp" {
			rows = n
		}
		if err := g.file(base+ext, rows); err != nil {
			return err
		}
	}
	return nil
}

// geoJSON streams a FeatureCollection to name.
func (g *scaleGen) geoJSON(name string, rec func(add func(orb.Geometry, ...prop) error) error) error {
	f, err := os.Create(filepath.Join(g.d.dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 64<<10)
	var gw geoJSONWriter
	err = rec(func(geom orb.Geometry, props ...prop) error {
		gw.add(geom, props...)
		if gw.b.Len() >= 32<<10 {
			return gw.flush(bw)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := gw.finish(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return g.file(name, int64(gw.len()))
}

// each calls fn with every selected township, stopping when ctx is done.
func (g *scaleGen) each(fn func(t scaleTwp) error) error {
	for _, t := range g.twps {
		if t.i%64 == 0 {
			if err := g.ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// --- README and legend ---

const scaleReadme = `# Meridian province-size agriculture data — INVENTED

Every value in these files is invented, generated by ` + "`meridian demo -scale province`" + `
(package meridian/shared/demo/agdemo, WriteScale) with seed %d and
fraction %g, for measuring ingest, archives and the HTTP path at the size
of the real datasets. The files have the layouts of the real ones (AAFC
Annual Crop Inventory and Land Use GeoTIFFs, Soil Landscapes of Canada
v3.2, AGRASID LSRS, Canada Land Inventory, Canadian Drought Monitor,
NHN hydro, municipal boundaries, Saskatchewan Crown land and pastures, and
the demo's BC layers), but every crop, soil, rating and boundary is made
up, and every name given to a municipality, water body, watercourse or
pasture contains "Demo"; soil names are "DEMO SERIES <province> <n>".
No real place is named at a made-up spot. SLC polygon ids from 9000000
(ecodistricts from 9000) do not exist in the real SLC; municipality
census subdivision ids use census divisions 90 to 99, which do not exist.

Extent: the DLS townships of Alberta (1 to 126) and of Saskatchewan and
Manitoba (1 to 92), about 2.5 million quarter sections at fraction 1; a
fraction keeps every (1/fraction)-th township. The rasters have %d m
pixels (the published ones 30 m).
`

func (g *scaleGen) readme() error {
	name := "README.md"
	if err := g.d.write(name, fmt.Appendf(nil, scaleReadme, g.o.Seed, g.o.Fraction, ScalePixelM)); err != nil {
		return err
	}
	return g.file(name, 0)
}

func (g *scaleGen) legend() error {
	if err := g.d.cropLegend(); err != nil {
		return err
	}
	return g.file(CropLegend, int64(len(agingest.CropClasses())))
}

// --- crops and land use ---

// scaleFarms are the demo's farm profiles of each province: a township
// farms as one of them.
var scaleFarms = map[survey.Province][]string{
	survey.AB: {"24-1-W5", "25-1-W5", "50-26-W4", "48-7-W5", "10-15-W4"},
	survey.SK: {"10-14-W2", "38-5-W3", "50-20-W3"},
	survey.MB: {"5-6-W1", "10-9-W1", "14-26-W1"},
}

func (g *scaleGen) farm(t scaleTwp) demoFarm {
	fs := scaleFarms[t.prov]
	return demoFarms[fs[g.rand("farm", uint64(t.i)).Intn(len(fs))]]
}

// kind is how a quarter is used: 0 cropland, 1 pasture, 2 forest, with its
// rotation and the year it starts in.
func (g *scaleGen) kind(f demoFarm, l lld.Location) (kind int, cycle []int, offset int) {
	r := g.rand("use", scaleKey(l))
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

// pixelClass is a quarter's classes in one raster: the main class and one
// minor class holding a share (0 to 1) of its pixels (minor 0: none), and
// a key that varies the pixels.
type pixelClass struct {
	main, minor byte
	share       uint64 // of 1<<32
	key         uint64
}

func (g *scaleGen) shares(salt string, l lld.Location, main int, minors []int) pixelClass {
	r := g.rand(salt, scaleKey(l))
	pc := pixelClass{main: byte(main), key: r.Next()}
	if len(minors) > 0 && r.Float() < 0.45 {
		if m := minors[r.Intn(len(minors))]; m != main {
			pc.minor, pc.share = byte(m), uint64((0.05+0.15*r.Float())*(1<<32))
		}
	}
	return pc
}

func (pc pixelClass) at(x, y int) byte {
	if pc.minor != 0 && demodata.Mix64(pc.key^uint64(x)<<32^uint64(y))&0xffffffff < pc.share {
		return pc.minor
	}
	return pc.main
}

func (g *scaleGen) crops() error {
	epsg := map[survey.Province]int{survey.AB: 26912, survey.SK: 26913, survey.MB: 26914}
	for i, y := range demoYears {
		for _, prov := range []survey.Province{survey.AB, survey.SK, survey.MB} {
			name := fmt.Sprintf("aci_%d_%s.tif", y, strings.ToLower(prov.Code()))
			err := g.raster(name, epsg[prov], geotiff.CompressionLZW, func(t scaleTwp) bool { return t.prov == prov },
				func(t scaleTwp, f demoFarm, blk survey.Block) (pixelClass, bool) {
					if blk.Province != prov {
						return pixelClass{}, false
					}
					kind, cycle, off := g.kind(f, blk.Location)
					r := g.rand(fmt.Sprint("crop ", y), scaleKey(blk.Location))
					main := demoCropClass(kind, cycle, i+off, r)
					return g.shares(fmt.Sprint("crop shares ", y), blk.Location, main, f.minors), true
				})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// utmZone is the UTM zone of a longitude.
func utmZone(lng float64) int { return int(math.Floor((lng+180)/6)) + 1 }

func (g *scaleGen) landUse() error {
	for _, y := range []int{2015, 2020} {
		for zone := 11; zone <= 15; zone++ {
			west, east := float64(zone-1)*6-180, float64(zone)*6-180
			name := fmt.Sprintf("IMG_AAFC_LANDUSE_Z%02d_%d.tif", zone, y)
			err := g.raster(name, 3978, geotiff.CompressionDeflate, func(t scaleTwp) bool { return t.b.Max[0] >= west && t.b.Min[0] < east },
				func(t scaleTwp, f demoFarm, blk survey.Block) (pixelClass, bool) {
					if utmZone(blk.Centroid[0]) != zone {
						return pixelClass{}, false
					}
					kind, _, _ := g.kind(f, blk.Location)
					main, minors := demoLandUseClasses(kind)
					return g.shares(fmt.Sprint("landuse ", y), blk.Location, main, minors), true
				})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// raster writes a GeoTIFF in EPSG code epsg over the selected townships
// that in keeps, ScalePixelM pixels on a grid of multiples of it, tiled
// 256 × 256, 8-bit, nodata 0: every pixel whose centre is in a quarter
// class accepts holds the class's pixel. It is drawn one band of 256 rows
// at a time, from the townships across the band; a raster without a
// township is not written.
func (g *scaleGen) raster(name string, epsg, compression int, in func(scaleTwp) bool,
	class func(scaleTwp, demoFarm, survey.Block) (pixelClass, bool)) error {
	p, err := proj.FromEPSG(epsg)
	if err != nil {
		return err
	}
	type span struct {
		t            scaleTwp
		minY, maxY   float64 // projected
		minX, maxX   float64
		rowTop, rowB int
	}
	var spans []span
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, t := range g.twps {
		if !in(t) {
			continue
		}
		s := span{t: t, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
		for i := 0; i <= 4; i++ {
			for j := 0; j <= 4; j++ {
				ll := orb.Point{t.b.Min[0] + float64(i)/4*(t.b.Max[0]-t.b.Min[0]), t.b.Min[1] + float64(j)/4*(t.b.Max[1]-t.b.Min[1])}
				x, y, err := p.FromLngLat(ll)
				if err != nil {
					return err
				}
				s.minX, s.maxX, s.minY, s.maxY = min(s.minX, x), max(s.maxX, x), min(s.minY, y), max(s.maxY, y)
			}
		}
		minX, maxX, minY, maxY = min(minX, s.minX), max(maxX, s.maxX), min(minY, s.minY), max(maxY, s.maxY)
		spans = append(spans, s)
	}
	if len(spans) == 0 {
		return nil
	}
	const px, margin = ScalePixelM, 1000
	x0, y0 := math.Floor((minX-margin)/px)*px, math.Ceil((maxY+margin)/px)*px
	w, h := int(math.Ceil((maxX+margin-x0)/px)), int(math.Ceil((y0-(minY-margin))/px))
	geo := geotiff.Geo{Transform: [6]float64{x0, px, 0, y0, 0, -px}}
	for i := range spans {
		spans[i].rowTop = int(math.Floor((y0 - spans[i].maxY) / px))
		spans[i].rowB = int(math.Ceil((y0 - spans[i].minY) / px))
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.rowTop - b.rowTop })

	const bh = 256
	band := make([]byte, w*bh)
	bandY := -1
	next := 0        // the first span not yet opened
	var open []span  // spans across the band
	var pixels int64 // pixels holding a class
	draw := func(by int) error {
		clear(band)
		for next < len(spans) && spans[next].rowTop < by+bh {
			open = append(open, spans[next])
			next++
		}
		kept := open[:0]
		for _, s := range open {
			if s.rowB >= by {
				kept = append(kept, s)
			}
		}
		open = kept
		for _, s := range open {
			if err := g.ctx.Err(); err != nil {
				return err
			}
			f := g.farm(s.t)
			err := s.t.quarters(func(blk survey.Block) error {
				pc, ok := class(s.t, f, blk)
				if !ok {
					return nil
				}
				z, err := agingest.NewPixelZone(blk.Location, ingest.MultiPolygon(blk.Geometry), p, geo, w, h)
				if err != nil || z == nil {
					return err
				}
				top, bot := z.Rows()
				for y := max(top, by); y <= min(bot, by+bh-1); y++ {
					row := band[(y-by)*w:]
					z.Spans(y, w, func(a, b int) {
						for x := a; x < b; x++ {
							row[x] = pc.at(x, y)
						}
						pixels += int64(b - a)
					})
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	nodata := 0
	o := geotiff.WriteOptions{Width: w, Height: h, Tiled: true, BlockWidth: 256, BlockHeight: bh,
		Compression: compression, Predictor: geotiff.PredictorHorizontal, EPSG: epsg,
		Origin: [2]float64{x0, y0}, PixelSize: [2]float64{px, px}, NoData: &nodata}
	f, err := os.Create(filepath.Join(g.d.dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 64<<10)
	err = geotiff.Write(bw, o, func(bx, by int, buf []uint16) error {
		if by != bandY {
			if err := draw(by); err != nil {
				return err
			}
			bandY = by
		}
		for i := range buf {
			x, y := bx+i%o.BlockWidth, i/o.BlockWidth
			if x < w && by+y < h {
				buf[i] = uint16(band[y*w+x])
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return g.file(name, pixels)
}

// --- soils ---

// scaleSoil is an invented soil of a province: the classification of one
// of the demo's soils under an id and name of its own.
func scaleSoil(prov string, i int) [8]string {
	s := demoSoils[i%len(demoSoils)]
	code := "X" + string(rune('A'+i/26%26)) + string(rune('A'+i%26))
	s[0] = prov + code + "~~~~~A"
	s[1] = fmt.Sprintf("DEMO SERIES %s %02d", prov, i+1)
	return s
}

const scaleSoilsPerProvince = 30

func (g *scaleGen) slcID(t scaleTwp) int { return 9_000_000 + t.i }

func (g *scaleGen) slcComponents(t scaleTwp) [][5]string {
	r := g.rand("slc", uint64(t.i))
	prov := t.prov.Code()
	n := 2 + r.Intn(2)
	pcts := []int{60, 40}
	if n == 3 {
		pcts = []int{50, 30, 20}
	}
	slopes, stones, forms := []string{"A", "B", "C", "D"}, []string{"N", "S"}, []string{"L", "U", "H", "R"}
	var out [][5]string
	seen := map[int]bool{}
	for k := range n {
		i := r.Intn(scaleSoilsPerProvince)
		for seen[i] {
			i = (i + 1) % scaleSoilsPerProvince
		}
		seen[i] = true
		out = append(out, [5]string{scaleSoil(prov, i)[0], strconv.Itoa(pcts[k]), slopes[r.Intn(4)], stones[r.Intn(2)], forms[r.Intn(4)]})
	}
	return out
}

func (g *scaleGen) slc() error {
	pat := []shp.Field{nField("AREA", 12, 9), nField("PERIMETER", 12, 9), nField("POLY_ID", 10, 0), nField("ECO_ID", 6, 0)}
	err := g.shapefile(SLCPolygons, shp.Polygon, pat, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			b := t.b
			w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
			id := g.slcID(t)
			return add(b.ToPolygon(), strconv.FormatFloat(w*h, 'f', 9, 64), strconv.FormatFloat(2*(w+h), 'f', 9, 64), strconv.Itoa(id), strconv.Itoa(id/1000))
		})
	})
	if err != nil {
		return err
	}
	cmpFields := []shp.Field{nField("POLY_ID", 10, 0), nField("CMP", 2, 0), nField("PERCENT", 3, 0), cField("SLOPE", 1), cField("STONE", 1), cField("LOCSF", 3),
		cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), cField("SOIL_ID", 11), nField("CMP_ID", 12, 0)}
	err = g.shapefile(SLCComponents, shp.Null, cmpFields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			id := g.slcID(t)
			for i, c := range g.slcComponents(t) {
				s := c[0]
				if err := add(nil, strconv.Itoa(id), strconv.Itoa(i+1), c[1], c[2], c[3], c[4], s[:2], s[2:5], s[5:10], s[10:], s, strconv.Itoa(id*100+i+1)); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	var soils [][8]string
	for _, prov := range []string{"AB", "SK", "MB"} {
		for i := range scaleSoilsPerProvince {
			soils = append(soils, scaleSoil(prov, i))
		}
	}
	return writeSoilTables(soils, g.table)
}

// table writes a small dBASE table (the soils: 90 names, 270 layers).
func (g *scaleGen) table(name string, fields []shp.Field, rows [][]string) error {
	return g.shapefile(name, shp.Null, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, r := range rows {
			if err := add(nil, r...); err != nil {
				return err
			}
		}
		return nil
	})
}

// --- productivity ---

var scaleSLCRatings = []string{"3A", "2A 7:3 4N", "2W", "2W 6:4 3D", "3H", "2H", "4M", "3M(2W)", "5W"}

func (g *scaleGen) lsrs() error {
	var pool []string
	for _, twp := range scaleFarms[survey.AB] {
		pool = append(pool, demoAGRASID[twp]...)
	}
	fields := []shp.Field{cField("PARCEL_ID", 12), nField("M", 1, 0), nField("RGE", 2, 0), nField("TWP", 3, 0), nField("SEC", 2, 0), cField("QS", 2), cField("Dom_LSRS", 16)}
	n := 0
	err := g.shapefile(AGRASIDLSRS, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			if t.prov != survey.AB {
				return nil
			}
			return t.quarters(func(blk survey.Block) error {
				loc := blk.Location
				if blk.Province != survey.AB {
					return nil
				}
				r := g.rand("lsrs", scaleKey(loc))
				x := r.Float()
				if x < 0.03 {
					return nil // not in AGRASID
				}
				rating := pool[r.Intn(len(pool))]
				if x < 0.04 {
					rating = "" // not rated
				}
				n++
				return add(dls.Bound(loc).ToPolygon(), fmt.Sprintf("AB%010d", 9000000+n), strconv.Itoa(loc.Meridian.Number()),
					strconv.Itoa(int(loc.Range)), strconv.Itoa(int(loc.Township)), strconv.Itoa(int(loc.Section)), loc.Aliquot.String(), rating)
			})
		})
	})
	if err != nil {
		return err
	}
	var rows int64
	err = g.stream(SLCLSRS, func(w *bufio.Writer) error {
		w.WriteString("POLY_ID,PROVINCE,CROP,RATING\n")
		return g.each(func(t scaleTwp) error {
			if t.prov == survey.AB {
				return nil
			}
			r := g.rand("slc lsrs", uint64(t.i))
			if r.Float() < 0.05 {
				return nil // no rating
			}
			rows++
			_, err := fmt.Fprintf(w, "%d,%s,SSSG,%s\n", g.slcID(t), t.prov.Code(), scaleSLCRatings[r.Intn(len(scaleSLCRatings))])
			return err
		})
	})
	if err != nil {
		return err
	}
	return g.file(SLCLSRS, rows)
}

// stream writes name through a buffer.
func (g *scaleGen) stream(name string, fn func(*bufio.Writer) error) error {
	f, err := os.Create(filepath.Join(g.d.dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fn(bw); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func (g *scaleGen) cli() error {
	return g.shapefile(CLI, shp.Polygon, cliFields(), func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			r := g.rand("cli", uint64(t.i))
			if r.Float() < 0.05 {
				return nil // not in the inventory
			}
			for _, half := range [2][2]int{{1, 18}, {19, 36}} {
				c := demoCLI[r.Intn(len(demoCLI))]
				vals := make([]string, 20)
				for i := range 3 {
					vals[i], vals[6+i], vals[12+2*i], vals[13+2*i] = c.attrs[4*i], c.attrs[4*i+1], c.attrs[4*i+2], c.attrs[4*i+3]
				}
				if err := add(t.sections(half[0], half[1]).ToPolygon(), vals...); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// --- blocks of townships: drought, municipalities, pastures ---

type scaleBlock struct {
	key  [3]int // meridian, range / n, township / n
	prov survey.Province
	b    orb.Bound
}

// blocks groups the selected townships (of prov; 0: all) into blocks of
// n × n townships, in the order they are first met, each with the bound
// of its selected townships.
func (g *scaleGen) blocks(prov survey.Province, n int) []scaleBlock {
	var out []scaleBlock
	at := map[[3]int]int{}
	for _, t := range g.twps {
		if prov != survey.ProvinceNone && t.prov != prov {
			continue
		}
		k := [3]int{int(t.loc.Meridian), (int(t.loc.Range) - 1) / n, (int(t.loc.Township) - 1) / n}
		if i, ok := at[k]; ok {
			out[i].b = out[i].b.Union(t.b)
			continue
		}
		at[k] = len(out)
		out = append(out, scaleBlock{key: k, prov: t.prov, b: t.b})
	}
	return out
}

func (g *scaleGen) drought() error {
	blocks := g.blocks(survey.ProvinceNone, 10)
	for mi, m := range demoDroughtMonths {
		for d := range m.classes {
			name := fmt.Sprintf("CDM_%s_D%d_LR.geojson", m.yymm, d)
			err := g.geoJSON(name, func(add func(orb.Geometry, ...prop) error) error {
				for bi, b := range blocks {
					// The block's worst class this month: -1 (none) to 2.
					worst := g.rand("drought", uint64(bi)<<8|uint64(mi)).Intn(m.classes+2) - 2
					if worst >= d {
						if err := add(b.b.ToPolygon()); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// scaleWord invents a name from syllables: "Karvel", "Tomsa".
func scaleWord(r *demodata.Rand) string {
	first := []string{"K", "T", "M", "V", "Br", "S", "L", "Gr", "N", "D", "F", "P"}
	vowel := []string{"a", "e", "o", "i", "u", "ae"}
	mid := []string{"rv", "ms", "nd", "lt", "sk", "rr", "nt", "lv"}
	end := []string{"el", "a", "on", "ia", "ar", "et", "ov", "en"}
	return first[r.Intn(len(first))] + vowel[r.Intn(len(vowel))] + mid[r.Intn(len(mid))] + end[r.Intn(len(end))]
}

func (g *scaleGen) municipalities() error {
	err := g.geoJSON(Municipalities, func(add func(orb.Geometry, ...prop) error) error {
		for _, p := range []struct {
			prov survey.Province
			n    int
			pr   string
		}{{survey.AB, 6, "48"}, {survey.SK, 3, "47"}} {
			for i, b := range g.blocks(p.prov, p.n) {
				r := g.rand("municipality "+p.pr, uint64(b.key[0])<<32|uint64(b.key[1])<<16|uint64(b.key[2]))
				uid := fmt.Sprintf("%s%02d%03d", p.pr, 90+i/1000, i%1000)
				name, typ := "Demo "+scaleWord(r)+" County", "MD"
				if p.prov == survey.SK {
					name, typ = fmt.Sprintf("RM of Demo %s No. %d", scaleWord(r), 900+i), "RM"
				}
				if err := add(b.b.ToPolygon(), prop{"CSDUID", uid}, prop{"CSDNAME", name}, prop{"CSDTYPE", typ}, prop{"PRUID", p.pr}, prop{"DEMO", "Y"}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return g.geoJSON(MBMunicipalities, func(add func(orb.Geometry, ...prop) error) error {
		for _, b := range g.blocks(survey.MB, 4) {
			r := g.rand("municipality mb", uint64(b.key[0])<<32|uint64(b.key[1])<<16|uint64(b.key[2]))
			name, typ := "Demo "+scaleWord(r), "Rural Municipality"
			if r.Float() < 0.3 {
				typ = "Municipality"
			}
			if err := add(b.b.ToPolygon(), prop{"MUNI_NAME", name}, prop{"MUNI_TYPE", typ},
				prop{"MUNI_LIST_NAME_WITH_TYPE", strings.ToUpper(name + " (" + typ + ")")}, prop{"DEMO", "Y"}); err != nil {
				return err
			}
		}
		return nil
	})
}

// --- hydrology ---

func (g *scaleGen) hydro() error {
	defs := []string{"Lake", "Wetland", "Wetland", "Pond", "Reservoir", "Wetland"}
	lakes := 0
	id := 0
	err := g.geoJSON(WaterBodies, func(add func(orb.Geometry, ...prop) error) error {
		return g.each(func(t scaleTwp) error {
			r := g.rand("water", uint64(t.i))
			for range r.Intn(4) {
				x0, y0 := 0.05+0.8*r.Float(), 0.05+0.8*r.Float()
				sx, sy := 0.02+0.1*r.Float(), 0.02+0.1*r.Float()
				def := defs[r.Intn(len(defs))]
				perm := "Permanent"
				if r.Float() < 0.3 {
					perm = "Intermittent"
				}
				var name any
				if def == "Lake" || def == "Reservoir" {
					lakes++
					name = fmt.Sprintf("Demo %s %d", def, lakes)
				}
				id++
				b := demoPart(t.b, x0, y0, min(1, x0+sx), min(1, y0+sy))
				if err := add(b.ToPolygon(), prop{"feature_id", fmt.Sprintf("demo-wb-%07d", id)}, prop{"definit_en", def}, prop{"perm_en", perm}, prop{"name_en", name}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	fields := []shp.Field{cField("NID", 32), nField("DEFINITION", 2, 0), nField("PERMANENCY", 2, 0), cField("NAME_EN", 40)}
	n := 0
	return g.shapefile(Watercourses, shp.PolyLine, fields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			r := g.rand("stream", uint64(t.i))
			if r.Float() < 0.5 {
				return nil
			}
			var ls orb.LineString
			y := r.Float()
			for k := range 4 {
				y = math.Min(1, math.Max(0, y+0.3*(r.Float()-0.5)))
				ls = append(ls, demoPart(t.b, 0, 0, float64(k)/3, y).Max)
			}
			n++
			def, name := "9", ""
			if r.Float() < 0.1 {
				def = "1"
			}
			if r.Float() < 0.4 {
				name = fmt.Sprintf("Demo Creek %d", n)
			}
			perm := "1"
			if r.Float() < 0.3 {
				perm = "2"
			}
			return add(ls, fmt.Sprintf("demo-nhn-flow-%07d", n), def, perm, name)
		})
	})
}

// --- Saskatchewan Crown land and pastures ---

func (g *scaleGen) crownLand() error {
	fields := []shp.Field{cField("LLD", 16), cField("LEASE_TYPE", 12), cField("STATUS", 8), cField("DISP_NO", 10)}
	types := []string{"Grazing", "Grazing", "Cultivation", "Hay"}
	n := 0
	return g.shapefile(CrownLand, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			if t.prov != survey.SK {
				return nil
			}
			return t.quarters(func(blk survey.Block) error {
				r := g.rand("crown", scaleKey(blk.Location))
				// The reader takes Crown land west of the second or third
				// meridian: Saskatchewan's W1 and W4 ranges have none here.
				if blk.Province != survey.SK || (blk.Location.Meridian != lld.W2 && blk.Location.Meridian != lld.W3) || r.Float() >= 0.04 {
					return nil
				}
				n++
				status := "Leased"
				if r.Float() < 0.2 {
					status = "Vacant"
				}
				return add(dls.Bound(blk.Location).ToPolygon(), blk.Location.String(), types[r.Intn(len(types))], status, fmt.Sprintf("GL%07d", n))
			})
		})
	})
}

func (g *scaleGen) pastures() error {
	programs := []string{"Saskatchewan Pastures Program", "Former PFRA", "Patron-operated"}
	return g.geoJSON(Pastures, func(add func(orb.Geometry, ...prop) error) error {
		n := 0
		for _, b := range g.blocks(survey.SK, 3) {
			r := g.rand("pasture", uint64(b.key[0])<<32|uint64(b.key[1])<<16|uint64(b.key[2]))
			if r.Float() >= 0.03 {
				continue
			}
			n++
			if err := add(b.b.ToPolygon(), prop{"PASTURE", fmt.Sprintf("Demo Community Pasture %d", n)}, prop{"PROGRAM", programs[r.Intn(len(programs))]}); err != nil {
				return err
			}
		}
		return nil
	})
}

// --- British Columbia: the demo's layers ---

func (g *scaleGen) bc() error {
	for _, step := range []struct {
		write func() error
		name  string
		shape bool
	}{{g.d.bcCapability, BCCapability, true}, {g.d.alr, ALR, true}, {g.d.fwaWetlands, FWAWetlands, false}} {
		if err := step.write(); err != nil {
			return err
		}
		names := []string{step.name}
		if step.shape {
			base := strings.TrimSuffix(step.name, ".shp")
			names = []string{base + ".shp", base + ".shx", base + ".dbf", base + ".prj", base + ".cpg"}
		}
		for _, n := range names {
			if err := g.file(n, 0); err != nil {
				return err
			}
		}
	}
	return nil
}
