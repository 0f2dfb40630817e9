package proj_test

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

// GRS 1980 (Moritz 1980, "Geodetic Reference System 1980"): a and 1/f.
const (
	grs80A    = 6378137.0
	grs80InvF = 298.257222101
)

// meridianArc returns the meridian arc length from the equator to lat
// (degrees) on GRS 1980, M(φ) = a(1-e²)∫₀^φ (1 - e² sin²t)^(-3/2) dt, by
// composite Simpson integration: independent of the series in package
// proj. With 20000 intervals its error is far below a micrometre.
func meridianArc(lat float64) float64 {
	f := 1 / grs80InvF
	e2 := f * (2 - f)
	g := func(t float64) float64 { s := math.Sin(t); return math.Pow(1-e2*s*s, -1.5) }
	const n = 20000
	phi := lat * math.Pi / 180
	h := phi / n
	sum := g(0) + g(phi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * g(float64(i)*h)
	}
	return grs80A * (1 - e2) * sum * h / 3
}

// TestMeridianArc pins the independent integration itself. The value at
// 49°N is also what PROJ 9.1.1 gives for
// "+proj=tmerc +ellps=GRS80 +lon_0=-105 +k=1" at (-105, 49):
// 5429627.63213 m. (A figure of 5,429,228.602 m that circulated for M(49°)
// is 399 m short; it matches neither M nor k0·M = 5,427,455.781 m.)
func TestMeridianArc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		lat  float64
		want float64
	}{
		{"equator", 0, 0},
		{"49N PROJ", 49, 5429627.63213},
		// Quarter meridian of GRS 1980: Moritz (1980), 10 001 965.7293 m.
		{"pole GRS80 quarter meridian", 90, 10001965.7293},
	}
	for _, tc := range tests {
		if got := meridianArc(tc.lat); math.Abs(got-tc.want) > 1e-4 {
			t.Errorf("meridianArc(%v) = %.5f, want %.5f", tc.lat, got, tc.want)
		}
	}
}

// TestUTMCentralMeridian checks identities that depend on no other
// implementation: on the central meridian the easting is exactly 500000 m
// and the northing is k0·M(φ).
func TestUTMCentralMeridian(t *testing.T) {
	t.Parallel()
	arcs := map[float64]float64{}
	for lat := 0.0; lat <= 90; lat += 0.5 {
		arcs[lat] = meridianArc(lat)
	}
	for zone := proj.MinUTMZone; zone <= proj.MaxUTMZone; zone++ {
		p, err := proj.FromEPSG(26900 + zone)
		if err != nil {
			t.Fatal(err)
		}
		cm := float64(6*zone - 183)
		for lat := 0.0; lat <= 90; lat += 0.5 {
			x, y, err := p.FromLngLat(orb.Point{cm, lat})
			if err != nil {
				t.Fatalf("zone %d FromLngLat(%v, %v): %v", zone, cm, lat, err)
			}
			want := 0.9996 * arcs[lat]
			if x != 500000 || math.Abs(y-want) > 1e-6 {
				t.Errorf("zone %d FromLngLat(%v, %v) = %.7f, %.7f, want 500000, %.7f", zone, cm, lat, x, y, want)
			}
			got, err := p.ToLngLat(500000, want)
			if err != nil {
				t.Fatalf("zone %d ToLngLat(500000, %v): %v", zone, want, err)
			}
			if got[0] != cm || math.Abs(got[1]-lat) > 1e-11 {
				t.Errorf("zone %d ToLngLat(500000, %.4f) = %v, want [%v %v]", zone, want, got, cm, lat)
			}
		}
	}
}

