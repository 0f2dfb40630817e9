package proj_test

import (
	"errors"
	"math"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

func bcAlbers(t testing.TB, code int) proj.Projection {
	t.Helper()
	p, err := proj.FromEPSG(code)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBCAlbersPublished checks BC Albers coordinates published elsewhere.
// (Many more, from PROJ, are in testdata/proj_reference.csv.)
func TestBCAlbersPublished(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		lngLat orb.Point
		x, y   float64
		tol    float64 // metres
	}{
		{
			// The false origin: the definition of the system (EPSG
			// conversion 19888; BC Ministry of Sustainable Resource
			// Management, "Map Projection Standard").
			name:   "false origin",
			lngLat: orb.Point{-126, 45},
			x:      1000000, y: 0, tol: 1e-6,
		},
		{
			// GeoTools' AlbersEqualArea.txt test script (referencing
			// module, test-data/scripts), "calculated with ArcGIS 8.3":
			// BC Albers on WGS 84, whose flattening differs from GRS 1980's
			// by 2e-11, a tenth of a millimetre here.
			name:   "Vancouver, ArcGIS 8.3",
			lngLat: orb.Point{-123.1, 49.2166666666},
			x:      1211425.84962133, y: 471033.644210806, tol: 0.01,
		},
		{
			// epsg.io, EPSG:3005 (https://epsg.io/3005-to-8246): "Center
			// coordinates 963818.94 1055561.07" of its WGS 84 bounds
			// -139.04 48.99 -114.08 60.01, published to the centimetre.
			name:   "centre of BC, epsg.io",
			lngLat: orb.Point{(-139.04 - 114.08) / 2, (48.99 + 60.01) / 2},
			x:      963818.94, y: 1055561.07, tol: 0.01,
		},
	}
	for _, code := range []int{proj.EPSGBCAlbers, proj.EPSGBCAlbersCSRS} {
		p := bcAlbers(t, code)
		for _, tc := range tests {
			x, y, err := p.FromLngLat(tc.lngLat)
			if err != nil || math.Abs(x-tc.x) > tc.tol || math.Abs(y-tc.y) > tc.tol {
				t.Errorf("EPSG:%d %s: FromLngLat(%v) = %.6f, %.6f, %v; want %.6f, %.6f within %v m", code, tc.name, tc.lngLat, x, y, err, tc.x, tc.y, tc.tol)
			}
			got, err := p.ToLngLat(tc.x, tc.y)
			if err != nil || groundMetres(got, tc.lngLat) > tc.tol {
				t.Errorf("EPSG:%d %s: ToLngLat(%v, %v) = %.10f, %v; want %v", code, tc.name, tc.x, tc.y, got, err, tc.lngLat)
			}
		}
	}
}

// groundMetres is the distance in metres between two nearby points in
// degrees, near enough for a tolerance.
func groundMetres(a, b orb.Point) float64 {
	return math.Hypot((a[0]-b[0])*111320*math.Cos(b[1]*math.Pi/180), (a[1]-b[1])*110574)
}

// TestBCAlbersRoundTrip projects a grid over British Columbia and the
// prairies forward then back, and a grid of eastings and northings back
// then forward: within 1e-9° and a millimetre.
func TestBCAlbersRoundTrip(t *testing.T) {
	t.Parallel()
	p := bcAlbers(t, proj.EPSGBCAlbers)
	var worstDeg, worstM float64
	for lng := -139.0; lng <= -110; lng += 0.25 {
		for lat := 48.0; lat <= 60; lat += 0.25 {
			in := orb.Point{lng, lat}
			x, y, err := p.FromLngLat(in)
			if err != nil {
				t.Fatalf("FromLngLat(%v): %v", in, err)
			}
			back, err := p.ToLngLat(x, y)
			if err != nil {
				t.Fatalf("ToLngLat(%v, %v): %v", x, y, err)
			}
			d := math.Max(math.Abs(back[0]-lng), math.Abs(back[1]-lat))
			worstDeg = math.Max(worstDeg, d)
			if d > 1e-9 {
				t.Errorf("%v -> %.4f, %.4f -> %.12f: off %.3g°", in, x, y, back, d)
			}
		}
	}
	for x := 0.0; x <= 2_600_000; x += 25_000 {
		for y := 300_000.0; y <= 1_900_000; y += 25_000 {
			ll, err := p.ToLngLat(x, y)
			if err != nil {
				t.Fatalf("ToLngLat(%v, %v): %v", x, y, err)
			}
			x2, y2, err := p.FromLngLat(ll)
			if err != nil {
				t.Fatalf("FromLngLat(%v): %v", ll, err)
			}
			d := math.Hypot(x2-x, y2-y)
			worstM = math.Max(worstM, d)
			if d > 1e-3 {
				t.Errorf("%v, %v -> %v -> %.4f, %.4f: off %.3g m", x, y, ll, x2, y2, d)
			}
		}
	}
	t.Logf("largest round-trip error: %.3g°, %.3g m", worstDeg, worstM)
}

// ellipsoidalBandArea is the area in square metres of the band of GRS 1980
// between latitudes lat1 < lat2 (degrees) and dLng degrees of longitude:
// dλ·∫ M·N·cos φ dφ = dλ·a²(1-e²)∫ cos φ/(1 - e² sin²φ)² dφ, by composite
// Simpson integration, independent of the authalic function in package
// proj.
func ellipsoidalBandArea(lat1, lat2, dLng float64) float64 {
	f := 1 / grs80InvF
	e2 := f * (2 - f)
	g := func(phi float64) float64 { s := math.Sin(phi); w := 1 - e2*s*s; return math.Cos(phi) / (w * w) }
	const n = 2000
	a, b := lat1*math.Pi/180, lat2*math.Pi/180
	h := (b - a) / n
	sum := g(a) + g(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * g(a+float64(i)*h)
	}
	return grs80A * grs80A * (1 - e2) * sum * h / 3 * dLng * math.Pi / 180
}

// projectedCellArea is the planar area of the image of the cell [lng,
// lng+dLng] × [lat, lat+dLat], its edges densified to k points.
func projectedCellArea(t *testing.T, p proj.Projection, lng, lat, dLng, dLat float64, k int) float64 {
	t.Helper()
	var ring []orb.Point
	edge := func(from, to orb.Point) {
		for i := range k {
			f := float64(i) / float64(k)
			ll := orb.Point{from[0] + f*(to[0]-from[0]), from[1] + f*(to[1]-from[1])}
			x, y, err := p.FromLngLat(ll)
			if err != nil {
				t.Fatalf("FromLngLat(%v): %v", ll, err)
			}
			ring = append(ring, orb.Point{x, y})
		}
	}
	sw, se := orb.Point{lng, lat}, orb.Point{lng + dLng, lat}
	ne, nw := orb.Point{lng + dLng, lat + dLat}, orb.Point{lng, lat + dLat}
	edge(sw, se)
	edge(se, ne)
	edge(ne, nw)
	edge(nw, sw)
	// Shoelace about the first vertex, to keep the products small.
	o := ring[0]
	var twice float64
	for i := range ring {
		a, b := ring[i], ring[(i+1)%len(ring)]
		twice += (a[0]-o[0])*(b[1]-o[1]) - (b[0]-o[0])*(a[1]-o[1])
	}
	return math.Abs(twice) / 2
}

// TestAlbersEqualArea checks the property the projection is for: the
// image of a cell of longitude and latitude has the cell's area on the
// ellipsoid. Wrong eccentricity terms in q, n or C, or a wrong ρ, break it
// by far more than the 1e-8 allowed here for the densified edges.
func TestAlbersEqualArea(t *testing.T) {
	t.Parallel()
	p := bcAlbers(t, proj.EPSGBCAlbers)
	tests := []struct {
		lng, lat, dLng, dLat float64
	}{
		{-139, 48, 0.1, 0.1},
		{-126, 45, 0.1, 0.1},
		{-126, 50, 0.01, 0.01},
		{-114, 55, 0.1, 0.05},
		{-110, 60, 0.1, 0.1},
		{-135, 58.4, 1, 1},
		{-131, 48, 10, 6},
		{-100, 20, 10, 10},
		{-170, 70, 20, 15},
	}
	for _, tc := range tests {
		want := ellipsoidalBandArea(tc.lat, tc.lat+tc.dLat, tc.dLng)
		got := projectedCellArea(t, p, tc.lng, tc.lat, tc.dLng, tc.dLat, 2000)
		if rel := math.Abs(got-want) / want; rel > 1e-8 {
			t.Errorf("cell %v° × %v° at (%v, %v): projected area %.6f m², ellipsoid %.6f m² (relative %.2g)",
				tc.dLng, tc.dLat, tc.lng, tc.lat, got, want, rel)
		}
	}
}

// TestAlbersStandardParallels checks that lengths along the two standard
// parallels are true, the parallel of radius N·cos φ = a·cos φ/√(1-e²sin²φ),
// and that the parallel between them is shortened and those outside
// lengthened.
func TestAlbersStandardParallels(t *testing.T) {
	t.Parallel()
	p := bcAlbers(t, proj.EPSGBCAlbers)
	f := 1 / grs80InvF
	e2 := f * (2 - f)
	scale := func(lat float64) float64 {
		const k, lng0, dLng = 2000, -131.0, 10.0
		var length float64
		var px, py float64
		for i := 0; i <= k; i++ {
			x, y, err := p.FromLngLat(orb.Point{lng0 + dLng*float64(i)/k, lat})
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				length += math.Hypot(x-px, y-py)
			}
			px, py = x, y
		}
		s := math.Sin(lat * math.Pi / 180)
		return length / (grs80A * math.Cos(lat*math.Pi/180) / math.Sqrt(1-e2*s*s) * dLng * math.Pi / 180)
	}
	for _, lat := range []float64{50, 58.5} {
		if k := scale(lat); math.Abs(k-1) > 1e-9 {
			t.Errorf("scale along standard parallel %v = %.12f, want 1", lat, k)
		}
	}
	if k := scale(54); !(k < 0.999) {
		t.Errorf("scale along parallel 54 = %.6f, want < 1", k)
	}
	for _, lat := range []float64{45, 62} {
		if k := scale(lat); !(k > 1.001) {
			t.Errorf("scale along parallel %v = %.6f, want > 1", lat, k)
		}
	}
}

