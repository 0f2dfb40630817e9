package datalayers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"meridian/shared/blob"
	"meridian/shared/datadir"
	"meridian/shared/kv"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
)

// BuildDomain writes an archive per energy layer with data, each opening
// with its layer's name, zooms and attribution, its tiles summing to what
// it reports; it marks the domain built and leaves no spool or temporary
// file behind.
func TestBuildDomain(t *testing.T) {
	ctx := context.Background()
	store, svc := demo(t)
	data := datadir.Dir(t.TempDir())
	st, err := BuildDomain(ctx, store, svc, data, "energy")
	if err != nil {
		t.Fatal(err)
	}
	layers := Layers("energy")
	if st.Archives == 0 || st.Archives > len(layers) || st.Tiles == 0 {
		t.Fatalf("stats %+v: want between 1 and %d archives, with tiles", st, len(layers))
	}
	found := 0
	for _, l := range layers {
		if l.Region != "energy" || !Supported(l) {
			t.Errorf("Layers(energy) holds %s", l.Path())
		}
		path := datadir.TileArchive(data.Tiles(), l.Key())
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		found++
		r, err := archive.Open(ctx, blob.NewDir(filepath.Dir(path)), filepath.Base(path))
		if err != nil {
			t.Fatalf("%s: %v", l.Path(), err)
		}
		m, err := r.Metadata(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name != l.Path() || m.Attribution == "" || r.Header().MaxZoom > tile.MaxDataZoom {
			t.Errorf("%s: metadata name %q, attribution %q, max zoom %d", l.Path(), m.Name, m.Attribution, r.Header().MaxZoom)
		}
	}
	if found != st.Archives {
		t.Errorf("%d archives on disk, BuildDomain says %d", found, st.Archives)
	}
	if _, err := os.Stat(data.Built("energy")); err != nil {
		t.Errorf("domain not marked built: %v", err)
	}
	if _, err := os.Stat(data.Built("ag")); err == nil {
		t.Error("ag marked built by an energy build")
	}
	filepath.WalkDir(data.Tiles(), func(p string, d os.DirEntry, err error) error {
		if err == nil && p != data.Tiles() && filepath.Ext(p) != ".pmtiles" && filepath.Base(p) != filepath.Base(data.Built("energy")) && !d.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// A layer the store has no data for loses the archive it had: a server
// answers 404, not tiles of data no longer published.
func TestBuildDomainRemovesArchivesWithoutData(t *testing.T) {
	ctx := context.Background()
	_, svc := demo(t)
	data := datadir.Dir(t.TempDir())
	l := Layers("ag")[0]
	stale := datadir.TileArchive(data.Tiles(), l.Key())
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("an old archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := BuildDomain(ctx, kv.NewMem(), svc, data, "ag")
	if err != nil {
		t.Fatal(err)
	}
	if st.Archives != 0 || st.Tiles != 0 {
		t.Errorf("an empty store built %+v", st)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the archive of a layer without data is still there: %v", err)
	}
}

// A build that fails (here: canceled) leaves the archive served before
// as it was, and no temporary file.
func TestBuildArchiveFailureKeepsServed(t *testing.T) {
	store, svc := demo(t)
	dir := t.TempDir()
	src := New(store, svc)
	l := layer(t, "facilities")
	o, attribution, ok, err := src.ArchiveOptions(context.Background(), l)
	if err != nil || !ok {
		t.Fatalf("ArchiveOptions: ok %v, %v", ok, err)
	}
	if _, err := BuildArchive(context.Background(), l, src.Tile, dir, attribution, o); err != nil {
		t.Fatal(err)
	}
	path := datadir.TileArchive(dir, l.Key())
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BuildArchive(ctx, l, src.Tile, dir, attribution, o); err == nil {
		t.Fatal("a canceled build succeeded")
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Errorf("the served archive changed (%v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".new-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
