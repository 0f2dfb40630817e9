package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/api"
	"meridian/shared/tile"
)

// surveyGridLayers is the survey grid list of the spec's map tile layers, in
// the order and grouping the page shows: for tests of the page on its own.
func surveyGridLayers() []mapLayer {
	type grid struct {
		name, title string
		minZoom     int
	}
	dls := []grid{{"twp", "Townships", 0}, {"sec", "Sections", 9}, {"qtr", "Quarter sections", 9}, {"lsd", "Legal subdivisions", 9}}
	families := []struct {
		group, region string
		grids         []grid
	}{
		{"DLS Alberta", "ab", dls},
		{"DLS British Columbia", "bc", dls},
		{"DLS Saskatchewan", "sk", dls},
		{"DLS Manitoba", "mb", dls},
		{"NTS British Columbia", "bc", []grid{{"series", "Map sheets (series, area and sheet)", 0}, {"block", "Blocks", 9}, {"unit", "Units", 9}, {"qtr-unit", "Quarter units", 9}}},
		{"Ontario", "on", []grid{{"twp", "Geographic townships", 0}, {"con", "Concessions", 9}, {"lot", "Lots", 9}}},
	}
	var layers []mapLayer
	for _, f := range families {
		for _, g := range f.grids {
			layers = append(layers, mapLayer{
				ID:          f.region + "-" + g.name,
				Title:       g.title,
				Group:       f.group,
				Region:      f.region,
				Grid:        g.name,
				SourceLayer: f.region + "_" + strings.ReplaceAll(g.name, "-", "_"),
				Label:       true,
				MinZoom:     g.minZoom,
				MaxZoom:     14,
			})
		}
	}
	return layers
}

// The page's layers from the tile catalog are the spec's survey grids, in
// the page's order.
func TestMapLayersOfCatalog(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(surveyGridLayers(), mapLayersOf(tile.Layers())); diff != "" {
		t.Errorf("mapLayersOf(tile.Layers()) (-want +got):\n%s", diff)
	}
}

// Every data archive built is listed, grouped by domain, with the way the
// page draws it; those not built are not.
func TestDataMapLayers(t *testing.T) {
	t.Parallel()
	all := dataMapLayers(tile.Layers(), func(tile.Layer) bool { return true })
	if len(all) != 30 {
		t.Errorf("%d data layers listed, want the 30 archives", len(all))
	}
	want := map[string]string{"ag-soils": "polygon", "energy-pipelines": "line", "energy-facilities": "point",
		"energy-facilities_labels": "label", "ag-bc_alr_labels": "label", "ag-bc_alr": "polygon", "energy-og_activity_twp": "polygon"}
	for _, l := range all {
		if g, ok := want[l.ID]; ok && l.Geometry != g {
			t.Errorf("%s drawn as %q, want %q", l.ID, l.Geometry, g)
		}
		if l.Kind != "data" || (l.Region == "ag") != (l.Group == "Agriculture data") {
			t.Errorf("%s: kind %q group %q", l.ID, l.Kind, l.Group)
		}
	}
	some := dataMapLayers(tile.Layers(), func(l tile.Layer) bool { return l.Name == "bc_alr" })
	if len(some) != 1 || some[0].ID != "ag-bc_alr" {
		t.Errorf("only bc_alr built: listed %v", some)
	}
}

// vendorBundled reports whether `make web` had copied MapLibre GL JS into
// web/static/vendor/ when this binary was built.
func vendorBundled() bool {
	_, err := fs.Stat(webFiles, "web/static/"+mapVendorFile)
	return err == nil
}