// TestUTMPublished checks coordinate pairs published elsewhere.
func TestUTMPublished(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		epsg   int
		lngLat orb.Point
		x, y   float64
		tol    float64 // metres: the precision of the published figures
	}{
		{
			// Wikipedia, "Universal Transverse Mercator coordinate system":
			// the CN Tower, 43°38′33.24″N 79°23′13.7″W, is at 630084 m E,
			// 4833438 m N in zone 17.
			name:   "CN Tower, Wikipedia",
			epsg:   26917,
			lngLat: orb.Point{-(79 + 23.0/60 + 13.7/3600), 43 + 38.0/60 + 33.24/3600},
			x:      630084, y: 4833438, tol: 1,
		},
		{
			// PROJ 9.1.1: echo '49.5 -106.25' | cs2cs EPSG:4269 EPSG:26913
			name:   "Saskatchewan, PROJ",
			epsg:   26913,
			lngLat: orb.Point{-106.25, 49.5},
			x:      409491.638536, y: 5483791.625756, tol: 1e-3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := proj.FromEPSG(tc.epsg)
			if err != nil {
				t.Fatal(err)
			}
			x, y, err := p.FromLngLat(tc.lngLat)
			if err != nil || math.Abs(x-tc.x) > tc.tol || math.Abs(y-tc.y) > tc.tol {
				t.Errorf("FromLngLat(%v) = %.4f, %.4f, %v; want %.4f, %.4f within %v m", tc.lngLat, x, y, err, tc.x, tc.y, tc.tol)
			}
		})
	}
}

// referenceRow is one line of testdata/proj_reference.csv.
type referenceRow struct {
	line   int
	epsg   int
	lngLat orb.Point
	x, y   float64
}

func readReference(t testing.TB) []referenceRow {
	t.Helper()
	return readReferenceFile(t, "testdata/proj_reference.csv")
}

