package tile

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
)

// ID is a tile's position in PMTiles order: every tile of zoom z comes
// after every tile of lower zooms, and within a zoom tiles follow a Hilbert
// curve, so tiles near on the map are near in an archive.
func ID(z uint8, x, y uint32) uint64 {
	id := (uint64(1)<<(2*z) - 1) / 3 // tiles of zooms 0..z-1
	for s := uint32(1) << z >> 1; s > 0; s >>= 1 {
		rx, ry := x&s != 0, y&s != 0
		q := uint64(0) // quadrant in curve order: (0,0) (0,1) (1,1) (1,0)
		switch {
		case rx && ry:
			q = 2
		case rx:
			q = 3
		case ry:
			q = 1
		}
		id += q * uint64(s) * uint64(s)
		if !ry { // rotate the lower quadrants so the curve continues
			if rx {
				x, y = s-1-x%s, s-1-y%s
			}
			x, y = y, x
		}
	}
	return id
}

// Sink receives a build's tiles in ascending ID order (archive.Writer).
type Sink interface {
	Add(z uint8, x, y uint32, data []byte) error
}

// Source makes a layer's tile (Generator.Tile, or a data layer's builder);
// nil data means no tile.
type Source func(ctx context.Context, l Layer, t maptile.Tile) ([]byte, error)

// DefaultWorkers is how many tiles a build generates in parallel when its
// options do not say: one more than the processors Go runs on. A worker
// also waits (for a data layer's partition another worker is loading, for
// the writer to take its tile), and the spare one keeps the processors
// busy then: a full-size agriculture layer (ag/aafc_crop_summary, 1.05
// million tiles) built at 168% CPU on two cores with two workers, and in
// 0.87-0.90 of the time with three (two runs each, alternating).
func DefaultWorkers() int { return runtime.GOMAXPROCS(0) + 1 }

// BuildOptions choose what a build covers and how it runs.
type BuildOptions struct {
	MinZoom, MaxZoom int       // default: the layer's, the maximum clipped to MaxDataZoom
	Bounds           orb.Bound // default: the layer's
	Workers          int       // default: GOMAXPROCS + 1 (DefaultWorkers)
	Progress         io.Writer // a progress line, redrawn; nil: quiet

	// Tiles, when set, lists the tiles of zoom z that may have features
	// (any order, duplicates allowed); the others are known to be empty
	// and are not visited. Those over Bounds are visited, and those whose
	// buffer reaches over it. Sparse data covers a few hundred tiles of the
	// hundreds of thousands over its bounds. Default: every tile over
	// Bounds.
	Tiles func(z maptile.Zoom) []maptile.Tile

	// TempDir is where a build keeps the tiles of its deeper zooms until
	// their turn (Build); default os.TempDir.
	TempDir string
}

// BuildStats sums up a build.
type BuildStats struct {
	Visited int // tiles over the bounds
	Tiles   int // of which not empty
	Bytes   int64
	Elapsed time.Duration
}

// GroupZoom is the zoom at and below which a build makes its tiles one
// zoom-GroupZoom tile at a time: the tiles of every zoom under it, then
// the next. The sources read their data by region (a grid index page per
// township, a data partition per zoom-9 tile: datalayers.PartitionZoom),
// and a zoom-9 tile's region fits their caches, so each region is read
// about once per build rather than once per zoom. A zoom-9 tile is some
// 48 km wide over the prairies, 25-49 townships with the tile buffer.
const GroupZoom = 9

