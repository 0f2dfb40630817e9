package dls_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/energy/energyingest"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/teamdata"
)

// TestEveryRealWellResolves: every DLS location of a real well or facility
// in the shared files resolves to a block (issue 33: a real Alberta,
// Saskatchewan or Manitoba well is never "outside the grid"): the ground
// truth, the ST37 well list excerpt, and the Petrinex NGL (well IDs) and
// facility (FacilityLocation) excerpts. The conventional volumetrics
// excerpt names reporting facilities by their location columns only and is
// not read.
func TestEveryRealWellResolves(t *testing.T) {
	t.Parallel()
	seen, outside := 0, 0
	check := func(file string, line int, l lld.Location) {
		t.Helper()
		seen++
		if _, ok := dls.Resolve(l); !ok {
			outside++
			t.Errorf("%s:%d: %v is outside the grid", file, line, l)
		}
	}

	for _, p := range teamdata.AllGroundTruth(t) {
		l, err := lld.Parse(p.LLD)
		if err != nil {
			t.Fatalf("%s:%d: %v", p.File, p.Line, err)
		}
		if l.System == lld.DLS {
			check(p.File, p.Line, l)
		}
	}

	st37 := teamdata.Path(t, "samples/aer-st37/WellList_2017-04_excerpt.txt")
	n := 0
	readFile(t, st37, func(f *os.File) error {
		return energyingest.ReadWellList(f, st37, func(w energyingest.Well) error {
			n++
			check(st37, n, w.Location)
			return nil
		})
	})

	ngl := teamdata.Path(t, "samples/petrinex/NGL_AB_marketable_gas_volumes_excerpt.csv")
	n = 0
	readFile(t, ngl, func(f *os.File) error {
		return energyingest.ReadNGLVolumes(f, ngl, energyingest.ReadOptions{}, func(v energyingest.NGLVolume) error {
			n++
			if u, err := lld.ParseUWI(v.WellID); err == nil && u.Location.System == lld.DLS {
				check(ngl, n, u.Location)
			}
			return nil
		})
	})

	fac := teamdata.Path(t, "samples/petrinex/Facility_Infrastructure_AB_partial_slice.csv")
	n = 0
	readFile(t, fac, func(f *os.File) error {
		return energyingest.ReadFacilities(f, fac, func(v energyingest.Facility) error {
			n++
			if v.Location.System == lld.DLS {
				check(fac, n, v.Location)
			}
			return nil
		})
	})

	// Real AER-licensed wells at Kootenay Pass on the divide, W5 range 5
	// (00/03-23-005-05W5/0 is licence 0036814), which the township table of
	// the divide put in British Columbia.
	for _, s := range []string{"00/03-23-005-05W5/0", "00/04-23-005-05W5/0", "00/03-24-005-05W5/0", "00/03-14-005-05W5/0"} {
		u, err := lld.ParseUWI(s)
		if err != nil {
			t.Fatal(err)
		}
		check("Kootenay Pass", 0, u.Location)
		if p, _ := dls.Province(u.Location); p != survey.AB {
			t.Errorf("Province(%v) = %v, want Alberta", u.Location, p)
		}
	}
	t.Logf("%d real DLS locations, %d outside the grid", seen, outside)
	if seen < 3000 {
		t.Errorf("only %d locations read", seen)
	}
}

func readFile(t *testing.T, path string, fn func(*os.File) error) {
	t.Helper()
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := fn(f); err != nil {
		t.Fatal(err)
	}
}

