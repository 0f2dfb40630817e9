package shp_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/paulmach/orb"
	"meridian/shared/ingest/shp"
)

// record is one feature to write.
type record struct {
	geom  orb.Geometry
	attrs []string
}

// files is a shapefile in memory.
type files struct {
	shp, shx, dbf []byte
}

// build writes records with the package's own Writer.
func build(t testing.TB, st shp.ShapeType, fields []shp.Field, opts shp.WriterOptions, recs []record) files {
	t.Helper()
	var s, x, d shp.Buffer
	w, err := shp.NewWriter(&s, &x, &d, st, fields, opts)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	for i, r := range recs {
		if err := w.Write(r.geom, r.attrs); err != nil {
			t.Fatalf("Write record %d: %v", i+1, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return files{s.Bytes(), x.Bytes(), d.Bytes()}
}

// readAll reads every feature, stopping at the first error.
func readAll(shpData, dbfData []byte, opts shp.ReaderOptions) ([]shp.Feature, []shp.Field, error) {
	var dbf io.Reader
	if dbfData != nil {
		dbf = bytes.NewReader(dbfData)
	}
	r, err := shp.NewReader(bytes.NewReader(shpData), dbf, opts)
	if err != nil {
		return nil, nil, err
	}
	var out []shp.Feature
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Fields(), nil
		}
		if err != nil {
			return out, r.Fields(), err
		}
		out = append(out, f)
	}
}

// oneField is a single text field.
var oneField = []shp.Field{{Name: "NAME", Type: shp.Character, Length: 16}}

// sq returns the counter-clockwise closed ring of the square [x, x+s] ×
// [y, y+s] (orb's outer-ring orientation).
func sq(x, y, s float64) orb.Ring {
	return orb.Ring{{x, y}, {x + s, y}, {x + s, y + s}, {x, y + s}, {x, y}}
}

// cw returns r reversed.
func cw(r orb.Ring) orb.Ring {
	c := r.Clone()
	c.Reverse()
	return c
}

// float64At reads the little-endian float64 at off.
func float64At(b []byte, off int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(b[off : off+8]))
}
