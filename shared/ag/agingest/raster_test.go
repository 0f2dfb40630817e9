package agingest_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
)

// testGrid is a raster grid in NAD83 / UTM zone 12N with 30 m pixels.
type testGrid struct {
	epsg   int
	origin [2]float64
	w, h   int
}

func (g testGrid) proj(t testing.TB) proj.Projection {
	p, err := proj.FromEPSG(g.epsg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lngLat turns a pixel-space ring (columns, rows from the top-left corner)
// into a lng/lat polygon.
func (g testGrid) lngLat(t testing.TB, px ...orb.Point) orb.Polygon {
	t.Helper()
	p := g.proj(t)
	var ring orb.Ring
	for _, q := range append(px, px[0]) {
		ll, err := p.ToLngLat(g.origin[0]+30*q[0], g.origin[1]-30*q[1])
		if err != nil {
			t.Fatal(err)
		}
		ring = append(ring, ll)
	}
	return orb.Polygon{ring}
}

// writeRaster writes a raster of the grid with pixel values px(x, y).
func (g testGrid) write(t testing.TB, path string, o geotiff.WriteOptions, px func(x, y int) int) {
	t.Helper()
	o.Width, o.Height, o.EPSG = g.w, g.h, g.epsg
	o.Origin, o.PixelSize = g.origin, [2]float64{30, 30}
	if o.BlockHeight == 0 {
		o.Tiled, o.BlockWidth, o.BlockHeight = true, 16, 16
	}
	var b bytes.Buffer
	err := geotiff.Write(&b, o, func(x0, y0 int, buf []uint16) error {
		bw := o.BlockWidth
		if !o.Tiled {
			bw = o.Width
		}
		for i := range buf {
			if x, y := x0+i%bw, y0+i/bw; x < g.w && y < g.h {
				buf[i] = uint16(px(x, y))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

type testQuarter struct {
	loc  lld.Location
	poly orb.Polygon
}

func quartersOf(qs []testQuarter) agingest.Quarters {
	return func(b orb.Bound, fn func(lld.Location, orb.Geometry) error) error {
		for _, q := range qs {
			if q.poly.Bound().Intersects(b) {
				if err := fn(q.loc, q.poly); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func readCrops(t testing.TB, path string, qs []testQuarter) (map[string]agingest.QuarterYear, agingest.RasterInfo, error) {
	got := map[string]agingest.QuarterYear{}
	info, err := agingest.ReadCropRaster(path, agingest.RasterOptions{Quarters: quartersOf(qs)}, func(q agingest.QuarterYear) error {
		if _, dup := got[q.Location.String()]; dup {
			t.Errorf("%s handed over twice", q.Location)
		}
		got[q.Location.String()] = q
		return nil
	})
	return got, info, err
}

// TestCropRasterGolden counts by hand. The raster is 10 × 8 pixels of
// 30 m; columns 0-6 hold canola (153), columns 7-9 spring wheat (146),
// with barley (133) at (2, 3) and nodata 0 at (8, 1) and 255 at (9, 3).
//
//	col  0 1 2 3 4 5 6 7 8 9
//	row 0          . T T T T     T: the triangle (5.2,0) (10,0) (10,4.8):
//	row 1  . . . . . . . T 0 T      centres below the diagonal: 1 + 2 + 3 + 4
//	row 2  . S S S . . . . T T      = 10, less 2 nodata = 153:1, 146:7
//	row 3  . S B S . . . . . 255
//	row 4  . S S S                  S: the square (1,2)-(4,6): 3 × 4 = 12
//	row 5  . S S S                     centres, 153:11 and 133:1
func TestCropRasterGolden(t *testing.T) {
	t.Parallel()
	g := testGrid{epsg: 26912, origin: [2]float64{500000, 5700000}, w: 10, h: 8}
	px := func(x, y int) int {
		switch {
		case x == 2 && y == 3:
			return 133
		case x == 8 && y == 1:
			return 0
		case x == 9 && y == 3:
			return 255
		case x < 7:
			return 153
		}
		return 146
	}
	sq, tri := mustLoc("NW-25-24-1-W5"), mustLoc("NE-25-24-1-W5")
	qs := []testQuarter{
		{sq, g.lngLat(t, orb.Point{1, 6}, orb.Point{4, 6}, orb.Point{4, 2}, orb.Point{1, 2})},
		{tri, g.lngLat(t, orb.Point{5.2, 0}, orb.Point{10, 4.8}, orb.Point{10, 0})},
		{mustLoc("SW-25-24-1-W5"), g.lngLat(t, orb.Point{20, 20}, orb.Point{30, 20}, orb.Point{30, 10})}, // off the raster
	}
	for _, o := range []geotiff.WriteOptions{
		{Compression: geotiff.CompressionLZW, Tiled: true, BlockWidth: 16, BlockHeight: 16},
		{Compression: geotiff.CompressionDeflate, Predictor: geotiff.PredictorHorizontal, BlockHeight: 3},
	} {
		path := filepath.Join(t.TempDir(), "aci_2023_ab.tif")
		g.write(t, path, o, px)
		got, info, err := readCrops(t, path, qs)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]agingest.QuarterYear{
			sq.String():  {Location: sq, Year: 2023, Classes: []agingest.ClassShare{{Code: 133, Pixels: 1, Pct: 8.33}, {Code: 153, Pixels: 11, Pct: 91.67}}},
			tri.String(): {Location: tri, Year: 2023, Classes: []agingest.ClassShare{{Code: 146, Pixels: 7, Pct: 87.5}, {Code: 153, Pixels: 1, Pct: 12.5}}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ReadCropRaster (-want +got):\n%s", diff)
		}
		if info.Year != 2023 || info.Quarters != 2 || info.Layout != agingest.ACIRasterLayout || info.CRS.Verified ||
			!strings.Contains(info.Form, "EPSG:26912") {
			t.Errorf("RasterInfo = %+v", info)
		}
	}
}

// TestCropRasterBadClass: a pixel value outside the legend rejects the
// file, naming file, row and column, value and the values accepted.
func TestCropRasterBadClass(t *testing.T) {
	t.Parallel()
	g := testGrid{epsg: 26912, origin: [2]float64{500000, 5700000}, w: 10, h: 8}
	path := filepath.Join(t.TempDir(), "aci_2022_sk.tif")
	g.write(t, path, geotiff.WriteOptions{Compression: geotiff.CompressionDeflate}, func(x, y int) int {
		if x == 4 && y == 7 {
			return 99
		}
		return 146
	})
	_, _, err := readCrops(t, path, nil)
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != "aci_2022_sk.tif" || ie.Line != 8 ||
		!strings.Contains(ie.Reason, "pixel 4 (row 7)") || !strings.Contains(ie.Reason, `"99"`) || !strings.Contains(ie.Reason, "153") {
		t.Fatalf("ReadCropRaster = %v, want a BadValue at aci_2022_sk.tif:8, pixel 4 (row 7), value 99", err)
	}
}

func TestRasterErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := testGrid{epsg: 26912, origin: [2]float64{500000, 5700000}, w: 10, h: 8}
	noYear := filepath.Join(dir, "aci_ab.tif")
	g.write(t, noYear, geotiff.WriteOptions{}, func(x, y int) int { return 146 })
	if _, _, err := readCrops(t, noYear, nil); err == nil || !strings.Contains(err.Error(), "no year") {
		t.Errorf("no year in the name: %v", err)
	}
	odd := testGrid{epsg: 3400, origin: [2]float64{500000, 5700000}, w: 10, h: 8}
	crs := filepath.Join(dir, "aci_2021_ab.tif")
	odd.write(t, crs, geotiff.WriteOptions{}, func(x, y int) int { return 146 })
	if _, _, err := readCrops(t, crs, nil); !errors.Is(err, proj.ErrUnsupported) && (err == nil || !strings.Contains(err.Error(), "EPSG:3400")) {
		t.Errorf("EPSG:3400: %v, want unsupported", err)
	}
}

func TestLandUseRaster(t *testing.T) {
	t.Parallel()
	g := testGrid{epsg: 26914, origin: [2]float64{600000, 5500000}, w: 12, h: 12}
	path := filepath.Join(t.TempDir(), "IMG_AAFC_LANDUSE_Z14_2020.tif")
	nodata := 0
	g.write(t, path, geotiff.WriteOptions{Compression: geotiff.CompressionLZW, NoData: &nodata}, func(x, y int) int {
		return []int{52, 52, 61, 0}[(x+y)%4]
	})
	q := mustLoc("SE-1-10-9-W1")
	qs := []testQuarter{{q, g.lngLat(t, orb.Point{0, 0}, orb.Point{0, 4}, orb.Point{4, 4}, orb.Point{4, 0})}}
	var got []agingest.QuarterYear
	info, err := agingest.ReadLandUseRaster(path, agingest.RasterOptions{Quarters: quartersOf(qs)}, func(q agingest.QuarterYear) error {
		got = append(got, q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 16 centres: (x+y)%4 is 0 or 1 for 8 of them (52), 2 for 4 (61), 3 for 4 (nodata).
	want := []agingest.QuarterYear{{Location: q, Year: 2020, Classes: []agingest.ClassShare{{Code: 52, Pixels: 8, Pct: 66.67}, {Code: 61, Pixels: 4, Pct: 33.33}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadLandUseRaster (-want +got):\n%s", diff)
	}
	if info.Layout != agingest.LandUseRasterLayout || !info.Layout.Verified {
		t.Errorf("layout = %+v", info.Layout)
	}
}

func TestRasterYear(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]int{
		"aci_2023_ab.tif": 2023, "IMG_AAFC_LANDUSE_Z07_2010.tif": 2010, "LU2015_u17_v3_2021_06.tif": 2015,
		"aci_ab.tif": 0, "x_12345.tif": 0,
	} {
		if got := agingest.RasterYear(name); got != want {
			t.Errorf("RasterYear(%q) = %d, want %d", name, got, want)
		}
	}
}

// TestZonalGDAL compares our per-quarter counts with GDAL's: gdal_rasterize
// burns each quarter's number into a grid like the raster's (a pixel is
// burnt when its centre is inside, GDAL's default), and the pairs of
// (quarter, class) are counted over both rasters.
func TestZonalGDAL(t *testing.T) {
	needGDAL(t, "gdal_rasterize")
	t.Parallel()
	g := testGrid{epsg: 26913, origin: [2]float64{300000, 5800000}, w: 150, h: 110}
	r := rand.New(rand.NewPCG(7, 9))
	codes := []int{0, 20, 122, 133, 146, 153, 154, 162, 174, 255}
	cls := make([]int, g.w*g.h)
	for i := range cls {
		cls[i] = codes[r.IntN(len(codes))]
	}
	// Tilted quadrilaterals about 27 pixels across (a quarter section at
	// 30 m), vertices off the pixel grid.
	var qs []testQuarter
	var features []string
	n := 0
	for cy := 10.0; cy < 120; cy += 30 { // apart: GDAL burns one id a pixel
		for cx := 8.0; cx < 160; cx += 31 {
			n++
			j := func() float64 { return r.Float64()*3 - 1.5 }
			ring := []orb.Point{{cx + j(), cy + j()}, {cx + 27 + j(), cy + 1 + j()}, {cx + 26 + j(), cy + 27 + j()}, {cx - 1 + j(), cy + 26 + j()}}
			loc := mustLoc(fmt.Sprintf("%s-%d-40-10-W3", []string{"NE", "NW", "SW", "SE"}[n%4], 1+(n-1)/4))
			qs = append(qs, testQuarter{loc, g.lngLat(t, ring...)})
			var coords []string
			for _, p := range append(ring, ring[0]) {
				coords = append(coords, fmt.Sprintf("[%.4f,%.4f]", g.origin[0]+30*p[0], g.origin[1]-30*p[1]))
			}
			features = append(features, fmt.Sprintf(`{"type":"Feature","properties":{"id":%d},"geometry":{"type":"Polygon","coordinates":[[%s]]}}`, n, strings.Join(coords, ",")))
		}
	}
	dir := t.TempDir()
	fc := `{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::26913"}},"features":[` + strings.Join(features, ",") + "]}"
	if err := os.WriteFile(filepath.Join(dir, "q.geojson"), []byte(fc), 0o644); err != nil {
		t.Fatal(err)
	}
	te := fmt.Sprint(g.origin[0], " ", g.origin[1]-30*float64(g.h), " ", g.origin[0]+30*float64(g.w), " ", g.origin[1])
	cmd := exec.Command("gdal_rasterize", append([]string{"-q", "-a", "id", "-ot", "Byte", "-init", "0", "-tr", "30", "30",
		"-te"}, append(strings.Fields(te), filepath.Join(dir, "q.geojson"), filepath.Join(dir, "zones.tif"))...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gdal_rasterize: %v: %s", err, out)
	}
	zdata, err := os.ReadFile(filepath.Join(dir, "zones.tif"))
	if err != nil {
		t.Fatal(err)
	}
	zim, err := geotiff.Open(bytes.NewReader(zdata), int64(len(zdata)), geotiff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if zim.Width != g.w || zim.Height != g.h {
		t.Fatalf("gdal_rasterize grid %d × %d, want %d × %d", zim.Width, zim.Height, g.w, g.h)
	}
	want := map[string]map[int]int{}
	err = zim.Rows(func(rows *geotiff.Rows) error {
		for y := rows.Y; y < rows.Y+rows.Height; y++ {
			for x := range g.w {
				id, c := rows.At(x, y), cls[y*g.w+x]
				if id == 0 || c == 0 || c == 255 {
					continue
				}
				k := qs[id-1].loc.String()
				if want[k] == nil {
					want[k] = map[int]int{}
				}
				want[k][c]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []geotiff.WriteOptions{
		{Compression: geotiff.CompressionLZW, Tiled: true, BlockWidth: 32, BlockHeight: 32},
		{Compression: geotiff.CompressionDeflate, BlockHeight: 8},
	} {
		path := filepath.Join(dir, "aci_2024_sk.tif")
		g.write(t, path, o, func(x, y int) int { return cls[y*g.w+x] })
		got, _, err := readCrops(t, path, qs)
		if err != nil {
			t.Fatal(err)
		}
		gotCounts := map[string]map[int]int{}
		for k, q := range got {
			gotCounts[k] = map[int]int{}
			for _, c := range q.Classes {
				gotCounts[k][c.Code] = c.Pixels
			}
		}
		if len(want) < 15 {
			t.Fatalf("GDAL burnt only %d quarters", len(want))
		}
		if diff := cmp.Diff(want, gotCounts); diff != "" {
			t.Errorf("per-quarter class counts, tiled=%v (-GDAL +ours):\n%s", o.Tiled, diff)
		}
	}
}

// needGDAL skips a test when gdal's command-line tools are absent, unless
// MERIDIAN_REQUIRE_GDAL=1 (set by .ci/run), which makes it a failure.
func needGDAL(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("MERIDIAN_REQUIRE_GDAL") == "1" {
				t.Fatalf("%s not found and MERIDIAN_REQUIRE_GDAL=1: install gdal-bin", tool)
			}
			t.Skipf("%s not found: install gdal-bin (apt-get install gdal-bin) to compare with GDAL", tool)
		}
	}
}

func mustLoc(s string) lld.Location {
	l, err := lld.Parse(s)
	if err != nil {
		panic(err)
	}
	return l
}

// TestLandUseRasterBadClass: 53 is no Land Use class.
func TestLandUseRasterBadClass(t *testing.T) {
	t.Parallel()
	g := testGrid{epsg: 3978, origin: [2]float64{-200000, 300000}, w: 8, h: 8}
	path := filepath.Join(t.TempDir(), "IMG_AAFC_LANDUSE_Z14_2010.tif")
	g.write(t, path, geotiff.WriteOptions{Compression: geotiff.CompressionDeflate}, func(x, y int) int {
		if x == 6 && y == 2 {
			return 53
		}
		return 51
	})
	_, err := agingest.ReadLandUseRaster(path, agingest.RasterOptions{Quarters: quartersOf(nil)}, func(agingest.QuarterYear) error { return nil })
	var ie *ingest.Error
	if !errors.As(err, &ie) || ie.File != "IMG_AAFC_LANDUSE_Z14_2010.tif" || ie.Line != 3 || !strings.Contains(ie.Reason, `"53"`) || !strings.Contains(ie.Reason, "52") {
		t.Fatalf("ReadLandUseRaster = %v, want a BadValue at line 3, value 53", err)
	}
}