func TestAlbersDomain(t *testing.T) {
	t.Parallel()
	p := bcAlbers(t, proj.EPSGBCAlbers)
	nan, inf := math.NaN(), math.Inf(1)
	for _, in := range []orb.Point{{nan, 50}, {-126, nan}, {inf, 50}, {-126, 90.5}, {-180.5, 50}} {
		if x, y, err := p.FromLngLat(in); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("FromLngLat(%v) = %v, %v, %v; want ErrDomain", in, x, y, err)
		}
	}
	_, yN, err := p.FromLngLat(orb.Point{-126, 90})
	if err != nil {
		t.Fatal(err)
	}
	_, yS, err := p.FromLngLat(orb.Point{-126, -90})
	if err != nil {
		t.Fatal(err)
	}
	inverse := []struct {
		name string
		x, y float64
	}{
		{"NaN", nan, 1e6},
		{"infinite", 1e6, -inf},
		{"huge", 1e300, 1e300},
		{"beyond the north pole", 1e6, yN + 1},
		{"between the north pole and the apex", 1e6, yN + 1e5},
		{"above the apex", 1e6 + 1, yN + 2e6},
		{"beyond the south pole", 1e6, yS - 1},
		{"in the gap of the cone", 1e6, 1e7},
	}
	for _, tc := range inverse {
		if got, err := p.ToLngLat(tc.x, tc.y); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("%s: ToLngLat(%v, %v) = %v, %v; want ErrDomain", tc.name, tc.x, tc.y, got, err)
		}
	}
	// The poles, the points half a millimetre past them (rounding) and the
	// meridian 180° from the central one invert.
	for _, tc := range []struct {
		name string
		x, y float64
		want orb.Point
	}{
		{"north pole", 1e6, yN, orb.Point{-126, 90}},
		{"0.5 mm past the north pole", 1e6, yN + 5e-4, orb.Point{-126, 90}},
		{"south pole", 1e6, yS, orb.Point{-126, -90}},
		{"0.5 mm past the south pole", 1e6, yS - 5e-4, orb.Point{-126, -90}},
	} {
		got, err := p.ToLngLat(tc.x, tc.y)
		if err != nil || got != tc.want {
			t.Errorf("%s: ToLngLat(%v, %v) = %v, %v; want %v", tc.name, tc.x, tc.y, got, err, tc.want)
		}
	}
	// The edges of the cone: the meridian 180° from the central one, x, y
	// turned about the apex A by an arc of d metres. A lies on the central
	// meridian, as far from the north pole's image as from the image of
	// the pole at 90°E of it.
	x90, y90, err := p.FromLngLat(orb.Point{-36, 90})
	if err != nil {
		t.Fatal(err)
	}
	dx := x90 - 1e6
	yA := (dx*dx + y90*y90 - yN*yN) / (2 * (y90 - yN))
	xE, yE, err := p.FromLngLat(orb.Point{54, 50})
	if err != nil {
		t.Fatal(err)
	}
	r := math.Hypot(xE-1e6, yA-yE)
	edge := math.Atan2(xE-1e6, yA-yE)
	for _, tc := range []struct {
		angle, d float64 // radians about A; metres
		ok       bool
	}{
		{edge, 5e-4, true}, {edge, 2e-3, false},
		{-edge, -5e-4, true}, {-edge, -2e-3, false},
	} {
		a := tc.angle + tc.d/r
		x, y := 1e6+r*math.Sin(a), yA-r*math.Cos(a)
		got, err := p.ToLngLat(x, y)
		if tc.ok && (err != nil || math.Abs(got[0]-54) > 1e-9 || math.Abs(got[1]-50) > 1e-6) {
			t.Errorf("ToLngLat(%v, %v), %v m past the edge: %v, %v; want [54 50]", x, y, tc.d, got, err)
		}
		if !tc.ok && !errors.Is(err, proj.ErrDomain) {
			t.Errorf("ToLngLat(%v, %v), %v m past the edge: %v, %v; want ErrDomain", x, y, tc.d, got, err)
		}
	}
	// The antimeridian: ±180° is one meridian.
	for _, lng := range []float64{-180, 180} {
		in := orb.Point{lng, 50}
		x, y, err := p.FromLngLat(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.ToLngLat(x, y)
		if err != nil || math.Abs(got[0]) != 180 || math.Abs(got[1]-50) > 1e-9 {
			t.Errorf("ToLngLat(FromLngLat(%v)) = %v, %v; want [±180 50]", in, got, err)
		}
	}
}

