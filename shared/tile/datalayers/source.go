// Package datalayers makes the tiles of the agriculture and energy data
// archives from the report store: LSD, quarter, section and township
// polygons carrying the store's per-LSD and per-quarter summaries (section
// and township roll-ups summed or aggregated over them), facility points
// and tenure polygons.
//
// A Source reads what a domain's archives draw once, on the first tile of
// one of them: the keys of the energy or the ag dataset's LSD and quarter
// partitions (kv.Store.ScanKeys, build time only), then their items in
// grid order, a township at a time (scanByBlock), and the blocks they sit
// on. Tiles then cost a lookup in a grid of zoom-10 cells, and a
// build visits only the tiles a layer's features reach
// (Source.BuildOptions). Below OverviewZoom the tenure layers draw one
// merged footprint per disposition.
//
// New holds a domain's features in memory (about 1-3 KB per LSD): fine
// for the demo and tests. NewPartitioned, which builds use, writes them to
// a file per layer and zoom-9 tile (PartitionZoom) and holds one
// partition's features at a time, whatever the province's size; the
// tiles are the same byte for byte.
package datalayers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/ag"
	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/tile"
)

// gridZoom is the zoom of the cells features are indexed by.
const gridZoom = 10

// feature is one feature of a layer, lng/lat. Its properties are held as
// values against a key list shared by the features with the same keys: a
// map each would cost several times more, and a province's layers hold
// hundreds of thousands of features.
type feature struct {
	geom  orb.Geometry
	bound orb.Bound
	keys  []string // shared, sorted
	vals  []any
}

// layerData is the features of one archive and their cell index.
type layerData struct {
	feats []feature
	cells map[maptile.Tile][]int32
	bound orb.Bound // of every feature

	// layerCells, when not 0, is the number of cells of the whole layer
	// when feats are a partition's: candidates chooses as it would have
	// over the whole layer, so the tiles are the same.
	layerCells int
}

func newLayerData(fs []feature) *layerData {
	d := &layerData{feats: fs, cells: map[maptile.Tile][]int32{}}
	for i, f := range fs {
		if i == 0 {
			d.bound = f.bound
		} else {
			d.bound = d.bound.Union(f.bound)
		}
		for _, c := range cover(pad(f.bound, gridZoom), gridZoom) {
			d.cells[c] = append(d.cells[c], int32(i))
		}
	}
	return d
}

// coverRange is the first and the last tile of zoom z over b: the tiles
// over b are those of columns lo.X to hi.X and rows lo.Y to hi.Y.
func coverRange(b orb.Bound, z maptile.Zoom) (lo, hi maptile.Tile) {
	return maptile.At(orb.Point{b.Min[0], b.Max[1]}, z), maptile.At(orb.Point{b.Max[0], b.Min[1]}, z)
}

// cover lists the tiles of zoom z over b.
func cover(b orb.Bound, z maptile.Zoom) []maptile.Tile {
	lo, hi := coverRange(b, z)
	var out []maptile.Tile
	for x := lo.X; x <= hi.X; x++ {
		for y := lo.Y; y <= hi.Y; y++ {
			out = append(out, maptile.New(x, y, z))
		}
	}
	return out
}

// pad widens a bound by the tile buffer of a zoom-z tile, so a feature
// whose geometry reaches into a tile's buffer is drawn there.
func pad(b orb.Bound, z maptile.Zoom) orb.Bound {
	w := 360.0 / float64(uint64(1)<<z) * tile.Buffer / tile.Extent
	return orb.Bound{Min: orb.Point{b.Min[0] - w, b.Min[1] - w}, Max: orb.Point{b.Max[0] + w, b.Max[1] + w}}
}

func (d *layerData) cellCount() int {
	if d.layerCells != 0 {
		return d.layerCells
	}
	return len(d.cells)
}

// candidates returns the indexes of the features that may reach tile t.
func (d *layerData) candidates(t maptile.Tile) []int32 {
	switch {
	case t.Z >= gridZoom:
		return d.cells[maptile.New(t.X>>(t.Z-gridZoom), t.Y>>(t.Z-gridZoom), gridZoom)]
	case gridZoom-t.Z <= 5 && d.cellCount() > 1<<(2*(gridZoom-t.Z)):
		// Only the features of the cells under t: those reaching t's
		// buffer alone are left out (as they always have been).
		var out []int32
		seen := map[int32]bool{}
		s := uint32(1) << (gridZoom - t.Z)
		for x := t.X * s; x < (t.X+1)*s; x++ {
			for y := t.Y * s; y < (t.Y+1)*s; y++ {
				for _, i := range d.cells[maptile.New(x, y, gridZoom)] {
					if !seen[i] {
						seen[i] = true
						out = append(out, i)
					}
				}
			}
		}
		sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
		return out
	default:
		out := make([]int32, len(d.feats))
		for i := range out {
			out[i] = int32(i)
		}
		return out
	}
}

