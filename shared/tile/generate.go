package tile

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"
	"github.com/paulmach/orb/simplify"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

const (
	// Extent is the tile's coordinate space (MVT default).
	Extent = 4096
	// Buffer is how far, in tile units, geometry reaches past each edge so
	// that lines and labels meet across tiles without seams (8 pixels of a
	// 512-pixel tile).
	Buffer = 64
)

// GridService is what grid tiles ask of the grid service (*grid.Service): the
// blocks in a bound, and whether a block exists.
type GridService interface {
	Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error)
	Blocks(ctx context.Context, sys lld.System, u lld.Unit, b orb.Bound, fn func(survey.Block) error) error
}

// Generator makes survey grid and label tiles from the grid models and the
// official indexes loaded in the grid service: a tile draws exactly the
// blocks search answers.
type Generator struct {
	svc GridService
}

// NewGenerator returns a Generator over svc.
func NewGenerator(svc GridService) *Generator { return &Generator{svc: svc} }

// Tile returns layer l's tile t, MVT gzip-compressed, or nil when the tile
// has no features (outside the layer's zooms or its region). The bytes
// depend only on the layer, the tile and the grid data: the same on demand
// and in an archive.
func (g *Generator) Tile(ctx context.Context, l Layer, t maptile.Tile) ([]byte, error) {
	if !l.Survey() || int(t.Z) < l.MinZoom || int(t.Z) > l.MaxZoom {
		return nil, nil
	}
	tb := t.Bound()
	if !tb.Intersects(l.Bounds) {
		return nil, nil
	}
	pad := Buffer / float64(Extent)
	query := tb.Pad(0) // copy
	dx, dy := (tb.Max[0]-tb.Min[0])*pad, (tb.Max[1]-tb.Min[1])*pad
	query.Min, query.Max = orb.Point{tb.Min[0] - dx, tb.Min[1] - dy}, orb.Point{tb.Max[0] + dx, tb.Max[1] + dy}

	var fs []*geojson.Feature
	err := g.svc.Blocks(ctx, l.System, l.Unit, query, func(b survey.Block) error {
		if l.Province != survey.ProvinceNone && b.Province != l.Province {
			return nil
		}
		if b.Geometry == nil {
			return nil // centroid-only records draw nothing
		}
		if l.Kind == Grid {
			f := geojson.NewFeature(orb.Clone(b.Geometry))
			f.Properties = geojson.Properties{"id": b.Location.String()}
			fs = append(fs, f)
			return nil
		}
		pt := LabelPoint(b.Geometry, b.Centroid)
		if !query.Contains(pt) {
			return nil
		}
		f := geojson.NewFeature(pt)
		f.Properties = labelProperties(b.Location)
		if l.Region == "mb" && l.Unit == lld.Section {
			q, err := g.quarters(ctx, b.Location)
			if err != nil {
				return err
			}
			f.Properties["quarter_section"] = q
		}
		fs = append(fs, f)
		return nil
	})
	if err != nil || len(fs) == 0 {
		return nil, err
	}
	return Encode(l.SourceLayer, fs, t)
}

// quarters lists the quarter sections of sec that have a block in
// coverage, in the survey's order SE, SW, NW, NE.
func (g *Generator) quarters(ctx context.Context, sec lld.Location) (string, error) {
	var out []string
	for _, a := range [...]lld.Aliquot{lld.SE, lld.SW, lld.NW, lld.NE} {
		q := sec
		q.Unit, q.Aliquot = lld.QuarterSection, a
		if _, err := g.svc.Resolve(ctx, q, ""); err == nil {
			out = append(out, a.String())
		} else if !notFound(err) {
			return "", err
		}
	}
	return strings.Join(out, ","), nil
}

// Attribution returns a layer's attribution: where its blocks come from
// (the model everywhere, and the official datasets sources names for its
// system); a data
// layer's title.
func Attribution(sources func(lld.System) []string) func(Layer) string {
	return func(l Layer) string {
		var base string
		switch l.System {
		case lld.DLS:
			base = "DLS grid computed from the survey rules (Meridian model)"
		case lld.NTS:
			// Exact on NAD27, where the grid is defined; the move to NAD83
			// is NRCan's NTv1 grid, good to about 2 m (package nts).
			base = "NTS grid computed exactly on NAD27, moved to NAD83 with NRCan's NTv1 grid (Meridian)"
		case lld.GeoTownship:
			base = "Ontario geographic townships"
		default:
			return l.Title
		}
		if src := sources(l.System); len(src) > 0 {
			base += "; official data: " + strings.Join(src, ", ")
		}
		return base
	}
}