// TestBCWestOfTheDivide: places in British Columbia well west of the
// divide answer no Alberta block, forward or reverse.
func TestBCWestOfTheDivide(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		pt   orb.Point
	}{
		{"Fernie (Elk Valley)", orb.Point{-115.06, 49.50}},
		{"Sparwood (Elk Valley)", orb.Point{-114.88, 49.73}},
		{"Golden", orb.Point{-116.97, 51.30}},
		{"Valemount", orb.Point{-119.26, 52.83}},
		{"Field", orb.Point{-116.49, 51.40}},
	} {
		if dls.InAlberta(tc.pt) {
			t.Errorf("%s: InAlberta(%v) = true", tc.name, tc.pt)
		}
		for _, u := range []lld.Unit{lld.LSD, lld.QuarterSection, lld.Section} {
			if l, ok := dls.Locate(tc.pt, u); ok {
				t.Errorf("%s: Locate(%v, %v) = %v, want none", tc.name, tc.pt, u, l)
			}
		}
	}
}

// TestBCWellsAnswerNoAlbertaLSD: no real British Columbia well described in
// NTS (the BC Energy Regulator's surface locations of the ground truth, some
// of them a few kilometres west of the divide in the Flathead) is located
// in an Alberta LSD.
func TestBCWellsAnswerNoAlbertaLSD(t *testing.T) {
	t.Parallel()
	n := 0
	for _, p := range teamdata.AllGroundTruth(t) {
		l, err := lld.Parse(p.LLD)
		if err != nil || l.System != lld.NTS {
			continue
		}
		n++
		if got, ok := dls.Locate(p.Pt, lld.LSD); ok {
			if pr, _ := dls.Province(got); pr == survey.AB {
				t.Errorf("%s:%d: BC well %s at %v located in Alberta LSD %v", p.File, p.Line, p.LLD, p.Pt, got)
			}
		}
	}
	if n == 0 {
		t.Error("no NTS wells read")
	}
}

// TestAccuracyNearTheDivide: a block the divide's tolerance reaches says so
// in AccuracyM; one far from it does not.
func TestAccuracyNearTheDivide(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lsd  string
		near bool
	}{
		{"4-22-5-5-W5", true},    // Kootenay Pass: the divide crosses it
		{"4-23-5-5-W5", true},    // 1.5 km east of it, within the tolerance
		{"3-24-5-5-W5", false},   // 3.5 km east of it
		{"3-23-5-1-W5", false},   // 30 km east
		{"10-10-40-1-W5", false}, // far east
	} {
		l, err := lld.Parse(tc.lsd)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := dls.Resolve(l)
		if !ok {
			t.Fatalf("Resolve(%s) failed", tc.lsd)
		}
		far := dls.Accuracy(survey.AB, lld.W5)
		if got := b.AccuracyM > far+1000; got != tc.near {
			t.Errorf("Resolve(%s).AccuracyM = %v, regional %v: near the divide = %v, want %v", tc.lsd, b.AccuracyM, far, got, tc.near)
		}
	}
}

// Benchmarks of the province rules: a block far from every line, one on
// the divide, and a reverse look-up on the divide.
func BenchmarkProvinceFar(b *testing.B) {
	l := lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W5, Range: 1, Township: 40, Section: 10, LSD: 10}
	for b.Loop() {
		dls.Province(l)
	}
}

func BenchmarkProvinceDivide(b *testing.B) {
	l := lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W5, Range: 5, Township: 5, Section: 23, LSD: 3}
	for b.Loop() {
		dls.Province(l)
	}
}

func BenchmarkResolveDivide(b *testing.B) {
	l := lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W5, Range: 5, Township: 5, Section: 23, LSD: 3}
	for b.Loop() {
		dls.Resolve(l)
	}
}

func BenchmarkResolveAtDivide(b *testing.B) {
	l := lld.Location{System: lld.DLS, Unit: lld.LSD, Meridian: lld.W5, Range: 5, Township: 5, Section: 23, LSD: 3}
	pt := dls.Bound(l).Center()
	for b.Loop() {
		dls.ResolveAt(l, pt)
	}
}

func BenchmarkLocateDivide(b *testing.B) {
	pt := orb.Point{-114.575, 49.394}
	for b.Loop() {
		dls.Locate(pt, lld.LSD)
	}
}
