package agingest

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/ingest"
)

// polygonal returns g when it is a non-empty Polygon or MultiPolygon, and
// otherwise why not.
func polygonal(g orb.Geometry) (orb.Geometry, string) {
	switch g := g.(type) {
	case nil:
		return nil, "no geometry"
	case orb.Polygon:
		if len(g) == 0 {
			return nil, "empty polygon"
		}
		return g, ""
	case orb.MultiPolygon:
		if len(g) == 0 {
			return nil, "empty multipolygon"
		}
		if len(g) == 1 {
			return g[0], ""
		}
		return g, ""
	}
	return nil, fmt.Sprintf("geometry is a %s, want a polygon", g.GeoJSONType())
}

// linear returns g when it is a non-empty LineString or MultiLineString,
// and otherwise why not.
func linear(g orb.Geometry) (orb.Geometry, string) {
	switch g := g.(type) {
	case nil:
		return nil, "no geometry"
	case orb.LineString:
		if len(g) < 2 {
			return nil, "a line needs two points"
		}
		return g, ""
	case orb.MultiLineString:
		if len(g) == 0 {
			return nil, "empty multilinestring"
		}
		if len(g) == 1 {
			return g[0], ""
		}
		return g, ""
	}
	return nil, fmt.Sprintf("geometry is a %s, want a line", g.GeoJSONType())
}

// plane maps lng/lat near an origin to metres.
type plane struct{ lng0, lat0, kx, ky float64 }

func localPlane(o orb.Point) plane {
	return plane{o[0], o[1], 111_320 * math.Cos(o[1]*math.Pi/180), 110_574}
}

func (p plane) point(pt orb.Point) orb.Point {
	return orb.Point{(pt[0] - p.lng0) * p.kx, (pt[1] - p.lat0) * p.ky}
}

func (p plane) geometry(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case orb.Point:
		return p.point(g)
	case orb.LineString:
		out := make(orb.LineString, len(g))
		for i, pt := range g {
			out[i] = p.point(pt)
		}
		return out
	case orb.MultiLineString:
		out := make(orb.MultiLineString, len(g))
		for i, l := range g {
			out[i] = p.geometry(l).(orb.LineString)
		}
		return out
	case orb.Ring:
		return orb.Ring(p.geometry(orb.LineString(g)).(orb.LineString))
	case orb.Polygon:
		out := make(orb.Polygon, len(g))
		for i, r := range g {
			out[i] = p.geometry(r).(orb.Ring)
		}
		return out
	case orb.MultiPolygon:
		out := make(orb.MultiPolygon, len(g))
		for i, poly := range g {
			out[i] = p.geometry(poly).(orb.Polygon)
		}
		return out
	}
	return nil
}

// distance is the least distance between a parcel polygon and a feature
// (0 when they meet), in the plane's metres.
func distance(parcel, f orb.Geometry) float64 {
	if parcel == nil || f == nil {
		return math.Inf(1)
	}
	var pts []orb.Point
	collect(f, &pts)
	best := math.Inf(1)
	for _, pt := range pts {
		if ingest.ContainsPoint(parcel, pt) {
			return 0
		}
		best = math.Min(best, planar.DistanceFrom(boundary(parcel), pt))
	}
	var ppts []orb.Point
	collect(parcel, &ppts)
	for _, pt := range ppts {
		if ingest.ContainsPoint(f, pt) {
			return 0
		}
		if d := planar.DistanceFrom(f, pt); d < best {
			best = d
		}
	}
	return best
}

func boundary(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case orb.Polygon:
		return orb.MultiLineString{orb.LineString(g[0])}
	case orb.MultiPolygon:
		var out orb.MultiLineString
		for _, p := range g {
			out = append(out, orb.LineString(p[0]))
		}
		return out
	}
	return g
}

func collect(g orb.Geometry, out *[]orb.Point) {
	switch g := g.(type) {
	case orb.Point:
		*out = append(*out, g)
	case orb.LineString:
		*out = append(*out, g...)
	case orb.MultiLineString:
		for _, l := range g {
			*out = append(*out, l...)
		}
	case orb.Ring:
		*out = append(*out, g...)
	case orb.Polygon:
		for _, r := range g {
			*out = append(*out, r...)
		}
	case orb.MultiPolygon:
		for _, p := range g {
			collect(p, out)
		}
	}
}

// sampledShare is the percentage of a 20×20 grid of points over the
// parcel's box, inside the parcel, that also lie in f (a polygon).
func sampledShare(parcel, f orb.Geometry) float64 {
	if parcel == nil || f == nil || f.Dimensions() != 2 {
		return 0
	}
	b, fb := parcel.Bound(), f.Bound()
	in, all := 0, 0
	for i := range 20 {
		for j := range 20 {
			pt := orb.Point{b.Min[0] + (float64(i)+0.5)/20*(b.Max[0]-b.Min[0]), b.Min[1] + (float64(j)+0.5)/20*(b.Max[1]-b.Min[1])}
			if !ingest.ContainsPoint(parcel, pt) {
				continue
			}
			all++
			if fb.Contains(pt) && ingest.ContainsPoint(f, pt) {
				in++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return math.Round(float64(in)/float64(all)*1000) / 10
}
