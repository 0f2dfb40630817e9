package agingest

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
	"meridian/shared/survey/dls"
)

// The published rasters. AAFC ships the Annual Crop Inventory and Land
// Use as 30 m GeoTIFFs of class codes; ReadCropRaster and ReadLandUseRaster
// turn one such file into per-quarter summaries by zonal statistics: for
// every quarter section whose polygon meets the raster, the pixels of
// each class whose centres fall inside the polygon, nodata left out.
//
// The raster is read one row of blocks (a band) at a time. For each band
// the quarters whose polygons start in it are asked of Quarters (over the
// band's lng/lat outline) and put in pixel coordinates; each band row is
// cut by each open quarter's polygon into runs of pixels (scanlines at
// pixel centres) and the runs counted; a quarter is handed over when the
// band holding its last row is done. Memory: one band of the image
// (geotiff.Image.Rows) plus the quarters open across it, each a few
// projected vertices and a count per class present; for a provincial ACI
// (~40 000 pixels wide, 256-row tiles) about 10 MB of pixels and some
// 10 000 quarters, whatever the file's height.

// ACIRasterLayout is the Annual Crop Inventory as AAFC publishes it.
var ACIRasterLayout = ingest.Layout{
	Dataset:   "AAFC Annual Crop Inventory",
	Publisher: "Agriculture and Agri-Food Canada",
	Form:      "aci_<year>_<prov>.tif: GeoTIFF, one 8-bit band of class codes, 30 m (56 m in 2009-2010), nodata 0 and 255",
	Verified:  true,
	Evidence: "docs/real-layouts.md 'AAFC Annual Crop Inventory and Land Use' (published as GeoTIFF rasters); " +
		"data-sources.md §10; class legend samples/aafc-aci/aci_class_legend.csv (google/earthengine-catalog AAFC_ACI.jsonnet)",
}

// ACIRasterCRS is the Annual Crop Inventory's coordinate system, which no
// evidence here shows: the reader takes whatever EPSG code the GeoKeys
// carry.
var ACIRasterCRS = ingest.Layout{
	Dataset:   "AAFC Annual Crop Inventory",
	Publisher: "Agriculture and Agri-Food Canada",
	Form:      "coordinate system from the GeoTIFF's GeoKeys (ProjectedCSType or GeographicType)",
	Verified:  false,
	Evidence: "no real file seen: run `gdalinfo aci_<year>_<prov>.tif` and check that it names an EPSG code " +
		"(ID[\"EPSG\",...]) package proj converts (UTM 269xx/326xx, geographic 4269/4326; 3978/3347 once Lambert is in)",
}

// LandUseRasterLayout is AAFC Land Use as published.
var LandUseRasterLayout = ingest.Layout{
	Dataset:   "AAFC Land Use 1990, 2000, 2010, 2015, 2020",
	Publisher: "Agriculture and Agri-Food Canada",
	Form: "IMG_AAFC_LANDUSE_Z<zone>_<year>.tif (also LU<year>_u<zone>_….tif): GeoTIFF per UTM zone, one 8-bit band of " +
		"class codes, 30 m, EPSG:3978 (NAD83 / Canada Atlas Lambert)",
	Verified: true,
	Evidence: "stactools-packages/aafc-landuse src/stactools/aafc_landuse/constants.py LANDUSE_EPSG = 3978 (id 8700783841); " +
		"docs/real-layouts.md 'AAFC Annual Crop Inventory and Land Use'; classes data-sources.md §11. " +
		"Nodata is taken from GDAL_NODATA and 0 (no class is 0): check `gdalinfo` of a real file",
}

// Quarters calls fn with every DLS quarter section whose polygon (lng/lat,
// an orb.Polygon or orb.MultiPolygon) meets b, and stops at fn's first
// error. The ingest passes the grid service's blocks.
type Quarters func(b orb.Bound, fn func(lld.Location, orb.Geometry) error) error

