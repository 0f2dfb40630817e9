package proj

import (
	"fmt"

	"github.com/paulmach/orb"
)

// Geometry returns a copy of g with every point converted by
// p.ToLngLat. It handles every orb geometry but orb.Bound, whose image is
// no longer a bound (convert it to a polygon first); nil gives nil, and
// empty or nil slices stay as they are. The first point that fails stops
// the conversion with its error.
func Geometry(g orb.Geometry, p Projection) (orb.Geometry, error) {
	if g == nil {
		return nil, nil
	}
	c := converter{p: p}
	out := c.geometry(g)
	if c.err != nil {
		return nil, c.err
	}
	return out, nil
}

// converter carries the first error through the recursive copy.
type converter struct {
	p   Projection
	err error
}

func (c *converter) point(pt orb.Point) orb.Point {
	if c.err != nil {
		return orb.Point{}
	}
	q, err := c.p.ToLngLat(pt[0], pt[1])
	if err != nil {
		c.err = fmt.Errorf("%w (converting %v from %s)", err, pt, c.p.Name())
	}
	return q
}

func (c *converter) points(ps []orb.Point) []orb.Point {
	if ps == nil {
		return nil
	}
	out := make([]orb.Point, len(ps))
	for i, pt := range ps {
		out[i] = c.point(pt)
	}
	return out
}

func (c *converter) rings(rs []orb.Ring) []orb.Ring {
	if rs == nil {
		return nil
	}
	out := make([]orb.Ring, len(rs))
	for i, r := range rs {
		out[i] = orb.Ring(c.points(r))
	}
	return out
}

func (c *converter) geometry(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case nil:
		return nil
	case orb.Point:
		return c.point(g)
	case orb.MultiPoint:
		return orb.MultiPoint(c.points(g))
	case orb.LineString:
		return orb.LineString(c.points(g))
	case orb.Ring:
		return orb.Ring(c.points(g))
	case orb.MultiLineString:
		if g == nil {
			return orb.MultiLineString(nil)
		}
		out := make(orb.MultiLineString, len(g))
		for i, ls := range g {
			out[i] = orb.LineString(c.points(ls))
		}
		return out
	case orb.Polygon:
		return orb.Polygon(c.rings(g))
	case orb.MultiPolygon:
		if g == nil {
			return orb.MultiPolygon(nil)
		}
		out := make(orb.MultiPolygon, len(g))
		for i, pg := range g {
			out[i] = orb.Polygon(c.rings(pg))
		}
		return out
	case orb.Collection:
		if g == nil {
			return orb.Collection(nil)
		}
		out := make(orb.Collection, len(g))
		for i, h := range g {
			out[i] = c.geometry(h)
		}
		return out
	case orb.Bound:
		if c.err == nil {
			c.err = fmt.Errorf("proj: cannot convert an orb.Bound: its image is not a bound; convert g.ToPolygon()")
		}
		return nil
	default:
		if c.err == nil {
			c.err = fmt.Errorf("proj: unsupported geometry %T", g)
		}
		return nil
	}
}
