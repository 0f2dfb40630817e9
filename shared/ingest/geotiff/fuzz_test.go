package geotiff_test

import (
	"bytes"
	"testing"

	"meridian/shared/ingest/geotiff"
)

// FuzzOpen: any bytes either fail to open or decode without panicking,
// within the block-row bound.
func FuzzOpen(f *testing.F) {
	for i, v := range variants(40, 20) {
		if i%3 == 0 {
			f.Add(write(f, v.o)) // every codec and layout, both byte orders, BigTIFF
		}
	}
	f.Add([]byte("II*\x00\x08\x00\x00\x00"))
	f.Add([]byte("MM\x00+\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"))
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := geotiff.Open(bytes.NewReader(data), int64(len(data)), geotiff.Options{MaxBlockRowBytes: 1 << 20})
		if err != nil {
			return
		}
		_ = im.Rows(func(r *geotiff.Rows) error {
			for y := r.Y; y < r.Y+r.Height; y++ {
				for x := 0; x < r.Width; x += 7 {
					r.At(x, y)
				}
			}
			return nil
		})
		_, _ = im.Geo.Projection()
	})
}
