package tile_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
	"github.com/protomaps/go-pmtiles/pmtiles"

	"meridian/shared/convert"
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
	g := tile.NewGenerator(convert.New())
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
	g := tile.NewGenerator(convert.New())
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
