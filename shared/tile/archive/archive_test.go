package archive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"
	"github.com/protomaps/go-pmtiles/pmtiles"

	"meridian/shared/apierr"
	"meridian/shared/blob"
	"meridian/shared/blob/blobtest"
	"meridian/shared/tile/archive"
)

const archiveKey = "tiles/test.pmtiles"

// tile is one tile of a test tileset; nil data means no tile.
type tile struct {
	z    uint8
	x, y uint32
	data []byte
}

func testMeta() archive.Metadata {
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

// gzipper compresses test tile contents.
type gzipper struct {
	buf bytes.Buffer
	zw  *gzip.Writer
}

func (g *gzipper) gz(s string) []byte {
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

// testTiles returns every tile of zooms 0-7 in tile-ID order (21,845, enough
// entries for leaf directories) with:
//
//   - a run of identical "ocean" tiles from the end of zoom 6 into zoom 7
//     (one run per zoom, since runs do not cross zooms) and another inside
//     zoom 7;
//   - "land" tiles repeated all over (deduplicated, some in short runs);
//   - about 1% of tiles absent;
//   - every other tile unique.
func testTiles() []tile {
	var g gzipper
	ocean, land := g.gz("ocean"), g.gz("land")
	z7 := pmtiles.ZxyToID(7, 0, 0)
	end := pmtiles.ZxyToID(8, 0, 0)
	tiles := make([]tile, 0, end)
	for id := range end {
		z, x, y := pmtiles.IDToZxy(id)
		t := tile{z: z, x: x, y: y}
		switch {
		case id >= z7-200 && id < z7+1000, id >= z7+5000 && id < z7+6000:
			t.data = ocean
		case (x*31+y)%97 == 5:
		case z >= 3 && (x+2*y)%11 == 0:
			t.data = land
		default:
			t.data = g.gz(fmt.Sprintf("tile %d/%d/%d %s", z, x, y, strings.Repeat("x", int(id%40))))
		}
		tiles = append(tiles, t)
	}
	return tiles
}

// build writes tiles into an archive.
func build(tb testing.TB, tiles []tile, meta archive.Metadata) ([]byte, archive.Stats) {
	tb.Helper()
	tmp := tb.TempDir()
	w, err := archive.NewWriter(tmp, meta)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	for _, t := range tiles {
		if err := w.Add(t.z, t.x, t.y, t.data); err != nil {
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
	fixtureTiles []tile
	fixtureData  []byte
	fixtureStats archive.Stats
)

// fixture returns the test tiles and their archive, built once per process.
func fixture(tb testing.TB) ([]tile, []byte, archive.Stats) {
	tb.Helper()
	fixtureOnce.Do(func() {
		fixtureTiles = testTiles()
		fixtureData, fixtureStats = build(tb, fixtureTiles, testMeta())
	})
	if fixtureData == nil {
		tb.Fatal("building the fixture archive failed")
	}
	return fixtureTiles, fixtureData, fixtureStats
}

// stores returns the archive put into a directory, memory and gofakes3.
func stores(tb testing.TB, data []byte) map[string]blob.Store {
	tb.Helper()
	ctx := context.Background()
	dir := blob.NewDir(tb.TempDir())
	mem := blob.NewMem()
	s3 := blob.NewS3(blobtest.FakeS3(tb, "meridian"), "meridian", "", blob.S3Options{})
	out := map[string]blob.Store{"dir": dir, "mem": mem, "s3 (gofakes3)": s3}
	for name, s := range out {
		if err := s.(putter).Put(ctx, archiveKey, bytes.NewReader(data)); err != nil {
			tb.Fatalf("%s: Put: %v", name, err)
		}
	}
	return out
}

// putter is the writing side of blob.Dir, blob.Mem and blob.S3.
type putter interface {
	Put(ctx context.Context, key string, r io.Reader) error
}

// checkTiles reads every stride-th tile back through s, from 8 goroutines
// at once, and checks tiles that are not there.
func checkTiles(t *testing.T, s blob.Store, tiles []tile, stride int64) {
	ctx := context.Background()
	r, err := archive.Open(ctx, s, archiveKey)
	if err != nil {
		t.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := (next.Add(1) - 1) * stride; i < int64(len(tiles)); i = (next.Add(1) - 1) * stride {
				tl := tiles[i]
				got, ok, err := r.Tile(ctx, tl.z, tl.x, tl.y)
				if err != nil || ok != (tl.data != nil) || !bytes.Equal(got, tl.data) {
					t.Errorf("Tile(%d/%d/%d) = %d bytes, %v, %v; want %d bytes", tl.z, tl.x, tl.y, len(got), ok, err, len(tl.data))
					return
				}
			}
		})
	}
	wg.Wait()
	for _, tc := range []struct {
		z    uint8
		x, y uint32
	}{{8, 0, 0}, {12, 100, 100}, {3, 8, 0}, {0, 1, 0}, {40, 0, 0}} {
		if got, ok, err := r.Tile(ctx, tc.z, tc.x, tc.y); ok || err != nil || got != nil {
			t.Errorf("Tile(%d/%d/%d) = %d bytes, %v, %v; want no tile", tc.z, tc.x, tc.y, len(got), ok, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tiles, data, st := fixture(t)
	var want archive.Stats
	contents := map[string]bool{}
	for _, tl := range tiles {
		if tl.data != nil {
			want.Tiles++
			contents[string(tl.data)] = true
		}
	}
	if st.Tiles != want.Tiles || st.Contents != uint64(len(contents)) || st.Bytes != int64(len(data)) {
		t.Errorf("Stats = %+v, want %d tiles, %d contents, %d bytes", st, want.Tiles, len(contents), len(data))
	}
	if st.Entries >= st.Tiles-2000 || st.Leaves == 0 {
		t.Errorf("Stats = %+v: want runs (entries well below tiles) and leaf directories", st)
	}
	t.Logf("%+v", st)
	for name, s := range stores(t, data) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkTiles(t, s, tiles, 1)
		})
	}
}

// TestTilesOverExternalS3 reads a fifth of the tiles from the S3 emulator
// process at MERIDIAN_S3_ENDPOINT (see package blob); skipped without it.
func TestTilesOverExternalS3(t *testing.T) {
	const bucket = "meridian-archive-test"
	client := blobtest.ExternalS3(t, bucket)
	s := blob.NewS3(client, bucket, "", blob.S3Options{Timeout: 20 * time.Second})
	tiles, data, _ := fixture(t)
	if err := s.Put(context.Background(), archiveKey, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(archiveKey)})
	})
	checkTiles(t, s, tiles, 5) // s3rver takes 28 s for all 21,845
}