// RasterOptions tune ReadCropRaster and ReadLandUseRaster.
type RasterOptions struct {
	Quarters Quarters
	// Year is the raster's year; 0 takes it from the file name (the first
	// four-digit number from 1985 to 2100: aci_2023_ab.tif,
	// IMG_AAFC_LANDUSE_Z07_2010.tif, LU2015_u17_v3_2021_06.tif).
	Year int
	// Notices receives values that are merely new; nil discards them.
	// Nothing in a raster is a notice today: a class code not in the
	// legend is fatal. Kept for the readers' common signature.
	Notices *ingest.Notices
}

// RasterInfo says what a raster was taken to be.
type RasterInfo struct {
	Layout   ingest.Layout // ACIRasterLayout or LandUseRasterLayout
	CRS      ingest.Layout // ACIRasterCRS for the crop inventory; LandUseRasterLayout for land use
	Form     string        // what the file holds: "tiled 256×256, Deflate, 8-bit, EPSG:26912, nodata 0"
	Year     int
	Quarters int // quarters with at least one counted pixel
}

// ReadCropRaster streams an Annual Crop Inventory GeoTIFF to fn, one
// QuarterYear per quarter section with counted pixels, classes in code
// order. Fatal: a pixel whose value is neither nodata (0, 255, GDAL_NODATA)
// nor in the ACI legend (an ingest.BadValue naming row and column), a
// coordinate system package proj cannot convert, no year in the name.
func ReadCropRaster(path string, o RasterOptions, fn func(QuarterYear) error) (RasterInfo, error) {
	info := RasterInfo{Layout: ACIRasterLayout, CRS: ACIRasterCRS}
	return readRaster(path, o, info, []int{0, 255}, 2009, func(code, _ int) bool {
		_, ok := CropClassOf(code)
		return ok
	}, fn)
}

// ReadLandUseRaster streams an AAFC Land Use GeoTIFF to fn like
// ReadCropRaster; nodata is 0 and GDAL_NODATA, classes those of
// LandUseClassOf, years from 1990.
func ReadLandUseRaster(path string, o RasterOptions, fn func(QuarterYear) error) (RasterInfo, error) {
	info := RasterInfo{Layout: LandUseRasterLayout, CRS: LandUseRasterLayout}
	return readRaster(path, o, info, []int{0}, 1990, func(code, year int) bool {
		_, ok := LandUseClassOf(code, year)
		return ok
	}, fn)
}

// RasterYear finds a raster's year in its file name: the first run of
// exactly four digits from 1985 to 2100; 0 when there is none.
func RasterYear(name string) int {
	for i := 0; i < len(name); {
		j := i
		for j < len(name) && name[j] >= '0' && name[j] <= '9' {
			j++
		}
		if j-i == 4 {
			if y, _ := strconv.Atoi(name[i:j]); y >= 1985 && y <= 2100 {
				return y
			}
		}
		i = max(j, i+1)
	}
	return 0
}

// zone is one quarter's polygon in pixel coordinates with its counts.
type zone struct {
	loc      lld.Location
	rings    [][]orb.Point // x = column, y = row, fractional
	top, bot int           // first and last pixel rows whose centres may be inside
	counts   []ClassShare  // Pixels only, unsorted
	xs       []float64
}

