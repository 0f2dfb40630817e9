package datalayers

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb/maptile"

	"meridian/shared/tile"
)

var update = flag.Bool("update", false, "rewrite testdata/demo-archives.golden")

// hashSink records each tile a build hands it: "name z/x/y sha256", the
// hash of the tile's MVT bytes (decompressed: the golden holds what a
// tile says, whatever compressor wrote it).
type hashSink struct {
	name  string
	lines []string
}

func (h *hashSink) Add(z uint8, x, y uint32, data []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s %d/%d/%d: %w", h.name, z, x, y, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("%s %d/%d/%d: %w", h.name, z, x, y, err)
	}
	sum := sha256.Sum256(raw)
	h.lines = append(h.lines, fmt.Sprintf("%s %d/%d/%d %s", h.name, z, x, y, hex.EncodeToString(sum[:12])))
	return nil
}

// archiveBuilder is how a test builds one archive: the whole-store Source
// (tile.Build over its BuildOptions) or a partitioned build.
type archiveBuilder func(ctx context.Context, l tile.Layer, sink tile.Sink) error

// demoTiles builds every archive of the demo data with build and returns
// one line per tile, in the order the sink got them.
func demoTiles(t *testing.T, build archiveBuilder) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, name := range Names() {
		l := layer(t, name)
		h := &hashSink{name: name}
		if err := build(ctx, l, h); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, h.lines...)
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

// checkGolden compares the tiles with testdata/demo-archives.golden, the
// tiles of every demo archive as built before builds were partitioned.
func checkGolden(t *testing.T, got []string) {
	t.Helper()
	path := filepath.Join("testdata", "demo-archives.golden")
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 100 {
		t.Fatalf("golden has %d tiles: too few to mean anything", len(want))
	}
	// By tile, so that a missing tile shows as itself, not as a shift.
	index := func(lines []string) map[string]string {
		m := make(map[string]string, len(lines))
		for _, l := range lines {
			i := strings.LastIndexByte(l, ' ')
			m[l[:i]] = l[i+1:]
		}
		return m
	}
	g, w := index(got), index(want)
	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, l := range want {
		k := l[:strings.LastIndexByte(l, ' ')]
		if h, ok := g[k]; !ok {
			report("%s: missing", k)
		} else if h != w[k] {
			report("%s: differs", k)
		}
	}
	for _, l := range got {
		if k := l[:strings.LastIndexByte(l, ' ')]; w[k] == "" {
			report("%s: not in the golden", k)
		}
	}
	if bad == 0 && !slices.Equal(got, want) {
		report("the tiles are the same but in another order")
	}
	if bad > 0 {
		t.Errorf("%d differences over %d tiles (got %d tiles)", bad, len(want), len(got))
	}
}

// TestWholeBuildMatchesGolden: the in-memory Source still makes every demo
// tile byte for byte as before.
func TestWholeBuildMatchesGolden(t *testing.T) {
	store, svc := demo(t)
	checkGolden(t, demoTiles(t, wholeBuild(New(store, svc))))
}

// TestPartitionedBuildMatchesGolden: a partitioned Source makes every demo
// tile byte for byte as the Source holding its features did, at the
// partition zoom builds use and at finer and coarser ones (a partition
// per zoom-10 or zoom-6 tile), where more features cross partitions.
func TestPartitionedBuildMatchesGolden(t *testing.T) {
	store, svc := demo(t)
	for _, z := range []maptile.Zoom{PartitionZoom, 10, 6} {
		t.Run(fmt.Sprint("z", z), func(t *testing.T) {
			dir := t.TempDir()
			s := NewPartitioned(store, svc, dir)
			s.partZoom = z
			got := demoTiles(t, wholeBuild(s))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, got)
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("Close left %d files in %s", len(left), dir)
			}
		})
	}
}
