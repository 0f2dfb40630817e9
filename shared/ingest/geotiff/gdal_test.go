package geotiff_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"meridian/shared/ingest/geotiff"
)

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

func run(t *testing.T, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, errb.String())
	}
	return out.String()
}

// TestGDALReadsOurs: GDAL reads the pixels, transform and nodata we write.
func TestGDALReadsOurs(t *testing.T) {
	needGDAL(t, "gdallocationinfo", "gdalinfo")
	t.Parallel()
	const w, h = 77, 45
	dir := t.TempDir()
	var pts []string
	for _, p := range [][2]int{{0, 0}, {76, 44}, {31, 15}, {32, 16}, {40, 7}, {3, 44}, {76, 0}, {50, 30}} {
		pts = append(pts, fmt.Sprintf("%d %d", p[0], p[1]))
	}
	for i, v := range variants(w, h) {
		if i%2 == 1 && i < 20 {
			continue // GDAL starts slowly: half the codec and layout combinations, and every byte order
		}
		p := writeFile(t, dir, fmt.Sprintf("v%d.tif", i), write(t, v.o))
		got := strings.Fields(run(t, strings.Join(pts, "\n")+"\n", "gdallocationinfo", "-valonly", p))
		if len(got) != len(pts) {
			t.Fatalf("%s: gdallocationinfo gave %q for %d points", v.name, got, len(pts))
		}
		for k, s := range pts {
			var x, y int
			fmt.Sscan(s, &x, &y)
			if want := strconv.Itoa(int(pattern(x, y, v.o.BitsPerSample))); got[k] != want {
				t.Errorf("%s: GDAL pixel (%s) = %s, we wrote %s", v.name, s, got[k], want)
			}
		}
		if i > 0 {
			continue // the georeferencing is the same in every variant
		}
		var info struct {
			GeoTransform []float64 `json:"geoTransform"`
			Bands        []struct {
				NoData *float64 `json:"noDataValue"`
			} `json:"bands"`
			CoordinateSystem struct {
				WKT string `json:"wkt"`
			} `json:"coordinateSystem"`
		}
		if err := json.Unmarshal([]byte(run(t, "", "gdalinfo", "-json", p)), &info); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(info.GeoTransform) != "[500000 30 0 5.65e+06 0 -30]" || len(info.Bands) != 1 ||
			info.Bands[0].NoData == nil || *info.Bands[0].NoData != 255 || !strings.Contains(info.CoordinateSystem.WKT, `ID["EPSG",26912]`) {
			t.Errorf("%s: gdalinfo geotransform %v, bands %+v, EPSG:26912 in WKT %v", v.name, info.GeoTransform, info.Bands,
				strings.Contains(info.CoordinateSystem.WKT, `ID["EPSG",26912]`))
		}
	}
}

// TestWeReadGDALs: we read what gdal_translate writes, in the layouts a
// publisher's GDAL would produce.
func TestWeReadGDALs(t *testing.T) {
	needGDAL(t, "gdal_translate")
	t.Parallel()
	const w, h = 300, 170
	dir := t.TempDir()
	o := geotiff.WriteOptions{Width: w, Height: h, BlockHeight: h, EPSG: 26913,
		Origin: [2]float64{400000, 5800000}, PixelSize: [2]float64{30, 30}}
	src := writeFile(t, dir, "src.tif", write(t, o))
	for i, co := range [][]string{
		{"TILED=YES", "COMPRESS=LZW"},
		{"TILED=YES", "COMPRESS=LZW", "PREDICTOR=2", "BLOCKXSIZE=64", "BLOCKYSIZE=32"},
		{"TILED=YES", "COMPRESS=DEFLATE", "ZLEVEL=9"},
		{"COMPRESS=DEFLATE", "PREDICTOR=2", "BLOCKYSIZE=9"},
		{"COMPRESS=LZW"},
		{"COMPRESS=NONE", "ENDIANNESS=BIG"},
		{"TILED=YES", "COMPRESS=LZW", "BIGTIFF=YES"},
		{"TILED=YES", "COMPRESS=DEFLATE", "ENDIANNESS=BIG", "BIGTIFF=YES", "PREDICTOR=2"},
		{"TILED=YES", "SPARSE_OK=TRUE"},
	} {
		dst := fmt.Sprintf("%s/g%d.tif", dir, i)
		args := []string{"-q", "-a_nodata", "0"}
		for _, c := range co {
			args = append(args, "-co", c)
		}
		run(t, "", "gdal_translate", append(args, src, dst)...)
		data, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		im, px := readAll(t, data)
		if im.Geo.EPSG != 26913 || !im.HasNoData || im.NoData != 0 {
			t.Errorf("%v: Geo %+v nodata %d (%v); want EPSG 26913, nodata 0", co, im.Geo, im.NoData, im.HasNoData)
		}
		bad := 0
		for y := range h {
			for x := range w {
				if want := int(pattern(x, y, 8)); px[y][x] != want && bad < 3 {
					t.Errorf("%v: pixel (%d, %d) = %d, want %d", co, x, y, px[y][x], want)
					bad++
				}
			}
		}
	}
}

// TestPixelIsPoint: GDAL writes an AREA_OR_POINT=Point raster with
// GTRasterType PixelIsPoint and its tiepoint at a pixel centre; we map
// pixel corners the same as for PixelIsArea, as GDAL does.
func TestPixelIsPoint(t *testing.T) {
	needGDAL(t, "gdal_translate")
	t.Parallel()
	dir := t.TempDir()
	o := geotiff.WriteOptions{Width: 20, Height: 10, BlockHeight: 10, EPSG: 26914,
		Origin: [2]float64{600000, 5500000}, PixelSize: [2]float64{30, 30}}
	src := writeFile(t, dir, "src.tif", write(t, o))
	dst := dir + "/point.tif"
	run(t, "", "gdal_translate", "-q", "-mo", "AREA_OR_POINT=Point", "-co", "COMPRESS=DEFLATE", src, dst)
	data, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	im, _ := readAll(t, data)
	if !im.Geo.PixelIsPoint || im.Geo.Transform != [6]float64{600000, 30, 0, 5500000, 0, -30} {
		t.Errorf("Geo = %+v, want PixelIsPoint with the corner transform 600000 30 0 5500000 0 -30", im.Geo)
	}
}