// Resolver finds a record's block: the grid service (*grid.Service).
type Resolver interface {
	Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error)
}

// Source makes the data archives' tiles from a report store. It reads a
// region's data ("energy" or "ag") on the first tile of one of its layers,
// once, so building the archives of one domain holds only that domain's
// features.
type Source struct {
	store   kv.Store
	svc     Resolver
	regions map[string]*regionData // "energy", "ag"; fixed at New

	// Partitioned Sources (NewPartitioned) spool features to disk.
	spoolDir    string       // "" for a Source holding its features
	partZoom    maptile.Zoom // the zoom of a partition's tile
	spoolBuffer int          // bytes buffered before they are appended
	parts       partCache
	spoolErr    error // a failed listing of tiles; under parts.mu

	unlocated atomic.Int64 // stored parcels the grid cannot place: left out

	onResolve func(lld.Location) // tests: each block resolved from the grid
}

// Unlocated is the number of stored parcels the grid could not place
// (outside its coverage, e.g. an LSD west of the modelled AB-BC border):
// their features are left out of the archives, which a build says.
func (s *Source) Unlocated() int64 { return s.unlocated.Load() }

// regionData is what a region's layers draw, read once.
type regionData struct {
	once   sync.Once
	err    error
	layers map[string]*layerData
	extent orb.Bound
	spool  *spool // partitioned Sources: the features, on disk
}

// New returns a Source over store, its blocks resolved by svc. Nothing is
// read until the first tile.
func New(store kv.Store, svc Resolver) *Source {
	return &Source{store: store, svc: svc, regions: map[string]*regionData{"energy": {}, "ag": {}}}
}

// region returns region name's data, read on the first call; nil for a
// region this package has no layers in.
func (s *Source) region(ctx context.Context, name string) (*regionData, error) {
	r := s.regions[name]
	if r == nil {
		return nil, nil
	}
	r.once.Do(func() { r.err = r.load(ctx, s, name) })
	return r, r.err
}

// OverviewZoom is the zoom below which a layer with overview features
// draws those instead: the tenure layers draw one feature per disposition
// (its LSDs merged) rather than every LSD, which at province scale would
// be millions of sub-pixel squares per tile.
const OverviewZoom = 10

// overview is the key of a layer's overview features.
func overview(layer string) string { return layer + "@overview" }

// layer returns layer l's features; nil when it has none.
func (s *Source) layer(ctx context.Context, l tile.Layer) (*layerData, error) {
	return s.layerAt(ctx, l, OverviewZoom)
}

// layerAt returns the features layer l draws at zoom z; nil when none.
func (s *Source) layerAt(ctx context.Context, l tile.Layer, z maptile.Zoom) (*layerData, error) {
	if !Supported(l) {
		return nil, nil
	}
	r, err := s.region(ctx, l.Region)
	if r == nil || err != nil {
		return nil, err
	}
	return r.layers[drawn(r, l, z)], nil
}

// drawn is the name of the features layer l draws at zoom z: its own or,
// below OverviewZoom, its overview features when it has some.
func drawn(r *regionData, l tile.Layer, z maptile.Zoom) string {
	if z < OverviewZoom {
		o := overview(l.Name)
		if r.layers[o] != nil || r.spool != nil && r.spool.layers[o] != nil {
			return o
		}
	}
	return l.Name
}

// LayerBounds is the extent of layer l's features (lng/lat), zero when it
// has none: its build's BuildOptions.Bounds.
func (s *Source) LayerBounds(ctx context.Context, l tile.Layer) (orb.Bound, error) {
	if s.spoolDir != "" {
		return s.spooledBounds(ctx, l)
	}
	d, err := s.layer(ctx, l)
	if d == nil || err != nil {
		return orb.Bound{}, err
	}
	return d.bound, nil
}

