package archive_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/blob"
	"meridian/shared/blob/s3blob"
	"meridian/shared/blob/s3blob/s3blobtest"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/internal/archivetest"
)

const archiveKey = "tiles/test.pmtiles"

// stores returns the archive put into a directory, memory and gofakes3.
func stores(tb testing.TB, data []byte) map[string]blob.Store {
	tb.Helper()
	ctx := context.Background()
	dir := blob.NewDir(tb.TempDir())
	mem := blob.NewMem()
	s3 := s3blob.New(s3blobtest.FakeS3(tb, "meridian"), "meridian", "", s3blob.Options{Timeout: 30 * time.Second}) // the emulator is slow on a loaded machine
	out := map[string]blob.Store{"dir": dir, "mem": mem, "s3 (gofakes3)": s3}
	for name, s := range out {
		if err := s.(putter).Put(ctx, archiveKey, bytes.NewReader(data)); err != nil {
			tb.Fatalf("%s: Put: %v", name, err)
		}
	}
	return out
}

// putter is the writing side of blob.Dir, blob.Mem and s3blob.Store.
type putter interface {
	Put(ctx context.Context, key string, r io.Reader) error
}

// checkTiles reads every stride-th tile back through s, from 8 goroutines
// at once, and checks tiles that are not there.
func checkTiles(t *testing.T, s blob.Store, tiles []archivetest.Tile, stride int64) {
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
				got, ok, err := r.Tile(ctx, tl.Z, tl.X, tl.Y)
				if err != nil || ok != (tl.Data != nil) || !bytes.Equal(got, tl.Data) {
					t.Errorf("Tile(%d/%d/%d) = %d bytes, %v, %v; want %d bytes", tl.Z, tl.X, tl.Y, len(got), ok, err, len(tl.Data))
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

// TestTiles reads every tile of the fixture back from a directory, memory
// and gofakes3.
func TestTiles(t *testing.T) {
	t.Parallel()
	tiles, data, _ := archivetest.Fixture(t)
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
	client := s3blobtest.ExternalS3(t, bucket)
	s := s3blob.New(client, bucket, "", s3blob.Options{Timeout: 20 * time.Second})
	tiles, data, _ := archivetest.Fixture(t)
	if err := s.Put(context.Background(), archiveKey, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(archiveKey)})
	})
	checkTiles(t, s, tiles, 5) // s3rver takes 28 s for all 21,845
}