func readRaster(path string, o RasterOptions, info RasterInfo, nodata []int, minYear int,
	known func(code, year int) bool, fn func(QuarterYear) error) (RasterInfo, error) {
	name := filepath.Base(path)
	fail := func(format string, args ...any) (RasterInfo, error) {
		return info, ingest.Errorf(name, 0, format, args...)
	}
	info.Year = o.Year
	if info.Year == 0 {
		info.Year = RasterYear(name)
	}
	if info.Year < minYear || info.Year > 2100 {
		return fail("no year from %d in the file name (want a name like %s)", minYear, info.Layout.Form)
	}
	f, err := os.Open(path)
	if err != nil {
		return info, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return info, err
	}
	im, err := geotiff.Open(f, st.Size(), geotiff.Options{})
	if err != nil {
		return fail("%v", err)
	}
	if !im.Geo.HasTransform {
		return fail("no georeferencing (ModelPixelScale and ModelTiepoint, or ModelTransformation)")
	}
	p, err := im.Geo.Projection()
	if err != nil {
		return fail("coordinate system: %v", err)
	}
	if im.HasNoData {
		nodata = append(slices.Clone(nodata), im.NoData)
	}
	info.Form = describe(im, p, nodata)
	// Which values are nodata, and which are classes.
	maxCode := 1<<im.BitsPerSample - 1
	if im.Signed {
		maxCode = 1<<(im.BitsPerSample-1) - 1
	}
	var skip, valid [256]bool
	for _, v := range nodata {
		if v >= 0 && v < 256 {
			skip[v] = true
		}
	}
	var accepted []string
	for c := 0; c < 256 && c <= maxCode; c++ {
		if !skip[c] && known(c, info.Year) {
			valid[c] = true
			accepted = append(accepted, strconv.Itoa(c))
		}
	}
	accepted = append(accepted, fmt.Sprintf("nodata %v", nodata))
	if o.Quarters == nil {
		return info, fmt.Errorf("ag: %s: no quarter polygons to summarise the raster over", name)
	}
	var active []*zone
	open := map[uint64]bool{} // the quarters of active
	const tileCols = 256
	data := make([]bool, (im.Width+tileCols-1)/tileCols)
	err = im.Rows(func(r *geotiff.Rows) error {
		end := r.Y + r.Height
		clear(data)
		for y := r.Y; y < end; y++ { // every pixel is checked, inside a quarter or not
			row := r.Row(y)
			for c := range data {
				if data[c] {
					continue
				}
				for x := c * tileCols; x < min(im.Width, (c+1)*tileCols); x++ {
					v := 0
					if row != nil {
						v = int(row[x])
					} else {
						v = r.At(x, y)
					}
					if v < 0 || v >= 256 || !skip[v] {
						data[c] = true
						break
					}
				}
			}
			if row != nil && !slices.ContainsFunc(row, func(v byte) bool { return !skip[v] && !valid[v] }) {
				continue
			}
			for x := range im.Width {
				v := r.At(x, y)
				if v >= 0 && v < 256 && (skip[v] || valid[v]) {
					continue
				}
				return ingest.BadValue(name, y+1, fmt.Sprintf("pixel %d (row %d)", x, y), strconv.Itoa(v), accepted)
			}
		}
		zones, err := bandZones(im, p, o.Quarters, r.Y, end, data, tileCols, open)
		if err != nil {
			return err
		}
		for _, z := range zones {
			open[qkey(z.loc)] = true
		}
		active = append(active, zones...)
		kept := active[:0]
		for _, z := range active {
			for y := max(z.top, r.Y); y <= min(z.bot, end-1); y++ {
				z.scan(r, y, im.Width, &skip)
			}
			if z.bot >= end {
				kept = append(kept, z)
				continue
			}
			delete(open, qkey(z.loc))
			if err := z.emit(info.Year, &info, fn); err != nil {
				return err
			}
		}
		clear(active[len(kept):])
		active = kept
		return nil
	})
	if err != nil {
		var bad *ingest.Error
		if errors.As(err, &bad) {
			return info, err
		}
		return info, fmt.Errorf("%s: %w", name, err)
	}
	for _, z := range active {
		if err := z.emit(info.Year, &info, fn); err != nil {
			return info, err
		}
	}
	return info, nil
}

func describe(im *geotiff.Image, p proj.Projection, nodata []int) string {
	blocks := fmt.Sprintf("strips of %d rows", im.BlockHeight)
	if im.Tiled {
		blocks = fmt.Sprintf("tiled %d×%d", im.BlockWidth, im.BlockHeight)
	}
	comp := map[int]string{geotiff.CompressionNone: "uncompressed", geotiff.CompressionLZW: "LZW", geotiff.CompressionDeflate: "Deflate"}[im.Compression]
	return fmt.Sprintf("%d×%d px, %s, %s, %d-bit, EPSG:%d (%s), pixel %g × %g, nodata %v",
		im.Width, im.Height, blocks, comp, im.BitsPerSample, p.EPSG(), p.Name(), im.Geo.Transform[1], -im.Geo.Transform[5], nodata)
}