// TestAlbersFromWKTUnits checks the linear unit of an Albers read from
// WKT: BC Albers in international feet is BC Albers in metres / 0.3048,
// and GeoTools' southern Albers in US survey feet (its albers2 case, with
// a false origin in feet) gives the ArcGIS 8.3 figures.
func TestAlbersFromWKTUnits(t *testing.T) {
	t.Parallel()
	ft, err := proj.FromWKT(`PROJCS["BC Albers (ft)",` + nad83GeogCS + `,PROJECTION["Albers"],PARAMETER["False_Easting",3280839.895013123],PARAMETER["Central_Meridian",-126.0],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",58.5],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Foot",0.3048]]`)
	if err != nil {
		t.Fatal(err)
	}
	m := bcAlbers(t, proj.EPSGBCAlbers)
	for _, pt := range []orb.Point{{-126, 45}, {-122.75, 53.9}, {-139, 60}} {
		xm, ym, err1 := m.FromLngLat(pt)
		xf, yf, err2 := ft.FromLngLat(pt)
		if err1 != nil || err2 != nil || math.Abs(xf*0.3048-xm) > 1e-6 || math.Abs(yf*0.3048-ym) > 1e-6 {
			t.Errorf("FromLngLat(%v): %.6f, %.6f ft (%v) for %.6f, %.6f m (%v)", pt, xf, yf, err2, xm, ym, err1)
		}
		got, err := ft.ToLngLat(xf, yf)
		if err != nil || math.Abs(got[0]-pt[0]) > 1e-9 || math.Abs(got[1]-pt[1]) > 1e-9 {
			t.Errorf("ToLngLat(%v, %v) = %v, %v; want %v", xf, yf, got, err, pt)
		}
	}

	usft, err := proj.FromWKT(`PROJCS["Albers", GEOGCS["WGS84", DATUM["WGS84", SPHEROID["WGS84", 6378137.0, 298.257223563]], PRIMEM["Greenwich", 0.0], UNIT["degree",0.017453292519943295], AXIS["Longitude",EAST], AXIS["Latitude",NORTH]], PROJECTION["Albers_Conic_Equal_Area"], PARAMETER["central_meridian", -88.0], PARAMETER["latitude_of_origin", 14.5], PARAMETER["false_easting", 328.08333333], PARAMETER["false_northing", 192109.19583333], UNIT["feet", 0.304800609601219], PARAMETER["standard_parallel_1", -20.0], PARAMETER["standard_parallel_2", -33.0], AXIS["x",EAST], AXIS["y",NORTH]]`)
	if err != nil {
		t.Fatal(err)
	}
	in := orb.Point{-123.1, 49.2166666666}
	const wantX, wantY = -17239667.9481912, 6138212.93705869
	x, y, err := usft.FromLngLat(in)
	if err != nil || math.Abs(x-wantX) > 0.01 || math.Abs(y-wantY) > 0.01 {
		t.Errorf("%s: FromLngLat(%v) = %.6f, %.6f, %v; want %.6f, %.6f", usft.Name(), in, x, y, err, wantX, wantY)
	}
	if usft.EPSG() != 0 {
		t.Errorf("%s: EPSG %d, want 0", usft.Name(), usft.EPSG())
	}
}

func BenchmarkAlbersForward(b *testing.B) {
	p := bcAlbers(b, proj.EPSGBCAlbers)
	pt := orb.Point{-122.75, 53.9}
	for b.Loop() {
		if _, _, err := p.FromLngLat(pt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAlbersInverse(b *testing.B) {
	p := bcAlbers(b, proj.EPSGBCAlbers)
	for b.Loop() {
		if _, err := p.ToLngLat(1212981.17, 993339.80); err != nil {
			b.Fatal(err)
		}
	}
}
