package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"meridian/shared/api"
	"meridian/shared/gateway"
	"meridian/shared/localtls"
	"meridian/shared/survey/gridindex"
)

func serveCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (loopback only unless -public)")
	public := fs.Bool("public", false, "allow -addr beyond loopback (e.g. 0.0.0.0:8080): every machine that reaches the port gets the map page and its rate-limited key")
	data := dataFlag(fs, "directory of keys.json, usage.json and the demo key")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	logSample := fs.Int("log-sample", 100, "request lines written in full each second: past them one in this many is written and the rest are counted in one line a second (5xx are always written); 0: every line")
	noFixtures := fs.Bool("no-fixtures", false, "do not ingest the embedded fixture grid data into an empty data directory")
	useTLS := fs.Bool("tls", false, "serve HTTPS with a certificate for the loopback names made once in DATA/tls (trust DATA/tls/ca.pem)")
	basemapSpec := fs.String("basemap", "offline", "what the map page draws under the grids: offline (Natural Earth and GeoNames, embedded), none, a MapLibre style URL, or a raster XYZ template such as https://tile.example/{z}/{x}/{y}.png (with -basemap-attribution)")
	basemapAttribution := fs.String("basemap-attribution", "", "attribution of a -basemap style or raster template, shown on the map (required for a raster template)")
	pprofAddr := fs.String("pprof", "", "serve Go's profiler (/debug/pprof/) on this address, e.g. 127.0.0.1:6060; off by default")
	gridCacheMiB := fs.Int64("grid-cache-mib", gridindex.DefaultCacheBytes>>20, "MiB of pages each grid index keeps in memory (the full-size AB index takes about 494 to be held whole)")
	allowPrivateWebhooks := fs.Bool("allow-private-webhooks", false, "accept watches whose webhook URL is http or resolves to a loopback or private address, and deliver to them (a receiver on this machine or network; never on a server others use)")
	gridWarmMiB := fs.Int64("grid-warm-mib", 256, "MiB of grid index pages read into the caches before serving (at start, and when an index file is replaced), index after index in the directory's order; 0: none")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *logSample < 0 {
		fmt.Fprintf(stderr, "meridian serve: -log-sample %d: want 0 (every line) or more\n", *logSample)
		return 2
	}
	if err := checkListenAddr(*addr, *public); err != nil {
		fmt.Fprintf(stderr, "meridian serve: %v\n", err)
		return 2
	}
	bm, err := parseBasemap(*basemapSpec, *basemapAttribution)
	if err != nil {
		fmt.Fprintf(stderr, "meridian serve: %v\n", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "meridian serve: -log-level %q: want debug, info, warn or error\n", *logLevel)
		return 2
	}
	// Request lines are buffered and written in batches (api.LogWriter):
	// one write a line cost more than a search.
	logOut := api.NewLogWriter(stderr, 100*time.Millisecond)
	defer logOut.Close()
	logger := api.NewJSONLogger(logOut, level)
	if *pprofAddr != "" {
		go func() {
			mux := http.NewServeMux()
			mux.HandleFunc("/debug/pprof/", pprof.Index)
			mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
			logger.Error("pprof listener", "err", http.ListenAndServe(*pprofAddr, mux))
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, serverConfig{data: *data, logger: logger, logSample: *logSample, noFixtures: *noFixtures, public: *public, tls: *useTLS, gridCacheBytes: *gridCacheMiB << 20, gridWarmBytes: *gridWarmMiB << 20, basemap: bm, allowPrivateWebhooks: *allowPrivateWebhooks}, *addr, stdout); err != nil {
		logOut.Close()
		fmt.Fprintf(stderr, "meridian serve: %v\n", err)
		return 1
	}
	return 0
}

// checkListenAddr refuses a listen address beyond loopback unless public:
// the local server hands the map page's key to whoever loads the page.
func checkListenAddr(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %v", addr, err)
	}
	if public || (host != "" && loopbackHost(host)) {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "every interface"
	}
	return fmt.Errorf("-addr %q listens beyond this machine (%s): add -public to serve other machines (they get the map page and its rate-limited key, and need keys of their own for the rest), or use 127.0.0.1", addr, shown)
}

// serve runs until ctx is done (SIGINT or SIGTERM), then drains requests and
// flushes the quota counts. It prints base_url=, api_key= and tiles_url=
// lines on stdout once it listens.
func serve(ctx context.Context, cfg serverConfig, addr string, stdout io.Writer) error {
	data, logger := cfg.data, cfg.logger
	if err := os.MkdirAll(string(data), 0o700); err != nil {
		return err
	}
	key, err := gateway.EnsureDemoKey(string(data))
	if err != nil {
		return fmt.Errorf("demo key: %w", err)
	}
	srv, err := newServer(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	go srv.watch(ctx)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	var caPath string
	if cfg.tls {
		cert, ca, err := localtls.Ensure(data.TLS())
		if err != nil {
			ln.Close()
			return err
		}
		caPath = ca
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		base = "https://" + ln.Addr().String()
	}
	fmt.Fprintf(stdout, "base_url=%s\napi_key=%s\ntiles_url=%s/tiles\n", base, key, base)
	if caPath != "" {
		fmt.Fprintf(stdout, "ca_file=%s\n", caPath)
	}
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	hs := &http.Server{
		Handler:           srv.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	logger.Info("listening", "base_url", base, "data", data)
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
		logger.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			return err
		}
	}
	return nil
}