// Encode projects features (lng/lat) into tile t as one MVT layer named
// name, clips them Buffer units past the tile, drops detail and polygons
// smaller than a tile unit (what cannot be seen), and returns the tile
// gzip-compressed; nil when nothing is left. It modifies the features'
// geometry.
func Encode(name string, fs []*geojson.Feature, t maptile.Tile) ([]byte, error) {
	layer := prepareLayer(name, fs, t)
	if layer == nil {
		return nil, nil
	}
	e := encoders.Get().(*layerEncoder)
	defer encoders.Put(e)
	raw, err := e.encode(layer)
	if err != nil {
		return nil, err
	}
	return Gzip(raw), nil
}

// Feature is a feature (lng/lat) with its properties held as keys and
// values: keys sorted and distinct (features with the same keys may share
// the slice), Vals[i] the value of Keys[i]. A layer of many features holds
// them so, not as a map each.
type Feature struct {
	Geometry orb.Geometry
	Keys     []string
	Vals     []any
}

// EncodeFeatures is Encode for features held as Features: the same bytes
// as Encode of the same features with their properties in maps, without
// making the maps. It modifies the features' geometry.
func EncodeFeatures(name string, fs []Feature, t maptile.Tile) ([]byte, error) {
	base := make([]geojson.Feature, len(fs))
	ptrs := make([]*geojson.Feature, len(fs))
	for i := range fs {
		base[i] = geojson.Feature{Type: "Feature", Geometry: fs[i].Geometry}
		ptrs[i] = &base[i]
	}
	layer := prepareLayer(name, ptrs, t)
	if layer == nil {
		return nil, nil
	}
	e := encoders.Get().(*layerEncoder)
	defer encoders.Put(e)
	raw, ok := e.marshalKV(layer, base, fs)
	if !ok {
		// A value marshal does not write: orb's encoder, with maps.
		for i := range base { // the layer's features point into base
			f := &base[i]
			f.Properties = make(geojson.Properties, len(fs[i].Keys))
			for k, key := range fs[i].Keys {
				f.Properties[key] = fs[i].Vals[k]
			}
		}
		var err error
		if raw, err = mvt.Marshal(mvt.Layers{layer}); err != nil {
			return nil, err
		}
	}
	return Gzip(raw), nil
}

// LayerFeatures are the features (lng/lat) of one layer of a tile that
// EncodeLayers writes.
type LayerFeatures struct {
	Name     string
	Features []*geojson.Feature
}

// EncodeLayers is Encode for a tile of several layers: each is projected,
// clipped, simplified and written as Encode writes a layer, in the order
// given, and the tile (the layers one after another: an MVT tile is the
// sequence of its layer messages) is returned gzip-compressed. A layer
// left with no features is left out; the tile is nil when every layer is.
// Names must be distinct and not empty, as the MVT specification requires.
// It modifies the features' geometry.
func EncodeLayers(t maptile.Tile, layers ...LayerFeatures) ([]byte, error) {
	seen := make(map[string]bool, len(layers))
	for _, l := range layers {
		if l.Name == "" || seen[l.Name] {
			return nil, fmt.Errorf("tile: layer name %q is empty or repeated", l.Name)
		}
		seen[l.Name] = true
	}
	e := encoders.Get().(*layerEncoder)
	defer encoders.Put(e)
	var raw []byte
	for _, l := range layers {
		layer := prepareLayer(l.Name, l.Features, t)
		if layer == nil {
			continue
		}
		b, err := e.encode(layer)
		if err != nil {
			return nil, err
		}
		raw = append(raw, b...)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	return Gzip(raw), nil
}

// encode writes layer as MVT bytes: with marshal, or with orb's encoder
// for what marshal declines. The bytes are e's until its next use.
func (e *layerEncoder) encode(layer *mvt.Layer) ([]byte, error) {
	if raw, ok := e.marshal(layer); ok {
		return raw, nil
	}
	return mvt.Marshal(mvt.Layers{layer})
}

// prepareLayer projects features (lng/lat) into tile t as a layer named
// name, clips them Buffer units past the tile, drops detail and polygons
// smaller than a tile unit; nil when nothing is left.
func prepareLayer(name string, fs []*geojson.Feature, t maptile.Tile) *mvt.Layer {
	layer := &mvt.Layer{Name: name, Version: 2, Extent: Extent, Features: fs}
	layer.ProjectToTile(t)
	clipLayer(layer, orb.Bound{Min: orb.Point{-Buffer, -Buffer}, Max: orb.Point{Extent + Buffer, Extent + Buffer}})
	layer.Simplify(simplify.DouglasPeucker(1.0))
	layer.RemoveEmpty(1.0, 1.0)
	if len(layer.Features) == 0 {
		return nil
	}
	return layer
}

// clipLayer is orb's Layer.Clip, the same features with the same
// geometry, except that a polygon or multipolygon with every point inside
// box is kept without clipping it: orb's clip would take it through four
// passes, one an edge, and hand back the same points. A data layer's
// parcels mostly lie inside the tiles they are drawn on (a quarter section
// is a third of a zoom-14 tile), and clipping them was 7% of a build.
func clipLayer(l *mvt.Layer, box orb.Bound) {
	at := 0
	for _, f := range l.Features {
		g := f.Geometry
		if !polygonsInside(box, g) {
			g = clip.Geometry(box, g)
		}
		if g != nil {
			f.Geometry = g
			l.Features[at] = f
			at++
		}
	}
	l.Features = l.Features[:at]
}

// polygonsInside reports whether g is a polygon, or a multipolygon of more
// than one (orb's clip returns one as a Polygon), whose rings are all
// non-empty with every point inside box (its edges included, as orb's).
func polygonsInside(box orb.Bound, g orb.Geometry) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return ringsInside(box, g)
	case orb.MultiPolygon:
		if len(g) < 2 {
			return false
		}
		for _, p := range g {
			if !ringsInside(box, p) {
				return false
			}
		}
		return true
	}
	return false
}