// TestGoPMTilesReadsArchive checks the archive with go-pmtiles' own
// verification and reader. Not parallel: pmtiles.Show prints to os.Stdout,
// which the test captures.
func TestGoPMTilesReadsArchive(t *testing.T) {
	tiles, data, _ := fixture(t)
	file := filepath.Join(t.TempDir(), "test.pmtiles")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	if err := pmtiles.Verify(log.New(&logs, "", 0), file); err != nil {
		t.Fatalf("Verify: %v\n%s", err, logs.String())
	}
	if strings.Contains(strings.ToLower(logs.String()), "invalid") {
		t.Errorf("Verify logged problems:\n%s", logs.String())
	}

	out, err := captureStdout(func() error {
		return pmtiles.Show(log.New(io.Discard, "", 0), io.Discard, "", file, false, false, false, "", false, 0, 0, 0)
	})
	if err != nil {
		t.Fatalf("Show: %v", err)
	}
	for _, want := range []string{
		"pmtiles spec version: 3", "tile type: mvt", "clustered: true",
		"internal compression: gzip", "tile compression: gzip",
		"min zoom: 0", "max zoom: 7", "center zoom: 5",
		"bounds: (long: -120.000000, lat: 49.000000) (long: -110.000000, lat: 60.000000)",
		"name test grid", "generator meridian", "version 1.0.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Show output lacks %q:\n%s", want, out)
		}
	}

	var meta bytes.Buffer
	if err := pmtiles.Show(log.New(io.Discard, "", 0), &meta, "", file, false, true, false, "", false, 0, 0, 0); err != nil {
		t.Fatalf("Show metadata: %v", err)
	}
	var got struct {
		VectorLayers []map[string]any `json:"vector_layers"`
	}
	if err := json.Unmarshal(meta.Bytes(), &got); err != nil {
		t.Fatalf("metadata JSON: %v\n%s", err, meta.String())
	}
	wantLayer := map[string]any{"id": "grid", "description": "cells", "minzoom": 0.0, "maxzoom": 7.0, "fields": map[string]any{"name": "String", "area": "Number"}}
	if len(got.VectorLayers) != 2 {
		t.Fatalf("vector_layers = %v, want 2 layers", got.VectorLayers)
	}
	if diff := cmp.Diff(wantLayer, got.VectorLayers[0]); diff != "" {
		t.Errorf("vector_layers[0] (-want +got):\n%s", diff)
	}

	// go-pmtiles' tile lookup agrees with ours on a sample of tiles.
	for i := 0; i < len(tiles); i += 997 {
		tl := tiles[i]
		if tl.data == nil {
			continue
		}
		var buf bytes.Buffer
		if err := pmtiles.Show(log.New(io.Discard, "", 0), &buf, "", file, false, false, false, "", true, int(tl.z), int(tl.x), int(tl.y)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), tl.data) {
			t.Errorf("pmtiles show %d/%d/%d: %d bytes, want %d", tl.z, tl.x, tl.y, buf.Len(), len(tl.data))
		}
	}
}