func TestHeaderAndMetadata(t *testing.T) {
	t.Parallel()
	_, data, st := archivetest.Fixture(t)
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

	want := archivetest.Meta()
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

// TestReadsPerTile checks the read budget: Open reads once (the fixture's
// leaf section lies within the first read, and Open keeps it); every
// tile, cold or warm, then reads only its data.
func TestReadsPerTile(t *testing.T) {
	t.Parallel()
	tiles, data, _ := archivetest.Fixture(t)
	ctx := context.Background()
	counting := blob.NewCounting(stores(t, data)["dir"])
	r, err := archive.Open(ctx, counting, archiveKey)
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, tl archivetest.Tile, want int64) {
		t.Helper()
		before := r.Reads()
		if _, ok, err := r.Tile(ctx, tl.Z, tl.X, tl.Y); !ok || err != nil {
			t.Fatalf("Tile(%d/%d/%d) = %v, %v", tl.Z, tl.X, tl.Y, ok, err)
		}
		if got := r.Reads() - before; got != want {
			t.Errorf("%s: %d range reads, want %d", what, got, want)
		}
	}
	if r.Reads() != 1 {
		t.Errorf("Open: %d range reads, want 1", r.Reads())
	}
	last := archivetest.PresentAt(tiles, len(tiles)-1)
	step("cold tile", last, 1)
	step("same tile again", last, 1)
	step("neighbour in the same leaf", archivetest.PresentAt(tiles, len(tiles)-5), 1)
	step("tile in another leaf", archivetest.PresentAt(tiles, 10), 1)
	if got, want := counting.Stats().Reads, r.Reads(); got != want {
		t.Errorf("the store saw %d reads, Reads() says %d", got, want)
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	_, data, _ := archivetest.Fixture(t)
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
		// Bytes 97, 98 and 99 are the internal compression, the tile
		// compression and the tile type; the values are the spec's.
		{"raster tiles", patch(99, 2), "tiles are PNG, not MVT"},
		{"brotli tiles", patch(98, 3), "tile compression brotli is not supported"},
		{"zstd directories", patch(97, 4), "internal compression zstd is not supported"},
		{"unknown tile type", patch(99, 0), "tiles are of unknown type 0, not MVT"},
		{"zooms reversed", patch(100, 5, 4), "zoom range 5-4 is invalid"},
		{"root beyond 16 MiB", patch(16, 0, 0, 0, 1), "truncated: the root directory end"},
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
	tiles, data, _ := archivetest.Fixture(t)
	ctx := context.Background()
	mem := blob.NewMem()
	mem.Put(ctx, archiveKey, bytes.NewReader(data))
	down := fmt.Errorf("s3: SlowDown: %w", blob.ErrUnavailable)
	last := archivetest.PresentAt(tiles, len(tiles)-1)

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
	for _, okReads := range []int64{1} { // Open's read (leaves included) succeeds; then the tile read fails
		t.Run(fmt.Sprintf("read %d of a tile", okReads), func(t *testing.T) {
			r, err := archive.Open(ctx, &stubStore{Store: mem, okReads: okReads, readErr: down}, archiveKey)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = r.Tile(ctx, last.Z, last.X, last.Y)
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
	_, data, _ := archivetest.Fixture(t)
	var g archivetest.Gzipper
	other, _ := archivetest.Build(t, []archivetest.Tile{{Z: 0, X: 0, Y: 0, Data: g.Gzip("other")}}, archivetest.Meta())
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

// FuzzOpen feeds arbitrary bytes to Open and, when they open, to Tile and
// Metadata: corrupt archives must give errors, never panics or runaway
// allocations.
func FuzzOpen(f *testing.F) {
	var g archivetest.Gzipper
	small, _ := archivetest.Build(f, []archivetest.Tile{
		{Z: 0, X: 0, Y: 0, Data: g.Gzip("a")}, {Z: 1, X: 0, Y: 0, Data: g.Gzip("b")},
		{Z: 1, X: 0, Y: 1, Data: g.Gzip("b")}, {Z: 1, X: 1, Y: 1, Data: g.Gzip("a")},
	}, archivetest.Meta())
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
		for _, tl := range archivetest.ByID(2) {
			r.Tile(ctx, tl.Z, tl.X, tl.Y)
		}
		r.Metadata(ctx)
	})
}

// BenchmarkTileRead reads tiles from a local file and from gofakes3: cold
// (Open, then one tile) and warm (an open Reader with its leaves cached).
func BenchmarkTileRead(b *testing.B) {
	tiles, data, _ := archivetest.Fixture(b)
	var present []archivetest.Tile
	for _, tl := range tiles {
		if tl.Data != nil {
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
					r.Tile(ctx, tl.Z, tl.X, tl.Y)
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
					if _, ok, err := r.Tile(ctx, tl.Z, tl.X, tl.Y); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
				st := c.Stats()
				b.ReportMetric(float64(st.Reads)/float64(b.N), "reads/op")
			})
		}
	}
}

// TestLeavesBeyondTheFirstRead checks an archive whose leaf section ends
// past Open's first read: Open reads it once more, whole, and then every
// tile, whichever leaf it is in, costs only its own read.
func TestLeavesBeyondTheFirstRead(t *testing.T) {
	t.Parallel()
	var g archivetest.Gzipper
	// Half the tiles of zooms 0-8, drawn at random, of random lengths: a
	// leaf section that does not compress to almost nothing.
	rng := rand.New(rand.NewPCG(1, 2))
	var tiles []archivetest.Tile
	for _, tl := range archivetest.ByID(8) {
		if rng.IntN(2) == 0 {
			tl.Data = g.Gzip(fmt.Sprintf("tile %d/%d/%d %s", tl.Z, tl.X, tl.Y, strings.Repeat("x", rng.IntN(300))))
			tiles = append(tiles, tl)
		}
	}
	meta := archivetest.Meta()
	meta.MaxZoom = 8
	for i := range meta.VectorLayers {
		meta.VectorLayers[i].MaxZoom = 8
	}
	data, _ := archivetest.Build(t, tiles, meta)
	leafOff, leafLen := binary.LittleEndian.Uint64(data[40:48]), binary.LittleEndian.Uint64(data[48:56])
	if leafOff+leafLen <= 16<<10 {
		t.Fatalf("leaf section ends at %d: within the first read, not what this test is for", leafOff+leafLen)
	}
	ctx := context.Background()
	r, err := archive.Open(ctx, stores(t, data)["mem"], archiveKey)
	if err != nil {
		t.Fatal(err)
	}
	if r.Reads() != 2 {
		t.Errorf("Open: %d range reads, want 2 (the first 16 KiB, then the leaf section)", r.Reads())
	}
	for _, i := range []int{len(tiles) - 1, 5000, 40000, 21845, len(tiles) / 2, 30000} {
		tl := tiles[i]
		before := r.Reads()
		got, ok, err := r.Tile(ctx, tl.Z, tl.X, tl.Y)
		if err != nil || !ok || !bytes.Equal(got, tl.Data) {
			t.Fatalf("Tile(%d/%d/%d) = %d bytes, %v, %v", tl.Z, tl.X, tl.Y, len(got), ok, err)
		}
		if n := r.Reads() - before; n != 1 {
			t.Errorf("tile %d/%d/%d: %d range reads, want 1 (its data)", tl.Z, tl.X, tl.Y, n)
		}
	}
}