// Build makes every tile of layer l over the options' bounds and zooms
// with src, in parallel, and hands them to sink in ID order. Tiles of
// zooms below GroupZoom are made a zoom at a time; from GroupZoom down,
// a zoom-GroupZoom tile at a time (its tiles of each zoom, then the next
// one's): the tiles of the group's first zoom go to sink as they come,
// the deeper ones to a file per zoom under o.TempDir, handed to sink once
// every group is made. The tiles and their order are the same either way
// (a Hilbert curve visits the tiles under a tile consecutively). Memory is
// bounded by the tile coordinates of one zoom (the listed ones, with
// Tiles) and the tiles in flight (a few per worker), never by the archive;
// disk by the archive's tiles below the group's first zoom.
func Build(ctx context.Context, l Layer, src Source, sink Sink, o BuildOptions) (BuildStats, error) {
	start := time.Now()
	if o.MinZoom == 0 && o.MaxZoom == 0 {
		o.MinZoom, o.MaxZoom = l.MinZoom, min(l.MaxZoom, MaxDataZoom)
	}
	if o.Bounds.IsZero() {
		o.Bounds = l.Bounds
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers()
	}
	if o.MinZoom < 0 || o.MaxZoom > maxZoom || o.MinZoom > o.MaxZoom {
		return BuildStats{}, fmt.Errorf("tile: zooms %d-%d: want 0 <= min <= max <= %d", o.MinZoom, o.MaxZoom, maxZoom)
	}
	// Listed tiles are few (those features reach) and are listed once;
	// a cover of the bounds is made one zoom (or group) at a time.
	var listed [][]maptile.Tile
	total := 0
	for z := o.MinZoom; z <= o.MaxZoom; z++ {
		if o.Tiles == nil {
			total += coverCount(o.Bounds, maptile.Zoom(z))
			continue
		}
		ts := within(o.Tiles(maptile.Zoom(z)), o.Bounds, maptile.Zoom(z))
		listed = append(listed, ts)
		total += len(ts)
	}
	zoomTiles := func(z int) []maptile.Tile {
		if o.Tiles == nil {
			return cover(o.Bounds, maptile.Zoom(z))
		}
		return listed[z-o.MinZoom]
	}
	p := newProgress(o.Progress, l.Path(), total)
	var st BuildStats
	for z := o.MinZoom; z <= o.MaxZoom && z < GroupZoom; z++ {
		if err := buildZoom(ctx, l, src, sink, zoomTiles(z), o.Workers, &st, p); err != nil {
			return st, err
		}
	}
	if o.MaxZoom >= GroupZoom {
		if err := buildGroups(ctx, l, src, sink, o, zoomTiles, &st, p); err != nil {
			return st, err
		}
	}
	st.Elapsed = time.Since(start)
	p.done(st)
	return st, nil
}

// buildGroups makes the tiles of zooms max(o.MinZoom, GroupZoom) to
// o.MaxZoom a zoom-GroupZoom tile at a time (Build).
func buildGroups(ctx context.Context, l Layer, src Source, sink Sink, o BuildOptions, zoomTiles func(int) []maptile.Tile, st *BuildStats, p *progress) error {
	first := max(o.MinZoom, GroupZoom)
	// Each zoom's tiles in ID order, consumed group by group.
	var next []func(g maptile.Tile) []maptile.Tile
	var groups []maptile.Tile
	for z := first; z <= o.MaxZoom; z++ {
		if o.Tiles == nil {
			lo, hi := coverRange(o.Bounds, maptile.Zoom(z))
			d := uint(z - GroupZoom)
			next = append(next, func(g maptile.Tile) []maptile.Tile {
				return rect(max(lo.X, g.X<<d), max(lo.Y, g.Y<<d), min(hi.X, (g.X+1)<<d-1), min(hi.Y, (g.Y+1)<<d-1), maptile.Zoom(z))
			})
			for x := lo.X >> d; x <= hi.X>>d; x++ {
				for y := lo.Y >> d; y <= hi.Y>>d; y++ {
					groups = append(groups, maptile.New(x, y, GroupZoom))
				}
			}
			continue
		}
		ts := zoomTiles(z)
		for _, t := range ts {
			groups = append(groups, ancestor(t, GroupZoom))
		}
		next = append(next, func(g maptile.Tile) []maptile.Tile {
			n := 0
			for n < len(ts) && ancestor(ts[n], GroupZoom) == g {
				n++
			}
			out := ts[:n:n]
			ts = ts[n:]
			return out
		})
	}
	sortByID(groups)
	groups = slices.Compact(groups)

	deeper, err := newZoomSpool(o.TempDir, first+1, o.MaxZoom)
	if err != nil {
		return err
	}
	defer deeper.close()
	r := &zoomRouter{sink: sink, first: first, spool: deeper}
	var tiles []maptile.Tile
	for _, g := range groups {
		tiles = tiles[:0]
		for _, f := range next {
			tiles = append(tiles, f(g)...)
		}
		if len(tiles) == 0 {
			continue
		}
		if err := buildZoom(ctx, l, src, r, tiles, o.Workers, st, p); err != nil {
			return err
		}
	}
	return deeper.replay(sink)
}

