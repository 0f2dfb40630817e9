package datalayers

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/kv"
	"meridian/shared/tile"
)

// PartitionZoom is the zoom of a partitioned build's partitions: the
// finest layers (LSDs, quarters) start at zoom 9, so each of their tiles
// lies in one partition. A zoom-9 tile is some 48 km wide over the
// prairies: 25 townships, at most 14,400 LSDs or 3,600 quarters per layer.
const PartitionZoom = 9

// spoolBuffer is what a spool buffers over all its partition files before
// it appends the buffers to them.
const spoolBuffer = 8 << 20

// partCacheSize is how many partitions a partitioned Source keeps decoded:
// a build visits a zoom's tiles along the Hilbert curve, on which each
// partition's tiles are consecutive, so with a few tiles in flight per
// worker at most two or three partitions are in use at a time.
const partCacheSize = 3

// NewPartitioned returns a Source that holds no features in memory: on
// the first tile of a domain it reads the store once, in grid order, and
// writes each feature to the files of the zoom-PartitionZoom tiles it
// reaches (with the tile buffer), in a directory it makes under dir. A
// tile then reads the one partition file it lies in (decoded once for all
// the tiles of the partition), or, below PartitionZoom, the partition
// files under it. What a domain holds whole is its roll-up sums (per
// section and township), the LSDs of each disposition (for the overviews)
// and the facility ids; Close removes the files.
func NewPartitioned(store kv.Store, svc Resolver, dir string) *Source {
	s := New(store, svc)
	s.spoolDir, s.partZoom, s.spoolBuffer = dir, PartitionZoom, spoolBuffer
	return s
}

// Close removes a partitioned Source's files. It may be called more than
// once; the Source is not usable after it.
func (s *Source) Close() error {
	var errs []error
	for _, r := range s.regions {
		if r.spool != nil {
			errs = append(errs, os.RemoveAll(r.spool.dir))
		}
	}
	return errors.Join(errs...)
}

// spool is a region's features, written to one file per layer and
// partition. A record is, after its length (uvarint): the feature's
// sequence number in its layer (uvarint), its bound (4 float64), its key
// list (uvarint index in the layer's), its values, its WKB geometry.
type spool struct {
	dir     string
	z       maptile.Zoom
	layers  map[string]*spoolLayer
	pending int // bytes buffered
	limit   int // most bytes buffered before they are appended
	rec     []byte
}

// spoolLayer is one layer's features on disk.
type spoolLayer struct {
	id      int
	n       uint64 // features written
	bound   orb.Bound
	keySets [][]string
	keyIdx  map[string]int            // key list signature → index in keySets
	parts   map[maptile.Tile][]byte   // partition → bytes not yet appended
	cells   map[maptile.Tile]struct{} // the zoom-10 cells the features reach, up to maxLayerCells+1
}

// maxLayerCells is the most cells layerData.candidates compares a layer's
// cell count with (4^5, at zoom 5): a spool counts a layer's cells up to
// one more.
const maxLayerCells = 1 << 10

func newSpool(dir, region string, z maptile.Zoom, limit int) (*spool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("datalayers: %w", err)
	}
	d, err := os.MkdirTemp(dir, "datalayers-"+region+"-*")
	if err != nil {
		return nil, fmt.Errorf("datalayers: %w", err)
	}
	return &spool{dir: d, z: z, limit: limit, layers: map[string]*spoolLayer{}}, nil
}

func (sp *spool) file(l *spoolLayer, p maptile.Tile) string {
	return filepath.Join(sp.dir, strconv.Itoa(l.id)+"-"+strconv.Itoa(int(p.X))+"-"+strconv.Itoa(int(p.Y)))
}

// partitions lists the partitions a feature of bound b reaches, with the
// tile buffer of a zoom-z tile, and a little more for rounding: every
// tile of zoom z >= sp.z whose buffered bound b reaches lies in one.
func (sp *spool) partitions(b orb.Bound, z maptile.Zoom) []maptile.Tile {
	return cover(pad(b, z).Pad(1e-9), sp.z)
}