// BuildOptions returns the options that build layer l's archive over its
// data only: its bounds and the tiles its features reach (Tiles); ok is
// false when the layer has no data.
func (s *Source) BuildOptions(ctx context.Context, l tile.Layer) (o tile.BuildOptions, ok bool, err error) {
	b, err := s.LayerBounds(ctx, l)
	if err != nil || b.IsZero() {
		return o, false, err
	}
	o.Bounds = withArea(b)
	if s.spoolDir != "" {
		o.Tiles = s.spooledTiles(ctx, l)
		return o, true, nil
	}
	o.Tiles = func(z maptile.Zoom) []maptile.Tile {
		d, _ := s.layerAt(ctx, l, z) // read by LayerBounds
		if d == nil {
			return nil
		}
		return d.tiles(z)
	}
	return o, true, nil
}

// minExtent is the least width and height of a layer's bounds, degrees
// (about 10 cm): a layer of one point, or of points on one meridian, still
// has a box with an area, which an archive's metadata needs.
const minExtent = 1e-6

// withArea widens b around its centre to at least minExtent each way.
func withArea(b orb.Bound) orb.Bound {
	for i := range 2 {
		if d := b.Max[i] - b.Min[i]; d < minExtent {
			c := (b.Max[i] + b.Min[i]) / 2
			b.Min[i], b.Max[i] = c-minExtent/2, c+minExtent/2
		}
	}
	return b
}

