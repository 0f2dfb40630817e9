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

// vendorBundled reports whether `make web` had copied MapLibre GL JS into
// web/static/vendor/ when this binary was built.
func vendorBundled() bool {
	_, err := fs.Stat(webFiles, "web/static/"+mapVendorFile)
	return err == nil
}

func TestWebRoutes(t *testing.T) {
	t.Parallel()
	mux := api.NewMux()
	mux.Mount(webRoutes(mapPage{key: "mk_demo", allowHost: loopbackHost, basemap: basemap{Kind: "offline"}, layers: func(context.Context) []tile.MapLayer { return tile.GridMapLayers(tile.Layers()) }})...)
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
		want := mapConfig{APIKey: "mk_demo", TilesURL: "/tiles", Basemap: offlineBasemapConfig(), Layers: tile.GridMapLayers(tile.Layers())}
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
