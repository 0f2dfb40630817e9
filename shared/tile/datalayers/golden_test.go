package datalayers

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/tile"
)

var update = flag.Bool("update", false, "rewrite testdata/demo-archives.txt")

// builtTile is one tile a build handed its sink: where, the hash of its MVT
// bytes (decompressed: what a tile says, whatever compressor wrote it) and
// its layers decoded.
type builtTile struct {
	z      uint8
	x, y   uint32
	sum    string
	layers mvt.Layers
}

func (b builtTile) key() string { return fmt.Sprintf("%d/%d/%d", b.z, b.x, b.y) }

// tileSink keeps every tile a build hands it, decoded.
type tileSink struct {
	name  string
	tiles []builtTile
}

func (s *tileSink) Add(z uint8, x, y uint32, data []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s %d/%d/%d: %w", s.name, z, x, y, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("%s %d/%d/%d: %w", s.name, z, x, y, err)
	}
	layers, err := mvt.Unmarshal(raw)
	if err != nil {
		return fmt.Errorf("%s %d/%d/%d: not a vector tile: %w", s.name, z, x, y, err)
	}
	sum := sha256.Sum256(raw)
	s.tiles = append(s.tiles, builtTile{z: z, x: x, y: y, sum: hex.EncodeToString(sum[:12]), layers: layers})
	return nil
}

// archiveBuilder is how a test builds one archive: the whole-store Source
// (tile.Build over its BuildOptions) or a partitioned build.
type archiveBuilder func(ctx context.Context, l tile.Layer, sink tile.Sink) error

// builtArchive is one archive's tiles, in the order its sink got them.
type builtArchive struct {
	name  string
	tiles []builtTile
}

// demoArchives builds every archive of the demo data with build.
func demoArchives(t *testing.T, build archiveBuilder) []builtArchive {
	t.Helper()
	ctx := context.Background()
	var out []builtArchive
	for _, name := range Names() {
		l := layer(t, name)
		s := &tileSink{name: name}
		if err := build(ctx, l, s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, builtArchive{name: name, tiles: s.tiles})
	}
	return out
}

// wholeBuild builds with a Source holding its domain in memory (New).
func wholeBuild(s *Source) archiveBuilder {
	return func(ctx context.Context, l tile.Layer, sink tile.Sink) error {
		o, ok, err := s.BuildOptions(ctx, l)
		if err != nil || !ok {
			return err
		}
		_, err = tile.Build(ctx, l, s.Tile, sink, o)
		return err
	}
}

// sampleFeatures is how many features of each archive's sample tile the
// golden decodes.
const sampleFeatures = 3

