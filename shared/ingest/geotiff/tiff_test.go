package geotiff_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"meridian/shared/ingest/geotiff"
)

// pattern is a test image's pixel (x, y): class-like values with runs and
// edges, distinct enough that a misplaced block or row shows.
func pattern(x, y, bits int) uint16 {
	v := (x/3*7 + y*13 + (x^y)&5) % 251
	if bits == 16 {
		return uint16(v*257 + x)
	}
	return uint16(v)
}

type variant struct {
	name string
	o    geotiff.WriteOptions
}

func variants(w, h int) []variant {
	var vs []variant
	for _, tiled := range []bool{true, false} {
		for _, comp := range []int{geotiff.CompressionNone, geotiff.CompressionLZW, geotiff.CompressionDeflate} {
			for _, pred := range []int{geotiff.PredictorNone, geotiff.PredictorHorizontal} {
				for _, bits := range []int{8, 16} {
					if comp == geotiff.CompressionNone && pred != geotiff.PredictorNone {
						continue // no predictor without a codec, as in libtiff
					}
					nodata := 255
					o := geotiff.WriteOptions{Width: w, Height: h, Tiled: tiled, BlockWidth: 32, BlockHeight: 16,
						BitsPerSample: bits, Compression: comp, Predictor: pred, EPSG: 26912,
						Origin: [2]float64{500000, 5650000}, PixelSize: [2]float64{30, 30}, NoData: &nodata}
					if !tiled {
						o.BlockHeight = 7
					}
					name := fmt.Sprintf("tiled=%v/comp=%d/pred=%d/bits=%d", tiled, comp, pred, bits)
					vs = append(vs, variant{name, o})
				}
			}
		}
	}
	// Byte orders and BigTIFF, once each.
	be := vs[5].o // tiled LZW, predictor, 16 bits
	be.BigEndian = true
	big := vs[18].o // striped deflate, predictor, 8 bits
	big.BigTIFF = true
	both := vs[7].o // tiled deflate, 16 bits
	both.BigTIFF, both.BigEndian = true, true
	return append(vs, variant{"big-endian", be}, variant{"bigtiff", big}, variant{"bigtiff big-endian", both})
}

func write(t testing.TB, o geotiff.WriteOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	err := geotiff.Write(&b, o, func(x0, y0 int, px []uint16) error {
		bw := o.BlockWidth
		if !o.Tiled {
			bw = o.Width
		}
		for i := range px {
			x, y := x0+i%bw, y0+i/bw
			if x < o.Width && y < o.Height {
				px[i] = pattern(x, y, o.BitsPerSample)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

// readAll reads every pixel, checking each row of blocks as it comes.
func readAll(t testing.TB, data []byte) (*geotiff.Image, [][]int) {
	t.Helper()
	im, err := geotiff.Open(bytes.NewReader(data), int64(len(data)), geotiff.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	px := make([][]int, im.Height)
	calls := 0
	err = im.Rows(func(r *geotiff.Rows) error {
		calls++
		for y := r.Y; y < r.Y+r.Height; y++ {
			px[y] = make([]int, im.Width)
			for x := range im.Width {
				px[y][x] = r.At(x, y)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Rows: %v", err)
	}
	if calls != im.BlockRows() {
		t.Errorf("Rows called fn %d times, want %d", calls, im.BlockRows())
	}
	return im, px
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	const w, h = 77, 45 // not multiples of the blocks: edge tiles are padded, the last strip short
	for _, v := range variants(w, h) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			im, px := readAll(t, write(t, v.o))
			if im.Width != w || im.Height != h || im.BitsPerSample != v.o.BitsPerSample || im.Tiled != v.o.Tiled ||
				im.Compression != v.o.Compression || im.Predictor != v.o.Predictor || im.BigTIFF != v.o.BigTIFF {
				t.Errorf("Open = %+v, want the options %+v", im, v.o)
			}
			for y := range h {
				for x := range w {
					if want := int(pattern(x, y, v.o.BitsPerSample)); px[y][x] != want {
						t.Fatalf("pixel (%d, %d) = %d, want %d", x, y, px[y][x], want)
					}
				}
			}
			g := im.Geo
			if g.EPSG != 26912 || g.ModelType != geotiff.ModelProjected || !im.HasNoData || im.NoData != 255 {
				t.Errorf("Geo = %+v, nodata %v %d; want EPSG 26912 projected, nodata 255", g, im.HasNoData, im.NoData)
			}
			if x, y := g.Centre(2, 1); x != 500075 || y != 5649955 {
				t.Errorf("Centre(2, 1) = %v, %v; want 500075, 5649955", x, y)
			}
			if c, r, ok := g.Pixel(500075, 5649955); !ok || c != 2.5 || r != 1.5 {
				t.Errorf("Pixel(500075, 5649955) = %v, %v, %v; want 2.5, 1.5", c, r, ok)
			}
		})
	}
}

func TestGeographic(t *testing.T) {
	t.Parallel()
	o := geotiff.WriteOptions{Width: 20, Height: 10, BlockHeight: 10, EPSG: 4269,
		Origin: [2]float64{-114, 51.1}, PixelSize: [2]float64{0.001, 0.0005}}
	im, _ := readAll(t, write(t, o))
	p, err := im.Geo.Projection()
	if err != nil || im.Geo.ModelType != geotiff.ModelGeographic || p.EPSG() != 4269 {
		t.Fatalf("Projection() = %v, %v (model %d); want NAD83", p, err, im.Geo.ModelType)
	}
	if im.HasNoData {
		t.Errorf("HasNoData with no GDAL_NODATA tag")
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	good := write(t, variants(40, 20)[0].o)
	patch := func(off int, b ...byte) []byte {
		c := bytes.Clone(good)
		copy(c[off:], b)
		return c
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not a tiff", []byte("PK\x03\x04 a zip, not a tiff")},
		{"bad version", patch(2, 41, 0)},
		{"IFD outside", patch(4, 0xff, 0xff, 0xff, 0x7f)},
		{"truncated", good[:len(good)/2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := geotiff.Open(bytes.NewReader(tc.data), int64(len(tc.data)), geotiff.Options{})
			var fe *geotiff.FormatError
			if !errors.As(err, &fe) && err == nil {
				t.Fatalf("Open(%s) = nil error", tc.name)
			}
		})
	}
	// Too wide a block row for the bound set.
	big := write(t, geotiff.WriteOptions{Width: 1000, Height: 64, Tiled: true, BlockWidth: 64, BlockHeight: 64, EPSG: 26912, PixelSize: [2]float64{30, 30}})
	if _, err := geotiff.Open(bytes.NewReader(big), int64(len(big)), geotiff.Options{MaxBlockRowBytes: 32 << 10}); !errors.Is(err, geotiff.ErrFormat) {
		t.Errorf("Open over MaxBlockRowBytes = %v, want ErrFormat", err)
	}
}

// TestCorruptBlock: a block that does not decompress names the block.
func TestCorruptBlock(t *testing.T) {
	t.Parallel()
	o := variants(64, 32)[6].o // tiled deflate
	data := write(t, o)
	data[9] ^= 0xff // inside the first tile's zlib stream
	data[10] ^= 0xff
	im, err := geotiff.Open(bytes.NewReader(data), int64(len(data)), geotiff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Rows(func(*geotiff.Rows) error { return nil }); err == nil {
		t.Errorf("Rows over a corrupt deflate tile: no error")
	}
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
