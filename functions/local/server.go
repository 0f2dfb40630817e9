package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"meridian/shared/ag"
	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/blob"
	"meridian/shared/convert"
	"meridian/shared/datadir"
	"meridian/shared/dataingest"
	"meridian/shared/energy"
	"meridian/shared/energy/energyapi"
	"meridian/shared/gateway"
	"meridian/shared/gridstore/gridset"
	"meridian/shared/kv"
	"meridian/shared/kv/boltdir"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
	"meridian/shared/tile/archive"
	"meridian/shared/watch"
)

// reportDomains are the report domains (energy, ag), each its own store
// directory, served from its current version (package dataingest).
var reportDomains = dataingest.Domains

// reportPollTime is how often a server looks for a new report version.
const reportPollTime = time.Second

// The server looks for a new or rebuilt tile archive at most every
// archiveRecheck.
const archiveRecheck = 2 * time.Second

// webhookPollTime is how often the webhooks' runner looks for a new
// energy version and for deliveries due.
const webhookPollTime = 2 * time.Second

// version is reported in the OpenAPI document.
const version = "0.1.0"

// server is the local process's handler and what must be closed with it.
type server struct {
	handler      http.Handler
	mux          *api.Mux
	gateway      *gateway.Gateway
	grids        *gridset.Grids // the official grid indexes of the data directory
	svc          *grid.Service  // answers from grids
	data         datadir.Dir
	reports      map[string]*boltdir.Live[[]api.Route] // by domain: its routes over its served version
	watches      *watch.Runner                         // the webhooks' deliveries, over the data directory's watches.db
	closeWatches func() error
	logger       *slog.Logger
}

// serverConfig is what newServer needs; flags fill it in serve.
type serverConfig struct {
	data       datadir.Dir // keys.json, usage.json, plans.json, demo-key, grid/
	logger     *slog.Logger
	logSample  int  // request lines a second before sampling (serve -log-sample; 0: every line)
	noFixtures bool // do not ingest the embedded fixtures into an empty grid directory
	// public: the server listens beyond loopback (serve -public), and the
	// map page's configuration answers any Host.
	public bool
	tls    bool // serve HTTPS (serve -tls; see tls.go)
	// archiveRecheck is how often the tile archives are looked for again
	// (default archiveRecheck; negative: on every request).
	archiveRecheck time.Duration
	// gridCacheBytes bounds each grid index's page cache (serve
	// -grid-cache-mib; 0: gridindex.DefaultCacheBytes).
	gridCacheBytes int64
	// gridWarmBytes is how much of the grid indexes' pages are read into
	// their caches before they are served (serve -grid-warm-mib).
	gridWarmBytes int64
	// basemap is what the map page draws under the grids (serve -basemap;
	// zero: the offline archive embedded with the page).
	basemap basemap
	// allowPrivateWebhooks accepts watches whose URL is http or resolves
	// to a loopback or private address, and delivers to them (serve
	// -allow-private-webhooks): a receiver on this machine or network.
	allowPrivateWebhooks bool
	// webhookTLS, when not nil, is the TLS configuration deliveries use
	// (tests: their receiver's certificate).
	webhookTLS *tls.Config
}

