package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/blob"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
)

// The map page's geography under the grids. By default it is the offline
// archive that `make web` builds from Natural Earth and GeoNames (package
// shared/tile/basemap) into web/static/vendor/basemap.pmtiles, embedded with
// the page and served like the other archives: TileJSON at
// /map/basemap.json, tiles at /map/basemap/{z}/{x}/{y}.mvt. Those routes
// are the page's own, beside /map/config.json, not a layer of the spec's
// /tiles catalogue, and need no key: the data is public. With serve
// -basemap the page draws any MapLibre style or raster XYZ template
// instead, for users online.

// basemapFile is the offline archive in the page's embedded files.
const basemapFile = "vendor/basemap.pmtiles"

// basemap tells the page what to draw under the grids.
type basemap struct {
	// Kind is "offline" (the embedded archive), "style" (a MapLibre style
	// URL), "raster" (an XYZ template of raster tiles) or "none".
	Kind        string `json:"kind"`
	URL         string `json:"url,omitempty"`         // the style, the template, or the offline TileJSON
	Attribution string `json:"attribution,omitempty"` // raster: shown on the map; style and offline: in their sources
	Note        string `json:"note,omitempty"`        // kind "none": why
}

// parseBasemap reads serve's -basemap and -basemap-attribution: "" or
// "offline" for the embedded archive, "none", an http(s) URL of a MapLibre
// style, or an http(s) XYZ template with {z}, {x} and {y} of raster tiles,
// which must come with its attribution (every public tile service asks
// for one; OpenStreetMap's tile policy requires it).
func parseBasemap(spec, attribution string) (basemap, error) {
	switch spec {
	case "", "offline":
		return basemap{Kind: "offline"}, nil
	case "none":
		return basemap{Kind: "none", Note: "no basemap (serve -basemap none)"}, nil
	}
	u, err := url.Parse(spec)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return basemap{}, fmt.Errorf("-basemap %q: want offline, none, a MapLibre style URL or a raster XYZ template, over http or https", spec)
	}
	n := 0
	for _, p := range []string{"{z}", "{x}", "{y}"} {
		if strings.Contains(spec, p) {
			n++
		}
	}
	switch {
	case n == 3:
		if strings.TrimSpace(attribution) == "" {
			return basemap{}, fmt.Errorf("-basemap %q is a raster template: give its attribution with -basemap-attribution (e.g. '© OpenStreetMap contributors' for OpenStreetMap's tiles, which their tile usage policy requires)", spec)
		}
		return basemap{Kind: "raster", URL: spec, Attribution: attribution}, nil
	case n > 0:
		return basemap{}, fmt.Errorf("-basemap %q: a raster template needs all of {z}, {x} and {y}", spec)
	}
	return basemap{Kind: "style", URL: spec, Attribution: attribution}, nil
}

// offlineBasemap serves the embedded archive; reader is nil when the build
// has none (err says why).
type offlineBasemap struct {
	reader *archive.Reader
	meta   archive.Metadata
	err    error
}

// newOfflineBasemap opens the archive among the page's assets and takes it
// out of them: it is served as tiles, not as a file, and held once.
func newOfflineBasemap(assets map[string]webAsset) *offlineBasemap {
	a, ok := assets[basemapFile]
	if !ok {
		return &offlineBasemap{err: fmt.Errorf("the offline basemap is not in this build: run `make web`, then rebuild (`make run` does both)")}
	}
	delete(assets, basemapFile)
	ctx := context.Background()
	store := blob.NewMem()
	if err := store.Put(ctx, "basemap.pmtiles", bytes.NewReader(a.body)); err != nil {
		return &offlineBasemap{err: err}
	}
	r, err := archive.Open(ctx, store, "basemap.pmtiles")
	if err != nil {
		return &offlineBasemap{err: fmt.Errorf("the embedded offline basemap: %w", err)}
	}
	m, err := r.Metadata(ctx)
	if err != nil {
		return &offlineBasemap{err: fmt.Errorf("the embedded offline basemap: %w", err)}
	}
	return &offlineBasemap{reader: r, meta: m}
}

// resolve turns the configured basemap into what the page is told: the
// offline one's TileJSON, or none with the reason when it is not built.
func (b *offlineBasemap) resolve(c basemap) basemap {
	if c.Kind != "offline" {
		return c
	}
	if b.reader == nil {
		return basemap{Kind: "none", Note: b.err.Error()}
	}
	return basemap{Kind: "offline", URL: "/map/basemap.json", Attribution: b.meta.Attribution}
}

func (b *offlineBasemap) route() api.Route {
	return api.Route{
		Pattern: "GET /map/basemap/{z}/{x}/{y}",
		Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
			ys, ok := strings.CutSuffix(r.PathValue("y"), ".mvt")
			if !ok {
				return apierr.Invalidf("invalid_parameter", "basemap tiles end in .mvt: /map/basemap/{z}/{x}/{y}.mvt")
			}
			t, err := tile.ParseTile(r.PathValue("z"), r.PathValue("x"), ys)
			if err != nil {
				return err
			}
			if b.reader == nil {
				return apierr.NotFoundf("%s", b.err.Error())
			}
			data, ok, err := b.reader.Tile(r.Context(), uint8(t.Z), t.X, t.Y)
			if err != nil {
				return err
			}
			if !ok {
				data = nil // 204: MapLibre draws nothing there
			}
			return tile.WriteTile(w, r, data)
		}),
		Op: api.Operation{Tag: "map", Summary: "A tile of the map page's offline basemap (Natural Earth, GeoNames)",
			Path: "/map/basemap/{z}/{x}/{y}.mvt", ContentType: tile.ContentType, NoContent: "no geography in the tile",
			Errors: []int{400, 404}, Public: true, Hidden: true},
	}
}

func (b *offlineBasemap) tileJSONRoute() api.Route {
	return api.Route{
		Pattern: "GET /map/basemap.json",
		Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
			if b.reader == nil {
				return apierr.NotFoundf("%s", b.err.Error())
			}
			h := b.reader.Header()
			layers := make([]map[string]any, 0, len(b.meta.VectorLayers))
			for _, l := range b.meta.VectorLayers {
				layers = append(layers, map[string]any{"id": l.ID, "description": l.Description,
					"minzoom": l.MinZoom, "maxzoom": l.MaxZoom, "fields": l.Fields})
			}
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			w.Header().Set("Cache-Control", "no-cache")
			api.WriteJSON(w, http.StatusOK, map[string]any{
				"tilejson":      "3.0.0",
				"name":          b.meta.Name,
				"description":   b.meta.Description,
				"attribution":   b.meta.Attribution,
				"scheme":        "xyz",
				"tiles":         []string{scheme + "://" + r.Host + "/map/basemap/{z}/{x}/{y}.mvt"},
				"minzoom":       h.MinZoom,
				"maxzoom":       h.MaxZoom,
				"bounds":        []float64{h.Bounds.Min[0], h.Bounds.Min[1], h.Bounds.Max[0], h.Bounds.Max[1]},
				"vector_layers": layers,
			})
			return nil
		}),
		Op: api.Operation{Tag: "map", Summary: "TileJSON of the map page's offline basemap",
			Response: map[string]any{"type": "object"}, Errors: []int{404}, Public: true, Hidden: true},
	}
}
