package proj_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

// TestLCCReference compares both directions with PROJ 9.1.1 (cs2cs, see
// testdata/lcc_reference.csv) for the Ontario MNR Lambert (EPSG:3161), the
// Canada Atlas Lambert (EPSG:3978) and the Statistics Canada Lambert
// (EPSG:3347), from the equator to 89.9°N and from 134°W to 63°W.
func TestLCCReference(t *testing.T) {
	t.Parallel()
	const tolM = 1e-3         // metres
	const tolDeg = tolM / 2e5 // degrees: 1 mm is about 9e-9° of latitude
	rows := readReferenceFile(t, filepath.Join("testdata", "lcc_reference.csv"))
	if len(rows) < 40 {
		t.Fatalf("%d reference rows, want at least 40", len(rows))
	}
	var worst float64
	for _, r := range rows {
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

func TestLCCFromEPSG(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		name string
	}{
		{proj.EPSGOntarioLambert, "NAD83 / Ontario MNR Lambert"},
		{proj.EPSGOntarioLambertCSRS, "NAD83(CSRS) / Ontario MNR Lambert"},
		{proj.EPSGCanadaAtlasLambert, "NAD83 / Canada Atlas Lambert"},
		{proj.EPSGCanadaAtlasLambertCSRS, "NAD83(CSRS) / Canada Atlas Lambert"},
		{proj.EPSGStatCanLambert, "NAD83 / Statistics Canada Lambert"},
		{proj.EPSGStatCanLambertCSRS, "NAD83(CSRS) / Statistics Canada Lambert"},
	}
	for _, tc := range tests {
		p, err := proj.FromEPSG(tc.code)
		if err != nil {
			t.Errorf("FromEPSG(%d): %v", tc.code, err)
			continue
		}
		if p.Name() != tc.name || p.EPSG() != tc.code {
			t.Errorf("FromEPSG(%d) = %q, EPSG %d; want %q, %d", tc.code, p.Name(), p.EPSG(), tc.name, tc.code)
		}
	}
	// The CSRS realisations are converted as NAD83 (see the package doc).
	a, _ := proj.FromEPSG(3161)
	b, _ := proj.FromEPSG(3162)
	pt := orb.Point{-79.93, 44.17}
	x1, y1, _ := a.FromLngLat(pt)
	x2, y2, _ := b.FromLngLat(pt)
	if x1 != x2 || y1 != y2 {
		t.Errorf("EPSG:3161 and 3162 differ at %v: %v, %v and %v, %v", pt, x1, y1, x2, y2)
	}
}

// TestLCCRoundTrip projects a grid over Canada and beyond, 0°N to 89.99°N
// and 150°W to 40°W, forward then back: it must return within a
// millimetre on the ground.
func TestLCCRoundTrip(t *testing.T) {
	t.Parallel()
	for _, code := range []int{3161, 3978, 3347} {
		p, err := proj.FromEPSG(code)
		if err != nil {
			t.Fatal(err)
		}
		for lat := 0.0; lat < 90; lat += 2.5 {
			for lng := -150.0; lng <= -40; lng += 2.75 {
				pt := orb.Point{lng, lat}
				if lat == 87.5 {
					pt[1] = 89.99
				}
				x, y, err := p.FromLngLat(pt)
				if err != nil {
					t.Fatalf("EPSG:%d FromLngLat(%v): %v", code, pt, err)
				}
				got, err := p.ToLngLat(x, y)
				if err != nil {
					t.Fatalf("EPSG:%d ToLngLat(FromLngLat(%v)): %v", code, pt, err)
				}
				dLng := (got[0] - pt[0]) * 111320 * math.Cos(pt[1]*math.Pi/180)
				dLat := (got[1] - pt[1]) * 110574
				if d := math.Hypot(dLng, dLat); d > 1e-3 {
					t.Errorf("EPSG:%d round trip %v = %.10f (off %.2g m)", code, pt, got, d)
				}
			}
		}
	}
}

func TestLCCDomain(t *testing.T) {
	t.Parallel()
	p, err := proj.FromEPSG(3161)
	if err != nil {
		t.Fatal(err)
	}
	// The north pole is the apex: x = FE, y = FN + ρ0.
	x, y, err := p.FromLngLat(orb.Point{-40, 90})
	if err != nil {
		t.Fatalf("FromLngLat(north pole): %v", err)
	}
	got, err := p.ToLngLat(x, y)
	if err != nil || got[1] != 90 {
		t.Errorf("ToLngLat(apex %v, %v) = %v, %v; want latitude 90", x, y, got, err)
	}
	for _, bad := range []orb.Point{{-85, -90}, {-85, math.NaN()}, {math.Inf(1), 45}, {-85, 90.5}} {
		if x, y, err := p.FromLngLat(bad); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("FromLngLat(%v) = %v, %v, %v; want ErrDomain", bad, x, y, err)
		}
	}
	// x far west of the apex, level with it: 90° of the cone's angle on
	// the map is 90/n ≈ 116° of longitude, beyond the cone's edge once
	// the map angle passes n·180° ≈ 139°.
	apexX, apexY := x, y
	for _, bad := range [][2]float64{
		{math.NaN(), 0}, {0, math.Inf(-1)},
		{apexX, apexY + 1000}, // north of the apex: 180° of map angle, beyond n·180°
	} {
		if got, err := p.ToLngLat(bad[0], bad[1]); !errors.Is(err, proj.ErrDomain) {
			t.Errorf("ToLngLat(%v, %v) = %v, %v; want ErrDomain", bad[0], bad[1], got, err)
		}
	}
}

