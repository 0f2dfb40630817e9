package tile_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
	"github.com/protomaps/go-pmtiles/pmtiles"

	"meridian/shared/survey/grid"
	"meridian/shared/tile"
)

// ID is the PMTiles tile id, checked against go-pmtiles' own.
func TestIDMatchesPMTiles(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for z := range uint8(23) {
		for range 500 {
			n := uint32(1) << z
			x, y := rng.Uint32N(n), rng.Uint32N(n)
			if got, want := tile.ID(z, x, y), pmtiles.ZxyToID(z, x, y); got != want {
				t.Fatalf("ID(%d,%d,%d) = %d, want %d", z, x, y, got, want)
			}
		}
	}
}

type sink struct {
	ids  []uint64
	data map[uint64][]byte
	fail int // fail on this call (1-based); 0 never
}

func (s *sink) Add(z uint8, x, y uint32, data []byte) error {
	if s.fail > 0 && len(s.ids)+1 == s.fail {
		return errors.New("disk full")
	}
	id := tile.ID(z, x, y)
	s.ids = append(s.ids, id)
	if s.data == nil {
		s.data = map[uint64][]byte{}
	}
	s.data[id] = data
	return nil
}

// A build hands every non-empty tile over the bounds to the sink once, in
// ID order, the same bytes whatever the number of workers.
func TestBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := tile.NewGenerator(grid.New())
	l := layer(t, "ab/sec")
	b := orb.Bound{Min: orb.Point{-114.3, 50.9}, Max: orb.Point{-113.9, 51.2}}
	var progress strings.Builder
	one := &sink{}
	st, err := tile.Build(ctx, l, g.Tile, one, tile.BuildOptions{MinZoom: 9, MaxZoom: 13, Bounds: b, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	many := &sink{}
	st2, err := tile.Build(ctx, l, g.Tile, many, tile.BuildOptions{MinZoom: 9, MaxZoom: 13, Bounds: b, Workers: 4, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tiles == 0 || st.Tiles != len(one.ids) || st2.Tiles != st.Tiles || st.Visited < st.Tiles {
		t.Fatalf("stats %+v / %+v, sink got %d", st, st2, len(one.ids))
	}
	for i := 1; i < len(many.ids); i++ {
		if many.ids[i] <= many.ids[i-1] {
			t.Fatalf("tile %d out of order", i)
		}
	}
	for id, d := range one.data {
		if !bytes.Equal(many.data[id], d) {
			t.Fatalf("tile %d differs between 1 and 4 workers", id)
		}
	}
	// Every tile over the bounds with data is there: compare with on demand.
	want := 0
	for z := maptile.Zoom(9); z <= 13; z++ {
		lo, hi := maptile.At(orb.Point{b.Min[0], b.Max[1]}, z), maptile.At(orb.Point{b.Max[0], b.Min[1]}, z)
		for x := lo.X; x <= hi.X; x++ {
			for y := lo.Y; y <= hi.Y; y++ {
				d, _ := g.Tile(ctx, l, maptile.New(x, y, z))
				if d != nil {
					want++
					if !bytes.Equal(one.data[tile.ID(uint8(z), x, y)], d) {
						t.Fatalf("tile %d/%d/%d differs from on demand", z, x, y)
					}
				}
			}
		}
	}
	if want != st.Tiles {
		t.Errorf("built %d tiles, on demand has %d", st.Tiles, want)
	}
	if !strings.Contains(progress.String(), "100%") || !strings.Contains(progress.String(), "with data") {
		t.Errorf("progress output %q", progress.String())
	}

	// A failing sink or source stops the build with its error.
	if _, err := tile.Build(ctx, l, g.Tile, &sink{fail: 3}, tile.BuildOptions{MinZoom: 9, MaxZoom: 13, Bounds: b, Workers: 2}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing sink: %v", err)
	}
	bad := func(context.Context, tile.Layer, maptile.Tile) ([]byte, error) {
		return nil, errors.New("index unreadable")
	}
	if _, err := tile.Build(ctx, l, bad, &sink{}, tile.BuildOptions{MinZoom: 9, MaxZoom: 10, Bounds: b}); err == nil || !strings.Contains(err.Error(), "index unreadable") {
		t.Errorf("failing source: %v", err)
	}
	if _, err := tile.Build(ctx, l, g.Tile, &sink{}, tile.BuildOptions{MinZoom: 12, MaxZoom: 3}); err == nil {
		t.Error("zooms 12-3 accepted")
	}
}

// With BuildOptions.Tiles a build visits only the tiles listed, once each,
// in ID order, and only those over the bounds and of the zoom asked.
func TestBuildListedTiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := tile.NewGenerator(grid.New())
	l := layer(t, "ab/sec")
	b := orb.Bound{Min: orb.Point{-114.3, 50.9}, Max: orb.Point{-113.9, 51.2}}
	inside := maptile.At(orb.Point{-114.1, 51.0}, 12)
	far := maptile.At(orb.Point{-110.1, 53.0}, 12)
	var visited []maptile.Tile
	src := func(ctx context.Context, l tile.Layer, t maptile.Tile) ([]byte, error) {
		visited = append(visited, t)
		return g.Tile(ctx, l, t)
	}
	calls := map[maptile.Zoom]int{}
	list := func(z maptile.Zoom) []maptile.Tile {
		calls[z]++
		if z != 12 {
			return []maptile.Tile{inside} // the wrong zoom: ignored
		}
		return []maptile.Tile{inside, far, inside, maptile.New(inside.X+1, inside.Y, 12)}
	}
	s := &sink{}
	st, err := tile.Build(ctx, l, src, s, tile.BuildOptions{MinZoom: 11, MaxZoom: 13, Bounds: b, Workers: 1, Tiles: list})
	if err != nil {
		t.Fatal(err)
	}
	want := []maptile.Tile{inside, maptile.New(inside.X+1, inside.Y, 12)}
	if tile.ID(12, want[1].X, want[1].Y) < tile.ID(12, want[0].X, want[0].Y) {
		want[0], want[1] = want[1], want[0]
	}
	if len(visited) != 2 || visited[0] != want[0] || visited[1] != want[1] || st.Visited != 2 {
		t.Fatalf("visited %v (stats %+v), want %v", visited, st, want)
	}
	if st.Tiles != 2 || len(s.ids) != 2 {
		t.Errorf("built %d tiles, sink has %d; want the 2 listed", st.Tiles, len(s.ids))
	}
	if calls[11] != 1 || calls[12] != 1 || calls[13] != 1 || len(calls) != 3 {
		t.Errorf("Tiles called %v, want once per zoom 11-13", calls)
	}
}

// The tiles under a tile are consecutive in ID order at every deeper
// zoom, in the order of their ancestors: what lets Build make its deeper
// zooms a zoom-GroupZoom tile at a time and still hand them out in order.
func TestIDGroupsDescendants(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 9))
	for range 2000 {
		z := uint8(tile.GroupZoom + 1 + rng.IntN(6))
		n := uint32(1) << z
		a := maptile.New(rng.Uint32N(n), rng.Uint32N(n), maptile.Zoom(z))
		b := maptile.New(rng.Uint32N(n), rng.Uint32N(n), maptile.Zoom(z))
		d := z - tile.GroupZoom
		ga := maptile.New(a.X>>d, a.Y>>d, tile.GroupZoom)
		gb := maptile.New(b.X>>d, b.Y>>d, tile.GroupZoom)
		if ga == gb {
			continue
		}
		if (tile.ID(z, a.X, a.Y) < tile.ID(z, b.X, b.Y)) != (tile.ID(tile.GroupZoom, ga.X, ga.Y) < tile.ID(tile.GroupZoom, gb.X, gb.Y)) {
			t.Fatalf("%v and %v are not in the order of their zoom-%d tiles %v and %v", a, b, tile.GroupZoom, ga, gb)
		}
	}
}

