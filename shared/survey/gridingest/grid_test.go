package gridingest_test

import (
	"errors"
	"io/fs"
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/demo/griddemo"
	"meridian/shared/ingest"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/gridingest"
)

// fixtureFile returns a committed fixture file.
func fixtureFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(griddemo.Grid(), name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// collect returns an Emit that appends to *recs.
func collect(recs *[]gridindex.Record) gridingest.Emit {
	return func(r gridindex.Record) error {
		*recs = append(*recs, r)
		return nil
	}
}

// byLocation indexes records by canonical location.
func byLocation(t testing.TB, recs []gridindex.Record) map[string]gridindex.Record {
	t.Helper()
	m := make(map[string]gridindex.Record, len(recs))
	for _, r := range recs {
		k := r.Location.String()
		if _, dup := m[k]; dup {
			t.Errorf("record %s emitted twice", k)
		}
		m[k] = r
	}
	return m
}

// countUnits counts records per unit.
func countUnits(recs []gridindex.Record) map[lld.Unit]int {
	n := map[lld.Unit]int{}
	for _, r := range recs {
		n[r.Location.Unit]++
	}
	return n
}

// checkRecord checks what every reader promises: a canonical location
// that lld parses back, a province, and polygons with closed rings, the
// outer ring counter-clockwise and holes clockwise.
func checkRecord(t testing.TB, r gridindex.Record, p survey.Province) {
	t.Helper()
	if r.Province != p {
		t.Errorf("%s: province %v, want %v", r.Location, r.Province, p)
	}
	if l, err := lld.Parse(r.Location.String()); err != nil || l != r.Location {
		t.Errorf("%s does not parse back to itself: %+v, %v", r.Location, l, err)
	}
	if r.AccuracyM <= 0 {
		t.Errorf("%s: AccuracyM %v", r.Location, r.AccuracyM)
	}
	if r.Geometry == nil {
		if !r.HasCentroid {
			t.Errorf("%s: neither geometry nor centroid", r.Location)
		}
		return
	}
	var polys []orb.Polygon
	switch g := r.Geometry.(type) {
	case orb.Polygon:
		polys = []orb.Polygon{g}
	case orb.MultiPolygon:
		polys = g
	default:
		t.Fatalf("%s: geometry %T", r.Location, r.Geometry)
	}
	for _, poly := range polys {
		for i, ring := range poly {
			if len(ring) < 4 || ring[0] != ring[len(ring)-1] {
				t.Errorf("%s: ring %d not closed: %v", r.Location, i, ring)
				continue
			}
			if a := signedArea(ring); (i == 0) != (a > 0) {
				t.Errorf("%s: ring %d has signed area %g (outer rings counter-clockwise, holes clockwise)", r.Location, i, a)
			}
		}
	}
}

func signedArea(r orb.Ring) float64 {
	a := 0.0
	for i := 0; i+1 < len(r); i++ {
		a += r[i][0]*r[i+1][1] - r[i+1][0]*r[i][1]
	}
	return a / 2
}

// near reports whether two points agree within tol degrees.
func near(a, b orb.Point, tol float64) bool {
	return math.Abs(a[0]-b[0]) <= tol && math.Abs(a[1]-b[1]) <= tol
}

// metres is the approximate distance between two lng/lat points.
func metres(a, b orb.Point) float64 {
	lat := (a[1] + b[1]) / 2 * math.Pi / 180
	dx := (a[0] - b[0]) * math.Pi / 180 * 6371008.8 * math.Cos(lat)
	dy := (a[1] - b[1]) * math.Pi / 180 * 6371008.8
	return math.Hypot(dx, dy)
}

// wantError checks that err is an *ingest.Error for file and line whose
// reason contains substr.
func wantError(t testing.TB, err error, file string, line int, substr string) {
	t.Helper()
	var ie *ingest.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error = %v (%T), want *ingest.Error", err, err)
	}
	if ie.File != file || ie.Line != line {
		t.Errorf("error at %s:%d, want %s:%d (%v)", ie.File, ie.Line, file, line, err)
	}
	if !containsFold(ie.Reason, substr) {
		t.Errorf("error %q does not mention %q", ie.Reason, substr)
	}
}

func containsFold(s, sub string) bool {
	ls, lsub := []rune(s), []rune(sub)
	for i := 0; i+len(lsub) <= len(ls); i++ {
		ok := true
		for j := range lsub {
			a, b := ls[i+j], lsub[j]
			if a|0x20 != b|0x20 {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// isIngestError reports whether err is nil or an *ingest.Error (what the
// fuzz targets require).
func isIngestError(err error) bool {
	if err == nil {
		return true
	}
	var ie *ingest.Error
	return errors.As(err, &ie)
}
