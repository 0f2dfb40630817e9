package agdemo

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/paulmach/orb"

	demodata "meridian/shared/demo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/proj"
	"meridian/shared/ingest/shp"
)

const nad83WKT = `GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

// bcAlbersWKT is the .prj of NAD83 / BC Albers (EPSG:3005) as ArcGIS
// writes it.
const bcAlbersWKT = `PROJCS["NAD_1983_BC_Environment_Albers",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Albers"],PARAMETER["False_Easting",1000000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-126.0],PARAMETER["Standard_Parallel_1",50.0],PARAMETER["Standard_Parallel_2",58.5],PARAMETER["Latitude_Of_Origin",45.0],UNIT["Meter",1.0]]`

// shapefile writes name (.shp) with its .shx, .dbf, .prj and .cpg, in
// NAD83 longitude and latitude.
func (d *demo) shapefile(name string, t shp.ShapeType, fields []shp.Field, rec func(add func(orb.Geometry, ...string) error) error) error {
	return d.projectedShapefile(name, nil, t, fields, rec)
}

// projectedShapefile writes a shapefile whose coordinates are converted
// from longitude and latitude by p, with p's .prj; nil p: NAD83 longitude
// and latitude. Only BC Albers is written this way.
func (d *demo) projectedShapefile(name string, p proj.Projection, t shp.ShapeType, fields []shp.Field, rec func(add func(orb.Geometry, ...string) error) error) error {
	prj := nad83WKT
	if p != nil {
		if p.EPSG() != proj.EPSGBCAlbers {
			return fmt.Errorf("%s: no .prj for %s", name, p.Name())
		}
		prj = bcAlbersWKT
	}
	// The set streams to its files: the writer seeks back only to fill
	// in the headers. A table on its own (Null) is the .dbf alone.
	var w *shp.SetWriter
	var err error
	if t == shp.Null {
		w, err = shp.NewTableWriter(shp.Dir(d.dir), name, fields, shp.WriterOptions{Encoding: shp.UTF8})
	} else {
		w, err = shp.NewSetWriter(shp.Dir(d.dir), strings.TrimSuffix(name, ".shp"), t, fields, shp.SetOptions{
			WriterOptions: shp.WriterOptions{Encoding: shp.UTF8}, PRJ: prj, CPG: true})
	}
	if err != nil {
		return err
	}
	if err := rec(func(g orb.Geometry, attrs ...string) error {
		if p != nil {
			var err error
			if g, err = project(g, p); err != nil {
				return err
			}
		}
		return w.Write(g, attrs)
	}); err != nil {
		w.Abort()
		return fmt.Errorf("%s: %w", name, err)
	}
	return w.Close()
}

// dbfTable writes a dBASE table on its own.
func (d *demo) dbfTable(name string, fields []shp.Field, rows [][]string) error {
	return d.shapefile(name, shp.Null, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, r := range rows {
			if err := add(nil, r...); err != nil {
				return err
			}
		}
		return nil
	})
}

func cField(name string, n int) shp.Field {
	return shp.Field{Name: name, Type: shp.Character, Length: n}
}

func nField(name string, n, dec int) shp.Field {
	return shp.Field{Name: name, Type: shp.Numeric, Length: n, Decimals: dec}
}

// geoJSONWriter builds a FeatureCollection with package demo's writer
// (one feature per line, geometries through orb), rings oriented as RFC
// 7946 asks and coordinates at 6 decimals, as the agencies' GeoJSON
// downloads give them.
type geoJSONWriter struct {
	b  bytes.Buffer
	fc *demodata.FeatureCollection
}

type prop struct {
	k string
	v any
}

func (g *geoJSONWriter) add(geom orb.Geometry, props ...prop) {
	if g.fc == nil {
		g.fc = demodata.NewFeatureCollection(&g.b, "", 0)
	}
	ps := make([]demodata.Prop, len(props))
	for i, p := range props {
		ps[i] = demodata.Prop{Key: p.k, Value: p.v}
	}
	switch t := geom.(type) {
	case orb.Polygon:
		geom = ingest.OrientRings(clonePolygon(t))
	case orb.MultiPolygon:
		m := make(orb.MultiPolygon, len(t))
		for i, p := range t {
			m[i] = ingest.OrientRings(clonePolygon(p))
		}
		geom = m
	case orb.LineString:
	default:
		geom = nil // written as null
	}
	if geom != nil {
		geom = demodata.Round(geom, 6)
	}
	g.fc.Feature(geom, ps...)
}

// len is the number of features added.
func (g *geoJSONWriter) len() int {
	if g.fc == nil {
		return 0
	}
	return g.fc.Len()
}

// flush writes the features added so far to w and forgets them, so that a
// large collection streams; finish ends it.
func (g *geoJSONWriter) flush(w io.Writer) error {
	_, err := w.Write(g.b.Bytes())
	g.b.Reset()
	return err
}

// finish writes the rest of the collection to w (flush, then bytes).
func (g *geoJSONWriter) finish(w io.Writer) error {
	b, err := g.bytes()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// bytes ends the collection and returns what was not flushed.
func (g *geoJSONWriter) bytes() ([]byte, error) {
	if g.fc == nil {
		g.fc = demodata.NewFeatureCollection(&g.b, "", 0)
	}
	err := g.fc.End()
	return g.b.Bytes(), err
}

// writeGeoJSON ends g and writes it as name.
func (d *demo) writeGeoJSON(name string, g *geoJSONWriter) error {
	b, err := g.bytes()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return d.write(name, b)
}

func clonePolygon(p orb.Polygon) orb.Polygon {
	c := make(orb.Polygon, len(p))
	for i, r := range p {
		c[i] = append(orb.Ring(nil), r...)
	}
	return c
}

// project converts a lng/lat polygon to p's coordinates.
func project(g orb.Geometry, p proj.Projection) (orb.Geometry, error) {
	poly, ok := g.(orb.Polygon)
	if !ok {
		return nil, fmt.Errorf("project: %T", g)
	}
	out := make(orb.Polygon, len(poly))
	for i, r := range poly {
		out[i] = make(orb.Ring, len(r))
		for j, pt := range r {
			x, y, err := p.FromLngLat(pt)
			if err != nil {
				return nil, err
			}
			out[i][j] = orb.Point{x, y}
		}
	}
	return out, nil
}