// TestLCCFromWKT reads the Lambert Conformal Conic .prj files PROJ 9.1.1's
// projinfo writes (ESRI, GDAL WKT 1 and WKT 2) and inline 1SP definitions.
func TestLCCFromWKT(t *testing.T) {
	t.Parallel()
	toronto := orb.Point{-79.93, 44.17}
	tests := []struct {
		file string
		name string
		epsg int
		x, y float64 // of toronto; 0, 0 to skip
	}{
		{"esri_3161.prj", "NAD83 / Ontario MNR Lambert", 3161, 1335364.757401, 11964085.452765},
		{"esri_3162.prj", "NAD83(CSRS) / Ontario MNR Lambert", 3162, 1335364.757401, 11964085.452765},
		{"gdal_3161.prj", "NAD83 / Ontario MNR Lambert", 3161, 1335364.757401, 11964085.452765},
		{"wkt2_3161.prj", "NAD83 / Ontario MNR Lambert", 3161, 1335364.757401, 11964085.452765},
		{"esri_3978.prj", "NAD83 / Canada Atlas Lambert", 3978, 1219731.964561, -397271.323316},
		{"esri_3347.prj", "NAD83 / Statistics Canada Lambert", 3347, 0, 0},
		{"gdal_3347.prj", "NAD83 / Statistics Canada Lambert", 3347, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "prj", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			p, err := proj.FromWKT(string(b))
			if err != nil {
				t.Fatalf("FromWKT: %v", err)
			}
			if p.Name() != tc.name || p.EPSG() != tc.epsg {
				t.Errorf("FromWKT = %q, EPSG %d; want %q, %d", p.Name(), p.EPSG(), tc.name, tc.epsg)
			}
			if tc.x == 0 {
				return
			}
			x, y, err := p.FromLngLat(toronto)
			if err != nil || math.Abs(x-tc.x) > 1e-3 || math.Abs(y-tc.y) > 1e-3 {
				t.Errorf("FromLngLat(%v) = %.6f, %.6f, %v; want %.6f, %.6f", toronto, x, y, err, tc.x, tc.y)
			}
		})
	}
}

