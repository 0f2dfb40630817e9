package shp_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
)

// BenchmarkReader reads 2,000 quarter sections with a hole each and three
// attributes.
func BenchmarkReader(b *testing.B) {
	fields := []shp.Field{
		{Name: "LLD", Type: shp.Character, Length: 20},
		{Name: "TWP", Type: shp.Numeric, Length: 3},
		{Name: "AREA_HA", Type: shp.Float, Length: 10, Decimals: 2},
	}
	var recs []record
	for i := range 2000 {
		x, y := 400000+float64(i%50)*805, 5430000+float64(i/50)*805
		recs = append(recs, record{orb.Polygon{sq(x, y, 804.672), cw(sq(x+100, y+100, 50))}, []string{"NE-1-1-1-W2", "1", "64.75"}})
	}
	f := build(b, shp.Polygon, fields, shp.WriterOptions{}, recs)
	b.SetBytes(int64(len(f.shp) + len(f.dbf)))
	for b.Loop() {
		r, err := shp.NewReader(bytes.NewReader(f.shp), bytes.NewReader(f.dbf), shp.ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
