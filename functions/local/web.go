package main

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path"
	"strings"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/convert"
	"meridian/shared/tile"
)

// webFiles is the map page. web/static holds our own HTML, CSS and JS and,
// once `make web` has run, MapLibre GL JS in web/static/vendor/ (gitignored:
// third-party code is installed from npm, not committed). Embedding the
// directory rather than the vendor files keeps a plain checkout compiling;
// the page then says to run `make web`.
//
//go:embed web/static
var webFiles embed.FS

// mapVendorFile is the MapLibre GL JS module the page imports.
const mapVendorFile = "vendor/maplibre-gl.mjs"

// mapConfig is the body of GET /map/config.json.
type mapConfig struct {
	APIKey   string          `json:"api_key"`
	TilesURL string          `json:"tiles_url"`
	Basemap  basemap         `json:"basemap"`
	Layers   []tile.MapLayer `json:"layers"`
}

// mapPage is what the map page's routes serve.
type mapPage struct {
	key string // the page's own key (gateway.EnsureMapKey)
	// allowHost accepts the Host of a request for the configuration (and
	// its key): the loopback names unless the server runs -public.
	allowHost func(host string) bool
	// layers lists the page's layers, asked on each configuration request
	// (data archives are built and grids ingested while serving).
	layers  func(ctx context.Context) []tile.MapLayer
	basemap basemap
}

// webAsset is one embedded file, ready to serve.
type webAsset struct {
	body        []byte
	contentType string
	etag        string
}

var webContentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".txt":  "text/plain; charset=utf-8",
}

// webRoutes serves the map page at /, its files under /static/, its
// configuration at /map/config.json, the offline basemap under
// /map/basemap (basemap.go) and a NAD27 position at /map/nad27. The
// configuration hands out p.key, the map page's own key
// (gateway.EnsureMapKey: what the page calls, rate-limited; never the
// unlimited demo key), so the page can call the keyed endpoints. It answers
// only requests whose Host p.allowHost accepts (the loopback names unless
// the server runs -public), so a web page elsewhere cannot read the key
// through DNS rebinding (a name of its own pointed at 127.0.0.1): these
// routes exist only on the local server.
func webRoutes(p mapPage) []api.Route {
	assets := loadWebAssets()
	base := newOfflineBasemap(assets)
	config := func(ctx context.Context) mapConfig {
		cfg := mapConfig{APIKey: p.key, TilesURL: "/tiles", Basemap: base.resolve(p.basemap), Layers: []tile.MapLayer{}}
		if p.layers != nil {
			cfg.Layers = append(cfg.Layers, p.layers(ctx)...)
		}
		return cfg
	}
	return []api.Route{
		{
			// {$}: only / itself; other unknown paths keep the JSON 404.
			Pattern: "GET /{$}",
			Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
				serveWebAsset(w, r, assets["index.html"])
				return nil
			}),
			Op: api.Operation{Tag: "map", Summary: "Map page of the survey grids with a search box",
				ContentType: "text/html", Response: map[string]any{"type": "string"}, Public: true, Hidden: true},
		},
		{
			Pattern: "GET /static/",
			Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
				name := strings.TrimPrefix(r.URL.Path, "/static/")
				a, ok := assets[name]
				if !ok {
					if strings.HasPrefix(name, "vendor/") {
						return apierr.NotFoundf("%s is not in this build: run `make web`, then rebuild", r.URL.Path)
					}
					return apierr.NotFoundf("No file %s", r.URL.Path)
				}
				serveWebAsset(w, r, a)
				return nil
			}),
			Op: api.Operation{Tag: "map", Summary: "Scripts and styles of the map page",
				ContentType: "text/javascript", Response: map[string]any{"type": "string"},
				Errors: []int{404}, Public: true, Hidden: true},
		},
		{
			Pattern: "GET /map/config.json",
			Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
				w.Header().Set("Cache-Control", "no-store")
				if !p.allowHost(r.Host) {
					return apierr.Forbiddenf("host_not_allowed",
						"This server hands out the map page's key only to pages it serves itself, by a loopback name (localhost, 127.0.0.1, [::1]); Host %q is not one. Open the map at http://localhost:PORT/, or run the server with -public.", r.Host)
				}
				api.WriteJSON(w, http.StatusOK, config(r.Context()))
				return nil
			}),
			Op: api.Operation{Tag: "map", Summary: "Configuration of the map page: its own rate-limited key (maps, search, autocomplete, batch, ag, energy), the tiles URL, the basemap and the layers with their sources; only to a loopback Host unless the server runs -public",
				Errors: []int{403},
				Response: map[string]any{
					"type":     "object",
					"required": []string{"api_key", "tiles_url", "basemap", "layers"},
					"properties": map[string]any{
						"api_key":   map[string]any{"type": "string"},
						"tiles_url": map[string]any{"type": "string"},
						"basemap":   map[string]any{"type": "object"},
						"layers":    map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
					},
				},
				Public: true, Hidden: true},
		},
		base.route(), base.tileJSONRoute(), convert.NAD27Route(),
	}
}

// loopbackHost reports whether the Host header names this machine by a
// loopback name: localhost, or a loopback address, with any port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loadWebAssets reads every embedded file of web/static, keyed by its path
// below it ("app.js", "vendor/maplibre-gl.mjs").
func loadWebAssets() map[string]webAsset {
	root, err := fs.Sub(webFiles, "web/static")
	if err != nil {
		panic(err) // the pattern is a constant; go:embed guarantees the directory
	}
	assets := map[string]webAsset{}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		ct, ok := webContentTypes[path.Ext(name)]
		if !ok {
			ct = "application/octet-stream"
		}
		sum := sha256.Sum256(body)
		assets[name] = webAsset{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		panic(fmt.Sprintf("web: read embedded files: %v", err)) // embedded files cannot fail to read
	}
	return assets
}

// serveWebAsset writes a with an ETag. Cache-Control: no-cache lets the
// browser keep the file but makes it ask again each time, so a rebuilt
// binary's page is never stale and an unchanged file costs a 304.
func serveWebAsset(w http.ResponseWriter, r *http.Request, a webAsset) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	api.WriteRaw(w, http.StatusOK, a.contentType, a.body)
}