// TestLCCFromWKTParams covers the forms FromWKT accepts without a known
// EPSG code, checked against PROJ 9.1.1 cs2cs, and the ones it refuses.
func TestLCCFromWKTParams(t *testing.T) {
	t.Parallel()
	lcc := func(method, params string) string {
		return `PROJCS["test",` + nad83GeogCS + `,PROJECTION["` + method + `"],` + params + `,UNIT["Meter",1.0]]`
	}
	// echo '-79.93 44.17' | cs2cs -f %.6f +proj=longlat +datum=NAD83 +to
	//   +proj=lcc +lat_1=45 +lat_0=45 +lon_0=-80 +k_0=0.9999 +x_0=300000 +y_0=100000 +ellps=GRS80
	const oneSPx, oneSPy = 305598.399851, 7775.793468
	// ... +proj=lcc +lat_1=44.5 +lat_2=53.5 +lat_0=0 +lon_0=-85 +ellps=GRS80 +units=us-ft
	//   +x_0=929999.9999999994 +y_0=6429991.363982724 (the false origin below in metres)
	const ftX, ftY = 4381109.2082, 39252142.0229
	tests := []struct {
		name    string
		wkt     string
		x, y    float64
		wantErr string
	}{
		{name: "ESRI 1SP", wkt: lcc("Lambert_Conformal_Conic", `PARAMETER["False_Easting",300000.0],PARAMETER["False_Northing",100000.0],PARAMETER["Central_Meridian",-80.0],PARAMETER["Standard_Parallel_1",45.0],PARAMETER["Scale_Factor",0.9999],PARAMETER["Latitude_Of_Origin",45.0]`),
			x: oneSPx, y: oneSPy},
		{name: "GDAL 1SP", wkt: lcc("Lambert_Conformal_Conic_1SP", `PARAMETER["latitude_of_origin",45],PARAMETER["central_meridian",-80],PARAMETER["scale_factor",0.9999],PARAMETER["false_easting",300000],PARAMETER["false_northing",100000]`),
			x: oneSPx, y: oneSPy},
		{name: "2SP in US survey feet", wkt: `PROJCS["ft",` + nad83GeogCS + `,PROJECTION["Lambert_Conformal_Conic_2SP"],PARAMETER["standard_parallel_1",44.5],PARAMETER["standard_parallel_2",53.5],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-85],PARAMETER["false_easting",3051175.0],PARAMETER["false_northing",21095730.0],UNIT["US survey foot",0.304800609601219]]`,
			x: ftX, y: ftY},
		{name: "ESRI one parallel off the origin", wkt: lcc("Lambert_Conformal_Conic", `PARAMETER["Central_Meridian",-80.0],PARAMETER["Standard_Parallel_1",45.0],PARAMETER["Latitude_Of_Origin",40.0]`),
			wantErr: "one standard parallel 45 and latitude of origin 40"},
		{name: "2SP without a second parallel", wkt: lcc("Lambert_Conformal_Conic_2SP", `PARAMETER["Central_Meridian",-80.0],PARAMETER["Standard_Parallel_1",45.0],PARAMETER["Latitude_Of_Origin",40.0]`),
			wantErr: "without standard_parallel_2"},
		{name: "2SP with a scale", wkt: lcc("Lambert_Conformal_Conic", `PARAMETER["Central_Meridian",-80.0],PARAMETER["Standard_Parallel_1",45.0],PARAMETER["Standard_Parallel_2",50.0],PARAMETER["Latitude_Of_Origin",40.0],PARAMETER["Scale_Factor",0.9]`),
			wantErr: "scale factor 0.9"},
		{name: "parallels symmetric about the equator", wkt: lcc("Lambert_Conformal_Conic", `PARAMETER["Central_Meridian",-80.0],PARAMETER["Standard_Parallel_1",30.0],PARAMETER["Standard_Parallel_2",-30.0],PARAMETER["Latitude_Of_Origin",0.0]`),
			wantErr: "degenerates to a cylinder"},
		{name: "Belgian variant", wkt: lcc("Lambert_Conformal_Conic_2SP_Belgium", `PARAMETER["Central_Meridian",4.0],PARAMETER["Standard_Parallel_1",49.8],PARAMETER["Standard_Parallel_2",51.2],PARAMETER["Latitude_Of_Origin",90.0]`),
			wantErr: `projection "Lambert_Conformal_Conic_2SP_Belgium"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := proj.FromWKT(tc.wkt)
			if tc.wantErr != "" {
				if !errors.Is(err, proj.ErrUnsupported) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FromWKT = %v, %v; want ErrUnsupported containing %q", p, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromWKT: %v", err)
			}
			pt := orb.Point{-79.93, 44.17}
			x, y, err := p.FromLngLat(pt)
			if err != nil || math.Abs(x-tc.x) > 2e-3 || math.Abs(y-tc.y) > 2e-3 {
				t.Errorf("%s FromLngLat(%v) = %.6f, %.6f, %v; want %.6f, %.6f", p.Name(), pt, x, y, err, tc.x, tc.y)
			}
			got, err := p.ToLngLat(x, y)
			if err != nil || math.Abs(got[0]-pt[0]) > 1e-9 || math.Abs(got[1]-pt[1]) > 1e-9 {
				t.Errorf("ToLngLat(%v, %v) = %v, %v; want %v", x, y, got, err, pt)
			}
		})
	}
}