// ancestor returns the tile of zoom z (<= t.Z) that t lies in.
func ancestor(t maptile.Tile, z maptile.Zoom) maptile.Tile {
	return maptile.New(t.X>>(t.Z-z), t.Y>>(t.Z-z), z)
}

// zoomRouter hands the tiles of zoom first to sink and the deeper ones to
// spool.
type zoomRouter struct {
	sink  Sink
	first int
	spool *zoomSpool
}

func (r *zoomRouter) Add(z uint8, x, y uint32, data []byte) error {
	if int(z) == r.first {
		return r.sink.Add(z, x, y, data)
	}
	return r.spool.add(z, x, y, data)
}

// zoomSpool holds a build's tiles of zooms lo to hi, a file per zoom, in
// the order they were added: x, y and the data's length (uvarints), then
// the data.
type zoomSpool struct {
	lo    int
	files []*os.File
	w     []*bufio.Writer
	rec   []byte
}

func newZoomSpool(dir string, lo, hi int) (*zoomSpool, error) {
	s := &zoomSpool{lo: lo}
	for z := lo; z <= hi; z++ {
		f, err := os.CreateTemp(dir, ".build-z"+strconv.Itoa(z)+"-*")
		if err != nil {
			s.close()
			return nil, fmt.Errorf("tile: spool: %w", err)
		}
		s.files = append(s.files, f)
		s.w = append(s.w, bufio.NewWriterSize(f, 64<<10))
	}
	return s, nil
}

func (s *zoomSpool) add(z uint8, x, y uint32, data []byte) error {
	i := int(z) - s.lo
	if i < 0 || i >= len(s.w) {
		return fmt.Errorf("tile: spool: tile %d/%d/%d outside zooms %d-%d", z, x, y, s.lo, s.lo+len(s.w)-1)
	}
	r := binary.AppendUvarint(s.rec[:0], uint64(x))
	r = binary.AppendUvarint(r, uint64(y))
	r = binary.AppendUvarint(r, uint64(len(data)))
	s.rec = r
	if _, err := s.w[i].Write(r); err != nil {
		return fmt.Errorf("tile: spool: %w", err)
	}
	if _, err := s.w[i].Write(data); err != nil {
		return fmt.Errorf("tile: spool: %w", err)
	}
	return nil
}

// replay hands sink the spooled tiles, zoom by zoom.
func (s *zoomSpool) replay(sink Sink) error {
	for i, f := range s.files {
		if err := s.w[i].Flush(); err != nil {
			return fmt.Errorf("tile: spool: %w", err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("tile: spool: %w", err)
		}
		br := bufio.NewReaderSize(f, 64<<10)
		z := uint8(s.lo + i)
		for {
			x, err := binary.ReadUvarint(br)
			if err == io.EOF {
				break
			}
			var y, n uint64
			if err == nil {
				y, err = binary.ReadUvarint(br)
			}
			if err == nil {
				n, err = binary.ReadUvarint(br)
			}
			if err == nil && (x >= 1<<z || y >= 1<<z || n > 1<<30) {
				err = errors.New("corrupt record")
			}
			if err != nil {
				return fmt.Errorf("tile: spool %s: %w", f.Name(), err)
			}
			data := make([]byte, n) // a sink may keep it
			if _, err := io.ReadFull(br, data); err != nil {
				return fmt.Errorf("tile: spool %s: %w", f.Name(), err)
			}
			if err := sink.Add(z, uint32(x), uint32(y), data); err != nil {
				return err
			}
		}
	}
	return nil
}

// close removes the spool's files.
func (s *zoomSpool) close() {
	for _, f := range s.files {
		f.Close()
		os.Remove(f.Name())
	}
}

// coverRange returns the corner tiles of zoom z over b.
func coverRange(b orb.Bound, z maptile.Zoom) (lo, hi maptile.Tile) {
	return maptile.At(orb.Point{b.Min[0], b.Max[1]}, z), maptile.At(orb.Point{b.Max[0], b.Min[1]}, z)
}

func coverCount(b orb.Bound, z maptile.Zoom) int {
	lo, hi := coverRange(b, z)
	return int(hi.X-lo.X+1) * int(hi.Y-lo.Y+1)
}

// cover returns the tiles of zoom z over b, in ID order.
func cover(b orb.Bound, z maptile.Zoom) []maptile.Tile {
	lo, hi := coverRange(b, z)
	return rect(lo.X, lo.Y, hi.X, hi.Y, z)
}

// rect returns the tiles of zoom z from column x0 to x1 and row y0 to y1
// (none when either range is empty), in ID order.
func rect(x0, y0, x1, y1 uint32, z maptile.Zoom) []maptile.Tile {
	if x0 > x1 || y0 > y1 {
		return nil
	}
	tiles := make([]maptile.Tile, 0, int(x1-x0+1)*int(y1-y0+1))
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			tiles = append(tiles, maptile.New(x, y, z))
		}
	}
	sortByID(tiles)
	return tiles
}

