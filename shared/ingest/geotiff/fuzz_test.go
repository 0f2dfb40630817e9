package geotiff_test

import (
	"bytes"
	"testing"

	"meridian/shared/ingest/geotiff"
)

// FuzzOpen: any bytes either fail to open or decode without panicking,
// within the block-row bound. A small file can announce many sparse or
// highly compressed blocks (gigabytes of pixels from kilobytes), so the
// bound is small here and only the corners of each band are read.
func FuzzOpen(f *testing.F) {
	for i, v := range variants(40, 20) {
		if i%3 == 0 {
			f.Add(write(f, v.o)) // every codec and layout, both byte orders, BigTIFF
		}
	}
	f.Add([]byte("II*\x00\x08\x00\x00\x00"))
	f.Add([]byte("MM\x00+\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"))
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := geotiff.Open(bytes.NewReader(data), int64(len(data)), geotiff.Options{MaxBlockRowBytes: 64 << 10})
		if err != nil {
			return
		}
		_ = im.Rows(func(r *geotiff.Rows) error {
			r.At(0, r.Y)
			r.At(r.Width-1, r.Y+r.Height-1)
			return nil
		})
		_, _ = im.Geo.Projection()
	})
}
