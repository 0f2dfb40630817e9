package main

import (
	"encoding/json"
	"meridian/shared/tile"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func TestParseBasemap(t *testing.T) {
	t.Parallel()
	ok := []struct {
		spec, attribution string
		want              basemap
	}{
		{"", "", basemap{Kind: "offline"}},
		{"offline", "", basemap{Kind: "offline"}},
		{"none", "", basemap{Kind: "none", Note: "no basemap (serve -basemap none)"}},
		{"https://tiles.example/styles/liberty.json", "", basemap{Kind: "style", URL: "https://tiles.example/styles/liberty.json"}},
		{"https://tile.example/{z}/{x}/{y}.png", "© OpenStreetMap contributors",
			basemap{Kind: "raster", URL: "https://tile.example/{z}/{x}/{y}.png", Attribution: "© OpenStreetMap contributors"}},
	}
	for _, tc := range ok {
		got, err := parseBasemap(tc.spec, tc.attribution)
		if err != nil || got != tc.want {
			t.Errorf("parseBasemap(%q, %q) = %+v, %v; want %+v", tc.spec, tc.attribution, got, err, tc.want)
		}
	}
	bad := map[string]string{
		"ftp://x.example/style.json":    "http or https",
		"styles/liberty.json":           "http or https",
		"https://t.example/{z}/{x}.png": "all of {z}, {x} and {y}",
		"https://t.example/{z}/{x}/{y}": "-basemap-attribution",
	}
	for spec, want := range bad {
		if _, err := parseBasemap(spec, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseBasemap(%q) error %v, want one saying %q", spec, err, want)
		}
	}
}

// A basemap tile address that is not one is a 400, whether or not the
// build embeds the basemap.
func TestMapBasemapTileAddress(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	for _, p := range []string{"4/16/5.mvt", "4/3/5", "23/0/0.mvt", "-1/0/0.mvt", "a/0/0.mvt"} {
		if w := get(t, srv, "/map/basemap/"+p); w.Code != 400 || !strings.Contains(w.Body.String(), `"invalid_parameter"`) {
			t.Errorf("/map/basemap/%s: %d %s; want 400 invalid_parameter", p, w.Code, w.Body)
		}
	}
}

// The offline basemap is served like the other archives when this build
// embeds it (make web), and its absence is said, not a blank map.
func TestMapBasemapRoutes(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	cfg := pageConfig(t, srv)
	if _, err := os.Stat("web/static/" + basemapFile); err != nil && os.Getenv("MERIDIAN_BROWSER_TEST") == "1" {
		t.Fatalf("no %s: `make web` must build it (MERIDIAN_BROWSER_TEST=1)", basemapFile)
	}
	if newOfflineBasemap(loadWebAssets()).reader == nil {
		if cfg.Basemap.Kind != "none" || !strings.Contains(cfg.Basemap.Note, "make web") {
			t.Errorf("no archive embedded: basemap %+v, want none saying to run make web", cfg.Basemap)
		}
		if w := get(t, srv, "/map/basemap/4/3/5.mvt"); w.Code != 404 || !strings.Contains(w.Body.String(), "make web") {
			t.Errorf("tile without an archive: %d %s", w.Code, w.Body)
		}
		t.Skip("the offline basemap is not embedded in this test binary: run `make web`")
	}
	if cfg.Basemap.Kind != "offline" || cfg.Basemap.URL != "/map/basemap.json" || !strings.Contains(cfg.Basemap.Attribution, "Natural Earth") {
		t.Errorf("basemap %+v, want the offline archive with its attribution", cfg.Basemap)
	}
	w := get(t, srv, "/map/basemap.json")
	var tj struct {
		Tiles        []string
		MinZoom      int `json:"minzoom"`
		MaxZoom      int `json:"maxzoom"`
		Attribution  string
		VectorLayers []struct{ ID string } `json:"vector_layers"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &tj); w.Code != 200 || err != nil {
		t.Fatalf("GET /map/basemap.json: %d %s", w.Code, w.Body)
	}
	var ids []string
	for _, l := range tj.VectorLayers {
		ids = append(ids, l.ID)
	}
	for _, id := range []string{"land", "water", "boundaries", "places"} {
		if !strings.Contains(strings.Join(ids, ","), id) {
			t.Errorf("basemap layers %v lack %s", ids, id)
		}
	}
	if len(tj.Tiles) != 1 || !strings.HasSuffix(tj.Tiles[0], "/map/basemap/{z}/{x}/{y}.mvt") || tj.MaxZoom < 6 {
		t.Errorf("TileJSON tiles %v zooms %d-%d", tj.Tiles, tj.MinZoom, tj.MaxZoom)
	}
	// z4 over the prairies has geography; the middle of the Pacific at z8 has none.
	w = get(t, srv, "/map/basemap/4/3/5.mvt", "Accept-Encoding", "gzip")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" || w.Body.Len() < 100 {
		t.Errorf("basemap 4/3/5: %d %q, %d bytes", w.Code, w.Header().Get("Content-Encoding"), w.Body.Len())
	}
	if w := get(t, srv, "/map/basemap/8/0/0.mvt"); w.Code != 204 {
		t.Errorf("basemap 8/0/0 (outside its bounds): %d, want 204", w.Code)
	}
	if w := get(t, srv, "/map/basemap/4/99/5.mvt"); w.Code != 400 {
		t.Errorf("basemap 4/99/5: %d, want 400", w.Code)
	}
}

// The configuration says where each layer comes from: the embedded
// fixture grids say fixture, the invented report archives say demo, with
// their attribution.
func TestPageLayerSources(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	cfg := pageConfig(t, srv)
	got := map[string]tile.MapLayer{}
	for _, l := range cfg.Layers {
		got[l.ID] = l
	}
	want := map[string]string{"ab-twp": "fixture", "sk-sec": "fixture", "on-lot": "fixture", "bc-series": "model", "bc-twp": "model"}
	for id, src := range want {
		if l := got[id]; l.Source != src || l.Attribution == "" {
			t.Errorf("%s: source %q attribution %q, want %q and an attribution", id, l.Source, l.Attribution, src)
		}
	}
	if l := got["energy-og_activity_lsd"]; l.Source != "demo" || !strings.HasPrefix(l.Attribution, "Demo data, invented") {
		t.Errorf("energy-og_activity_lsd: source %q attribution %q, want demo", l.Source, l.Attribution)
	}
}

// pageConfig returns the server's /map/config.json, asked as the page asks.
func pageConfig(t *testing.T, srv *server) mapConfig {
	t.Helper()
	r := httptest.NewRequest("GET", "/map/config.json", nil)
	r.Host = "localhost:8080"
	w := httptest.NewRecorder()
	srv.handler.ServeHTTP(w, r)
	var cfg mapConfig
	if err := json.Unmarshal(w.Body.Bytes(), &cfg); w.Code != 200 || err != nil {
		t.Fatalf("GET /map/config.json: %d %s", w.Code, w.Body)
	}
	return cfg
}
