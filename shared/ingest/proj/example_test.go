package proj_test

import (
	"fmt"

	"meridian/shared/ingest/proj"
)

func ExampleFromWKT() {
	prj := `PROJCS["NAD_1983_UTM_Zone_13N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-105.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`
	p, err := proj.FromWKT(prj)
	if err != nil {
		fmt.Println(err)
		return
	}
	ll, err := p.ToLngLat(409491.638536, 5483791.625756)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (EPSG:%d): %.6f, %.6f\n", p.Name(), p.EPSG(), ll[0], ll[1])
	// Output: NAD83 / UTM zone 13N (EPSG:26913): -106.250000, 49.500000
}
