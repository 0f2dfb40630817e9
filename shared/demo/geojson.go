package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

// Prop is one property of a GeoJSON feature. A feature's properties are
// written in the order given, as the publishers' exports keep their field
// order (orb's Properties, a map, would sort them). Value is marshalled by
// encoding/json: nil is null, and a json.Number is a number as written.
type Prop struct {
	Key   string
	Value any
}

// FeatureCollection writes a GeoJSON FeatureCollection into a buffer the
// way the publishers' exports (ogr2ogr, ArcGIS) lay one out: the
// collection's name and legacy crs member first, then one feature per
// line, each geometry marshalled by orb. It streams: the caller may drain
// the buffer between features (a province-size file is never held). A
// feature that cannot be marshalled (a NaN) is left out, and End returns
// the first such error.
type FeatureCollection struct {
	b     *bytes.Buffer
	n     int
	props []byte // scratch for one feature's properties
	err   error
}

// NewFeatureCollection starts a collection in b. name, when not empty, is
// the collection's name member; epsg, when not 0, names its CRS in the
// legacy crs member ("urn:ogc:def:crs:EPSG::4269"), as files in a
// projection or in NAD83 carry it. RFC 7946 files have neither.
func NewFeatureCollection(b *bytes.Buffer, name string, epsg int) *FeatureCollection {
	b.WriteString(`{"type":"FeatureCollection"`)
	if name != "" {
		q, _ := json.Marshal(name)
		b.WriteString(`,"name":`)
		b.Write(q)
	}
	if epsg != 0 {
		fmt.Fprintf(b, `,"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::%d"}}`, epsg)
	}
	b.WriteString(`,"features":[`)
	return &FeatureCollection{b: b}
}

// Feature appends a feature: its properties in order, then g (nil: a
// null geometry).
func (c *FeatureCollection) Feature(g orb.Geometry, props ...Prop) {
	if err := c.feature(g, props); err != nil && c.err == nil {
		c.err = err
	}
}

func (c *FeatureCollection) feature(g orb.Geometry, props []Prop) error {
	p := append(c.props[:0], '{')
	for i, pr := range props {
		if i > 0 {
			p = append(p, ',')
		}
		k, err := json.Marshal(pr.Key)
		if err != nil {
			return fmt.Errorf("demo: geojson property %q: %w", pr.Key, err)
		}
		v, err := json.Marshal(pr.Value)
		if err != nil {
			return fmt.Errorf("demo: geojson property %s: %w", pr.Key, err)
		}
		p = append(append(append(p, k...), ':'), v...)
	}
	c.props = append(p, '}')
	geom := []byte("null")
	if g != nil {
		var err error
		if geom, err = geojson.NewGeometry(g).MarshalJSON(); err != nil {
			return fmt.Errorf("demo: geojson geometry: %w", err)
		}
	}
	if c.n > 0 {
		c.b.WriteByte(',')
	}
	c.n++
	c.b.WriteString("\n{\"type\":\"Feature\",\"properties\":")
	c.b.Write(c.props)
	c.b.WriteString(`,"geometry":`)
	c.b.Write(geom)
	c.b.WriteByte('}')
	return nil
}

// Len is the number of features written.
func (c *FeatureCollection) Len() int { return c.n }

// End closes the collection and returns the first error of a feature.
func (c *FeatureCollection) End() error {
	if c.n > 0 {
		c.b.WriteByte('\n')
	}
	c.b.WriteString("]}\n")
	return c.err
}

// Round returns a copy of g with every coordinate rounded to decimals
// places, exactly as a writer that prints them with that many decimals
// would have them read back.
func Round(g orb.Geometry, decimals int) orb.Geometry {
	r := func(v float64) float64 {
		x, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', decimals, 64), 64)
		return x
	}
	pts := func(ps []orb.Point) {
		for i, p := range ps {
			ps[i] = orb.Point{r(p[0]), r(p[1])}
		}
	}
	switch g := orb.Clone(g).(type) {
	case orb.Point:
		return orb.Point{r(g[0]), r(g[1])}
	case orb.LineString:
		pts(g)
		return g
	case orb.MultiLineString:
		for _, l := range g {
			pts(l)
		}
		return g
	case orb.Polygon:
		for _, ring := range g {
			pts(ring)
		}
		return g
	case orb.MultiPolygon:
		for _, p := range g {
			for _, ring := range p {
				pts(ring)
			}
		}
		return g
	case nil:
		return nil
	default:
		panic(fmt.Sprintf("demo: Round of a %T", g))
	}
}