// within returns the distinct tiles of ts that are of zoom z and over b or
// with their buffer over it, in ID order.
func within(ts []maptile.Tile, b orb.Bound, z maptile.Zoom) []maptile.Tile {
	lo, hi := coverRange(b.Pad(360/float64(uint64(1)<<z)*Buffer/Extent), z)
	out := make([]maptile.Tile, 0, len(ts))
	for _, t := range ts {
		if t.Z == z && t.X >= lo.X && t.X <= hi.X && t.Y >= lo.Y && t.Y <= hi.Y {
			out = append(out, t)
		}
	}
	sortByID(out)
	return slices.Compact(out)
}

// sortByID sorts tiles in ID order. Each tile's ID is computed once, not
// at each comparison (a zoom-14 ID is 14 steps of a Hilbert curve): the
// sort holds a copy of the tiles with their IDs, 24 bytes a tile, while it
// runs.
func sortByID(tiles []maptile.Tile) {
	type keyed struct {
		id uint64
		t  maptile.Tile
	}
	ks := make([]keyed, len(tiles))
	for i, t := range tiles {
		ks[i] = keyed{ID(uint8(t.Z), t.X, t.Y), t}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.id, b.id) })
	for i := range ks {
		tiles[i] = ks[i].t
	}
}

// buildZoom generates tiles with workers and writes them in order: each
// job carries its own result channel and jobs queue for the writer in
// order, at most 4 per worker ahead of it.
func buildZoom(ctx context.Context, l Layer, src Source, sink Sink, tiles []maptile.Tile, workers int, st *BuildStats, p *progress) error {
	type result struct {
		data []byte
		err  error
	}
	type job struct {
		t   maptile.Tile
		out chan result
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job)
	order := make(chan job, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				data, err := src(ctx, l, j.t)
				j.out <- result{data, err}
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		for _, t := range tiles {
			j := job{t: t, out: make(chan result, 1)}
			select {
			case order <- j:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for j := range order {
		var r result
		select {
		case r = <-j.out:
		case <-ctx.Done(): // j may never reach a worker
			if err == nil {
				err = ctx.Err()
			}
			continue
		}
		if err != nil {
			continue // drain
		}
		if r.err != nil {
			err = fmt.Errorf("tile %s %d/%d/%d: %w", l.Path(), j.t.Z, j.t.X, j.t.Y, r.err)
			cancel()
			continue
		}
		st.Visited++
		if len(r.data) > 0 {
			if err = sink.Add(uint8(j.t.Z), j.t.X, j.t.Y, r.data); err != nil {
				cancel()
				continue
			}
			st.Tiles++
			st.Bytes += int64(len(r.data))
		}
		p.step(st, int(j.t.Z))
	}
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// progress redraws one line at most four times a second.
type progress struct {
	w     io.Writer
	name  string
	total int
	start time.Time
	last  time.Time
}

func newProgress(w io.Writer, name string, total int) *progress {
	return &progress{w: w, name: name, total: total, start: time.Now()}
}

func (p *progress) step(st *BuildStats, z int) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 250*time.Millisecond && st.Visited != p.total {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := float64(st.Visited) / max(el, 1e-9)
	eta := time.Duration(float64(p.total-st.Visited)/max(rate, 1e-9)) * time.Second
	const width = 30
	filled := width * st.Visited / max(p.total, 1)
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%-14s z%-2d [%s] %3d%% %d/%d tiles  %.0f/s  eta %s   ", p.name, z, bar,
		100*st.Visited/max(p.total, 1), st.Visited, p.total, rate, eta.Round(time.Second))
}

func (p *progress) done(st BuildStats) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r%-14s %d tiles over the bounds, %d with data, %.1f MB, %s%30s\n", p.name, st.Visited, st.Tiles,
		float64(st.Bytes)/1e6, st.Elapsed.Round(time.Millisecond), "")
}
