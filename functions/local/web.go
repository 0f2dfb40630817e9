package main

import (
	"cmp"
	"context"
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
	"meridian/shared/convert"
	"meridian/shared/lld"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
	"meridian/shared/tile"
	"meridian/shared/tile/datalayers"
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
	// Source says what the layer is drawn from, for the page's legend:
	// "model" (computed from the survey rules), "official" (an official
	// dataset ingested), "fixture" (generated in an official dataset's
	// format, not the real dataset) or "demo" (invented report data).
	// Attribution names it, as the layer's TileJSON does. Both are set per
	// request (layerSources), since data is ingested while serving.
	Source      string `json:"source,omitempty"`
	Attribution string `json:"attribution,omitempty"`
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

// pageLayers lists the page's layers with their sources as they stand:
// the survey grids, then the data archives built (Describer's attribution).
func pageLayers(ctx context.Context, svc *grid.Service, archives tile.Archives) []mapLayer {
	attribution := tile.Attribution(svc.Sources)
	grids := mapLayersOf(tile.Layers())
	for i, l := range grids {
		tl, _ := tile.Lookup(l.Region, l.Grid)
		grids[i].Attribution = attribution(tl)
		grids[i].Source = gridSource(svc.SourceMetas(tl.System), tl)
	}
	info := map[string]tile.ArchiveInfo{}
	data := dataMapLayers(tile.Layers(), func(l tile.Layer) bool {
		a, err := archives.Archive(ctx, l)
		if err != nil || a == nil {
			return false
		}
		if d, ok := a.(tile.Describer); ok {
			info[l.Path()], _ = d.Info(ctx)
		}
		return true
	})
	for i, l := range data {
		a := info[l.Region+"/"+l.Grid].Attribution
		data[i].Attribution, data[i].Source = a, "official"
		if strings.HasPrefix(a, datalayers.DemoAttributionPrefix) {
			data[i].Source = "demo"
		}
	}
	return append(grids, data...)
}

// gridSource is what grid layer l's blocks come from, given the loaded
// indexes of its system: "fixture" when an index of its province is a
// fixture, "official" when one is loaded, otherwise "model" (DLS and NTS
// are computed; Ontario has no model: "none", its grid is empty without an
// index).
func gridSource(metas []gridindex.Meta, l tile.Layer) string {
	src := "model"
	if l.System == lld.GeoTownship {
		src = "none"
	}
	for _, m := range metas {
		if len(m.Provinces) > 0 && !slices.Contains(m.Provinces, l.Province.Code()) {
			continue
		}
		if m.Fixture {
			return "fixture"
		}
		src = "official"
	}
	return src
}

// mapConfig is the body of GET /map/config.json.
type mapConfig struct {
	APIKey   string     `json:"api_key"`
	TilesURL string     `json:"tiles_url"`
	Basemap  basemap    `json:"basemap"`
	Layers   []mapLayer `json:"layers"`
}

// mapPage is what the map page's routes serve.
type mapPage struct {
	key string // the page's own key (gateway.EnsureMapKey)
	// allowHost accepts the Host of a request for the configuration (and
	// its key): the loopback names unless the server runs -public.
	allowHost func(host string) bool
	// layers lists the page's layers, asked on each configuration request
	// (data archives are built and grids ingested while serving).
	layers  func(ctx context.Context) []mapLayer
	basemap basemap
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
		cfg := mapConfig{APIKey: p.key, TilesURL: "/tiles", Basemap: base.resolve(p.basemap), Layers: []mapLayer{}}
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
