package gateway_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"meridian/shared/api"
	"meridian/shared/gateway"
)

// The local server's wiring: a demo key, the gateway inside api.Middleware,
// and requests with and without a key.
func ExampleGateway_Middleware() {
	dataDir, _ := os.MkdirTemp("", "meridian")
	defer os.RemoveAll(dataDir)
	logger := slog.New(slog.DiscardHandler)

	demo, err := gateway.EnsureDemoKey(dataDir)
	if err != nil {
		fmt.Println(err)
		return
	}
	gw, err := gateway.New(gateway.Options{
		KeysPath:  filepath.Join(dataDir, gateway.KeysFile),
		UsagePath: filepath.Join(dataDir, gateway.UsageFile),
		Logger:    logger,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gw.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /search/legal-location", func(w http.ResponseWriter, r *http.Request) {
		c, _ := gateway.CallerFrom(r.Context())
		fmt.Fprintf(w, "%s on the %s plan", c.Product, c.Plan)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	handler := api.Middleware(gw.Middleware(mux), api.Options{
		Logger:    logger,
		RequestID: func(*http.Request) string { return "req-1" },
	})

	for _, tc := range []struct{ target, key string }{
		{"/healthz", ""},
		{"/search/legal-location?location=NW-25-24-1-W5", ""},
		{"/search/legal-location?location=NW-25-24-1-W5", demo},
	} {
		r := httptest.NewRequest("GET", tc.target, nil)
		if tc.key != "" {
			r.Header.Set("X-API-Key", tc.key)
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 200 ok
	// 401 {"error":{"code":"missing_api_key","message":"Missing API key. Send your key in the X-API-Key header, or in the api_key query parameter for tiles and TileJSON.","request_id":"req-1"},"message":"Missing API key. Send your key in the X-API-Key header, or in the api_key query parameter for tiles and TileJSON."}
	// 200 search on the unlimited plan
}
