package proj_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

// The files in testdata/prj were written by PROJ 9.1.1's projinfo
// ("projinfo -o WKT1_ESRI EPSG:26913" for esri_26913.prj, WKT1_GDAL for
// gdal_*, WKT2_2019 for wkt2_*), the same text ArcGIS and GDAL put in .prj
// files.
func TestFromWKTFiles(t *testing.T) {
	t.Parallel()
	type check struct {
		lngLat orb.Point
		x, y   float64 // PROJ 9.1.1 cs2cs
	}
	var (
		csrs13 = &check{orb.Point{-106.25, 49.5}, 409491.638536, 5483791.625756}
		mtm9   = &check{orb.Point{-79.25, 46.5}, 93728.126415, 5154824.525831}
		azEast = &check{orb.Point{-110.5, 33.5}, 598388.606777, 909613.452450} // international feet
		bcAlb  = &check{orb.Point{-122.75, 53.9}, 1212981.170007, 993339.799444}
		canAlb = &check{orb.Point{-79.4, 43.7}, 1347967.180390, 568734.936323} // ESRI:102001
	)
	tests := []struct {
		file    string
		name    string
		epsg    int
		check   *check
		wantErr string // substring of the error; empty for success
	}{
		{file: "esri_26907.prj", name: "NAD83 / UTM zone 7N", epsg: 26907},
		{file: "esri_26913.prj", name: "NAD83 / UTM zone 13N", epsg: 26913, check: csrs13},
		{file: "esri_26922.prj", name: "NAD83 / UTM zone 22N", epsg: 26922},
		{file: "esri_32613.prj", name: "WGS 84 / UTM zone 13N", epsg: 32613, check: csrs13},
		{file: "esri_2957.prj", name: "NAD_1983_CSRS_UTM_Zone_13N", check: csrs13},
		{file: "esri_32187.prj", name: "NAD_1983_MTM_7"},
		{file: "esri_32189.prj", name: "NAD_1983_MTM_9", check: mtm9},
		{file: "esri_2222.prj", name: "NAD_1983_StatePlane_Arizona_East_FIPS_0201_Feet_Intl", check: azEast},
		{file: "esri_3857.prj", name: "WGS 84 / Pseudo-Mercator", epsg: 3857},
		{file: "esri_3005.prj", name: "NAD83 / BC Albers", epsg: 3005, check: bcAlb},
		{file: "esri_3153.prj", name: "NAD83(CSRS) / BC Albers", epsg: 3153, check: bcAlb},
		{file: "esri_102001.prj", name: "Canada_Albers_Equal_Area_Conic", check: canAlb},
		{file: "esri_2964.prj", wantErr: `datum "D_North_American_1927"`},
		{file: "esri_102100.prj", name: "WGS 84 / Pseudo-Mercator", epsg: 3857},
		{file: "esri_102113.prj", name: "WGS 84 / Pseudo-Mercator", epsg: 3857},
		{file: "esri_4269.prj", name: "NAD83", epsg: 4269},
		{file: "esri_4326.prj", name: "WGS 84", epsg: 4326},
		{file: "esri_4617.prj", name: "GCS_North_American_1983_CSRS"},
		{file: "esri_3347.prj", name: "NAD83 / Statistics Canada Lambert", epsg: 3347},
		{file: "esri_3978.prj", name: "NAD83 / Canada Atlas Lambert", epsg: 3978},
		{file: "esri_4267.prj", wantErr: `datum "D_North_American_1927"`},
		{file: "esri_26714.prj", wantErr: `datum "D_North_American_1927"`},
		{file: "esri_3395.prj", wantErr: `ellipsoidal Mercator "WGS_1984_World_Mercator"`},
		{file: "gdal_26913.prj", name: "NAD83 / UTM zone 13N", epsg: 26913},
		{file: "gdal_2957.prj", name: "NAD83(CSRS) / UTM zone 13N", check: csrs13},
		{file: "gdal_3857.prj", name: "WGS 84 / Pseudo-Mercator", epsg: 3857},
		{file: "gdal_3005.prj", name: "NAD83 / BC Albers", epsg: 3005, check: bcAlb},
		{file: "gdal_3153.prj", name: "NAD83(CSRS) / BC Albers", epsg: 3153, check: bcAlb},
		{file: "gdal_4269.prj", name: "NAD83", epsg: 4269},
		{file: "gdal_4326.prj", name: "WGS 84", epsg: 4326},
		{file: "gdal_3395.prj", wantErr: `ellipsoidal Mercator "WGS 84 / World Mercator"`},
		{file: "wkt2_26913.prj", name: "NAD83 / UTM zone 13N", epsg: 26913},
		{file: "wkt2_2957.prj", name: "NAD83(CSRS) / UTM zone 13N", check: csrs13},
		{file: "wkt2_2222.prj", name: "NAD83 / Arizona East (ft)", check: azEast},
		{file: "wkt2_3857.prj", name: "WGS 84 / Pseudo-Mercator", epsg: 3857},
		{file: "wkt2_3005.prj", name: "NAD83 / BC Albers", epsg: 3005, check: bcAlb},
		{file: "wkt2_3153.prj", name: "NAD83(CSRS) / BC Albers", epsg: 3153, check: bcAlb},
		{file: "wkt2_4326.prj", name: "WGS 84", epsg: 4326},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "prj", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			p, err := proj.FromWKT(string(b))
			if tc.wantErr != "" {
				if !errors.Is(err, proj.ErrUnsupported) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FromWKT = %v, %v; want ErrUnsupported containing %q", p, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromWKT: %v", err)
			}
			if p.Name() != tc.name || p.EPSG() != tc.epsg {
				t.Errorf("FromWKT = %q, EPSG %d; want %q, %d", p.Name(), p.EPSG(), tc.name, tc.epsg)
			}
			if c := tc.check; c != nil {
				x, y, err := p.FromLngLat(c.lngLat)
				if err != nil || math.Abs(x-c.x) > 1e-3 || math.Abs(y-c.y) > 1e-3 {
					t.Errorf("FromLngLat(%v) = %.6f, %.6f, %v; want %.6f, %.6f", c.lngLat, x, y, err, c.x, c.y)
				}
				got, err := p.ToLngLat(c.x, c.y)
				if err != nil || math.Abs(got[0]-c.lngLat[0]) > 1e-8 || math.Abs(got[1]-c.lngLat[1]) > 1e-8 {
					t.Errorf("ToLngLat(%v, %v) = %v, %v; want %v", c.x, c.y, got, err, c.lngLat)
				}
			}
		})
	}
}

