package blob_test

import (
	"path/filepath"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
)

// BenchmarkReadRange reads 16 KiB at offsets spread over a 1 MiB object, the
// size of a PMTiles header-and-root-directory read. reads/op is the number of
// ReadRange calls that reached the underlying store.
func BenchmarkReadRange(b *testing.B) {
	const size, n = 1 << 20, 16 << 10
	data := object(size)
	objects := map[string][]byte{"grid/ab.idx": data}

	dir := blob.NewDir(filepath.Join(b.TempDir(), "d"))
	blobtest.Fill(b, dir, objects)
	mem := blob.NewMem()
	blobtest.Fill(b, mem, objects)
	s3 := s3blob.New(s3blobtest.FakeS3(b, "meridian"), "meridian", "bench", s3blob.Options{})
	blobtest.Fill(b, s3, objects)

	stores := []struct {
		name   string
		s      blob.Store
		cached bool
	}{
		{"Dir", dir, false},
		{"Mem", mem, false},
		{"S3-gofakes3", s3, false},
		{"Cached-hits-Dir", dir, true},
		{"Cached-hits-S3", s3, true},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			counting := blob.NewCounting(st.s)
			var s blob.Store = counting
			if st.cached {
				c := blob.NewCached(counting, blob.CacheOptions{})
				for off := int64(0); off < size; off += n { // warm every block
					if _, err := c.ReadRange(b.Context(), "grid/ab.idx", off, n); err != nil {
						b.Fatal(err)
					}
				}
				counting.Reset()
				s = c
			}
			b.SetBytes(n)
			b.ReportAllocs()
			i := int64(0)
			for b.Loop() {
				off := (i * 40_009) % (size - n)
				i++
				got, err := s.ReadRange(b.Context(), "grid/ab.idx", off, n)
				if err != nil || len(got) != n {
					b.Fatalf("ReadRange(%d, %d) = %d bytes, %v", off, n, len(got), err)
				}
			}
			b.ReportMetric(float64(counting.Stats().Reads)/float64(i), "reads/op")
		})
	}
}