// A build over zooms on both sides of GroupZoom hands the sink every tile
// in ID order, the same bytes as made zoom by zoom, visits the tiles of
// zoom GroupZoom and deeper one zoom-GroupZoom tile at a time (so a
// source reading by region reads each region once, not once per zoom),
// and leaves no file behind, also when it fails.
func TestBuildGroupsDeeperZooms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := layer(t, "ab/sec")
	b := orb.Bound{Min: orb.Point{-114.9, 50.6}, Max: orb.Point{-113.1, 51.9}} // several zoom-9 tiles
	var mu sync.Mutex
	var visited []maptile.Tile
	src := func(ctx context.Context, l tile.Layer, t maptile.Tile) ([]byte, error) {
		mu.Lock()
		visited = append(visited, t)
		mu.Unlock()
		return tile.Gzip([]byte(fmt.Sprintf("%d/%d/%d", t.Z, t.X, t.Y))), nil
	}
	for _, listed := range []bool{false, true} {
		t.Run(fmt.Sprint("listed=", listed), func(t *testing.T) {
			visited = nil
			dir := t.TempDir()
			o := tile.BuildOptions{MinZoom: 7, MaxZoom: 13, Bounds: b, Workers: 1, TempDir: dir}
			want := 0
			for z := o.MinZoom; z <= o.MaxZoom; z++ {
				lo, hi := maptile.At(orb.Point{b.Min[0], b.Max[1]}, maptile.Zoom(z)), maptile.At(orb.Point{b.Max[0], b.Min[1]}, maptile.Zoom(z))
				want += int(hi.X-lo.X+1) * int(hi.Y-lo.Y+1)
			}
			if listed { // every other column of tiles
				want = 0
				o.Tiles = func(z maptile.Zoom) []maptile.Tile {
					lo, hi := maptile.At(orb.Point{b.Min[0], b.Max[1]}, z), maptile.At(orb.Point{b.Max[0], b.Min[1]}, z)
					var ts []maptile.Tile
					for x := lo.X; x <= hi.X; x += 2 {
						for y := lo.Y; y <= hi.Y; y++ {
							ts = append(ts, maptile.New(x, y, z))
						}
					}
					want += len(ts)
					return ts
				}
			}
			s := &sink{}
			st, err := tile.Build(ctx, l, src, s, o)
			if err != nil {
				t.Fatal(err)
			}
			if st.Tiles != want || len(s.ids) != want {
				t.Fatalf("built %d tiles, sink got %d, want %d", st.Tiles, len(s.ids), want)
			}
			for i := 1; i < len(s.ids); i++ {
				if s.ids[i] <= s.ids[i-1] {
					t.Fatalf("tile %d out of order", i)
				}
			}
			for _, v := range visited {
				got, err := gunzip(s.data[tile.ID(uint8(v.Z), v.X, v.Y)])
				if err != nil || got != fmt.Sprintf("%d/%d/%d", v.Z, v.X, v.Y) {
					t.Fatalf("tile %v holds %q (%v)", v, got, err)
				}
			}
			// From zoom 9 on, the zoom-9 tile of the tiles visited changes
			// only when the build moves on to the next one.
			groups, changes := map[maptile.Tile]bool{}, 0
			var last maptile.Tile
			for i, v := range visited {
				if v.Z < tile.GroupZoom {
					continue
				}
				g := maptile.New(v.X>>(v.Z-tile.GroupZoom), v.Y>>(v.Z-tile.GroupZoom), tile.GroupZoom)
				if i == 0 || g != last {
					changes++
				}
				groups[g], last = true, g
			}
			if len(groups) < 4 || changes != len(groups) {
				t.Errorf("the build moved between zoom-9 tiles %d times over %d of them, want once each", changes, len(groups))
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("the build left %d files in its TempDir", len(left))
			}
			// A failing sink during the spooled zooms: the error, no files.
			if _, err := tile.Build(ctx, l, src, &sink{fail: want - 3}, o); err == nil || !strings.Contains(err.Error(), "disk full") {
				t.Errorf("failing sink: %v", err)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("a failed build left %d files in its TempDir", len(left))
			}
		})
	}
}

func gunzip(b []byte) (string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	raw, err := io.ReadAll(zr)
	return string(raw), err
}