// WKT pieces for the inline cases.
const (
	nad83GeogCS = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`
	wgs84GeogCS = `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`
	zone13Param = `PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-105.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]`
	// As ArcGIS writes BC Albers (NAD_1983_BC_Environment_Albers).
	bcAlbersParam = `PROJECTION["Albers"],PARAMETER["False_Easting",1000000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-126.0],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",58.5],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Meter",1.0]`
	// BC Albers on WGS 84 as GeoTools' AlbersEqualArea.txt test script
	// writes it (its ArcGIS 8.3 points are in testdata/albers_arcgis.csv).
	geoToolsBCAlbers = `PROJCS["BC Albers", GEOGCS["WGS84", DATUM["WGS84", SPHEROID["WGS84", 6378137.0, 298.257223563]], PRIMEM["Greenwich", 0.0], UNIT["degree",0.017453292519943295], AXIS["Longitude",EAST], AXIS["Latitude",NORTH]], PROJECTION["Albers"], PARAMETER["central_meridian", -126.0], PARAMETER["latitude_of_origin", 45.0], PARAMETER["false_easting", 1000000.0], PARAMETER["false_northing", 0.0], UNIT["metre",1.0], PARAMETER["standard_parallel_1", 50.0], PARAMETER["standard_parallel_2", 58.5], AXIS["x",EAST], AXIS["y",NORTH]]`
	// WKT 2 of NAD83(CSRS) / BC Albers without its IDs, so that FromWKT
	// reads the parameters; %s is the easting at false origin.
	wkt2BCAlbersCSRS = `PROJCRS["NAD83(CSRS) / BC Albers",BASEGEOGCRS["NAD83(CSRS)",DATUM["NAD83 Canadian Spatial Reference System",ELLIPSOID["GRS 1980",6378137,298.257222101,LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,ANGLEUNIT["degree",0.0174532925199433]]],` +
		`CONVERSION["British Columbia Albers",METHOD["Albers Equal Area"],PARAMETER["Latitude of false origin",45,ANGLEUNIT["degree",0.0174532925199433]],PARAMETER["Longitude of false origin",-126,ANGLEUNIT["degree",0.0174532925199433]],` +
		`PARAMETER["Latitude of 1st standard parallel",50,ANGLEUNIT["degree",0.0174532925199433]],PARAMETER["Latitude of 2nd standard parallel",58.5,ANGLEUNIT["degree",0.0174532925199433]],` +
		`PARAMETER["Easting at false origin",%s],PARAMETER["Northing at false origin",0,LENGTHUNIT["metre",1]]],` +
		`CS[Cartesian,2],AXIS["(E)",east,ORDER[1],LENGTHUNIT["metre",1]],AXIS["(N)",north,ORDER[2],LENGTHUNIT["metre",1]]]`
)

var fromWKTTests = []struct {
	name    string
	wkt     string
	want    string // Name()
	epsg    int
	wantErr string // substring; empty for success
	syntax  bool   // the error is a syntax error, not ErrUnsupported
}{
	{name: "UTM by parameters under any name", wkt: `PROJCS["Saskatchewan grid",` + nad83GeogCS + `,` + zone13Param + `]`, want: "NAD83 / UTM zone 13N", epsg: 26913},
	{name: "UTM by name alone", wkt: `PROJCS["NAD_1983_UTM_Zone_13N",` + nad83GeogCS + `,PROJECTION["Transverse_Mercator"],UNIT["Meter",1.0]]`, want: "NAD83 / UTM zone 13N", epsg: 26913},
	{name: "OGC name alone", wkt: `PROJCS["NAD83 / UTM zone 14N",` + nad83GeogCS + `,PROJECTION["Transverse_Mercator"],UNIT["metre",1]]`, want: "NAD83 / UTM zone 14N", epsg: 26914},
	{name: "WGS 84 UTM", wkt: `PROJCS["WGS 84 / UTM zone 13N",` + wgs84GeogCS + `,` + zone13Param + `]`, want: "WGS 84 / UTM zone 13N", epsg: 32613},
	{name: "authority decides over the name", wkt: `PROJCS["NAD_1983_UTM_Zone_14N",` + nad83GeogCS + `,` + zone13Param + `,AUTHORITY["EPSG","26912"]]`, want: "NAD83 / UTM zone 12N", epsg: 26912},
	{name: "WKT 2 ID decides", wkt: `GEOGCRS["whatever",DATUM["D_North_American_1983",ELLIPSOID["GRS 1980",6378137,298.257222101]],ID["EPSG",4326]]`, want: "WGS 84", epsg: 4326},
	{name: "unknown authority code falls back to parameters", wkt: `PROJCS["x",` + nad83GeogCS + `,` + zone13Param + `,AUTHORITY["EPSG","99999"]]`, want: "NAD83 / UTM zone 13N", epsg: 26913},
	{name: "round brackets", wkt: `GEOGCS("NAD83",DATUM("North_American_Datum_1983",SPHEROID("GRS 1980",6378137,298.257222101)),PRIMEM("Greenwich",0),UNIT("degree",0.0174532925199433))`, want: "NAD83", epsg: 4269},
	{name: "white space and doubled quotes", wkt: " \n GEOGCS [ \"NAD83 \"\"x\"\"\" , DATUM [ \"NAD83(CSRS)\" , SPHEROID [ \"GRS 1980\" , 6378137 , 298.257222101 ] ] ] \n", want: `NAD83 "x"`},
	{name: "UTM zone outside 7-22 is a plain TM", wkt: `PROJCS["NAD_1983_UTM_Zone_5N",` + nad83GeogCS + `,PROJECTION["Transverse_Mercator"],PARAMETER["Central_Meridian",-153.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["False_Easting",500000.0],UNIT["Meter",1.0]]`, want: "NAD_1983_UTM_Zone_5N"},
	{name: "unnamed TM", wkt: `PROJCS["",` + nad83GeogCS + `,PROJECTION["Transverse_Mercator"],PARAMETER["Central_Meridian",-76.5],PARAMETER["Scale_Factor",0.9999],PARAMETER["False_Easting",304800.0],UNIT["Meter",1.0]]`, want: "Transverse Mercator (central meridian -76.5)"},
	{name: "Popular Visualisation Pseudo Mercator", wkt: `PROJCS["Popular Visualisation CRS / Mercator",GEOGCS["Popular Visualisation CRS",DATUM["Popular_Visualisation_Datum",SPHEROID["Popular Visualisation Sphere",6378137,0]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Popular Visualisation Pseudo Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1]]`,
		want: "WGS 84 / Pseudo-Mercator", epsg: 3857},
	{name: "Pseudo Mercator method on WGS 84", wkt: `PROJCS["x",` + wgs84GeogCS + `,PROJECTION["Popular Visualisation Pseudo Mercator"],PARAMETER["central_meridian",0],UNIT["metre",1]]`, want: "WGS 84 / Pseudo-Mercator", epsg: 3857},

	{name: "BC Albers as ArcGIS writes it", wkt: `PROJCS["NAD_1983_BC_Environment_Albers",` + nad83GeogCS + `,` + bcAlbersParam + `]`, want: "NAD83 / BC Albers", epsg: 3005},
	{name: "BC Albers OGC WKT 1 without authority", wkt: `PROJCS["NAD83 / BC Albers",GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Albers_Conic_Equal_Area"],PARAMETER["latitude_of_center",45],PARAMETER["longitude_of_center",-126],PARAMETER["standard_parallel_1",50],PARAMETER["standard_parallel_2",58.5],PARAMETER["false_easting",1000000],PARAMETER["false_northing",0],UNIT["metre",1]]`,
		want: "NAD83 / BC Albers", epsg: 3005},
	{name: "BC Albers WKT 2 without IDs", wkt: fmt.Sprintf(wkt2BCAlbersCSRS, `1000000,LENGTHUNIT["metre",1]`), want: "NAD83(CSRS) / BC Albers", epsg: 3153},
	{name: "BC Albers WKT 2 easting in kilometres", wkt: fmt.Sprintf(wkt2BCAlbersCSRS, `1000,LENGTHUNIT["kilometre",1000]`), want: "NAD83(CSRS) / BC Albers", epsg: 3153},
	{name: "BC Albers standard parallels swapped", wkt: `PROJCS["x",` + nad83GeogCS + `,PROJECTION["Albers"],PARAMETER["False_Easting",1000000.0],PARAMETER["Central_Meridian",-126.0],PARAMETER["Standard_Parallel_1",58.5],PARAMETER["Standard_Parallel_2",50.0],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Meter",1.0]]`,
		want: "NAD83 / BC Albers", epsg: 3005},
	{name: "BC Albers on WGS 84 has no EPSG code", wkt: geoToolsBCAlbers, want: "BC Albers"},
	{name: "BC Albers on NAD83 HARN has no EPSG code", wkt: `PROJCS["x",GEOGCS["GCS_North_American_1983_HARN",DATUM["D_North_American_1983_HARN",SPHEROID["GRS_1980",6378137.0,298.257222101]]],` + bcAlbersParam + `]`, want: "x"},
	{name: "BC Albers in feet has no EPSG code", wkt: `PROJCS["BC Albers (ft)",` + nad83GeogCS + `,PROJECTION["Albers"],PARAMETER["False_Easting",3280839.895013123],PARAMETER["Central_Meridian",-126.0],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",58.5],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Foot",0.3048]]`,
		want: "BC Albers (ft)"},
	{name: "unnamed Albers", wkt: `PROJCS["",` + nad83GeogCS + `,PROJECTION["Albers"],PARAMETER["Central_Meridian",-96.0],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",70.0],PARAMETER["Latitude_Of_Origin",40.0],UNIT["Meter",1.0]]`,
		want: "Albers Equal Area (standard parallels 50 and 70, central meridian -96)"},

	{name: "UTM name disagrees with parameters", wkt: `PROJCS["NAD_1983_UTM_Zone_14N",` + nad83GeogCS + `,` + zone13Param + `]`, wantErr: `names UTM zone 14N but its parameters are central meridian -105`},
	{name: "TM without central meridian", wkt: `PROJCS["x",` + nad83GeogCS + `,PROJECTION["Transverse_Mercator"],UNIT["Meter",1.0]]`, wantErr: "without central_meridian, scale_factor"},
	{name: "TM on a sphere", wkt: `PROJCS["x",GEOGCS["s",DATUM["D_WGS_1984",SPHEROID["s",6378137,0]]],` + zone13Param + `]`, wantErr: "on a sphere"},
	{name: "south orientated TM", wkt: `PROJCS["x",` + nad83GeogCS + `,PROJECTION["Transverse_Mercator_South_Orientated"],UNIT["Meter",1.0]]`, wantErr: `projection "Transverse_Mercator_South_Orientated"`},
	{name: "auxiliary sphere type 2", wkt: `PROJCS["x",` + wgs84GeogCS + `,PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["Auxiliary_Sphere_Type",2.0],UNIT["Meter",1.0]]`, wantErr: "auxiliary sphere type 2"},
	{name: "shifted Web Mercator", wkt: `PROJCS["x",` + wgs84GeogCS + `,PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["False_Easting",100.0],UNIT["Meter",1.0]]`, wantErr: "false easting 100"},
	{name: "Albers with one standard parallel (GeoTools)", wkt: `PROJCS["Albers", GEOGCS["WGS84", DATUM["WGS84", SPHEROID["WGS84", 6378137.0, 298.257223563]], PRIMEM["Greenwich", 0.0], UNIT["degree",0.017453292519943295]], PROJECTION["Albers_Conic_Equal_Area"], PARAMETER["central_meridian", 142.0], PARAMETER["latitude_of_origin", 42.0], PARAMETER["false_easting", 0.0], PARAMETER["false_northing", 0.0], UNIT["metre",1.0], PARAMETER["standard_parallel_1", 57.0]]`,
		wantErr: "Albers Equal Area without standard_parallel_2"},
	{name: "Albers without central meridian", wkt: `PROJCS["x",` + nad83GeogCS + `,PROJECTION["Albers"],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",58.5],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Meter",1.0]]`,
		wantErr: "without longitude_of_center"},
	{name: "Albers with parallels symmetric about the equator", wkt: `PROJCS["x",` + nad83GeogCS + `,PROJECTION["Albers"],PARAMETER["Central_Meridian",-96.0],PARAMETER["Standard_Parallel_1",30.0],PARAMETER["Standard_Parallel_2",-30.0],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`,
		wantErr: "symmetric about the equator"},
	{name: "Albers origin beyond the pole", wkt: `PROJCS["x",` + nad83GeogCS + `,PROJECTION["Albers"],PARAMETER["Central_Meridian",-96.0],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",70.0],PARAMETER["Latitude_Of_Origin",95.0],UNIT["Meter",1.0]]`,
		wantErr: "latitude 95 out of range"},
	{name: "Albers on NAD27", wkt: `PROJCS["NAD_1927_Albers",GEOGCS["GCS_North_American_1927",DATUM["D_North_American_1927",SPHEROID["Clarke_1866",6378206.4,294.9786982]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],` + bcAlbersParam + `]`,
		wantErr: `datum "D_North_American_1927"`},
	{name: "Albers on a sphere", wkt: `PROJCS["x",GEOGCS["s",DATUM["D_WGS_1984",SPHEROID["s",6378137,0]]],` + bcAlbersParam + `]`, wantErr: "Albers Equal Area on a sphere"},
	{name: "ETRS89", wkt: `GEOGCS["ETRS89",DATUM["European_Terrestrial_Reference_System_1989",SPHEROID["GRS 1980",6378137,298.257222101]]]`, wantErr: `datum "European_Terrestrial_Reference_System_1989"`},
	{name: "NAD83 name on Clarke 1866", wkt: `GEOGCS["x",DATUM["D_North_American_1983",SPHEROID["Clarke_1866",6378206.4,294.9786982]]]`, wantErr: `spheroid "Clarke_1866"`},
	{name: "Paris meridian", wkt: `GEOGCS["x",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Paris",2.33722917]]`, wantErr: `prime meridian "Paris"`},
	{name: "grads", wkt: `GEOGCS["x",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],UNIT["grad",0.015707963267949]]`, wantErr: "not degrees"},
	{name: "no datum", wkt: `GEOGCS["x"]`, wantErr: "has no DATUM"},
	{name: "no spheroid", wkt: `GEOGCS["x",DATUM["D_WGS_1984"]]`, wantErr: "has no SPHEROID"},
	{name: "projected without GEOGCS", wkt: `PROJCS["x",` + zone13Param + `]`, wantErr: "has no GEOGCS"},
	{name: "compound", wkt: `COMPD_CS["x",` + `PROJCS["x",` + nad83GeogCS + `,` + zone13Param + `],VERT_CS["y"]]`, wantErr: `WKT COMPD_CS["x"]`},
	{name: "local", wkt: `LOCAL_CS["Site grid"]`, wantErr: `WKT LOCAL_CS["Site grid"]`},

	{name: "empty", wkt: "", wantErr: "want a keyword", syntax: true},
	{name: "keyword only", wkt: "PROJCS", wantErr: "want [ or (", syntax: true},
	{name: "unclosed", wkt: `PROJCS["a"`, wantErr: "unclosed PROJCS", syntax: true},
	{name: "mismatched brackets", wkt: `GEOGCS["a")`, wantErr: "want , or ]", syntax: true},
	{name: "empty argument", wkt: `GEOGCS["a",]`, wantErr: "unexpected ']'", syntax: true},
	{name: "trailing text", wkt: `GEOGCS["a"] x`, wantErr: "after the end of GEOGCS", syntax: true},
	{name: "unterminated quote", wkt: `GEOGCS["a]`, wantErr: "unterminated quoted text", syntax: true},
	{name: "bad number", wkt: `GEOGCS["a",1e+-]`, wantErr: `bad number "1e+-"`, syntax: true},
	{name: "too deep", wkt: strings.Repeat("A[", 40) + strings.Repeat("]", 40), wantErr: "nested more than 32 deep", syntax: true},
	{name: "too long", wkt: `GEOGCS["` + strings.Repeat("x", 70000) + `"]`, wantErr: "more than 65536", syntax: true},
}

func TestFromWKT(t *testing.T) {
	t.Parallel()
	for _, tc := range fromWKTTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := proj.FromWKT(tc.wkt)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, proj.ErrUnsupported) == tc.syntax {
					t.Fatalf("FromWKT = %v, %v; want error containing %q (syntax error %v)", p, err, tc.wantErr, tc.syntax)
				}
				if !strings.HasPrefix(err.Error(), "proj: ") {
					t.Errorf("error %q does not start with the package name", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromWKT: %v", err)
			}
			if p.Name() != tc.want || p.EPSG() != tc.epsg {
				t.Errorf("FromWKT = %q, EPSG %d; want %q, %d", p.Name(), p.EPSG(), tc.want, tc.epsg)
			}
		})
	}
}