func ringsInside(box orb.Bound, p orb.Polygon) bool {
	if len(p) == 0 {
		return false
	}
	for _, r := range p {
		if len(r) == 0 {
			return false
		}
		for _, pt := range r {
			// Written so that NaN is outside: orb's clip drops it.
			if !(pt[0] >= box.Min[0] && pt[0] <= box.Max[0] && pt[1] >= box.Min[1] && pt[1] <= box.Max[1]) {
				return false
			}
		}
	}
	return true
}

// gzipWriters are reused: a compressor's tables are larger than most
// tiles.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, 6) // a valid level: no error
	return zw
}}

// Gzip compresses a tile at level 6 of klauspost/compress, with no name or
// time in the header, so the same tile always has the same bytes. On
// tiles of a province archive it compressed 3.5 times as fast as the
// standard library's level 6 for 0.1% fewer bytes on typical zoom-14
// tiles, 4.1 times as fast for 3.8% more on the largest, low-zoom ones
// (gzip had been a quarter of a data build's CPU). Its default, level 5,
// is as fast on tiles and 0.3-0.6% larger.
func Gzip(raw []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(raw)/2 + 64)
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&buf)
	zw.Write(raw) // writes to a bytes.Buffer cannot fail
	zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// labelProperties are a label point's properties: the spec's fields per
// grid.
func labelProperties(l lld.Location) geojson.Properties {
	p := geojson.Properties{"id": l.String()}
	switch l.System {
	case lld.DLS:
		p["township"], p["range"], p["meridian"] = int(l.Township), int(l.Range), l.Meridian.String()
		switch l.Unit {
		case lld.Township:
			p["descriptor"] = l.String()
		case lld.Section:
			p["section"], p["descriptor"] = int(l.Section), strconv.Itoa(int(l.Section))
		case lld.QuarterSection:
			p["section"], p["quarter_section"], p["descriptor"] = int(l.Section), l.Aliquot.String(), l.Aliquot.String()
		case lld.LSD:
			p["section"], p["lsd"], p["descriptor"] = int(l.Section), int(l.LSD), strconv.Itoa(int(l.LSD))
		}
	case lld.NTS:
		p["series"], p["area"], p["sheet"] = int(l.Series), string(rune(l.Area)), int(l.Sheet)
		switch l.Unit {
		case lld.MapSheet:
			p["descriptor"] = l.String()
		case lld.Block:
			p["block"], p["descriptor"] = string(rune(l.Block)), string(rune(l.Block))
		case lld.NTSUnit:
			p["block"], p["unit"], p["descriptor"] = string(rune(l.Block)), int(l.UnitNo), strconv.Itoa(int(l.UnitNo))
		case lld.QuarterUnit:
			p["block"], p["unit"], p["qtr"] = string(rune(l.Block)), int(l.UnitNo), string(rune(l.Quarter))
			p["descriptor"] = string(rune(l.Quarter))
		}
	case lld.GeoTownship:
		switch l.Unit {
		case lld.Township:
			p["descriptor"] = l.Place
		case lld.Concession:
			p["concession"], p["twp"], p["descriptor"] = l.Concession, l.Place, "Con "+l.Concession
		case lld.Lot:
			p["lot"], p["concession"], p["twp"], p["descriptor"] = l.Lot, l.Concession, l.Place, "Lot "+l.Lot
		}
	}
	return p
}