func TestWebRoutes(t *testing.T) {
	t.Parallel()
	mux := api.NewMux()
	mux.Mount(webRoutes(mapPage{key: "mk_demo", allowHost: loopbackHost, basemap: basemap{Kind: "offline"}, layers: func(context.Context) []mapLayer { return surveyGridLayers() }})...)
	get := func(target string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", target, nil)
		req.Host = "127.0.0.1:8080"
		if target == "/map/config.json?host=other" {
			req.Host, req.URL.RawQuery = "meridian.example", ""
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}
	vendorStatus, vendorType, vendorBody := 404, "application/json", "make web"
	if vendorBundled() {
		vendorStatus, vendorType, vendorBody = 200, "text/javascript; charset=utf-8", "MapLibre"
	}
	tests := []struct {
		name, target string
		status       int
		contentType  string
		cacheControl string
		bodyContains string
	}{
		{"page", "/", 200, "text/html; charset=utf-8", "no-cache", `<div id="map">`},
		{"script", "/static/app.js", 200, "text/javascript; charset=utf-8", "no-cache", "import"},
		{"stylesheet", "/static/app.css", 200, "text/css; charset=utf-8", "no-cache", "#map"},
		{"maplibre", "/static/" + mapVendorFile, vendorStatus, vendorType, "", vendorBody},
		{"missing file", "/static/nope.js", 404, "application/json", "", `"code":"not_found"`},
		{"directory", "/static/", 404, "application/json", "", `"code":"not_found"`},
		{"config", "/map/config.json", 200, "application/json", "no-store", `"api_key":"mk_demo"`},
		{"config for another host", "/map/config.json?host=other", 403, "application/json", "no-store", `"code":"host_not_allowed"`},
		// "/" must not swallow the other paths' JSON 404.
		{"unknown path", "/nope", 404, "application/json", "", `"code":"not_found"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := get(tc.target)
			if rec.Code != tc.status {
				t.Fatalf("GET %s: status %d, want %d: %s", tc.target, rec.Code, tc.status, rec.Body)
			}
			if got := rec.Header().Get("Content-Type"); got != tc.contentType {
				t.Errorf("GET %s: Content-Type %q, want %q", tc.target, got, tc.contentType)
			}
			if tc.cacheControl != "" {
				if got := rec.Header().Get("Cache-Control"); got != tc.cacheControl {
					t.Errorf("GET %s: Cache-Control %q, want %q", tc.target, got, tc.cacheControl)
				}
			}
			if !strings.Contains(rec.Body.String(), tc.bodyContains) {
				t.Errorf("GET %s: body does not contain %q", tc.target, tc.bodyContains)
			}
		})
	}

	t.Run("not modified", func(t *testing.T) {
		t.Parallel()
		etag := get("/static/app.js").Header().Get("ETag")
		if etag == "" {
			t.Fatal("GET /static/app.js: no ETag")
		}
		if rec := get("/static/app.js", "If-None-Match", etag); rec.Code != 304 || rec.Body.Len() != 0 {
			t.Errorf("GET /static/app.js with If-None-Match %s: %d, %d bytes; want 304 and no body", etag, rec.Code, rec.Body.Len())
		}
	})

	t.Run("config body", func(t *testing.T) {
		t.Parallel()
		var got mapConfig
		if err := json.Unmarshal(get("/map/config.json").Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		want := mapConfig{APIKey: "mk_demo", TilesURL: "/tiles", Basemap: offlineBasemapConfig(), Layers: surveyGridLayers()}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GET /map/config.json (-want +got):\n%s", diff)
		}
	})
}

// The page has no build step, so a file that index.html or a module names
// and that is not embedded only shows up in a browser: check them here.
func TestWebReferencesEmbedded(t *testing.T) {
	t.Parallel()
	ref := regexp.MustCompile(`(?:href|src)="/static/([^"]+)"|from '\./([^']+)'|import\('\./([^']+)'\)`)
	files, err := fs.Glob(webFiles, "web/static/*")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		body, err := fs.ReadFile(webFiles, file)
		if err != nil {
			continue // vendor/
		}
		for _, m := range ref.FindAllStringSubmatch(string(body), -1) {
			name := m[1] + m[2] + m[3]
			if strings.HasPrefix(name, "vendor/") && !vendorBundled() {
				continue
			}
			checked++
			if _, err := fs.Stat(webFiles, "web/static/"+name); err != nil {
				t.Errorf("%s refers to %s, which is not embedded: %v", file, name, err)
			}
		}
	}
	if checked < 5 {
		t.Errorf("found only %d references in %v", checked, files)
	}
}

// offlineBasemapConfig is what the configuration says of the offline
// basemap in this test binary: the archive when `make web` built it into
// the embedded files, else none with the reason.
func offlineBasemapConfig() basemap {
	return newOfflineBasemap(loadWebAssets()).resolve(basemap{Kind: "offline"})
}
