package agdemo

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	demodata "meridian/shared/demo"
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
// under 2 MB), its projected points kept (2 MiB, proj.MemoPoints) and
// the compressed raster being written (a few MB); every
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