// Value tags of a record.
const (
	tagNil byte = iota
	tagInt
	tagFloat
	tagString
	tagBool
)

func (sp *spool) add(layer, sig string, f feature) error {
	l := sp.layers[layer]
	if l == nil {
		l = &spoolLayer{id: len(sp.layers), bound: f.bound, keyIdx: map[string]int{}, parts: map[maptile.Tile][]byte{}, cells: map[maptile.Tile]struct{}{}}
		sp.layers[layer] = l
	}
	ki, ok := l.keyIdx[sig]
	if !ok {
		ki = len(l.keySets)
		l.keyIdx[sig] = ki
		l.keySets = append(l.keySets, f.keys)
	}
	r := sp.rec[:0]
	r = binary.AppendUvarint(r, l.n)
	for _, v := range [4]float64{f.bound.Min[0], f.bound.Min[1], f.bound.Max[0], f.bound.Max[1]} {
		r = binary.LittleEndian.AppendUint64(r, math.Float64bits(v))
	}
	r = binary.AppendUvarint(r, uint64(ki))
	for i, v := range f.vals {
		switch v := v.(type) {
		case nil:
			r = append(r, tagNil)
		case int:
			r = binary.AppendVarint(append(r, tagInt), int64(v))
		case float64:
			r = binary.LittleEndian.AppendUint64(append(r, tagFloat), math.Float64bits(v))
		case string:
			r = binary.AppendUvarint(append(r, tagString), uint64(len(v)))
			r = append(r, v...)
		case bool:
			b := byte(0)
			if v {
				b = 1
			}
			r = append(r, tagBool, b)
		default:
			return fmt.Errorf("datalayers: %s property %s is a %T, which a partitioned build cannot hold", layer, f.keys[i], v)
		}
	}
	g, err := wkb.Marshal(f.geom, binary.LittleEndian)
	if err != nil {
		return fmt.Errorf("datalayers: %s geometry: %w", layer, err)
	}
	r = append(r, g...)
	sp.rec = r
	l.n++
	l.bound = l.bound.Union(f.bound)
	if len(l.cells) <= maxLayerCells {
		for _, c := range cover(pad(f.bound, gridZoom), gridZoom) {
			l.cells[c] = struct{}{}
		}
	}
	for _, p := range sp.partitions(f.bound, sp.z) {
		buf := binary.AppendUvarint(l.parts[p], uint64(len(r)))
		l.parts[p] = append(buf, r...)
		sp.pending += len(r) + binary.MaxVarintLen32
	}
	if sp.pending > sp.limit {
		return sp.flush(false)
	}
	return nil
}

// flush appends partition buffers to their files: every one when all is
// set (the end of a load), else the largest first until at most half the
// limit stays buffered. Writing every small buffer at each flush cost an
// open, a write of a few KB and a close per partition file each 8 MiB:
// millions of them for a province's agriculture layers.
func (sp *spool) flush(all bool) error {
	type part struct {
		l *spoolLayer
		p maptile.Tile
		n int
	}
	var parts []part
	total := 0
	for _, l := range sp.layers {
		for p, buf := range l.parts {
			if len(buf) > 0 {
				parts = append(parts, part{l, p, len(buf)})
				total += len(buf)
			}
		}
	}
	if !all {
		slices.SortFunc(parts, func(a, b part) int { return cmp.Compare(b.n, a.n) })
	}
	for _, pt := range parts {
		if !all && total <= sp.limit/2 {
			break
		}
		f, err := os.OpenFile(sp.file(pt.l, pt.p), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("datalayers: %w", err)
		}
		_, err = f.Write(pt.l.parts[pt.p])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("datalayers: write %s: %w", f.Name(), err)
		}
		pt.l.parts[pt.p] = nil // keeps the partition, frees its buffer
		total -= pt.n
	}
	sp.pending = total
	return nil
}

