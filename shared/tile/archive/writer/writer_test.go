package writer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"
	"github.com/protomaps/go-pmtiles/pmtiles"
	"meridian/shared/blob"
	"meridian/shared/tile/archive"
	"meridian/shared/tile/archive/internal/archivetest"
	"meridian/shared/tile/archive/writer"
)

const archiveKey = "tiles/test.pmtiles"

// open opens data with package archive's reader.
func open(t *testing.T, data []byte) *archive.Reader {
	t.Helper()
	ctx := context.Background()
	mem := blob.NewMem()
	if err := mem.Put(ctx, archiveKey, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	r, err := archive.Open(ctx, mem, archiveKey)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRoundTrip checks the fixture archive's Stats and reads every tile back.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tiles, data, st := archivetest.Fixture(t)
	var want writer.Stats
	contents := map[string]bool{}
	for _, tl := range tiles {
		if tl.Data != nil {
			want.Tiles++
			contents[string(tl.Data)] = true
		}
	}
	if st.Tiles != want.Tiles || st.Contents != uint64(len(contents)) || st.Bytes != int64(len(data)) {
		t.Errorf("Stats = %+v, want %d tiles, %d contents, %d bytes", st, want.Tiles, len(contents), len(data))
	}
	if st.Entries >= st.Tiles-2000 || st.Leaves == 0 {
		t.Errorf("Stats = %+v: want runs (entries well below tiles) and leaf directories", st)
	}
	t.Logf("%+v", st)

	ctx := context.Background()
	r := open(t, data)
	for _, tl := range tiles {
		got, ok, err := r.Tile(ctx, tl.Z, tl.X, tl.Y)
		if err != nil || ok != (tl.Data != nil) || !bytes.Equal(got, tl.Data) {
			t.Fatalf("Tile(%d/%d/%d) = %d bytes, %v, %v; want %d bytes", tl.Z, tl.X, tl.Y, len(got), ok, err, len(tl.Data))
		}
	}
}

// TestGoPMTilesReadsArchive checks the archive with go-pmtiles' own
// verification and reader. Not parallel: pmtiles.Show prints to os.Stdout,
// which the test captures.
func TestGoPMTilesReadsArchive(t *testing.T) {
	tiles, data, _ := archivetest.Fixture(t)
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

	// go-pmtiles' tile lookup finds what was added, on a sample of tiles.
	for i := 0; i < len(tiles); i += 997 {
		tl := tiles[i]
		if tl.Data == nil {
			continue
		}
		var buf bytes.Buffer
		if err := pmtiles.Show(log.New(io.Discard, "", 0), &buf, "", file, false, false, false, "", true, int(tl.Z), int(tl.X), int(tl.Y)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), tl.Data) {
			t.Errorf("pmtiles show %d/%d/%d: %d bytes, want %d", tl.Z, tl.X, tl.Y, buf.Len(), len(tl.Data))
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

func TestMetadataDefaults(t *testing.T) {
	t.Parallel()
	meta := archive.Metadata{
		Bounds:       orb.Bound{Min: orb.Point{-2, -1}, Max: orb.Point{4, 3}},
		MinZoom:      2,
		MaxZoom:      9,
		CenterZoom:   12,
		VectorLayers: []archive.VectorLayer{{ID: "only"}},
	}
	var g archivetest.Gzipper
	data, _ := archivetest.Build(t, []archivetest.Tile{{Z: 3, X: 1, Y: 1, Data: g.Gzip("a")}, {Z: 4, X: 0, Y: 0, Data: g.Gzip("b")}}, meta)
	r := open(t, data)
	h := r.Header()
	if h.Center != (orb.Point{1, 1}) || h.CenterZoom != 4 || h.MinZoom != 3 || h.MaxZoom != 4 {
		t.Errorf("Header() = %+v, want center (1 1) at zoom 4 (clamped), zooms 3-4 (the tiles')", h)
	}
	raw, _ := r.MetadataJSON(context.Background())
	if !bytes.Contains(raw, []byte(`"fields":{}`)) || !bytes.Contains(raw, []byte(`"generator":"meridian"`)) {
		t.Errorf("MetadataJSON() = %s, want an empty fields object and the generator", raw)
	}
}

// TestMetadataIsCopied checks that New keeps what it needs of the metadata:
// changing the caller's maps afterwards does not reach the archive.
func TestMetadataIsCopied(t *testing.T) {
	t.Parallel()
	meta := archivetest.Meta()
	w, err := writer.New(t.TempDir(), meta)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	meta.Extra["version"] = "changed"
	meta.VectorLayers[0].ID = "changed"
	var g archivetest.Gzipper
	if err := w.Add(0, 0, 0, g.Gzip("a")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := w.Finish(&out); err != nil {
		t.Fatal(err)
	}
	got, err := open(t, out.Bytes()).Metadata(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Extra["version"] != "1.0.0" || got.VectorLayers[0].ID != "grid" {
		t.Errorf("Metadata() = %+v, want the metadata as it was at New", got)
	}
}

func TestAddRejects(t *testing.T) {
	t.Parallel()
	var g archivetest.Gzipper
	d := g.Gzip("tile")
	tl := func(z uint8, x, y uint32, data []byte) archivetest.Tile {
		return archivetest.Tile{Z: z, X: x, Y: y, Data: data}
	}
	for _, tc := range []struct {
		name  string
		tiles []archivetest.Tile
		want  string
	}{
		{"same tile twice", []archivetest.Tile{tl(3, 1, 1, d), tl(3, 1, 1, d)}, "ascending tile-ID order"},
		{"lower Hilbert position", []archivetest.Tile{tl(2, 1, 1, d), tl(2, 0, 0, d)}, "added after 2/1/1"},
		{"lower zoom after higher", []archivetest.Tile{tl(4, 0, 0, d), tl(3, 0, 0, d)}, "ascending tile-ID order"},
		{"out of order after an empty tile", []archivetest.Tile{tl(3, 5, 5, nil), tl(3, 0, 0, d)}, "added after 3/5/5"},
		{"x beyond the zoom", []archivetest.Tile{tl(2, 4, 0, d)}, "does not exist"},
		{"zoom above the metadata's", []archivetest.Tile{tl(8, 0, 0, d)}, "outside the zoom range 0-7"},
		{"not gzip", []archivetest.Tile{tl(1, 0, 0, []byte("\x1a\x02mvt"))}, "not gzip-compressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := writer.New(t.TempDir(), archivetest.Meta())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for i, tl := range tc.tiles {
				err = w.Add(tl.Z, tl.X, tl.Y, tl.Data)
				if i < len(tc.tiles)-1 && err != nil {
					t.Fatalf("Add(%d/%d/%d) = %v, want nil", tl.Z, tl.X, tl.Y, err)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("last Add = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
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
			m := archivetest.Meta()
			tc.edit(&m)
			if _, err := writer.New(t.TempDir(), m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestFinishRejects(t *testing.T) {
	t.Parallel()
	w, err := writer.New(t.TempDir(), archivetest.Meta())
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
	if _, err := w.Finish(io.Discard); err == nil {
		t.Error("second Finish succeeded")
	}
	if err := w.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// BenchmarkWriter writes the 21,845-tile test tileset to io.Discard.
func BenchmarkWriter(b *testing.B) {
	tiles, _, _ := archivetest.Fixture(b)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		w, err := writer.New(dir, archivetest.Meta())
		if err != nil {
			b.Fatal(err)
		}
		for _, tl := range tiles {
			if err := w.Add(tl.Z, tl.X, tl.Y, tl.Data); err != nil {
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
