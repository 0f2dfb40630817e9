package shp_test

import (
	"errors"
	"fmt"
	"io"
	"os"

	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
)

// Example reads a shapefile in lockstep with its attributes and converts
// each geometry to NAD83 longitude and latitude with the projection of its
// .prj file.
func Example() {
	shpFile, err := os.Open("testdata/gdal/parcels_latin1.shp")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer shpFile.Close()
	dbfFile, err := os.Open("testdata/gdal/parcels_latin1.dbf")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dbfFile.Close()
	cpg, _ := os.ReadFile("testdata/gdal/parcels_latin1.cpg") // optional
	prj, err := os.ReadFile("testdata/gdal/parcels_latin1.prj")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := proj.FromWKT(string(prj))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := shp.NewReader(shpFile, dbfFile, shp.ReaderOptions{CPG: string(cpg)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		g, err := proj.Geometry(f.Geometry, p)
		if err != nil {
			fmt.Println(err)
			return
		}
		name, _ := f.Get("name")
		place, _ := f.Get("PLACE")
		if g == nil {
			fmt.Printf("%d %s (%s): no geometry\n", f.Number, name, place)
			continue
		}
		c := g.Bound().Center()
		fmt.Printf("%d %s (%s): %T near %.4f, %.4f\n", f.Number, name, place, g, c[0], c[1])
	}
	// Output:
	// 1 NW-12-34-5-W3 (Saint-Léon): orb.Polygon near -106.7380, 51.8915
	// 2 SE-1-1-1-W2 with slough (Rivière-Qui-Barre): orb.Polygon near -106.3622, 49.0184
	// 3 split quarter (Île-à-la-Crosse): orb.MultiPolygon near -106.2277, 49.1099
	// 4 no geometry (): no geometry
}