func captureStdout(fn func() error) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	err = fn()
	os.Stdout = old
	w.Close()
	return string(<-done), err
}

func TestHeaderAndMetadata(t *testing.T) {
	t.Parallel()
	_, data, st := fixture(t)
	ctx := context.Background()
	mem := blob.NewMem()
	mem.Put(ctx, archiveKey, bytes.NewReader(data))
	r, err := archive.Open(ctx, mem, archiveKey)
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := archive.Header{
		MinZoom: 0, MaxZoom: 7,
		Bounds:          orb.Bound{Min: orb.Point{-120, 49}, Max: orb.Point{-110, 60}},
		Center:          orb.Point{-114.07, 51.05},
		CenterZoom:      5,
		ContentEncoding: "gzip",
		AddressedTiles:  st.Tiles,
		TileEntries:     st.Entries,
		TileContents:    st.Contents,
		Clustered:       true,
	}
	if diff := cmp.Diff(wantHeader, r.Header()); diff != "" {
		t.Errorf("Header() (-want +got):\n%s", diff)
	}

	want := testMeta()
	want.Extra["generator"] = "meridian"
	for range 2 { // the second call is served from the cache
		got, err := r.Metadata(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Metadata() (-want +got):\n%s", diff)
		}
		got.VectorLayers[0].Fields["mutated"] = "String" // must not reach the cache
	}
	raw, err := r.MetadataJSON(ctx)
	if err != nil || !json.Valid(raw) || !bytes.Contains(raw, []byte(`"vector_layers":[{"id":"grid"`)) {
		t.Errorf("MetadataJSON() = %s, %v", raw, err)
	}
	if n := r.Reads(); n != 1 {
		t.Errorf("Open and Metadata made %d range reads, want 1 (metadata is in the first 16 KiB)", n)
	}
}

func TestMetadataDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	meta := archive.Metadata{
		Bounds:       orb.Bound{Min: orb.Point{-2, -1}, Max: orb.Point{4, 3}},
		MinZoom:      2,
		MaxZoom:      9,
		CenterZoom:   12,
		VectorLayers: []archive.VectorLayer{{ID: "only"}},
	}
	var g gzipper
	data, _ := build(t, []tile{{3, 1, 1, g.gz("a")}, {4, 0, 0, g.gz("b")}}, meta)
	mem := blob.NewMem()
	mem.Put(ctx, archiveKey, bytes.NewReader(data))
	r, err := archive.Open(ctx, mem, archiveKey)
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if h.Center != (orb.Point{1, 1}) || h.CenterZoom != 4 || h.MinZoom != 3 || h.MaxZoom != 4 {
		t.Errorf("Header() = %+v, want center (1 1) at zoom 4 (clamped), zooms 3-4 (the tiles')", h)
	}
	raw, _ := r.MetadataJSON(ctx)
	if !bytes.Contains(raw, []byte(`"fields":{}`)) || !bytes.Contains(raw, []byte(`"generator":"meridian"`)) {
		t.Errorf("MetadataJSON() = %s, want an empty fields object and the generator", raw)
	}
}