// summary is the golden's text for archives: per archive, its tiles per
// zoom and, per layer of those tiles, the features and their vertices and
// the property names they carry; then its sample tile (the one with the
// most features at its deepest zoom) with its first features decoded.
func summary(archives []builtArchive) string {
	var b strings.Builder
	b.WriteString(`# The demo data's tile archives as datalayers builds them (TestWholeBuildMatchesGolden,
# TestPartitionedBuildMatchesWhole). Per archive: tiles per zoom, and per layer of those
# tiles the features, their vertices and the property names they carry; then one tile
# decoded (the one with the most features at the archive's deepest zoom): its first
# features, their properties and geometry in tile coordinates (extent 4096).
# Rewrite: go test ./shared/tile/datalayers -run TestWholeBuildMatchesGolden -update
`)
	for _, a := range archives {
		fmt.Fprintf(&b, "\narchive %s: %d tiles\n", a.name, len(a.tiles))
		type layerStats struct {
			features, vertices int
			keys               map[string]bool
		}
		byZoom := map[uint8]map[string]*layerStats{}
		tilesAt := map[uint8]int{}
		var sample *builtTile
		count := func(t builtTile) int {
			n := 0
			for _, l := range t.layers {
				n += len(l.Features)
			}
			return n
		}
		for i, t := range a.tiles {
			tilesAt[t.z]++
			if byZoom[t.z] == nil {
				byZoom[t.z] = map[string]*layerStats{}
			}
			for _, l := range t.layers {
				st := byZoom[t.z][l.Name]
				if st == nil {
					st = &layerStats{keys: map[string]bool{}}
					byZoom[t.z][l.Name] = st
				}
				st.features += len(l.Features)
				for _, f := range l.Features {
					st.vertices += vertices(f.Geometry)
					for k := range f.Properties {
						st.keys[k] = true
					}
				}
			}
			if sample == nil || t.z > sample.z || t.z == sample.z && (count(t) > count(*sample) ||
				count(t) == count(*sample) && cmp.Or(cmp.Compare(t.x, sample.x), cmp.Compare(t.y, sample.y)) < 0) {
				sample = &a.tiles[i]
			}
		}
		for _, z := range slices.Sorted(maps.Keys(tilesAt)) {
			fmt.Fprintf(&b, "  z%-2d %5d tiles", z, tilesAt[z])
			for _, name := range slices.Sorted(maps.Keys(byZoom[z])) {
				st := byZoom[z][name]
				fmt.Fprintf(&b, "; %s: %d features, %d vertices, properties %s", name, st.features, st.vertices,
					strings.Join(slices.Sorted(maps.Keys(st.keys)), ","))
			}
			b.WriteString("\n")
		}
		if sample == nil {
			continue
		}
		fmt.Fprintf(&b, "  tile %s:\n", sample.key())
		for _, l := range sample.layers {
			fmt.Fprintf(&b, "    layer %s: %d features", l.Name, len(l.Features))
			if len(l.Features) > sampleFeatures {
				fmt.Fprintf(&b, ", the first %d", sampleFeatures)
			}
			b.WriteString("\n")
			for _, f := range l.Features[:min(len(l.Features), sampleFeatures)] {
				fmt.Fprintf(&b, "      %s", geometrySummary(f.Geometry))
				if f.ID != nil {
					fmt.Fprintf(&b, " id=%v", f.ID)
				}
				for _, k := range slices.Sorted(maps.Keys(f.Properties)) {
					fmt.Fprintf(&b, " %s=%s", k, value(f.Properties[k]))
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// vertices counts g's points.
func vertices(g orb.Geometry) int {
	switch g := g.(type) {
	case orb.Point:
		return 1
	case orb.MultiPoint:
		return len(g)
	case orb.LineString:
		return len(g)
	case orb.MultiLineString:
		n := 0
		for _, l := range g {
			n += len(l)
		}
		return n
	case orb.Ring:
		return len(g)
	case orb.Polygon:
		n := 0
		for _, r := range g {
			n += len(r)
		}
		return n
	case orb.MultiPolygon:
		n := 0
		for _, p := range g {
			n += vertices(p)
		}
		return n
	}
	return 0
}

// geometrySummary says what g is: its type, its parts and vertices, and its
// bounds in tile coordinates.
func geometrySummary(g orb.Geometry) string {
	if g == nil {
		return "no geometry"
	}
	bd := g.Bound()
	box := fmt.Sprintf("[%g,%g %g,%g]", bd.Min[0], bd.Min[1], bd.Max[0], bd.Max[1])
	switch g := g.(type) {
	case orb.Point:
		return fmt.Sprintf("Point %g,%g", g[0], g[1])
	case orb.Polygon:
		return fmt.Sprintf("Polygon of %s, %d vertices in %s", plural(len(g), "ring"), vertices(g), box)
	case orb.MultiPolygon:
		return fmt.Sprintf("MultiPolygon of %s, %d vertices in %s", plural(len(g), "polygon"), vertices(g), box)
	case orb.MultiLineString:
		return fmt.Sprintf("MultiLineString of %s, %d vertices in %s", plural(len(g), "line"), vertices(g), box)
	}
	return fmt.Sprintf("%s, %d vertices in %s", g.GeoJSONType(), vertices(g), box)
}

// plural is "1 ring", "2 rings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// value writes a property value: strings quoted, numbers as they are.
func value(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// checkGolden compares the summary of archives with
// testdata/demo-archives.txt, line by line.
func checkGolden(t *testing.T, archives []builtArchive) {
	t.Helper()
	got := summary(archives)
	path := filepath.Join("testdata", "demo-archives.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := string(b)
	if strings.Count(want, "\narchive ") < 10 {
		t.Fatalf("%s summarizes %d archives: too few to mean anything", path, strings.Count(want, "\narchive "))
	}
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	bad := 0
	archive := ""
	for i := range max(len(gl), len(wl)) {
		g, w := "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if strings.HasPrefix(w, "archive ") {
			archive = w
		}
		if g != w {
			if bad++; bad <= 10 {
				t.Errorf("%s, line %d:\n  got  %s\n  want %s", archive, i+1, g, w)
			}
		}
	}
	t.Errorf("%d lines differ from %s (rewrite it with -update if the change is meant)", bad, path)
}

// TestWholeBuildMatchesGolden: the in-memory Source builds the demo
// archives as testdata/demo-archives.txt summarizes them.
func TestWholeBuildMatchesGolden(t *testing.T) {
	store, svc := demo(t)
	checkGolden(t, demoArchives(t, wholeBuild(New(store, svc))))
}

// TestPartitionedBuildMatchesWhole: a partitioned Source makes every demo
// tile byte for byte as the Source holding its features does, in the same
// order, at the partition zoom builds use and at finer and coarser ones (a
// partition per zoom-10 or zoom-6 tile), where more features cross
// partitions.
func TestPartitionedBuildMatchesWhole(t *testing.T) {
	store, svc := demo(t)
	whole := demoArchives(t, wholeBuild(New(store, svc)))
	for _, z := range []maptile.Zoom{PartitionZoom, 10, 6} {
		t.Run(fmt.Sprint("z", z), func(t *testing.T) {
			dir := t.TempDir()
			s := NewPartitioned(store, svc, dir)
			s.partZoom = z
			got := demoArchives(t, wholeBuild(s))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			sameTiles(t, got, whole)
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("Close left %d files in %s", len(left), dir)
			}
		})
	}
}

// sameTiles checks that got has want's tiles, byte for byte and in order,
// naming each tile that differs, is missing or is extra.
func sameTiles(t *testing.T, got, want []builtArchive) {
	t.Helper()
	lines := func(as []builtArchive) []string {
		var out []string
		for _, a := range as {
			for _, tl := range a.tiles {
				out = append(out, a.name+" "+tl.key()+" "+tl.sum)
			}
		}
		return out
	}
	gl, wl := lines(got), lines(want)
	if len(wl) < 100 {
		t.Fatalf("the whole build made %d tiles: too few to mean anything", len(wl))
	}
	if slices.Equal(gl, wl) {
		return
	}
	index := func(lines []string) map[string]string {
		m := make(map[string]string, len(lines))
		for _, l := range lines {
			i := strings.LastIndexByte(l, ' ')
			m[l[:i]] = l[i+1:]
		}
		return m
	}
	g, w := index(gl), index(wl)
	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, l := range wl {
		k := l[:strings.LastIndexByte(l, ' ')]
		if h, ok := g[k]; !ok {
			report("%s: missing", k)
		} else if h != w[k] {
			report("%s: differs from the whole build's", k)
		}
	}
	for _, l := range gl {
		if k := l[:strings.LastIndexByte(l, ' ')]; w[k] == "" {
			report("%s: not in the whole build", k)
		}
	}
	if bad == 0 {
		report("the tiles are the whole build's but in another order")
	}
	t.Errorf("%d differences over %d tiles (got %d tiles)", bad, len(wl), len(gl))
}
