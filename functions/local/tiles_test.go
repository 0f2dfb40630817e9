package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/gateway"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
	"meridian/shared/tile/datalayers"
)

func get(t *testing.T, srv *server, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	srv.handler.ServeHTTP(w, r)
	return w
}

func tilePath(l string, t maptile.Tile, key string) string {
	return fmt.Sprintf("/tiles/%s/%d/%d/%d.mvt?api_key=%s", l, t.Z, t.X, t.Y, key)
}

// Tiles go through the gateway as the maps product, and Ontario's come from
// the ingested fixture lot fabric.
func TestServerTiles(t *testing.T) {
	t.Parallel()
	srv, key := newTestServer(t)
	adjala := maptile.At(orb.Point{-79.93, 44.17}, 13)
	if w := get(t, srv, tilePath("on/lot", adjala, "")); w.Code != 401 {
		t.Errorf("no key: %d %s", w.Code, w.Body)
	}
	if w := get(t, srv, "/tiles/ab/twp.json?api_key=mk_nope"); w.Code != 401 {
		t.Errorf("unknown key: %d", w.Code)
	}
	w := get(t, srv, tilePath("on/lot", adjala, key), "Accept-Encoding", "gzip")
	if w.Code != 200 {
		t.Fatalf("Adjala lots: %d %s", w.Code, w.Body)
	}
	ls, err := mvt.UnmarshalGzipped(w.Body.Bytes())
	if err != nil || len(ls) != 1 || ls[0].Name != "on_lot" {
		t.Fatalf("Adjala lots tile: %v %v", ls, err)
	}
	found := false
	for _, f := range ls[0].Features {
		found = found || f.Properties["id"] == "Lot 10 Con 1 Adjala"
	}
	if !found {
		t.Errorf("Lot 10 Con 1 Adjala is not in its tile (%d lots)", len(ls[0].Features))
	}
	if v := w.Header().Values("Vary"); slices.Contains(v, "X-API-Key") {
		t.Errorf("tile with the key in the URL: Vary %v, want no X-API-Key (the URL keys caches)", v)
	}
	w = get(t, srv, "/tiles/on/lot-label.json?api_key="+key)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"id":"on_lot_label"`) || !strings.Contains(w.Body.String(), "api_key="+key) {
		t.Errorf("TileJSON: %d %s", w.Code, w.Body)
	}
	// With the key in the header the answer varies on it, so a shared
	// cache never hands it to a caller without the key.
	for _, target := range []string{tilePath("on/lot", adjala, ""), "/tiles/on/lot-label.json"} {
		w = get(t, srv, target, "X-API-Key", key)
		if v := w.Header().Values("Vary"); w.Code != 200 || !slices.Contains(v, "X-API-Key") || !strings.Contains(w.Header().Get("Cache-Control"), "public") {
			t.Errorf("%s with the key in the header: %d, Vary %v, Cache-Control %q", target, w.Code, v, w.Header().Get("Cache-Control"))
		}
	}
}

// A built archive is served in place of generating, byte for byte what
// generating gives, and only what it holds.
func TestServerServesBuiltArchive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, err := gateway.EnsureDemoKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(t.Context(), serverConfig{data: datadir.Dir(dir), logger: slog.New(slog.DiscardHandler), archiveRecheck: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	l, _ := tile.Lookup("ab", "qtr")
	calgary := orb.Point{-114.0719, 51.0447}
	inside, outside := maptile.At(calgary, 12), maptile.At(orb.Point{-113.0, 52.5}, 12)

	before := get(t, srv, tilePath("ab/qtr", inside, key), "Accept-Encoding", "gzip")
	if before.Code != 200 || get(t, srv, tilePath("ab/qtr", outside, key)).Code != 200 {
		t.Fatalf("generated tiles: %d", before.Code)
	}
	svc := grid.New()
	if _, err := dataingest.OpenGrids(context.Background(), datadir.Dir(dir), svc, srv.logger, 0); err != nil {
		t.Fatal(err)
	}
	b := inside.Bound().Pad(0.01)
	st, err := datalayers.BuildArchive(context.Background(), l, tile.NewGenerator(svc).Tile, datadir.Dir(dir).Tiles(), "test", tile.BuildOptions{MinZoom: 11, MaxZoom: 13, Bounds: b})
	if err != nil || st.Tiles == 0 {
		t.Fatalf("BuildArchive: %+v %v", st, err)
	}
	after := get(t, srv, tilePath("ab/qtr", inside, key), "Accept-Encoding", "gzip")
	if after.Code != 200 || after.Body.String() != before.Body.String() || after.Header().Get("ETag") != before.Header().Get("ETag") {
		t.Errorf("archive tile differs from the generated one: %d, %d vs %d bytes", after.Code, after.Body.Len(), before.Body.Len())
	}
	if w := get(t, srv, tilePath("ab/qtr", outside, key)); w.Code != 204 {
		t.Errorf("a tile outside the archive's bounds: %d, want 204 (served from the archive, not generated)", w.Code)
	}
}

// BenchmarkServeArchiveTile is one tile read from a built archive through
// the whole local stack: gateway, middleware, mux, archive set, reader.
func BenchmarkServeArchiveTile(b *testing.B) {
	dir := b.TempDir()
	key, _ := gateway.EnsureDemoKey(dir)
	srv, err := newServer(b.Context(), serverConfig{data: datadir.Dir(dir), logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	svc := grid.New()
	l, _ := tile.Lookup("ab", "sec")
	calgary := maptile.At(orb.Point{-114.0719, 51.0447}, 12)
	if _, err := datalayers.BuildArchive(context.Background(), l, tile.NewGenerator(svc).Tile, datadir.Dir(dir).Tiles(), "bench", tile.BuildOptions{MinZoom: 12, MaxZoom: 14, Bounds: calgary.Bound()}); err != nil {
		b.Fatal(err)
	}
	var targets []string
	for _, c := range calgary.Children() {
		for _, g := range c.Children() {
			targets = append(targets, tilePath("ab/sec", g, key))
		}
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		r := httptest.NewRequest("GET", targets[i%len(targets)], nil)
		r.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		srv.handler.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%s: %d %s", targets[i%len(targets)], w.Code, w.Body)
		}
		i++
	}
}

// The first start builds every data layer's archive from the demo report
// data, a later start leaves a domain built before alone (and finishes one
// whose build was cut short), and build-tiles makes an archive again from
// the report store where it was removed (and the server answered 404).
func TestBuildDataLayer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, _ := gateway.EnsureDemoKey(dir)
	cfg := serverConfig{data: datadir.Dir(dir), logger: slog.New(slog.DiscardHandler), archiveRecheck: -1}
	srv, err := newServer(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	archives, _ := filepath.Glob(filepath.Join(datadir.Dir(dir).Tiles(), "*", "*.pmtiles"))
	if len(archives) != len(datalayers.Names()) {
		t.Errorf("first start built %d archives, want every data layer's (%d): %v", len(archives), len(datalayers.Names()), archives)
	}
	path := filepath.Join(datadir.Dir(dir).Tiles(), "energy", "og_activity_twp.pmtiles")
	w := get(t, srv, "/tiles/energy/og_activity_twp.json?api_key="+key)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"wells_orphan"`) {
		t.Fatalf("after the first start: %d %s", w.Code, w.Body)
	}
	// The TileJSON carries the archive's extent and the data's sources.
	var doc struct {
		Attribution string    `json:"attribution"`
		Bounds      []float64 `json:"bounds"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.Attribution, "Demo data") || !strings.Contains(doc.Attribution, "AER ST37") {
		t.Errorf("attribution %q: want the demo energy dataset's sources", doc.Attribution)
	}
	if l, _ := tile.Lookup("energy", "og_activity_twp"); len(doc.Bounds) != 4 || doc.Bounds[0] <= l.Bounds.Min[0] || doc.Bounds[1] <= l.Bounds.Min[1] ||
		doc.Bounds[2] >= l.Bounds.Max[0] || doc.Bounds[3] >= l.Bounds.Max[1] {
		t.Errorf("bounds %v: want the demo townships', not the region's", doc.Bounds)
	}
	srv.Close()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if srv, err = newServer(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the second start rebuilt %s (%v)", path, err)
	}
	srv.Close()

	// A start does not rebuild a domain built before (its layers without
	// data have no archive, and looking again would read the whole
	// dataset on every start)...
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if srv, err = newServer(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if w := get(t, srv, "/tiles/energy/og_activity_twp.json?api_key="+key); w.Code != 404 {
		t.Fatalf("archive removed: %d", w.Code)
	}
	srv.Close()
	// ...unless its build never finished.
	if err := os.Remove(datadir.Dir(dir).Built("energy")); err != nil {
		t.Fatal(err)
	}
	if srv, err = newServer(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if w := get(t, srv, "/tiles/energy/og_activity_twp.json?api_key="+key); w.Code != 200 {
		t.Fatalf("energy build unfinished, restarted: %d", w.Code)
	}
	srv.Close()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if code := run([]string{"build-tiles", "-data", dir, "-q", "energy/og_activity_twp"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("build-tiles: %d %s", code, errOut.String())
	}
	if srv, err = newServer(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w = get(t, srv, "/tiles/energy/og_activity_twp.json?api_key="+key)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"wells_orphan"`) {
		t.Errorf("after build-tiles: %d %s", w.Code, w.Body)
	}
}