// TestReadsPerTile checks the read budget: Open reads once; a cold tile
// reads its leaf and its data; a warm one only its data.
func TestReadsPerTile(t *testing.T) {
	t.Parallel()
	tiles, data, _ := fixture(t)
	ctx := context.Background()
	counting := blob.NewCounting(stores(t, data)["dir"])
	r, err := archive.Open(ctx, counting, archiveKey)
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, tl tile, want int64) {
		t.Helper()
		before := r.Reads()
		if _, ok, err := r.Tile(ctx, tl.z, tl.x, tl.y); !ok || err != nil {
			t.Fatalf("Tile(%d/%d/%d) = %v, %v", tl.z, tl.x, tl.y, ok, err)
		}
		if got := r.Reads() - before; got != want {
			t.Errorf("%s: %d range reads, want %d", what, got, want)
		}
	}
	if r.Reads() != 1 {
		t.Errorf("Open: %d range reads, want 1", r.Reads())
	}
	last := presentAt(tiles, len(tiles)-1)
	step("cold tile", last, 2)
	step("same tile again", last, 1)
	step("neighbour in the same leaf", presentAt(tiles, len(tiles)-5), 1)
	step("tile in another leaf", presentAt(tiles, 10), 2)
	if got, want := counting.Stats().Reads, r.Reads(); got != want {
		t.Errorf("the store saw %d reads, Reads() says %d", got, want)
	}
}

// presentAt returns the last tile with data at or before index i.
func presentAt(tiles []tile, i int) tile {
	for tiles[i].data == nil {
		i--
	}
	return tiles[i]
}

