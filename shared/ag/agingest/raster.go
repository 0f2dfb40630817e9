package agingest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

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
	return readRaster(path, o, openCropRaster, fn)
}

func openCropRaster(path string, o RasterOptions) (*rasterFile, error) {
	info := RasterInfo{Layout: ACIRasterLayout, CRS: ACIRasterCRS}
	return openRaster(path, o, info, []int{0, 255}, 2009, func(code, _ int) bool {
		_, ok := CropClassOf(code)
		return ok
	})
}

// ReadLandUseRaster streams an AAFC Land Use GeoTIFF to fn like
// ReadCropRaster; nodata is 0 and GDAL_NODATA, classes those of
// LandUseClassOf, years from 1990.
func ReadLandUseRaster(path string, o RasterOptions, fn func(QuarterYear) error) (RasterInfo, error) {
	return readRaster(path, o, openLandUseRaster, fn)
}

func openLandUseRaster(path string, o RasterOptions) (*rasterFile, error) {
	info := RasterInfo{Layout: LandUseRasterLayout, CRS: LandUseRasterLayout}
	return openRaster(path, o, info, []int{0}, 1990, func(code, year int) bool {
		_, ok := LandUseClassOf(code, year)
		return ok
	})
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
	bound    orb.Bound      // the quarter's polygons, lng/lat
	rings    [][]orb.Point  // x = column, y = row, fractional
	top, bot int            // first and last pixel rows whose centres may be inside
	counts   [][]ClassShare // a slice per raster of the group: Pixels only, unsorted
	xs       []float64
	runs     [][2]int
}

// rasterFile is one open raster: its image, what it was taken to be, and
// which of its values are nodata and which are classes.
type rasterFile struct {
	name, path  string
	f           *os.File
	im          *geotiff.Image
	p           proj.Projection
	info        RasterInfo
	skip, valid [256]bool
	accepted    []string
}

// openRaster opens path and checks its year, georeferencing and
// coordinate system; the caller closes f. On an error the file is closed
// and info says what was read of it.
func openRaster(path string, o RasterOptions, info RasterInfo, nodata []int, minYear int, known func(code, year int) bool) (*rasterFile, error) {
	name := filepath.Base(path)
	rf := &rasterFile{name: name, path: path, info: info}
	fail := func(format string, args ...any) (*rasterFile, error) {
		return rf, ingest.Errorf(name, 0, format, args...)
	}
	rf.info.Year = o.Year
	if rf.info.Year == 0 {
		// The member's name first: a zip's name may carry another year
		// ("ACI_2022_2023.zip!aci_2023_ab.tif").
		rf.info.Year = cmp.Or(RasterYear(ingest.MemberName(name)), RasterYear(name))
	}
	if rf.info.Year < minYear || rf.info.Year > 2100 {
		return fail("no year from %d in the file name (want a name like %s)", minYear, info.Layout.Form)
	}
	f, err := os.Open(path)
	if err != nil {
		return rf, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return rf, err
	}
	im, err := geotiff.Open(f, st.Size(), geotiff.Options{})
	if err != nil {
		f.Close()
		return fail("%v", err)
	}
	if !im.Geo.HasTransform {
		f.Close()
		return fail("no georeferencing (ModelPixelScale and ModelTiepoint, or ModelTransformation)")
	}
	p, err := im.Geo.Projection()
	if err != nil {
		f.Close()
		return fail("coordinate system: %v", err)
	}
	if im.HasNoData {
		nodata = append(slices.Clone(nodata), im.NoData)
	}
	rf.f, rf.im, rf.p = f, im, p
	rf.info.Form = describe(im, p, nodata)
	// Which values are nodata, and which are classes.
	maxCode := 1<<im.BitsPerSample - 1
	if im.Signed {
		maxCode = 1<<(im.BitsPerSample-1) - 1
	}
	for _, v := range nodata {
		if v >= 0 && v < 256 {
			rf.skip[v] = true
		}
	}
	for c := 0; c < 256 && c <= maxCode; c++ {
		if !rf.skip[c] && known(c, rf.info.Year) {
			rf.valid[c] = true
			rf.accepted = append(rf.accepted, strconv.Itoa(c))
		}
	}
	rf.accepted = append(rf.accepted, fmt.Sprintf("nodata %v", nodata))
	return rf, nil
}

