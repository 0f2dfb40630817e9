package main

import (
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/lld"
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

// mapLayer is one survey grid of the map page: a line layer from the tiles
// at {tiles_url}/{region}/{grid}.json and, when Label is set, a label layer
// from {tiles_url}/{region}/{grid}-label.json (source layer SourceLayer+"_label").
// The page groups the layer switcher by Group, in the order given, and
// expects the layers of a group to come coarse to fine.
type mapLayer struct {
	ID          string `json:"id"`           // unique, used in MapLibre source and layer ids: "ab-twp"
	Title       string `json:"title"`        // switcher label: "Townships"
	Group       string `json:"group"`        // switcher heading: "DLS Alberta"
	Region      string `json:"region"`       // "ab"
	Grid        string `json:"grid"`         // "twp"
	SourceLayer string `json:"source_layer"` // layer name inside the tiles: "ab_twp"
	Label       bool   `json:"label"`        // the grid's -label layer is published
	MinZoom     int    `json:"min_zoom"`     // zoom range of its tiles
	MaxZoom     int    `json:"max_zoom"`
	// Kind is "data" for an agriculture or energy archive (Grid is then the
	// archive name), drawn as Geometry "polygon" (a fill), "line", "point"
	// or "label" (its points' label property as text); "" for a survey grid.
	Kind     string `json:"kind,omitempty"`
	Geometry string `json:"geometry,omitempty"`
}

// dataMapLayers lists the agriculture and energy archives of the catalog
// that built reports as built (their archive exists), for the page's
// "Energy data" and "Agriculture data" groups, off by default.
func dataMapLayers(catalog []tile.Layer, built func(tile.Layer) bool) []mapLayer {
	var out []mapLayer
	for _, l := range catalog {
		if l.Kind != tile.Data || !built(l) {
			continue
		}
		group, geom := "Energy data", "polygon"
		if l.Region == "ag" {
			group = "Agriculture data"
		}
		switch {
		case l.Name == "pipelines":
			geom = "line"
		case strings.HasSuffix(l.Name, "_labels"):
			geom = "label" // points with a "label" property: drawn as text
		case l.Name == "facilities":
			geom = "point"
		}
		out = append(out, mapLayer{ID: l.Region + "-" + l.Name, Title: l.Title, Group: group, Region: l.Region, Grid: l.Name,
			SourceLayer: l.SourceLayer, MinZoom: l.MinZoom, MaxZoom: min(l.MaxZoom, tile.MaxDataZoom), Kind: "data", Geometry: geom})
	}
	return out
}

// mapConfig is the body of GET /map/config.json.
type mapConfig struct {
	APIKey   string     `json:"api_key"`
	TilesURL string     `json:"tiles_url"`
	Layers   []mapLayer `json:"layers"`
}

// mapLayersOf picks the page's layers out of the tile catalog
// (tile.Layers()): one per survey grid layer, labelled when the grid's
// -label layer is published, grouped "DLS Alberta" ... "DLS Manitoba",
// "NTS British Columbia", "Ontario", and coarse to fine within a group.
func mapLayersOf(catalog []tile.Layer) []mapLayer {
	labelled := map[string]bool{}
	var grids []tile.Layer
	for _, l := range catalog {
		switch l.Kind {
		case tile.Grid:
			grids = append(grids, l)
		case tile.Label:
			labelled[l.Region+"/"+strings.TrimSuffix(l.Name, "-label")] = true
		}
	}
	// lld orders systems DLS, NTS, ..., Ontario and each system's units
	// coarse to fine.
	slices.SortStableFunc(grids, func(a, b tile.Layer) int {
		return cmp.Or(cmp.Compare(a.System, b.System), cmp.Compare(a.Province, b.Province), cmp.Compare(a.Unit, b.Unit))
	})
	layers := make([]mapLayer, 0, len(grids))
	for _, l := range grids {
		group := l.Province.Name()
		switch l.System {
		case lld.DLS, lld.NTS:
			group = l.System.String() + " " + group
		}
		layers = append(layers, mapLayer{
			ID:          l.Region + "-" + l.Name,
			Title:       shortTitle(l.Title),
			Group:       group,
			Region:      l.Region,
			Grid:        l.Name,
			SourceLayer: l.SourceLayer,
			Label:       labelled[l.Path()],
			MinZoom:     l.MinZoom,
			MaxZoom:     l.MaxZoom,
		})
	}
	return layers
}

// shortTitle drops what the group heading already says from a catalog
// title: "DLS quarter sections" becomes "Quarter sections".
func shortTitle(title string) string {
	for _, prefix := range []string{"DLS ", "NTS ", "Ontario "} {
		title = strings.TrimPrefix(title, prefix)
	}
	r, n := utf8.DecodeRuneInString(title)
	if n == 0 {
		return title
	}
	return string(unicode.ToUpper(r)) + title[n:]
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

// webRoutes serves the map page at /, its files under /static/ and its
// configuration at /map/config.json. The configuration hands out mapKey,
// the map page's own key (gateway.EnsureMapKey: maps, search and
// autocomplete, rate-limited; never the unlimited demo key), so the page
// can call the keyed endpoints. It answers only requests whose Host
// allowHost accepts (the loopback names unless the server runs -public), so
// a web page elsewhere cannot read the key through DNS rebinding (a name
// of its own pointed at 127.0.0.1): these routes exist only on the local
// server.
//
// dataLayers, when set, is asked on each request for the data archives
// built so far, listed after the survey grids.
func webRoutes(mapKey string, allowHost func(host string) bool, layers []mapLayer, dataLayers ...func() []mapLayer) []api.Route {
	assets := loadWebAssets()
	if layers == nil {
		layers = []mapLayer{}
	}
	config := func() mapConfig {
		cfg := mapConfig{APIKey: mapKey, TilesURL: "/tiles", Layers: layers}
		for _, more := range dataLayers {
			cfg.Layers = append(slices.Clone(cfg.Layers), more()...)
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
				if !allowHost(r.Host) {
					return apierr.Forbiddenf("host_not_allowed",
						"This server hands out the map page's key only to pages it serves itself, by a loopback name (localhost, 127.0.0.1, [::1]); Host %q is not one. Open the map at http://localhost:PORT/, or run the server with -public.", r.Host)
				}
				api.WriteJSON(w, http.StatusOK, config())
				return nil
			}),
			Op: api.Operation{Tag: "map", Summary: "Configuration of the map page: its own rate-limited key (maps, search, autocomplete), the tiles URL and the layers; only to a loopback Host unless the server runs -public",
				Errors: []int{403},
				Response: map[string]any{
					"type":     "object",
					"required": []string{"api_key", "tiles_url", "layers"},
					"properties": map[string]any{
						"api_key":   map[string]any{"type": "string"},
						"tiles_url": map[string]any{"type": "string"},
						"layers":    map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
					},
				},
				Public: true, Hidden: true},
		},
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
