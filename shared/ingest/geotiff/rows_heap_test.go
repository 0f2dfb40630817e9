//go:build heaptest

package geotiff_test

import (
	"bytes"
	"runtime"
	"testing"

	"meridian/shared/ingest/geotiff"
	"meridian/shared/internal/heaptest"
)

// TestRowsHeapFlat: reading holds one row of blocks, not the image. An
// image 4096 pixels wide in 256-row tiles needs a 1 MiB row buffer
// whatever its height; reading one 8 times taller must not need more.
func TestRowsHeapFlat(t *testing.T) {
	peak := func(height int) uint64 {
		o := geotiff.WriteOptions{Width: 4096, Height: height, Tiled: true, BlockWidth: 256, BlockHeight: 256,
			Compression: geotiff.CompressionDeflate, EPSG: 26912, PixelSize: [2]float64{30, 30}}
		var b bytes.Buffer
		err := geotiff.Write(&b, o, func(x0, y0 int, px []uint16) error {
			for i := range px {
				px[i] = uint16((x0 + i%256 + y0 + i/256) % 200)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		data := b.Bytes() // compressed: a few hundred KB
		im, err := geotiff.Open(bytes.NewReader(data), int64(len(data)), geotiff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var base, m runtime.MemStats
		runtime.ReadMemStats(&base)
		var top uint64
		err = im.Rows(func(r *geotiff.Rows) error {
			runtime.GC() // live memory, not garbage awaiting collection
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc-min(m.HeapAlloc, base.HeapAlloc))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return top
	}
	// The best of three attempts (heaptest.LowestBy), by how far the tall
	// image's growth is over the bounds below.
	type attempt struct{ small, tall uint64 }
	a := heaptest.LowestBy(0, func(a attempt) int64 { return max(int64(a.tall)-2<<20, int64(a.tall)-int64(a.small)-256<<10) },
		func() attempt { return attempt{peak(512), peak(4096)} }) // 2 MiB and 16 MiB of pixels
	small, tall := a.small, a.tall
	t.Logf("heap growth while reading: %d KiB for 2 MiB of pixels, %d KiB for 16 MiB", small>>10, tall>>10)
	if tall > 2<<20 || tall > small+(256<<10) {
		t.Errorf("heap grew by %d bytes reading 16 MiB of pixels (%d for 2 MiB): not bounded by a block row", tall, small)
	}
}