// sameGrid reports whether two rasters have the same pixels: size, band
// height, geotransform and coordinate system, so that they can be swept
// together, band by band, over the same zones.
func sameGrid(a, b *geotiff.Image) bool {
	return a.Width == b.Width && a.Height == b.Height && a.BlockHeight == b.BlockHeight &&
		a.Geo.Transform == b.Geo.Transform && a.Geo.EPSG == b.Geo.EPSG && a.Geo.ModelType == b.Geo.ModelType &&
		a.Geo.Citation == b.Geo.Citation && a.Geo.PixelIsPoint == b.Geo.PixelIsPoint
}

func readRaster(path string, o RasterOptions, open func(string, RasterOptions) (*rasterFile, error), fn func(QuarterYear) error) (RasterInfo, error) {
	rf, err := open(path, o)
	if err != nil {
		return rf.info, err
	}
	defer rf.f.Close()
	err = sweepRasters([]*rasterFile{rf}, o.Quarters, func(ys []QuarterYear, _ orb.Bound) error {
		for _, y := range ys {
			if err := fn(y); err != nil {
				return err
			}
		}
		return nil
	})
	return rf.info, err
}

// errSwept stops the goroutines of a sweep that ended early.
var errSwept = errors.New("ag: raster sweep stopped")

// sweepRasters summarises rasters of the same grid (sameGrid: the years
// of one province's crop inventory, one UTM zone's land use vintages)
// together, one band of each at a time: a quarter's polygon is found and
// projected once for all of them, and fn receives, when the band holding
// its last row is done, the quarter's summaries of every raster with
// counted pixels (in the order of files) and its lng/lat bound. Memory:
// one band of each raster and the quarters open across the band.
func sweepRasters(files []*rasterFile, quarters Quarters, fn func([]QuarterYear, orb.Bound) error) error {
	if quarters == nil {
		return fmt.Errorf("ag: %s: no quarter polygons to summarise the raster over", files[0].name)
	}
	lead := files[0]
	im, p := lead.im, lead.p
	for _, rf := range files[1:] {
		if !sameGrid(im, rf.im) {
			return fmt.Errorf("ag: %s and %s are not on the same grid", lead.name, rf.name)
		}
	}
	// The other rasters' bands come from goroutines, in step with the
	// lead's: each hands over a band and waits until it is done.
	type band struct {
		r   *geotiff.Rows
		err error
	}
	others := files[1:]
	bands := make([]chan band, len(others))
	acks := make([]chan struct{}, len(others))
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for i, rf := range others {
		bands[i], acks[i] = make(chan band), make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := rf.im.Rows(func(r *geotiff.Rows) error {
				select {
				case bands[i] <- band{r: r}:
				case <-quit:
					return errSwept
				}
				select {
				case <-acks[i]:
					return nil
				case <-quit:
					return errSwept
				}
			})
			select {
			case bands[i] <- band{err: err}:
			case <-quit:
			}
		}()
	}
	defer func() {
		close(quit)
		wg.Wait()
	}()

	var active []*zone
	open := map[uint64]bool{} // the quarters of active
	done := newQuarterBits()  // the quarters handed over, or never to be
	const tileCols = 256
	data := make([]bool, (im.Width+tileCols-1)/tileCols)
	rows := make([]*geotiff.Rows, len(files))
	err := im.Rows(func(r0 *geotiff.Rows) error {
		rows[0] = r0
		for i := range others {
			b := <-bands[i]
			if b.r == nil {
				if b.err == nil {
					b.err = fmt.Errorf("ended before %s", lead.name)
				}
				return fmt.Errorf("%s: %w", others[i].name, b.err)
			}
			rows[i+1] = b.r
		}
		if err := sweepBand(files, rows, p, quarters, data, tileCols, open, done, &active, fn); err != nil {
			return err
		}
		for i := range others {
			acks[i] <- struct{}{}
		}
		return nil
	})
	if err != nil {
		var bad *ingest.Error
		if errors.As(err, &bad) {
			return err
		}
		return fmt.Errorf("%s: %w", lead.name, err)
	}
	for _, z := range active {
		if err := z.emit(files, fn); err != nil {
			return err
		}
	}
	return nil
}

