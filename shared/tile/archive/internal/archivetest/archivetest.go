// Package archivetest builds the test archives that the tests of package
// archive and package archive/writer share. It imports the writer, and so
// go-pmtiles: only tests may import it.
package archivetest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/paulmach/orb"

	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/writer"
)

// Tile is one tile of a test tileset; nil Data means no tile.
type Tile struct {
	Z    uint8
	X, Y uint32
	Data []byte
}

// Meta returns the metadata of the test archives: zooms 0-7, two layers and
// an extra key.
func Meta() archive.Metadata {
	return archive.Metadata{
		Name:        "test grid",
		Description: "synthetic tiles",
		Attribution: "© Meridian",
		Bounds:      orb.Bound{Min: orb.Point{-120, 49}, Max: orb.Point{-110, 60}},
		Center:      orb.Point{-114.07, 51.05},
		CenterZoom:  5,
		MinZoom:     0,
		MaxZoom:     7,
		VectorLayers: []archive.VectorLayer{
			{ID: "grid", Description: "cells", MinZoom: 0, MaxZoom: 7, Fields: map[string]string{"name": "String", "area": "Number"}},
			{ID: "labels", MinZoom: 4, MaxZoom: 7, Fields: map[string]string{}},
		},
		Extra: map[string]string{"version": "1.0.0"},
	}
}

// Gzipper compresses test tile contents; the zero value is ready to use.
type Gzipper struct {
	buf bytes.Buffer
	zw  *gzip.Writer
}

// Gzip returns s gzip-compressed.
func (g *Gzipper) Gzip(s string) []byte {
	g.buf.Reset()
	if g.zw == nil {
		g.zw = gzip.NewWriter(&g.buf)
	} else {
		g.zw.Reset(&g.buf)
	}
	g.zw.Write([]byte(s))
	g.zw.Close()
	return bytes.Clone(g.buf.Bytes())
}

// ByID returns every tile of zooms 0 to maxZoom, data-less, indexed by tile
// ID: tile IDs number the tiles of zooms 0 to z densely from 0.
func ByID(maxZoom uint8) []Tile {
	tiles := make([]Tile, tile.ID(maxZoom+1, 0, 0))
	for z := range maxZoom + 1 {
		for x := range uint32(1) << z {
			for y := range uint32(1) << z {
				tiles[tile.ID(z, x, y)] = Tile{Z: z, X: x, Y: y}
			}
		}
	}
	return tiles
}

// Tiles returns every tile of zooms 0-7 in tile-ID order (21,845, enough
// entries for leaf directories) with:
//
//   - a run of identical "ocean" tiles from the end of zoom 6 into zoom 7
//     (one run per zoom, since runs do not cross zooms) and another inside
//     zoom 7;
//   - "land" tiles repeated all over (deduplicated, some in short runs);
//   - about 1% of tiles absent;
//   - every other tile unique.
func Tiles() []Tile {
	var g Gzipper
	ocean, land := g.Gzip("ocean"), g.Gzip("land")
	z7 := tile.ID(7, 0, 0)
	tiles := ByID(7)
	for i := range tiles {
		t, id := &tiles[i], uint64(i)
		switch {
		case id >= z7-200 && id < z7+1000, id >= z7+5000 && id < z7+6000:
			t.Data = ocean
		case (t.X*31+t.Y)%97 == 5:
		case t.Z >= 3 && (t.X+2*t.Y)%11 == 0:
			t.Data = land
		default:
			t.Data = g.Gzip(fmt.Sprintf("tile %d/%d/%d %s", t.Z, t.X, t.Y, strings.Repeat("x", int(id%40))))
		}
	}
	return tiles
}

// Build writes tiles into an archive described by meta, and checks that
// the writer leaves no temporary file behind.
func Build(tb testing.TB, tiles []Tile, meta archive.Metadata) ([]byte, writer.Stats) {
	tb.Helper()
	tmp := tb.TempDir()
	w, err := writer.New(tmp, meta)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	for _, t := range tiles {
		if err := w.Add(t.Z, t.X, t.Y, t.Data); err != nil {
			tb.Fatal(err)
		}
	}
	var out bytes.Buffer
	st, err := w.Finish(&out)
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		tb.Errorf("Close left %d files in the temporary directory", len(left))
	}
	return out.Bytes(), st
}

var (
	fixtureOnce  sync.Once
	fixtureTiles []Tile
	fixtureData  []byte
	fixtureStats writer.Stats
)

// Fixture returns Tiles and their archive with Meta, built once per
// process. Callers must not modify them.
func Fixture(tb testing.TB) ([]Tile, []byte, writer.Stats) {
	tb.Helper()
	fixtureOnce.Do(func() {
		fixtureTiles = Tiles()
		fixtureData, fixtureStats = Build(tb, fixtureTiles, Meta())
	})
	if fixtureData == nil {
		tb.Fatal("building the fixture archive failed")
	}
	return fixtureTiles, fixtureData, fixtureStats
}

// PresentAt returns the last tile with data at or before index i.
func PresentAt(tiles []Tile, i int) Tile {
	for tiles[i].Data == nil {
		i--
	}
	return tiles[i]
}