// bandZones returns the quarters to open in rows [y0, y1) of the image,
// in pixel coordinates: those across the band (a row from y0 and one
// before y1) not open already (in open). Only the runs of columns whose
// tiles (tileCols wide) hold data in the band, data[c], are searched: the
// quarters wholly over nodata are neither projected nor held (the grid
// model's quarters of a province's rectangle are millions; a raster
// covers only the farmed ones). A quarter met first in a later band than
// its first row lost nothing: its rows in the bands before were nodata.
// Each quarter is thus opened once, and only the quarters across the band
// being read are held, not the raster's.
func bandZones(im *geotiff.Image, p proj.Projection, quarters Quarters, y0, y1 int, data []bool, tileCols int, open map[uint64]bool) ([]*zone, error) {
	var zones []*zone
	met := map[uint64]bool{} // a quarter across two runs of columns is met twice
	for c0 := 0; c0 < len(data); c0++ {
		if !data[c0] {
			continue
		}
		c1 := c0 + 1
		for c1 < len(data) && data[c1] {
			c1++
		}
		x0, x1 := c0*tileCols, min(im.Width, c1*tileCols)
		var err error
		if zones, err = runZones(im, p, quarters, x0, x1, y0, y1, open, met, zones); err != nil {
			return nil, err
		}
		c0 = c1
	}
	return zones, nil
}

// runZones adds to zones the quarters across columns [x0, x1) and rows
// [y0, y1) neither open nor met.
func runZones(im *geotiff.Image, p proj.Projection, quarters Quarters, x0, x1, y0, y1 int, open, met map[uint64]bool, zones []*zone) ([]*zone, error) {
	// The outline in lng/lat, from points along its edges (a projected
	// straight edge bends in lng/lat: pad by ~100 m).
	var b orb.Bound
	first := true
	const steps = 16
	for i := 0; i <= steps; i++ {
		f := float64(i) / steps
		for _, cr := range [][2]float64{{f, 0}, {f, 1}, {0, f}, {1, f}} {
			x, y := im.Geo.Map(float64(x0)+cr[0]*float64(x1-x0), float64(y0)+cr[1]*float64(y1-y0))
			ll, err := p.ToLngLat(x, y)
			if err != nil {
				return nil, fmt.Errorf("ag: raster point %.0f, %.0f: %w", x, y, err)
			}
			if first {
				b, first = ll.Bound(), false
			} else {
				b = b.Extend(ll)
			}
		}
	}
	b = b.Pad(0.001)
	err := quarters(b, func(loc lld.Location, g orb.Geometry) error {
		k := qkey(loc)
		if open[k] || met[k] {
			return nil
		}
		var polys orb.MultiPolygon
		switch g := g.(type) {
		case orb.Polygon:
			polys = orb.MultiPolygon{g}
		case orb.MultiPolygon:
			polys = g
		default:
			return nil
		}
		z, err := newZone(loc, polys, p, im.Geo, im.Width, im.Height)
		if z == nil || err != nil || z.bot < y0 || z.top >= y1 {
			return err
		}
		met[k] = true
		zones = append(zones, z)
		return nil
	})
	return zones, err
}