// record is a decoded record: a feature and its sequence number.
type record struct {
	seq uint64
	feature
}

// read calls fn with the records of layer l's partition p, in sequence
// order; only their bounds when full is false.
func (sp *spool) read(l *spoolLayer, p maptile.Tile, full bool, fn func(record) error) error {
	if _, ok := l.parts[p]; !ok {
		return nil
	}
	f, err := os.Open(sp.file(l, p))
	if err != nil {
		return fmt.Errorf("datalayers: %w", err)
	}
	defer f.Close()
	br := readers.Get().(*bufio.Reader)
	defer readers.Put(br)
	br.Reset(f)
	var buf []byte
	for {
		n, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return nil
		}
		if err != nil || n > 1<<30 {
			return fmt.Errorf("datalayers: %s: corrupt record length: %v", f.Name(), err)
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("datalayers: %s: %w", f.Name(), err)
		}
		rec, err := decodeRecord(l, buf, full)
		if err != nil {
			return fmt.Errorf("datalayers: %s: %w", f.Name(), err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

var errCorrupt = errors.New("corrupt record")

// readers are the buffered readers of partition files.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

func decodeRecord(l *spoolLayer, b []byte, full bool) (record, error) {
	var rec record
	seq, n := binary.Uvarint(b)
	if n <= 0 || len(b) < n+32 {
		return rec, errCorrupt
	}
	rec.seq, b = seq, b[n:]
	var v [4]float64
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	rec.bound, b = orb.Bound{Min: orb.Point{v[0], v[1]}, Max: orb.Point{v[2], v[3]}}, b[32:]
	if !full {
		return rec, nil
	}
	ki, n := binary.Uvarint(b)
	if n <= 0 || ki >= uint64(len(l.keySets)) {
		return rec, errCorrupt
	}
	rec.keys, b = l.keySets[ki], b[n:]
	rec.vals = make([]any, len(rec.keys))
	for i := range rec.vals {
		if len(b) == 0 {
			return rec, errCorrupt
		}
		tag := b[0]
		b = b[1:]
		switch tag {
		case tagNil:
		case tagInt:
			x, n := binary.Varint(b)
			if n <= 0 {
				return rec, errCorrupt
			}
			rec.vals[i], b = int(x), b[n:]
		case tagFloat:
			if len(b) < 8 {
				return rec, errCorrupt
			}
			rec.vals[i], b = math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:]
		case tagString:
			x, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < x {
				return rec, errCorrupt
			}
			rec.vals[i], b = string(b[n:n+int(x)]), b[n+int(x):]
		case tagBool:
			if len(b) < 1 {
				return rec, errCorrupt
			}
			rec.vals[i], b = b[0] == 1, b[1:]
		default:
			return rec, errCorrupt
		}
	}
	g, err := wkb.Unmarshal(b)
	if err != nil {
		return rec, err
	}
	rec.geom = g
	return rec, nil
}

// load decodes the features of layer l that reach region r, a tile of
// zoom sp.z or lower: one partition, or those under r and its buffer,
// without the copies of the features that reach several.
func (sp *spool) load(l *spoolLayer, r maptile.Tile) (*layerData, error) {
	var recs []record
	if r.Z == sp.z {
		err := sp.read(l, r, true, func(rec record) error {
			recs = append(recs, rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		q := pad(r.Bound(), r.Z)
		for p := range l.parts {
			if !pad(p.Bound(), sp.z).Pad(1e-9).Intersects(q) {
				continue
			}
			err := sp.read(l, p, true, func(rec record) error {
				if rec.bound.Intersects(q) {
					recs = append(recs, rec)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		slices.SortFunc(recs, func(a, b record) int { return cmpUint(a.seq, b.seq) })
		recs = slices.CompactFunc(recs, func(a, b record) bool { return a.seq == b.seq })
	}
	fs := make([]feature, len(recs))
	for i, rec := range recs {
		fs[i] = rec.feature
	}
	d := newLayerData(fs)
	d.layerCells = len(l.cells)
	return d, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tiles lists the tiles of each zoom of zs that layer l's features reach,
// as layerData.tiles does: below sp.z over every partition, at sp.z and
// above one partition at a time (a tile belongs to the partition it lies
// in, which holds every feature reaching it). Each partition is read once
// for every zoom, and the partitions are shared among the machine's cores:
// listing a province layer's million tiles had been a zoom at a time on
// one core, 6-12 s a layer while the build's workers waited. Each zoom's
// tiles are distinct, in no particular order. Memory: the lists, and a
// flag a tile of a partition for the zoom being listed.
func (sp *spool) tiles(l *spoolLayer, zs []maptile.Zoom) ([][]maptile.Tile, error) {
	parts := make(chan maptile.Tile)
	workers := runtime.GOMAXPROCS(0)
	lists := make([][][]maptile.Tile, workers) // worker, zoom index
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[w], errs[w] = sp.listTiles(l, zs, parts)
			for range parts { // drain after an error
			}
		}()
	}
	for p := range l.parts {
		parts <- p
	}
	close(parts)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([][]maptile.Tile, len(zs))
	for zi, z := range zs {
		for w := range workers {
			out[zi] = append(out[zi], lists[w][zi]...)
			lists[w][zi] = nil
		}
		if z < sp.z { // a tile over several partitions, listed by each
			slices.SortFunc(out[zi], func(a, b maptile.Tile) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y)) })
			out[zi] = slices.Compact(out[zi])
		}
	}
	return out, nil
}

// listTiles is a worker of tiles: the tiles of each zoom of zs that the
// features of the partitions it receives reach.
func (sp *spool) listTiles(l *spoolLayer, zs []maptile.Zoom, parts <-chan maptile.Tile) ([][]maptile.Tile, error) {
	out := make([][]maptile.Tile, len(zs))
	low := make([]map[maptile.Tile]bool, len(zs)) // below sp.z: the tiles listed by this worker
	var seen [][]bool                             // at sp.z and above: the partition's tiles listed, by zoom
	for zi, z := range zs {
		if z < sp.z {
			low[zi] = map[maptile.Tile]bool{}
			seen = append(seen, nil)
		} else {
			seen = append(seen, make([]bool, 1<<(2*(z-sp.z))))
		}
	}
	for p := range parts {
		for _, s := range seen {
			clear(s)
		}
		err := sp.read(l, p, false, func(rec record) error {
			for zi, z := range zs {
				lo, hi := coverRange(pad(rec.bound, z).Pad(1e-9), z)
				if z < sp.z {
					for x := lo.X; x <= hi.X; x++ {
						for y := lo.Y; y <= hi.Y; y++ {
							if t := maptile.New(x, y, z); !low[zi][t] {
								low[zi][t] = true
								out[zi] = append(out[zi], t)
							}
						}
					}
					continue
				}
				// Only the tiles in partition p: those of zoom z under it.
				d := uint32(z - sp.z)
				x0, y0 := p.X<<d, p.Y<<d
				for x := max(lo.X, x0); x <= min(hi.X, x0+1<<d-1); x++ {
					for y := max(lo.Y, y0); y <= min(hi.Y, y0+1<<d-1); y++ {
						if i := (x-x0)<<d | (y - y0); !seen[zi][i] {
							seen[zi][i] = true
							out[zi] = append(out[zi], maptile.New(x, y, z))
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// partCache holds the last partitions a partitioned Source decoded.
type partCache struct {
	mu    sync.Mutex
	order []partKey
	parts map[partKey]*cachedPart
}

type partKey struct {
	layer string
	p     maptile.Tile
}

type cachedPart struct {
	once sync.Once
	d    *layerData
	err  error
}

func (c *partCache) get(k partKey, load func() (*layerData, error)) (*layerData, error) {
	c.mu.Lock()
	if c.parts == nil {
		c.parts = map[partKey]*cachedPart{}
	}
	e := c.parts[k]
	if e == nil {
		e = &cachedPart{}
		c.parts[k] = e
		c.order = append(c.order, k)
		if len(c.order) > partCacheSize {
			delete(c.parts, c.order[0])
			c.order = slices.Delete(c.order, 0, 1)
		}
	}
	c.mu.Unlock()
	e.once.Do(func() { e.d, e.err = load() })
	return e.d, e.err
}

// spooled returns the spool of layer l's region and the spooled layer
// it draws at zoom z (nil when it has no features).
func (s *Source) spooled(ctx context.Context, l tile.Layer, z maptile.Zoom) (*spool, *spoolLayer, string, error) {
	if !Supported(l) {
		return nil, nil, "", nil
	}
	r, err := s.region(ctx, l.Region)
	if r == nil || err != nil || r.spool == nil {
		return nil, nil, "", err
	}
	name := drawn(r, l, z)
	return r.spool, r.spool.layers[name], name, nil
}

func (s *Source) spooledBounds(ctx context.Context, l tile.Layer) (orb.Bound, error) {
	_, sl, _, err := s.spooled(ctx, l, OverviewZoom)
	if sl == nil || err != nil {
		return orb.Bound{}, err
	}
	return sl.bound, nil
}

// spooledTiles is a partitioned Source's BuildOptions.Tiles. The first
// call lists the tiles of every zoom of the layer drawn from the same
// features (spool.tiles reads them once for all), later calls hand out
// the lists; Build asks for each zoom once, one call at a time. A failure
// to read the files lists no tiles and is returned by the next Tile.
func (s *Source) spooledTiles(ctx context.Context, l tile.Layer) func(maptile.Zoom) []maptile.Tile {
	listed := map[maptile.Zoom][]maptile.Tile{}
	return func(z maptile.Zoom) []maptile.Tile {
		if ts, ok := listed[z]; ok {
			delete(listed, z)
			return ts
		}
		sp, sl, name, err := s.spooled(ctx, l, z)
		if sl == nil || err != nil {
			return nil
		}
		zs := []maptile.Zoom{z}
		for o := maptile.Zoom(l.MinZoom); int(o) <= min(l.MaxZoom, tile.MaxDataZoom); o++ {
			if _, _, other, err := s.spooled(ctx, l, o); o != z && err == nil && other == name {
				zs = append(zs, o)
			}
		}
		lists, err := sp.tiles(sl, zs)
		if err != nil {
			s.parts.mu.Lock()
			s.spoolErr = errors.Join(s.spoolErr, err)
			s.parts.mu.Unlock()
			return nil
		}
		for i, o := range zs[1:] {
			listed[o] = lists[i+1]
		}
		return lists[0]
	}
}

// spooledTile returns the features a partitioned Source draws on tile t of
// layer l: its partition's, or below the partition zoom those under t.
func (s *Source) spooledTile(ctx context.Context, l tile.Layer, t maptile.Tile) (*layerData, error) {
	s.parts.mu.Lock()
	err := s.spoolErr
	s.parts.mu.Unlock()
	if err != nil {
		return nil, err
	}
	sp, sl, name, err := s.spooled(ctx, l, t.Z)
	if sl == nil || err != nil {
		return nil, err
	}
	if t.Z < sp.z { // a region of its own, used once
		return sp.load(sl, t)
	}
	p := maptile.New(t.X>>(t.Z-sp.z), t.Y>>(t.Z-sp.z), sp.z)
	return s.parts.get(partKey{name, p}, func() (*layerData, error) { return sp.load(sl, p) })
}