// readReferenceFile reads rows epsg,lng,lat,x,y of a reference file.
func readReferenceFile(t testing.TB, name string) []referenceRow {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []referenceRow
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fs := strings.Split(s, ",")
		if len(fs) != 5 {
			t.Fatalf("line %d: %d fields", line, len(fs))
		}
		var v [5]float64
		for i, f := range fs {
			if v[i], err = strconv.ParseFloat(f, 64); err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
		}
		rows = append(rows, referenceRow{line, int(v[0]), orb.Point{v[1], v[2]}, v[3], v[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestReference compares both directions with PROJ 9.1.1 over zones 7–22
// (and EPSG:3857), from 41.7°N to 83°N and up to 6° from the central
// meridian: 3° beyond each zone; and over BC Albers (EPSG:3005, 3153) from
// 42°N to 70°N and 145°W to 100°W.
func TestReference(t *testing.T) {
	t.Parallel()
	const tolM = 1e-3         // metres
	const tolDeg = tolM / 2e5 // degrees: 1 mm is about 9e-9° of latitude
	var worst float64
	for _, r := range readReference(t) {
		p, err := proj.FromEPSG(r.epsg)
		if err != nil {
			t.Fatalf("line %d: %v", r.line, err)
		}
		x, y, err := p.FromLngLat(r.lngLat)
		if err != nil {
			t.Errorf("line %d: EPSG:%d FromLngLat(%v): %v", r.line, r.epsg, r.lngLat, err)
			continue
		}
		d := math.Hypot(x-r.x, y-r.y)
		worst = math.Max(worst, d)
		if d > tolM {
			t.Errorf("line %d: EPSG:%d FromLngLat(%v) = %.6f, %.6f, want %.6f, %.6f (off %.2g m)", r.line, r.epsg, r.lngLat, x, y, r.x, r.y, d)
		}
		got, err := p.ToLngLat(r.x, r.y)
		if err != nil {
			t.Errorf("line %d: EPSG:%d ToLngLat(%v, %v): %v", r.line, r.epsg, r.x, r.y, err)
			continue
		}
		if math.Abs(got[0]-r.lngLat[0]) > tolDeg/math.Cos(r.lngLat[1]*math.Pi/180) || math.Abs(got[1]-r.lngLat[1]) > tolDeg {
			t.Errorf("line %d: EPSG:%d ToLngLat(%.6f, %.6f) = %.10f, want %.10f", r.line, r.epsg, r.x, r.y, got, r.lngLat)
		}
	}
	t.Logf("largest difference from PROJ: %.3g m", worst)
}

// TestUTMRoundTrip projects a grid over every zone and 3° beyond it, from
// 40°N to 84°N, forward then back, and a grid of eastings and northings
// back then forward; both must return within a millimetre.
func TestUTMRoundTrip(t *testing.T) {
	t.Parallel()
	const tol = 1e-3 // metres
	var worst float64
	for zone := proj.MinUTMZone; zone <= proj.MaxUTMZone; zone++ {
		for _, base := range []int{26900, 32600} {
			p, err := proj.FromEPSG(base + zone)
			if err != nil {
				t.Fatal(err)
			}
			cm := float64(6*zone - 183)
			for lat := 40.0; lat <= 84; lat += 1 {
				for d := -6.0; d <= 6; d += 0.5 {
					in := orb.Point{cm + d, lat}
					x, y, err := p.FromLngLat(in)
					if err != nil {
						t.Fatalf("%s FromLngLat(%v): %v", p.Name(), in, err)
					}
					back, err := p.ToLngLat(x, y)
					if err != nil {
						t.Fatalf("%s ToLngLat(%v, %v): %v", p.Name(), x, y, err)
					}
					// Metres on the ground, near enough for a tolerance.
					dm := math.Hypot((back[0]-in[0])*111320*math.Cos(lat*math.Pi/180), (back[1]-in[1])*110574)
					worst = math.Max(worst, dm)
					if dm > tol {
						t.Errorf("%s: %v -> %.4f, %.4f -> %v: off %.3g m", p.Name(), in, x, y, back, dm)
					}
				}
			}
			for x := -300000.0; x <= 1300000; x += 50000 {
				for y := 4400000.0; y <= 9300000; y += 100000 {
					ll, err := p.ToLngLat(x, y)
					if err != nil {
						t.Fatalf("%s ToLngLat(%v, %v): %v", p.Name(), x, y, err)
					}
					x2, y2, err := p.FromLngLat(ll)
					if err != nil {
						t.Fatalf("%s FromLngLat(%v): %v", p.Name(), ll, err)
					}
					dm := math.Hypot(x2-x, y2-y)
					worst = math.Max(worst, dm)
					if dm > tol {
						t.Errorf("%s: %v, %v -> %v -> %.4f, %.4f: off %.3g m", p.Name(), x, y, ll, x2, y2, dm)
					}
				}
			}
		}
	}
	t.Logf("largest round-trip error: %.3g m", worst)
}

func TestTransverseMercatorDomain(t *testing.T) {
	t.Parallel()
	p, err := proj.FromEPSG(26913)
	if err != nil {
		t.Fatal(err)
	}
	nan, inf := math.NaN(), math.Inf(1)
	forward := []struct {
		name string
		in   orb.Point
	}{
		{"NaN longitude", orb.Point{nan, 50}},
		{"NaN latitude", orb.Point{-105, nan}},
		{"infinite", orb.Point{inf, 50}},
		{"latitude over 90", orb.Point{-105, 90.5}},
		{"longitude under -180", orb.Point{-180.5, 50}},
		{"90 degrees from the central meridian", orb.Point{-15, 0}},
		{"beyond 4000 km", orb.Point{-60, 30}},
	}
	for _, tc := range forward {
		if x, y, err := p.FromLngLat(tc.in); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("%s: FromLngLat(%v) = %v, %v, %v; want ErrDomain", tc.name, tc.in, x, y, err)
		}
	}
	inverse := []struct {
		name string
		x, y float64
	}{
		{"NaN", nan, 5e6},
		{"infinite", 5e5, -inf},
		{"easting beyond 4000 km", 500000 + 4.1e6, 5e6},
		{"northing beyond the pole", 500000, 1.1e7},
		{"northing beyond the south pole", 500000, -1.1e7},
	}
	for _, tc := range inverse {
		if got, err := p.ToLngLat(tc.x, tc.y); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("%s: ToLngLat(%v, %v) = %v, %v; want ErrDomain", tc.name, tc.x, tc.y, got, err)
		}
	}
	// The poles themselves are in the domain both ways.
	for _, lat := range []float64{90, -90} {
		x, y, err := p.FromLngLat(orb.Point{-100, lat})
		if err != nil {
			t.Fatalf("FromLngLat pole %v: %v", lat, err)
		}
		got, err := p.ToLngLat(x, y)
		if err != nil || got[1] != lat {
			t.Errorf("ToLngLat(FromLngLat(pole %v)) = %v, %v", lat, got, err)
		}
	}
}

func BenchmarkUTMForward(b *testing.B) {
	p, err := proj.FromEPSG(26913)
	if err != nil {
		b.Fatal(err)
	}
	pt := orb.Point{-106.6, 52.1}
	for b.Loop() {
		if _, _, err := p.FromLngLat(pt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUTMInverse(b *testing.B) {
	p, err := proj.FromEPSG(26913)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.ToLngLat(389000, 5773000); err != nil {
			b.Fatal(err)
		}
	}
}