func TestAddRejects(t *testing.T) {
	t.Parallel()
	var g gzipper
	d := g.gz("tile")
	for _, tc := range []struct {
		name  string
		tiles []tile
		want  string
	}{
		{"same tile twice", []tile{{3, 1, 1, d}, {3, 1, 1, d}}, "ascending tile-ID order"},
		{"lower Hilbert position", []tile{{2, 1, 1, d}, {2, 0, 0, d}}, "added after 2/1/1"},
		{"lower zoom after higher", []tile{{4, 0, 0, d}, {3, 0, 0, d}}, "ascending tile-ID order"},
		{"out of order after an empty tile", []tile{{3, 5, 5, nil}, {3, 0, 0, d}}, "ascending tile-ID order"},
		{"x beyond the zoom", []tile{{2, 4, 0, d}}, "does not exist"},
		{"zoom above the metadata's", []tile{{8, 0, 0, d}}, "outside the zoom range 0-7"},
		{"not gzip", []tile{{1, 0, 0, []byte("\x1a\x02mvt")}}, "not gzip-compressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := archive.NewWriter(t.TempDir(), testMeta())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for i, tl := range tc.tiles {
				err = w.Add(tl.z, tl.x, tl.y, tl.data)
				if i < len(tc.tiles)-1 && err != nil {
					t.Fatalf("Add(%d/%d/%d) = %v, want nil", tl.z, tl.x, tl.y, err)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("last Add = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestWriterRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*archive.Metadata)
		want string
	}{
		{"no bounds", func(m *archive.Metadata) { m.Bounds = orb.Bound{} }, "bounds"},
		{"bounds beyond the world", func(m *archive.Metadata) { m.Bounds.Max[0] = 181 }, "bounds"},
		{"zooms reversed", func(m *archive.Metadata) { m.MinZoom, m.MaxZoom = 5, 4 }, "zooms"},
		{"zoom too deep", func(m *archive.Metadata) { m.MaxZoom = 32 }, "zooms"},
		{"no layers", func(m *archive.Metadata) { m.VectorLayers = nil }, "no vector layers"},
		{"repeated layer", func(m *archive.Metadata) { m.VectorLayers[1].ID = "grid" }, "repeated"},
		{"reserved extra key", func(m *archive.Metadata) { m.Extra["vector_layers"] = "x" }, "reserved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := testMeta()
			tc.edit(&m)
			if _, err := archive.NewWriter(t.TempDir(), m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewWriter = %v, want an error containing %q", err, tc.want)
			}
		})
	}

	w, err := archive.NewWriter(t.TempDir(), testMeta())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(0, 0, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Finish(io.Discard); err == nil || !strings.Contains(err.Error(), "no tiles") {
		t.Errorf("Finish with only empty tiles = %v, want an error about no tiles", err)
	}
	if err := w.Add(1, 0, 0, []byte{0x1f, 0x8b}); err == nil {
		t.Error("Add after Finish succeeded")
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	_, data, _ := fixture(t)
	rootLen := binary.LittleEndian.Uint64(data[16:24])
	patch := func(at int, b ...byte) []byte {
		d := bytes.Clone(data)
		copy(d[at:], b)
		return d
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty object", nil, "not a PMTiles archive"},
		{"a gzip file", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03hello, world"), "not a PMTiles archive"},
		{"shorter than the header", data[:100], "truncated: 100 bytes"},
		{"PMTiles v2", append([]byte("PM\x02\x00"), make([]byte, 600)...), "spec version 2"},
		{"PMTiles v4", patch(7, 4), "spec version 4"},
		{"raster tiles", patch(99, pmtiles.Png), "tiles are PNG, not MVT"},
		{"brotli tiles", patch(98, pmtiles.Brotli), "tile compression brotli is not supported"},
		{"zstd directories", patch(97, pmtiles.Zstd), "internal compression zstd is not supported"},
		{"truncated", data[:len(data)/2], "truncated: the tile data end"},
		{"corrupt root", patch(127+int(rootLen)/2, 0xde, 0xad, 0xbe, 0xef), "root directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			mem := blob.NewMem()
			mem.Put(ctx, archiveKey, bytes.NewReader(tc.data))
			_, err := archive.Open(ctx, mem, archiveKey)
			var fe *archive.FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open = %v, want a *FormatError containing %q", err, tc.want)
			}
		})
	}
}

// stubStore fails on demand.
type stubStore struct {
	blob.Store
	statErr error
	reads   atomic.Int64
	okReads int64 // ReadRange calls that succeed before readErr is returned
	readErr error
}

func (s *stubStore) Stat(ctx context.Context, key string) (blob.Info, error) {
	if s.statErr != nil {
		return blob.Info{}, s.statErr
	}
	return s.Store.Stat(ctx, key)
}

func (s *stubStore) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if s.reads.Add(1) > s.okReads && s.readErr != nil {
		return nil, s.readErr
	}
	return s.Store.ReadRange(ctx, key, off, n)
}

func TestStoreFailures(t *testing.T) {
	t.Parallel()
	tiles, data, _ := fixture(t)
	ctx := context.Background()
	mem := blob.NewMem()
	mem.Put(ctx, archiveKey, bytes.NewReader(data))
	down := fmt.Errorf("s3: SlowDown: %w", blob.ErrUnavailable)
	last := presentAt(tiles, len(tiles)-1)

	is503 := func(t *testing.T, what string, err error) {
		t.Helper()
		if e := apierr.As(err); e == nil || e.Kind != apierr.Unavailable || !errors.Is(err, blob.ErrUnavailable) {
			t.Errorf("%s = %v, want a 503 apierr wrapping blob.ErrUnavailable", what, err)
		}
	}
	t.Run("stat", func(t *testing.T) {
		_, err := archive.Open(ctx, &stubStore{Store: mem, statErr: down}, archiveKey)
		is503(t, "Open", err)
	})
	t.Run("first read", func(t *testing.T) {
		_, err := archive.Open(ctx, &stubStore{Store: mem, readErr: down}, archiveKey)
		is503(t, "Open", err)
	})
	for _, okReads := range []int64{1, 2} { // Open's read succeeds; then the leaf read fails, or the tile read
		t.Run(fmt.Sprintf("read %d of a tile", okReads), func(t *testing.T) {
			r, err := archive.Open(ctx, &stubStore{Store: mem, okReads: okReads, readErr: down}, archiveKey)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = r.Tile(ctx, last.z, last.x, last.y)
			is503(t, "Tile", err)
		})
	}
	t.Run("missing archive", func(t *testing.T) {
		_, err := archive.Open(ctx, mem, "tiles/none.pmtiles")
		if e := apierr.As(err); e == nil || e.Kind != apierr.Unavailable || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open = %v, want a 503 apierr that errors.Is fs.ErrNotExist (for callers answering 404)", err)
		}
	})
}

func TestETag(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, data, _ := fixture(t)
	var g gzipper
	other, _ := build(t, []tile{{0, 0, 0, g.gz("other")}}, testMeta())
	mem := blob.NewMem()
	open := func() string {
		t.Helper()
		r, err := archive.Open(ctx, mem, archiveKey)
		if err != nil {
			t.Fatal(err)
		}
		return r.ETag()
	}
	mem.Put(ctx, archiveKey, bytes.NewReader(data))
	a1, a2 := open(), open()
	mem.Put(ctx, archiveKey, bytes.NewReader(other))
	b := open()
	if a1 != a2 || a1 == b || len(a1) < 10 || a1[0] != '"' || a1[len(a1)-1] != '"' {
		t.Errorf("ETags %s, %s, then %s after replacing the archive: want quoted, stable, and changed", a1, a2, b)
	}
}

// The writer keeps tile data on disk: adding 5 times as many 4 KiB tiles
// (80 MiB more data) grows the live heap only by their directory entries
// and hashes (about 2 MiB).
func TestWriterMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MiB of tile data")
	}
	peak := func(n int) uint64 {
		meta := testMeta()
		meta.MaxZoom = 10
		w, err := archive.NewWriter(t.TempDir(), meta)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		data := make([]byte, 4<<10)
		data[0], data[1] = 0x1f, 0x8b
		var max uint64
		i := 0
		for id := pmtiles.ZxyToID(10, 0, 0); i < n; id++ {
			z, x, y := pmtiles.IDToZxy(id)
			binary.LittleEndian.PutUint64(data[8:], id) // every tile distinct
			if err := w.Add(z, x, y, data); err != nil {
				t.Fatal(err)
			}
			if i++; i%2500 == 0 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				max = maxU(max, ms.HeapAlloc)
			}
		}
		if _, err := w.Finish(io.Discard); err != nil {
			t.Fatal(err)
		}
		return max
	}
	small, large := peak(5000), peak(25000)
	t.Logf("live heap while adding: %d KiB for 5,000 tiles, %d KiB for 25,000 (80 MiB more data)", small>>10, large>>10)
	if large > small+8<<20 {
		t.Errorf("the writer's heap grew with its data: %d KiB at 5,000 tiles, %d KiB at 25,000", small>>10, large>>10)
	}
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// FuzzOpen feeds arbitrary bytes to Open and, when they open, to Tile and
// Metadata: corrupt archives must give errors, never panics or runaway
// allocations.
func FuzzOpen(f *testing.F) {
	var g gzipper
	small, _ := build(f, []tile{{0, 0, 0, g.gz("a")}, {1, 0, 0, g.gz("b")}, {1, 0, 1, g.gz("b")}, {1, 1, 1, g.gz("a")}}, testMeta())
	f.Add(small)
	f.Add(small[:200])
	f.Add([]byte("PMTiles\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		mem := blob.NewMem()
		mem.Put(ctx, archiveKey, bytes.NewReader(data))
		r, err := archive.Open(ctx, mem, archiveKey)
		if err != nil {
			return
		}
		for id := range uint64(6) {
			z, x, y := pmtiles.IDToZxy(id)
			r.Tile(ctx, z, x, y)
		}
		r.Metadata(ctx)
	})
}