// tiles returns the tiles of zoom z that may hold the layer's features
// (those its features' bounds reach, with the tile buffer): a build's
// BuildOptions.Tiles, so the build skips the empty tiles of a sparse
// layer.
func (d *layerData) tiles(z maptile.Zoom) []maptile.Tile {
	seen := map[maptile.Tile]bool{}
	var out []maptile.Tile
	for _, f := range d.feats {
		// A little past the buffer, so a feature touching a tile's
		// padded edge exactly is not lost to rounding.
		for _, t := range cover(pad(f.bound, z).Pad(1e-9), z) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// Tile returns layer l's tile t, MVT gzip-compressed, or nil when it has
// no features (outside the layer's zooms, no data there, or a layer this
// package does not build).
func (s *Source) Tile(ctx context.Context, l tile.Layer, t maptile.Tile) ([]byte, error) {
	if !Supported(l) || int(t.Z) < l.MinZoom || int(t.Z) > l.MaxZoom {
		return nil, nil
	}
	var d *layerData
	var err error
	if s.spoolDir != "" {
		d, err = s.spooledTile(ctx, l, t)
	} else {
		d, err = s.layerAt(ctx, l, t.Z)
	}
	if err != nil || d == nil || len(d.feats) == 0 {
		return nil, err
	}
	q := pad(t.Bound(), t.Z)
	var fs []tile.Feature
	for _, i := range d.candidates(t) {
		f := &d.feats[i]
		if !f.bound.Intersects(q) {
			continue
		}
		fs = append(fs, tile.Feature{Geometry: orb.Clone(f.geom), Keys: f.keys, Vals: f.vals})
	}
	if len(fs) == 0 {
		return nil, nil
	}
	return tile.EncodeFeatures(l.SourceLayer, fs, t)
}

// loader holds what load reads.
type loader struct {
	ctx     context.Context
	svc     Resolver
	blocks  map[string]orb.Geometry
	layers  map[string][]feature
	keySets map[string][]string // property key lists, shared
	extent  orb.Bound
	any     bool
	spool   *spool // nil: features are held in layers
	err     error  // the first error of add

	onResolve func(lld.Location)

	unlocated *atomic.Int64 // the Source's count of parcels left out
}

// maxBlocks bounds the blocks a loader keeps resolved: the store is read
// in grid order (scanByBlock), so the blocks reused are those read just
// before.
const maxBlocks = 1 << 14

// geometry resolves a block once.
func (ld *loader) geometry(loc lld.Location) (orb.Geometry, error) {
	k := loc.String()
	if g, ok := ld.blocks[k]; ok {
		return g, nil
	}
	g, notFound, err := ld.resolve(loc, k)
	if err != nil {
		return nil, err
	}
	if notFound {
		ld.unlocated.Add(1) // a real file can name land our grid does not cover
	}
	if len(ld.blocks) >= maxBlocks {
		clear(ld.blocks)
	}
	ld.blocks[k] = g // nil for a parcel left out: counted once
	return g, nil
}

// resolve returns the block of loc (named k): nil and notFound for a
// parcel the grid does not cover (geometry counts it as unlocated when a
// feature asks for it).
func (ld *loader) resolve(loc lld.Location, k string) (g orb.Geometry, notFound bool, err error) {
	if ld.onResolve != nil {
		ld.onResolve(loc)
	}
	b, err := ld.svc.Resolve(ld.ctx, loc, k)
	if ae := apierr.As(err); ae != nil && ae.Kind == apierr.NotFound {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("datalayers: resolve %s: %w", k, err)
	}
	return b.Geometry, false, nil
}

// scan calls fn with the items under pkPrefix of dataset name,
// partition by partition in grid order (scanByBlock).
func (ld *loader) scan(store kv.Store, name, pkPrefix string, fn func(it kv.Item) error) error {
	return scanByBlock(ld.ctx, store, name, pkPrefix, fn)
}

// addBlocks adds the polygons of the blocks named ids, with props(i) for
// ids[i], in order.
func (ld *loader) addBlocks(layer string, ids []string, props func(i int) geojson.Properties) error {
	for i, id := range ids {
		if err := ld.addBlock(layer, id, props(i)); err != nil {
			return err
		}
	}
	return nil
}

func (ld *loader) add(layer string, g orb.Geometry, props geojson.Properties) {
	if g == nil {
		return
	}
	b := g.Bound()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sig := strings.Join(keys, "\x00")
	if shared, ok := ld.keySets[sig]; ok {
		keys = shared
	} else {
		ld.keySets[sig] = keys
	}
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = props[k]
	}
	if ld.spool != nil {
		if err := ld.spool.add(layer, sig, feature{geom: g, bound: b, keys: keys, vals: vals}); err != nil && ld.err == nil {
			ld.err = err
		}
	} else {
		ld.layers[layer] = append(ld.layers[layer], feature{geom: g, bound: b, keys: keys, vals: vals})
	}
	if !ld.any {
		ld.extent, ld.any = b, true
	} else {
		ld.extent = ld.extent.Union(b)
	}
}

// addBlock adds the polygon of the block named id.
func (ld *loader) addBlock(layer, id string, props geojson.Properties) error {
	loc, err := lld.Parse(id)
	if err != nil {
		return fmt.Errorf("datalayers: %s: %w", id, err)
	}
	g, err := ld.geometry(loc)
	if err != nil {
		return err
	}
	props["id"] = id
	ld.add(layer, g, props)
	return nil
}

// load reads region name's layers from s's store.
func (r *regionData) load(ctx context.Context, s *Source, name string) error {
	ld := &loader{ctx: ctx, svc: s.svc, unlocated: &s.unlocated, onResolve: s.onResolve, blocks: map[string]orb.Geometry{}, layers: map[string][]feature{}, keySets: map[string][]string{}}
	if s.spoolDir != "" {
		sp, err := newSpool(s.spoolDir, name, s.partZoom, s.spoolBuffer)
		if err != nil {
			return err
		}
		ld.spool, r.spool = sp, sp
	}
	var steps []func(kv.Store) error
	switch name {
	case "energy":
		steps = []func(kv.Store) error{ld.loadEnergy, ld.loadPipelines}
	case "ag":
		steps = []func(kv.Store) error{ld.loadAg, ld.loadAreas}
	}
	for _, step := range steps {
		if err := step(s.store); err != nil {
			return err
		}
		if ld.err != nil {
			return ld.err
		}
	}
	if ld.spool != nil {
		r.extent = ld.extent
		return ld.spool.flush(true)
	}
	r.layers = map[string]*layerData{}
	for name, fs := range ld.layers {
		r.layers[name] = newLayerData(fs)
	}
	r.extent = ld.extent
	return nil
}

// scanDataset opens a dataset and calls fn with the items under pkPrefix
// (keys un-namespaced, data included) in key order (PK, then SK), a store
// batch at a time: a province's items are never held together. The
// stores builds read (Bolt, Mem) scan items in key order; a store that
// does not is an error, since the loaders group a block's items by their
// adjacency.
func scanDataset(ctx context.Context, store kv.Store, name, pkPrefix string, fn func(it kv.Item) error) error {
	ds, ok, err := kv.Open(ctx, store, name)
	if err != nil || !ok {
		return err
	}
	var last kv.Key
	first := true
	return ds.ScanItems(ctx, pkPrefix, func(items []kv.Item) error {
		for _, it := range items {
			if !first && (it.PK < last.PK || it.PK == last.PK && it.SK <= last.SK) {
				return fmt.Errorf("datalayers: the store scans %s out of key order (%s %s after %s %s): build from a bbolt store", name, it.PK, it.SK, last.PK, last.SK)
			}
			first, last = false, kv.Key{PK: it.PK, SK: it.SK}
			if err := fn(it); err != nil {
				return err
			}
		}
		return ctx.Err()
	})
}

// scanByBlock calls fn with the items of the dataset's partitions under
// pkPrefix, a partition at a time (its items in SK order), in grid order:
// first the partitions whose key names a DLS block (after pkPrefix), by
// meridian, range, township, section and part, then any others in key
// order. Key order visits a different township at nearly every step
// ("QS#NE-1-1-1-W4", "QS#NE-1-1-10-W4", ...): resolving a province's
// blocks in it missed the grid indexes' caches on almost every block, and
// a full-size agriculture build spent 20 minutes in the load without
// finishing, half of it collecting the blocks it inflated. In grid order
// a township's blocks are resolved together.
//
// The store is read once in key order and sorted into grid order
// (kv.Dataset.ScanRanked: an external sort, its memory the sort budget).
// An item's Data is valid until fn returns.
func scanByBlock(ctx context.Context, store kv.Store, name, pkPrefix string, fn func(it kv.Item) error) error {
	ds, ok, err := kv.Open(ctx, store, name)
	if err != nil || !ok {
		return err
	}
	rank := func(pk string) uint64 {
		if o, ok := gridOrder(strings.TrimPrefix(pk, pkPrefix)); ok {
			return o
		}
		return math.MaxUint64 // not a DLS block: after every block, in key order
	}
	return ds.ScanRanked(ctx, pkPrefix, rank, fn)
}

// gridOrder packs the DLS block named id into an integer whose order is
// grid order (meridian, range, township, section, unit, part); ok is
// false when id is not a DLS block's canonical name.
func gridOrder(id string) (uint64, bool) {
	loc, err := lld.Parse(id)
	if err != nil || loc.System != lld.DLS {
		return 0, false
	}
	o := uint64(loc.Meridian)<<48 | uint64(loc.Range)<<40 | uint64(loc.Township)<<32 |
		uint64(loc.Section)<<24 | uint64(loc.Unit)<<16 | uint64(loc.Aliquot)<<8 | uint64(loc.LSD)
	if gridName(o) != id {
		return 0, false
	}
	return o, true
}

// gridName is the canonical name of the block gridOrder packed into o.
func gridName(o uint64) string {
	return lld.Location{System: lld.DLS, Meridian: lld.Meridian(o >> 48), Range: uint8(o >> 40), Township: uint8(o >> 32),
		Section: uint8(o >> 24), Unit: lld.Unit(o >> 16), Aliquot: lld.Aliquot(o >> 8), LSD: uint8(o)}.String()
}

// decodeJSON decodes an item's data into v.
func decodeJSON(it kv.Item, v any) error {
	if err := json.Unmarshal(it.Data, v); err != nil {
		return fmt.Errorf("datalayers: %s %s: %w", it.PK, it.SK, err)
	}
	return nil
}

// parents returns the section and township of a DLS LSD or quarter.
func parents(id string) (sec, twp string, err error) {
	loc, err := lld.Parse(id)
	if err != nil {
		return "", "", fmt.Errorf("datalayers: %s: %w", id, err)
	}
	loc.Unit, loc.Aliquot, loc.LSD = lld.Section, 0, 0
	sec = loc.String()
	loc.Unit, loc.Section = lld.Township, 0
	return sec, loc.String(), nil
}

// blockOf resolves the block named id.
func (ld *loader) blockOf(id string) (orb.Geometry, error) {
	loc, err := lld.Parse(id)
	if err != nil {
		return nil, fmt.Errorf("datalayers: %s: %w", id, err)
	}
	return ld.geometry(loc)
}

// DemoAttributionPrefix starts the attribution of an archive built from the
// generated demo data (tile.DemoAttributionPrefix).
const DemoAttributionPrefix = tile.DemoAttributionPrefix

// Attribution names the data behind layer l's archive: its dataset's
// sources and file date, and says so when the dataset is the generated
// demo data. "" when the store has no such dataset.
func (s *Source) Attribution(ctx context.Context, l tile.Layer) (string, error) {
	name := ag.Dataset
	if l.Region == "energy" {
		name = energy.Dataset
	}
	ds, ok, err := kv.Open(ctx, s.store, name)
	if err != nil || !ok {
		return "", err
	}
	a := ds.Info.Source
	if !ds.Info.FileDate.IsZero() {
		a += " (files of " + ds.Info.FileDate.Format(time.DateOnly) + ")"
	}
	if ds.Info.Demo {
		a = DemoAttributionPrefix + a
	}
	return a, nil
}
