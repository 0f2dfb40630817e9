package gridingest

import (
	"errors"
	"io"
	"strings"

	"meridian/shared/ingest"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
)

// shpFeature adapts a shapefile feature to the field lookups the grid
// readers share with GeoJSON: names compared as headerName does (case
// folded, '_' as a space).
type shpFeature struct {
	f      shp.Feature
	fields map[string]int // headerName(field) -> index
}

func (s shpFeature) get(names ...string) string {
	for _, n := range names {
		if i, ok := s.fields[n]; ok && i < len(s.f.Attrs) {
			return strings.TrimSpace(s.f.Attrs[i])
		}
	}
	return ""
}

func (s shpFeature) has(names ...string) bool {
	for _, n := range names {
		if _, ok := s.fields[n]; ok {
			return true
		}
	}
	return false
}

// readShapefile streams the polygon features of a shapefile (.shp and .dbf
// read together by package shp) to fn, geometries converted from the
// coordinate system of prj (the .prj file's WKT, required: package proj
// decides which systems are supported) to lng/lat, rings closed and
// oriented (outer counter-clockwise), nil for Null shapes. Errors are
// *Error with the record number as Line (0 for the headers and the .prj).
func readShapefile(shpR, dbfR io.Reader, prj, file string, fn func(no int, f shpFeature, g orb.Geometry) error) error {
	if strings.TrimSpace(prj) == "" {
		return ingest.Errorf(file, 0, "no .prj: the coordinate system is unknown")
	}
	p, err := proj.FromWKT(prj)
	if err != nil {
		return ingest.Errorf(file, 0, ".prj: unsupported coordinate system: %v", err)
	}
	if dbfR == nil {
		return ingest.Errorf(file, 0, "no .dbf: the attributes are needed")
	}
	r, err := shp.NewReader(shpR, dbfR, shp.ReaderOptions{})
	if err != nil {
		return shpErr(file, err)
	}
	switch r.ShapeType() {
	case shp.Polygon, shp.PolygonZ, shp.PolygonM:
	default:
		return ingest.Errorf(file, 0, "shape type %v: want Polygon", r.ShapeType())
	}
	fields := make(map[string]int)
	for i, f := range r.Fields() {
		n := headerName(f.Name)
		if _, dup := fields[n]; !dup {
			fields[n] = i
		}
	}
	for {
		f, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return shpErr(file, err)
		}
		var g orb.Geometry
		if f.Geometry != nil {
			if g, err = proj.Geometry(f.Geometry, p); err != nil {
				return ingest.Errorf(file, f.Number, "%s: %v", p.Name(), err)
			}
			g = orientGeometry(g)
			if why := checkPolygonal(g); why != "" {
				return ingest.Errorf(file, f.Number, "%s", why)
			}
		}
		if err := fn(f.Number, shpFeature{f: f, fields: fields}, g); err != nil {
			return err
		}
	}
}

// shpErr turns a package shp error into an *Error.
func shpErr(file string, err error) error {
	var fe *shp.FormatError
	if errors.As(err, &fe) {
		return ingest.Errorf(file, fe.Record, ".%s: %s", fe.File, fe.Msg)
	}
	return ingest.Errorf(file, 0, "%v", err)
}
