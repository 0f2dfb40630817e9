package gridingest

import (
	"io"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/shp"
)

// shpFeature adapts a row of a shapefile's ingest.Table to the field
// lookups the grid readers share with GeoJSON: names compared as
// headerName does (case folded, '_' as a space).
type shpFeature struct {
	row  *ingest.Row
	cols []string // the table's columns by headerName, in .dbf order
}

func (s shpFeature) get(names ...string) string { return strings.TrimSpace(s.row.Get(names...)) }

func (s shpFeature) has(names ...string) bool { return s.row.Has(names...) }

// polygonShapes are the shape types of a grid layer.
var polygonShapes = []shp.ShapeType{shp.Polygon, shp.PolygonZ, shp.PolygonM}

// readShapefile streams the polygon features of a shapefile (.shp and .dbf
// read together by ingest.Table) to fn, geometries converted from the
// coordinate system of prj (the .prj file's WKT, required: package proj
// decides which systems are supported) to lng/lat, rings closed and
// oriented (outer counter-clockwise), nil for Null shapes. Errors are
// *Error with the record number as Line (0 for the headers and the .prj).
func readShapefile(shpR, dbfR io.Reader, prj, file string, fn func(no int, f shpFeature, g orb.Geometry) error) error {
	t, err := ingest.Source{
		Name: file, Format: ingest.Shapefile, R: shpR, DBF: dbfR, PRJ: prj,
		Names: headerName, Geometry: blockPolygon, RequirePRJ: true, ShapeTypes: polygonShapes,
		Strict: true, // a bad record is an error, never skipped
	}.Open()
	if err != nil {
		return err
	}
	return t.Each(func(r *ingest.Row) error {
		return fn(r.Line, shpFeature{row: r, cols: t.Cols}, r.Geom)
	})
}

// blockPolygon orients g's rings and checks it is a block polygon (see
// checkPolygonal): the Geometry rule of the grid readers' tables.
func blockPolygon(g orb.Geometry) (orb.Geometry, string) {
	g = orientGeometry(g)
	return g, checkPolygonal(g)
}

// uniqueCols returns cols without its repeats, first spellings kept.
func uniqueCols(cols []string) []string {
	var out []string
	for _, c := range cols {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