// sweepBand checks one band of each raster, opens the quarters across it,
// counts their pixels and hands over those whose last row it holds.
func sweepBand(files []*rasterFile, rows []*geotiff.Rows, p proj.Projection, quarters Quarters, data []bool, tileCols int,
	open map[uint64]bool, done quarterBits, active *[]*zone, fn func([]QuarterYear, orb.Bound) error) error {
	im := files[0].im
	r0 := rows[0]
	end := r0.Y + r0.Height
	clear(data)
	for i, rf := range files {
		r := rows[i]
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
					if v < 0 || v >= 256 || !rf.skip[v] {
						data[c] = true
						break
					}
				}
			}
			if row != nil && !slices.ContainsFunc(row, func(v byte) bool { return !rf.skip[v] && !rf.valid[v] }) {
				continue
			}
			for x := range im.Width {
				v := r.At(x, y)
				if v >= 0 && v < 256 && (rf.skip[v] || rf.valid[v]) {
					continue
				}
				return ingest.BadValue(rf.name, y+1, fmt.Sprintf("pixel %d (row %d)", x, y), strconv.Itoa(v), rf.accepted)
			}
		}
	}
	zones, err := bandZones(im, p, quarters, r0.Y, end, data, tileCols, open, done)
	if err != nil {
		return err
	}
	for _, z := range zones {
		z.counts = make([][]ClassShare, len(files))
		open[qkey(z.loc)] = true
	}
	*active = append(*active, zones...)
	kept := (*active)[:0]
	for _, z := range *active {
		for y := max(z.top, r0.Y); y <= min(z.bot, end-1); y++ {
			z.scan(files, rows, y, im.Width)
		}
		if z.bot >= end {
			kept = append(kept, z)
			continue
		}
		delete(open, qkey(z.loc))
		done.add(z.loc)
		if err := z.emit(files, fn); err != nil {
			return err
		}
	}
	clear((*active)[len(kept):])
	*active = kept
	return nil
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
// in pixel coordinates: those met over the band that have rows from y0
// on, neither open already (in open) nor done with (done: handed over,
// without a pixel, or wholly in bands already read), so that a quarter is
// not projected again in every later band whose outline it meets. Only
// the runs of columns whose tiles (tileCols wide) hold data in the band,
// data[c], are searched: the
// quarters wholly over nodata are neither projected nor held (the grid
// model's quarters of a province's rectangle are millions; a raster
// covers only the farmed ones). A quarter met first in a later band than
// its first row lost nothing: its rows in the bands before were nodata.
// Each quarter is thus opened once, and only the quarters across the band
// being read are held, not the raster's.
func bandZones(im *geotiff.Image, p proj.Projection, quarters Quarters, y0, y1 int, data []bool, tileCols int, open map[uint64]bool, done quarterBits) ([]*zone, error) {
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
		if zones, err = runZones(im, p, quarters, x0, x1, y0, y1, open, met, done, zones); err != nil {
			return nil, err
		}
		c0 = c1
	}
	return zones, nil
}