// newServer mounts every endpoint group on one mux behind the gateway (keys,
// rate limits, quotas) and the request middleware, with the official grid
// indexes of the data directory loaded (the embedded fixtures ingested
// first when there are none). ctx bounds that start-up work (ingesting the
// fixtures and demo data, building the data archives): serve passes its
// signal context, so Ctrl-C during a first start stops it.
func newServer(ctx context.Context, cfg serverConfig) (*server, error) {
	if !cfg.noFixtures {
		if err := dataingest.EnsureFixtures(ctx, cfg.data, cfg.logger); err != nil {
			return nil, err
		}
	}
	svc := grid.New()
	grids, err := dataingest.ServeGrids(ctx, cfg.data, svc, cfg.logger, cfg.gridCacheBytes, cfg.gridWarmBytes)
	if err != nil {
		return nil, err
	}
	// The map page calls the API with its own key; it must be in the keys
	// file before the gateway loads it.
	mapKey, err := gateway.EnsureMapKey(string(cfg.data))
	if err != nil {
		return nil, fmt.Errorf("map page key: %w", err)
	}
	if err := dataingest.MigrateReports(cfg.data); err != nil {
		return nil, err
	}
	if !cfg.noFixtures {
		if err := dataingest.EnsureDemoReports(ctx, cfg.data, svc, cfg.logger); err != nil {
			return nil, err
		}
		if err := dataingest.EnsureDataArchives(ctx, cfg.data, svc, cfg.logger); err != nil {
			return nil, err
		}
	}
	reports, err := openLiveReports(cfg.data, svc)
	if err != nil {
		return nil, err
	}
	closeReports := func() {
		for _, l := range reports {
			l.Close()
		}
	}
	plans, err := gateway.LoadPlans(cfg.data.Plans())
	if err != nil {
		closeReports()
		return nil, err
	}
	plans = gateway.WithMapPagePlans(plans)
	gw, err := gateway.New(gateway.Options{
		KeysPath:  cfg.data.Keys(),
		UsagePath: cfg.data.Usage(),
		Plans:     plans,
		Logger:    cfg.logger,
	})
	if err != nil {
		closeReports()
		return nil, err
	}
	mux := api.NewMux()
	conv := convert.NewHandler(svc)
	mux.Mount(conv.SearchRoutes()...)
	mux.Mount(conv.AutocompleteRoutes()...)
	mux.Mount(conv.BatchRoutes()...)
	// The archives are read in place: the kernel's page cache keeps what is
	// read often, and each archive version's file stays open (a block cache
	// in front cost a 16 KiB copy per tile and thrashed on random tiles).
	archives := archive.NewSet(blob.NewOpenDir(cfg.data.Tiles()), cmp.Or(cfg.archiveRecheck, archiveRecheck))
	tiles := tile.NewHandler(tile.Options{
		Generator:   tile.NewGenerator(svc),
		Archives:    archives,
		Attribution: tile.Attribution(svc.Sources),
	})
	grids.Attach(nil, tiles.Invalidate) // after svc's: the tiles of the old indexes go
	mux.Mount(tiles.Routes()...)
	for _, domain := range reportDomains {
		mux.Mount(liveRoutes(reports[domain])...)
	}
	allowHost := loopbackHost
	if cfg.public {
		allowHost = func(string) bool { return true }
	}
	bm := cfg.basemap
	if bm.Kind == "" {
		bm.Kind = "offline"
	}
	mux.Mount(webRoutes(mapPage{key: mapKey, allowHost: allowHost, basemap: bm,
		layers: func(ctx context.Context) []tile.MapLayer { return tile.PageLayers(ctx, svc, archives) }})...)
	mux.Mount(serviceRoutes(mux)...)
	// One server delivers: a second one over the same data directory (the
	// load test's pair) finds watches.db locked, answers 503 on /watches
	// and delivers nothing.
	var wkv kv.Store
	closeWatches := func() error { return nil }
	if b, err := kv.OpenBolt(cfg.data.Watches(), kv.BoltOptions{Timeout: time.Second}); err == nil {
		wkv, closeWatches = b, b.Close
	} else {
		cfg.logger.Warn("watches: another server holds the data directory's watches; this one serves none", "error", err.Error())
		wkv = unavailableStore{err}
	}
	watches := watch.NewStore(wkv)
	mux.Mount(watch.NewHandler(watches, cfg.allowPrivateWebhooks).Routes()...)
	var runner *watch.Runner // nil: another server delivers
	if _, ok := wkv.(unavailableStore); !ok {
		runner = &watch.Runner{Store: watches, Sender: watch.NewSender(cfg.allowPrivateWebhooks, cfg.webhookTLS), AllowPrivate: cfg.allowPrivateWebhooks,
			Energy: servedEnergy(reports[energy.Dataset]), Log: cfg.logger}
	}
	// Route: the line of a request the gateway refuses names the route hit.
	h := api.Middleware(gw.Middleware(mux), api.Options{Logger: cfg.logger, Route: mux.Pattern, LinesPerSecond: cfg.logSample})
	return &server{handler: h, mux: mux, gateway: gw, grids: grids, svc: svc, data: cfg.data, reports: reports,
		watches: runner, closeWatches: closeWatches, logger: cfg.logger}, nil
}

// unavailableStore answers every call with err: the watches of a server
// that could not lock watches.db.
type unavailableStore struct{ err error }

func (u unavailableStore) fail() error {
	return apierr.Unavailablef(u.err, "watches are served by another process over this data directory")
}
func (u unavailableStore) Get(context.Context, string, string) (kv.Item, bool, error) {
	return kv.Item{}, false, u.fail()
}
func (u unavailableStore) Query(context.Context, kv.Query) (kv.Page, error) {
	return kv.Page{}, u.fail()
}
func (u unavailableStore) Put(context.Context, []kv.Item) error { return u.fail() }
func (u unavailableStore) Swap(context.Context, kv.Item, []byte) (bool, error) {
	return false, u.fail()
}
func (u unavailableStore) Delete(context.Context, []kv.Key) error { return u.fail() }
func (u unavailableStore) ScanKeys(context.Context, string, func([]kv.Key) error) error {
	return u.fail()
}
func (u unavailableStore) Close() error { return nil }

