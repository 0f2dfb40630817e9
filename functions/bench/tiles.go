package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/blob"
	"meridian/shared/tile/archive"
)

// tileSample is a set of tiles an archive holds, for load tests that read
// the same tiles from this server and from another (`pmtiles serve`).
type tileSample struct {
	layer string // "ab/sec", from the archive's metadata
	name  string // file name without .pmtiles: pmtiles serve's path
	tiles []maptile.Tile
}

// sampleArchive draws up to n random tiles present in the archive at path,
// three quarters at its deepest zoom (where map traffic is).
func sampleArchive(ctx context.Context, path string, n int) (*tileSample, error) {
	dir, file := filepath.Split(path)
	r, err := archive.Open(ctx, blob.NewDir(dir), file)
	if err != nil {
		return nil, err
	}
	m, err := r.Metadata(ctx)
	if err != nil {
		return nil, err
	}
	h := r.Header()
	s := &tileSample{layer: m.Name, name: strings.TrimSuffix(file, ".pmtiles")}
	rng := rand.New(rand.NewPCG(7, 11))
	for try := 0; try < 200*n && len(s.tiles) < n; try++ {
		z := h.MaxZoom
		if rng.IntN(4) == 0 {
			z = h.MinZoom + uint8(rng.IntN(int(h.MaxZoom-h.MinZoom)+1))
		}
		b := h.Bounds
		pt := orb.Point{b.Min[0] + rng.Float64()*(b.Max[0]-b.Min[0]), b.Min[1] + rng.Float64()*(b.Max[1]-b.Min[1])}
		t := maptile.At(pt, maptile.Zoom(z))
		if _, ok, err := r.Tile(ctx, uint8(t.Z), t.X, t.Y); err != nil {
			return nil, err
		} else if ok {
			s.tiles = append(s.tiles, t)
		}
	}
	if len(s.tiles) == 0 {
		return nil, fmt.Errorf("%s: found no tiles", path)
	}
	return s, nil
}

// scenarios are the tile reads against this server and, when pmtilesURL is
// set, the same reads against pmtiles serve.
func (s *tileSample) scenarios(pmtilesURL string) []scenario {
	pick := func(rng *rand.Rand) maptile.Tile { return s.tiles[rng.IntN(len(s.tiles))] }
	gz := func(req *http.Request, err error) (*http.Request, error) {
		if err == nil {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		return req, err
	}
	out := []scenario{{"tiles", 1, func(base string, rng *rand.Rand) (*http.Request, error) {
		t := pick(rng)
		return gz(http.NewRequest("GET", fmt.Sprintf("%s/tiles/%s/%d/%d/%d.mvt", base, s.layer, t.Z, t.X, t.Y), nil))
	}}}
	if pmtilesURL != "" {
		pm := strings.TrimSuffix(pmtilesURL, "/")
		out = append(out, scenario{"pmtiles", 1, func(_ string, rng *rand.Rand) (*http.Request, error) {
			t := pick(rng)
			return gz(http.NewRequest("GET", fmt.Sprintf("%s/%s/%d/%d/%d.mvt", pm, s.name, t.Z, t.X, t.Y), nil))
		}})
	}
	return out
}

// placeArchive puts the archive at dst by a hard link, or a copy across
// file systems (the data directory's store does not follow symlinks out of
// it).
func placeArchive(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