// runZones adds to zones the quarters across columns [x0, x1) and rows
// [y0, y1) neither open nor met.
func runZones(im *geotiff.Image, p proj.Projection, quarters Quarters, x0, x1, y0, y1 int, open, met map[uint64]bool, done quarterBits, zones []*zone) ([]*zone, error) {
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
		if open[k] || met[k] || done.has(loc) {
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
		if err != nil {
			return err
		}
		if z == nil || z.bot < y0 { // no pixel, or all in bands already read
			done.add(loc)
			return nil
		}
		if z.top >= y1 { // met again in the band of its first row: not held before
			return nil
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
	z := &zone{loc: loc, bound: polys.Bound()}
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

// PixelZone is a quarter section's polygons in a raster's pixel grid: the
// pixels whose centres are inside, exactly those the raster readers count
// for the quarter. The demo generators (demo/agdemo) fill these pixels
// with the quarter's classes so that reading the raster back gives the
// shares they chose. Spans reuses scratch memory: a PixelZone is for one
// goroutine.
type PixelZone struct{ z *zone }

// NewPixelZone puts a quarter's polygons (lng/lat) in the pixel grid of a
// width × height raster georeferenced by geo in projection p; nil when no
// pixel centre of the raster can be inside. loc names the quarter in
// errors.
func NewPixelZone(loc lld.Location, polys orb.MultiPolygon, p proj.Projection, geo geotiff.Geo, width, height int) (*PixelZone, error) {
	z, err := newZone(loc, polys, p, geo, width, height)
	if err != nil || z == nil {
		return nil, err
	}
	return &PixelZone{z}, nil
}

// Rows returns the first and last rows whose pixel centres may be inside.
func (z *PixelZone) Rows() (top, bot int) { return z.z.top, z.z.bot }

// Spans calls fn with each run [x0, x1) of row y's pixels whose centres
// are inside (even-odd rule; a centre on a left edge is inside, on a right
// edge outside, so that quarters sharing an edge never share a pixel);
// width is the raster's.
func (z *PixelZone) Spans(y, width int, fn func(x0, x1 int)) { z.z.spans(y, width, fn) }

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

// scan counts the pixels of row y inside the zone in each raster, nodata
// left out.
func (z *zone) scan(files []*rasterFile, rows []*geotiff.Rows, y, width int) {
	z.runs = z.runs[:0]
	z.spans(y, width, func(x0, x1 int) { z.runs = append(z.runs, [2]int{x0, x1}) })
	for i, rf := range files {
		r := rows[i]
		for _, run := range z.runs {
			for x := run[0]; x < run[1]; x++ {
				if v := r.At(x, y); v >= 256 || !rf.skip[v] {
					z.counts[i] = addPixel(z.counts[i], v)
				}
			}
		}
	}
}

func addPixel(counts []ClassShare, code int) []ClassShare {
	for i := range counts {
		if counts[i].Code == code {
			counts[i].Pixels++
			return counts
		}
	}
	return append(counts, ClassShare{Code: code, Pixels: 1})
}

// emit hands over a finished zone with its shares in each raster that has
// pixels in it; nothing when none has.
func (z *zone) emit(files []*rasterFile, fn func([]QuarterYear, orb.Bound) error) error {
	var ys []QuarterYear
	for i, counts := range z.counts {
		if len(counts) == 0 {
			continue
		}
		total := 0
		for _, c := range counts {
			total += c.Pixels
		}
		slices.SortFunc(counts, func(a, b ClassShare) int { return a.Code - b.Code })
		for j := range counts {
			counts[j].Pct = round(100*float64(counts[j].Pixels)/float64(total), 2)
		}
		files[i].info.Quarters++
		ys = append(ys, QuarterYear{Location: z.loc, Year: files[i].info.Year, Classes: counts})
	}
	z.counts, z.rings = nil, nil
	if len(ys) == 0 {
		return nil
	}
	return fn(ys, z.bound)
}

// rasterExtent is the lng/lat bound of a raster, from points along its
// edges (a projected straight edge bends in lng/lat), padded by about a
// kilometre.
func rasterExtent(im *geotiff.Image, p proj.Projection) (orb.Bound, error) {
	var b orb.Bound
	const steps = 256
	for i := 0; i <= steps; i++ {
		f := float64(i) / steps
		for j, cr := range [][2]float64{{f, 0}, {f, 1}, {0, f}, {1, f}} {
			x, y := im.Geo.Map(cr[0]*float64(im.Width), cr[1]*float64(im.Height))
			ll, err := p.ToLngLat(x, y)
			if err != nil {
				return orb.Bound{}, fmt.Errorf("ag: raster point %.0f, %.0f: %w", x, y, err)
			}
			if i == 0 && j == 0 {
				b = ll.Bound()
			} else {
				b = b.Extend(ll)
			}
		}
	}
	return b.Pad(0.01), nil
}
