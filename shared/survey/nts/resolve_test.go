package nts_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/datum"
	"meridian/shared/survey/nts"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	in := quarterUnit('D', 80, 'H', 92, 'G', 3)
	in.Township = 9 // not an NTS field: cleared
	got, ok := nts.Resolve(in)
	if !ok {
		t.Fatalf("Resolve(%v) not ok", in)
	}
	// The exact NAD27 box (§4), each corner moved to NAD83.
	b := nts.Bound(in)
	var ring orb.Ring
	for _, p := range []orb.Point{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}, b.Min} {
		q, err := datum.NAD27ToNAD83(p)
		if err != nil {
			t.Fatal(err)
		}
		ring = append(ring, q)
	}
	centroid, _ := datum.NAD27ToNAD83(b.Center())
	want := survey.Block{
		Location:  quarterUnit('D', 80, 'H', 92, 'G', 3),
		Province:  survey.BC,
		Geometry:  orb.Polygon{ring},
		Centroid:  centroid,
		AccuracyM: 2,
		Source:    survey.SourceModel,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve(%v) (-want +got):\n%s", in, diff)
	}
	// Back in NAD27 the centroid is §4's; in NAD83 it lies 70–130 m west.
	c27, err := datum.NAD83ToNAD27(got.Centroid)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c27[1]-49.147917) > 5e-7 || math.Abs(c27[0]+123.115625) > 5e-7 {
		t.Errorf("centroid in NAD27 = %v, want 49.147917, -123.115625 (§4)", c27)
	}
	if d := geo.Distance(got.Centroid, c27); d < 70 || d > 130 || got.Centroid[0] >= c27[0] {
		t.Errorf("centroid %v is %.0f m from its NAD27 position %v, want 70–130 m west", got.Centroid, d, c27)
	}
}

func TestResolveCoverage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		l    lld.Location
		ok   bool
	}{
		{"series 82 (southern BC and Alberta)", lld.Location{System: lld.NTS, Unit: lld.Series, Series: 82}, true},
		{"series 83 (mostly Alberta, partly BC)", lld.Location{System: lld.NTS, Unit: lld.Series, Series: 83}, true},
		{"map area 83-D (Valemount)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 83, Area: 'D'}, true},
		{"map area 83-A (Red Deer, Alberta)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 83, Area: 'A'}, false},
		{"map area 82-I (Lethbridge, Alberta)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 82, Area: 'I'}, false},
		{"map area 82-J (crosses the divide)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 82, Area: 'J'}, true},
		{"map area 94-P (Fort Nelson)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 94, Area: 'P'}, true},
		{"map area 83-M (Alberta, east of 120°W)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 83, Area: 'M'}, false},
		{"map area 104-N (Atlin)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 104, Area: 'N'}, true},
		{"map area 114-H (Chichagof Island, Alaska)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 114, Area: 'H'}, false},
		{"map area 114-I (Alaska and BC's Tatshenshini corner)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 114, Area: 'I'}, true},
		{"map area 92-B (Victoria)", lld.Location{System: lld.NTS, Unit: lld.MapArea, Series: 92, Area: 'B'}, true},
		{"sheet 92-A-1 (Washington)", lld.Location{System: lld.NTS, Unit: lld.MapSheet, Series: 92, Area: 'A', Sheet: 1}, false},
		{"series 94 (north-east BC)", lld.Location{System: lld.NTS, Unit: lld.Series, Series: 94}, true},
	}
	for _, tc := range tests {
		b, ok := nts.Resolve(tc.l)
		if ok != tc.ok {
			t.Errorf("%s: Resolve(%v) ok = %v, want %v", tc.name, tc.l, ok, tc.ok)
		}
		if ok && (b.Province != survey.BC || b.AccuracyM != nts.AccuracyM || nts.AccuracyM != 2) {
			t.Errorf("%s: Resolve(%v) = %v, %v m, want BC, 2 m (the NTv1 transformation's accuracy)", tc.name, tc.l, b.Province, b.AccuracyM)
		}
	}
}

// TestNesting: every block lies inside its parent, and the parent's
// children tile it.
func TestNesting(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	for range 2000 {
		l := randomLocation(rng)
		b := nts.Bound(l)
		for p, ok := l.Parent(); ok; p, ok = p.Parent() {
			pb := nts.Bound(p)
			if !pb.Contains(b.Min) || !pb.Contains(b.Max) {
				t.Fatalf("Bound(%v) = %v is not inside Bound(%v) = %v", l, b, p, pb)
			}
		}
	}
}

// randomLocation returns a random valid quarter unit, unit, block, sheet,
// map area or series in a BC series.
func randomLocation(rng *rand.Rand) lld.Location {
	series := []uint8{82, 83, 92, 93, 94, 102, 103, 104, 114}
	l := quarterUnit(byte('A'+rng.IntN(4)), uint8(1+rng.IntN(100)), byte('A'+rng.IntN(12)),
		series[rng.IntN(len(series))], byte('A'+rng.IntN(16)), uint8(1+rng.IntN(16)))
	for range rng.IntN(6) {
		l, _ = l.Parent()
	}
	return l
}

func BenchmarkResolve(b *testing.B) {
	l := quarterUnit('A', 2, 'F', 93, 'P', 8)
	b.ReportAllocs()
	for b.Loop() {
		nts.Resolve(l)
	}
}

// BenchmarkResolveSeries: the largest block, 97 vertices moved.
func BenchmarkResolveSeries(b *testing.B) {
	l := lld.Location{System: lld.NTS, Unit: lld.Series, Series: 93}
	b.ReportAllocs()
	for b.Loop() {
		nts.Resolve(l)
	}
}