// BenchmarkTileRead reads tiles from a local file and from gofakes3: cold
// (Open, then one tile) and warm (an open Reader with its leaves cached).
func BenchmarkTileRead(b *testing.B) {
	tiles, data, _ := fixture(b)
	var present []tile
	for _, tl := range tiles {
		if tl.data != nil {
			present = append(present, tl)
		}
	}
	ctx := context.Background()
	all := stores(b, data)
	for _, name := range []string{"dir", "s3 (gofakes3)"} {
		for _, cold := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/cold=%v", name, cold), func(b *testing.B) {
				c := blob.NewCounting(all[name])
				r, err := archive.Open(ctx, c, archiveKey)
				if err != nil {
					b.Fatal(err)
				}
				for _, tl := range present { // warm every leaf
					r.Tile(ctx, tl.z, tl.x, tl.y)
				}
				c.Reset()
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					tl := present[i*7919%len(present)]
					i++
					if cold {
						if r, err = archive.Open(ctx, c, archiveKey); err != nil {
							b.Fatal(err)
						}
					}
					if _, ok, err := r.Tile(ctx, tl.z, tl.x, tl.y); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
				st := c.Stats()
				b.ReportMetric(float64(st.Reads)/float64(b.N), "reads/op")
			})
		}
	}
}

// BenchmarkWriter writes the 21,845-tile test tileset to io.Discard.
func BenchmarkWriter(b *testing.B) {
	tiles, _, _ := fixture(b)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		w, err := archive.NewWriter(dir, testMeta())
		if err != nil {
			b.Fatal(err)
		}
		for _, tl := range tiles {
			if err := w.Add(tl.z, tl.x, tl.y, tl.data); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Finish(io.Discard); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
	b.ReportMetric(float64(len(tiles)*b.N)/b.Elapsed().Seconds(), "tiles/s")
}