// newZone puts a quarter's polygons in pixel coordinates; nil when no
// pixel centre of a width × height image can be inside.
func newZone(loc lld.Location, polys orb.MultiPolygon, p proj.Projection, geo geotiff.Geo, width, height int) (*zone, error) {
	z := &zone{loc: loc}
	minY, maxY := math.Inf(1), math.Inf(-1)
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, poly := range polys {
		for _, ring := range poly {
			pr := make([]orb.Point, len(ring))
			for i, ll := range ring {
				x, y, err := p.FromLngLat(ll)
				if err != nil {
					return nil, fmt.Errorf("ag: quarter %s: %w", loc, err)
				}
				c, r, ok := geo.Pixel(x, y)
				if !ok {
					return nil, fmt.Errorf("ag: the raster's geotransform cannot be inverted")
				}
				pr[i] = orb.Point{c, r}
				minX, maxX = min(minX, c), max(maxX, c)
				minY, maxY = min(minY, r), max(maxY, r)
			}
			z.rings = append(z.rings, pr)
		}
	}
	// Rows whose centre y+0.5 lies in [minY, maxY].
	z.top = max(0, int(math.Ceil(minY-0.5)))
	z.bot = min(height-1, int(math.Floor(maxY-0.5)))
	if z.top > z.bot || maxX < 0 || minX > float64(width) {
		return nil, nil
	}
	return z, nil
}

// ModelQuarters is Quarters from the DLS model alone (dls.Resolve), as
// the grid service gives them where no official index holds a township.
func ModelQuarters(b orb.Bound, fn func(lld.Location, orb.Geometry) error) error {
	var err error
	dls.Townships(b, func(twp lld.Location) bool {
		for s := 1; s <= 36 && err == nil; s++ {
			for _, a := range []lld.Aliquot{lld.NE, lld.NW, lld.SW, lld.SE} {
				l := twp
				l.Unit, l.Section, l.Aliquot = lld.QuarterSection, uint8(s), a
				blk, ok := dls.Resolve(l)
				if !ok || blk.Geometry == nil || !blk.Geometry.Bound().Intersects(b) {
					continue
				}
				if err = fn(blk.Location, blk.Geometry); err != nil {
					break
				}
			}
		}
		return err == nil
	})
	return err
}

// spans calls fn with each run [x0, x1) of row y's pixels whose centres
// are inside the zone (even-odd rule; a centre on a left edge is inside,
// on a right edge outside, so that quarters sharing an edge never share a
// pixel).
func (z *zone) spans(y, width int, fn func(x0, x1 int)) {
	yc := float64(y) + 0.5
	z.xs = z.xs[:0]
	for _, ring := range z.rings {
		for i := 0; i+1 < len(ring); i++ {
			a, b := ring[i], ring[i+1]
			if (a[1] <= yc) != (b[1] <= yc) {
				z.xs = append(z.xs, a[0]+(yc-a[1])*(b[0]-a[0])/(b[1]-a[1]))
			}
		}
	}
	slices.Sort(z.xs)
	for i := 0; i+1 < len(z.xs); i += 2 {
		// Centres x+0.5 in [xs[i], xs[i+1]).
		x0 := max(0, int(math.Ceil(z.xs[i]-0.5)))
		x1 := min(width, int(math.Ceil(z.xs[i+1]-0.5)))
		if x0 < x1 {
			fn(x0, x1)
		}
	}
}

// scan counts the pixels of row y inside the zone, nodata left out.
func (z *zone) scan(r *geotiff.Rows, y, width int, skip *[256]bool) {
	z.spans(y, width, func(x0, x1 int) {
		for x := x0; x < x1; x++ {
			if v := r.At(x, y); v >= 256 || !skip[v] {
				z.add(v)
			}
		}
	})
}

func (z *zone) add(code int) {
	for i := range z.counts {
		if z.counts[i].Code == code {
			z.counts[i].Pixels++
			return
		}
	}
	z.counts = append(z.counts, ClassShare{Code: code, Pixels: 1})
}

// emit hands over a finished zone with its shares.
func (z *zone) emit(year int, info *RasterInfo, fn func(QuarterYear) error) error {
	if len(z.counts) == 0 {
		return nil
	}
	total := 0
	for _, c := range z.counts {
		total += c.Pixels
	}
	slices.SortFunc(z.counts, func(a, b ClassShare) int { return a.Code - b.Code })
	for i := range z.counts {
		z.counts[i].Pct = round(100*float64(z.counts[i].Pixels)/float64(total), 2)
	}
	info.Quarters++
	q := QuarterYear{Location: z.loc, Year: year, Classes: z.counts}
	z.counts, z.rings = nil, nil
	return fn(q)
}
