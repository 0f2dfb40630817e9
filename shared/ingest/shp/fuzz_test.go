package shp_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
)

// FuzzReader reads arbitrary .shp and .dbf bytes: the reader must not
// panic or hang, must report every problem as a *FormatError (a
// bytes.Reader has no other failure), and what it returns must be sound.
// Seeds are the Writer's fixtures, GDAL's files and the damaged files of
// TestMalformed.
//
//	go test ./shared/ingest/shp -run='^$' -fuzz=FuzzReader -fuzztime=60s
func FuzzReader(f *testing.F) {
	for _, fx := range fixtures() {
		b := build(f, fx.shapeType, fx.fields, fx.opts, fx.recs)
		f.Add(b.shp, b.dbf, fx.opts.Encoding.CPG())
	}
	names, err := filepath.Glob(filepath.Join("testdata", "gdal", "*.shp"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range names {
		base := strings.TrimSuffix(name, ".shp")
		cpg, _ := os.ReadFile(base + ".cpg")
		f.Add(mustRead(f, name), mustRead(f, base+".dbf"), string(cpg))
	}
	for _, tc := range malformedTests {
		b := tc.base(f)
		tc.damage(&b)
		f.Add(b.shp, b.dbf, tc.cpg)
	}
	f.Add([]byte{}, []byte(nil), "")
	f.Fuzz(func(t *testing.T, shpData, dbfData []byte, cpg string) {
		var dbf io.Reader
		if len(dbfData) > 0 {
			dbf = bytes.NewReader(dbfData)
		}
		r, err := shp.NewReader(bytes.NewReader(shpData), dbf, shp.ReaderOptions{CPG: cpg})
		if err != nil {
			checkFormatError(t, err)
			return
		}
		fields := r.Fields()
		last := 0
		for {
			feat, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				checkFormatError(t, err)
				if _, again := r.Next(); again == nil || again.Error() != err.Error() {
					t.Errorf("Next after %v returned %v", err, again)
				}
				return
			}
			if feat.Number <= last {
				t.Fatalf("feature number %d after %d", feat.Number, last)
			}
			last = feat.Number
			if dbf != nil && len(feat.Attrs) != len(fields) {
				t.Fatalf("feature %d has %d attributes for %d fields", feat.Number, len(feat.Attrs), len(fields))
			}
			checkGeometry(t, feat)
		}
	})
}

func checkFormatError(t *testing.T, err error) {
	t.Helper()
	var fe *shp.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FormatError", err, err)
	}
	if !strings.HasPrefix(err.Error(), "shp: .") {
		t.Fatalf("error %q does not start with the file", err)
	}
}

// checkGeometry checks what the reader promises of a geometry: finite
// coordinates, closed rings of 4 points or more, outer rings
// counter-clockwise and holes clockwise.
func checkGeometry(t *testing.T, f shp.Feature) {
	t.Helper()
	var polys []orb.Polygon
	switch g := f.Geometry.(type) {
	case nil, orb.Point, orb.MultiPoint, orb.LineString, orb.MultiLineString:
		return
	case orb.Polygon:
		polys = []orb.Polygon{g}
	case orb.MultiPolygon:
		polys = g
	default:
		t.Fatalf("feature %d: unexpected geometry %T", f.Number, g)
	}
	for i, p := range polys {
		for j, r := range p {
			if len(r) < 4 || r[0] != r[len(r)-1] {
				t.Fatalf("feature %d polygon %d ring %d: %d points, closed %v", f.Number, i, j, len(r), r[0] == r[len(r)-1])
			}
			want := orb.CW
			if j == 0 {
				want = orb.CCW
			}
			if got := r.Orientation(); got != want && !tiny(r) {
				t.Errorf("feature %d polygon %d ring %d: orientation %v, want %v", f.Number, i, j, got, want)
			}
		}
	}
}

// tiny reports a ring whose area is lost in rounding, where the
// orientation of the reversed ring may not be the opposite.
func tiny(r orb.Ring) bool {
	b := r.Bound()
	w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
	a := 0.0
	for i := 1; i < len(r)-1; i++ {
		a += (r[i][0]-r[0][0])*(r[i+1][1]-r[0][1]) - (r[i+1][0]-r[0][0])*(r[i][1]-r[0][1])
	}
	return math.Abs(a) <= 1e-9*w*h*float64(len(r)) || math.IsInf(w*h, 0) || math.IsNaN(a)
}
