package agingest

import (
	"cmp"
	"fmt"
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

func describe(im *geotiff.Image, p proj.Projection, nodata []int) string {
	blocks := fmt.Sprintf("strips of %d rows", im.BlockHeight)
	if im.Tiled {
		blocks = fmt.Sprintf("tiled %d×%d", im.BlockWidth, im.BlockHeight)
	}
	comp := map[int]string{geotiff.CompressionNone: "uncompressed", geotiff.CompressionLZW: "LZW", geotiff.CompressionDeflate: "Deflate"}[im.Compression]
	return fmt.Sprintf("%d×%d px, %s, %s, %d-bit, EPSG:%d (%s), pixel %g × %g, nodata %v",
		im.Width, im.Height, blocks, comp, im.BitsPerSample, p.EPSG(), p.Name(), im.Geo.Transform[1], -im.Geo.Transform[5], nodata)
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
