package proj_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

// FuzzFromWKT checks that FromWKT never panics, and that a projection it
// returns has a name and converts a point without panicking.
//
//	go test ./shared/ingest/proj -run='^$' -fuzz=FuzzFromWKT -fuzztime=60s
func FuzzFromWKT(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "prj", "*.prj"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, tc := range fromWKTTests {
		f.Add(tc.wkt)
	}
	f.Fuzz(func(t *testing.T, wkt string) {
		p, err := proj.FromWKT(wkt)
		if err != nil {
			return
		}
		if p.Name() == "" {
			t.Errorf("FromWKT(%q) has no name", wkt)
		}
		for _, pt := range []orb.Point{{-100, 50}, {0, 0}, {180, 90}} {
			x, y, err := p.FromLngLat(pt)
			if err != nil {
				continue
			}
			if math.IsNaN(x) || math.IsNaN(y) {
				t.Errorf("%s: FromLngLat(%v) = NaN without an error", p.Name(), pt)
			}
			if _, err := p.ToLngLat(x, y); err != nil {
				t.Errorf("%s: ToLngLat(FromLngLat(%v)): %v", p.Name(), pt, err)
			}
		}
	})
}