// servedEnergy gives the webhooks' dispatch the energy version served
// (the one the server's requests read, reloaded with them): no file of
// its own is opened.
func servedEnergy(l *boltdir.Live[[]api.Route]) func(ctx context.Context) (kv.Dataset, bool, func(), error) {
	return func(ctx context.Context) (kv.Dataset, bool, func(), error) {
		store, name, release := l.AcquireStore()
		if name == "" {
			release()
			return kv.Dataset{}, false, nil, nil
		}
		ds, ok, err := kv.Open(ctx, store, energy.Dataset)
		if err != nil || !ok {
			release()
			return kv.Dataset{}, false, nil, err
		}
		return ds, true, release, nil
	}
}

// openLiveReports opens each domain's served report version with the
// domain's routes over it.
func openLiveReports(data datadir.Dir, svc *grid.Service) (map[string]*boltdir.Live[[]api.Route], error) {
	build := map[string]func(kv.Store) []api.Route{
		energy.Dataset: func(s kv.Store) []api.Route {
			h := energyapi.NewHandler(s, svc, time.Now)
			return append(h.Routes(), h.ChangesRoutes()...)
		},
		ag.Dataset: func(s kv.Store) []api.Route { return agapi.NewHandler(s, svc).Routes() },
	}
	out := map[string]*boltdir.Live[[]api.Route]{}
	for _, domain := range reportDomains {
		l, err := boltdir.NewLive(data.Reports(domain), build[domain])
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, fmt.Errorf("report store %s: %w", domain, err)
		}
		out[domain] = l
	}
	return out, nil
}

// liveRoutes are l's routes, each serving a request with the routes built
// over the version served when the request starts, held until it ends.
func liveRoutes(l *boltdir.Live[[]api.Route]) []api.Route {
	proto, _, release := l.Acquire()
	defer release()
	out := slices.Clone(proto)
	for i := range out {
		out[i].Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			routes, _, release := l.Acquire()
			defer release()
			routes[i].Handler.ServeHTTP(w, r)
		})
	}
	return out
}

// watch keeps the grid indexes and the report versions in step with the
// data directory until ctx ends.
func (s *server) watch(ctx context.Context) {
	go s.grids.Watch(ctx)
	if s.watches != nil {
		go s.watches.Run(ctx, webhookPollTime)
	}
	every(ctx, reportPollTime, s.reloadReports)
}

// every runs fn every d until ctx ends.
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// reloadReports switches each domain whose CURRENT changed to its new
// version; a version that does not open is logged and the old one kept.
func (s *server) reloadReports() {
	for _, domain := range reportDomains {
		l := s.reports[domain]
		changed, err := l.Reload()
		switch {
		case err != nil:
			s.logger.Error("report store reload; keeping the version served", "domain", domain, "served", l.Name(), "err", err)
		case changed:
			s.logger.Info("report store switched", "domain", domain, "version_file", l.Name())
		}
	}
}

func (s *server) Close() error {
	err := errors.Join(s.gateway.Close(), s.closeWatches())
	for _, l := range s.reports {
		err = errors.Join(err, l.Close())
	}
	return err
}

// quotaPolicy is what costs a key its monthly quota, as the gateway
// applies it (gateway.Middleware), for the OpenAPI description.
const quotaPolicy = "Quota: a keyed request costs one unit of its product's monthly quota when a route answers it with a status below 500 (200, and a 400 or 404 the route itself gives). Unknown paths (404 not_found from the router), methods a path does not allow (405), refusals by the gateway (401, 403, 429) and 5xx answers cost nothing; X-RateLimit-Remaining on each answer already reflects that."

// openAPIDocOf is the OpenAPI document of mux's routes, as GET
// /openapi.json answers it and meridian openapi prints it.
func openAPIDocOf(mux *api.Mux) ([]byte, error) {
	return api.OpenAPI(api.Info{
		Title:       "Meridian",
		Version:     version,
		Description: "Canadian legal land descriptions to coordinates and back, parcel reports and map tiles. " + quotaPolicy,
		License:     "Meridian API terms of service; the data keep their publishers' licences (meridian data list)", LicenseSPDX: "LicenseRef-Meridian-Terms",
	}, mux.Routes())
}

// serviceRoutes are the public routes of the local server itself.
func serviceRoutes(mux *api.Mux) []api.Route {
	return []api.Route{
		{
			Pattern: "GET /openapi.json",
			Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
				doc, err := openAPIDocOf(mux)
				if err != nil {
					return err
				}
				api.WriteRaw(w, http.StatusOK, "application/json", doc)
				return nil
			}),
			Op: api.Operation{Tag: "service", Summary: "This OpenAPI 3.1 document", Public: true},
		},
		{
			Pattern: "GET /healthz",
			Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
				api.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
				return nil
			}),
			Op: api.Operation{Tag: "service", Summary: "Liveness check", Public: true},
		},
	}
}
