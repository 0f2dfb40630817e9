// Package convertfn is the wiring the conversion Lambdas (search,
// autocomplete, batch) share: their environment, the official grid indexes
// on S3, and the handler over the routes of one endpoint group.
package convertfn

import (
	"context"
	"log/slog"
	"net/http"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/awsfn"
	"meridian/shared/convert"
	"meridian/shared/env"
	"meridian/shared/gridstore"
	"meridian/shared/survey/gridindex"
)

// Routes picks a function's endpoint group, e.g. (*convert.Handler).SearchRoutes.
type Routes func(*convert.Handler) []api.Route

// Config is a conversion function's environment, checked at cold start.
type Config struct {
	LogLevel slog.Level       // LOG_LEVEL: debug, info (default), warn, error
	Grid     gridstore.Config // GRID_BUCKET, GRID_PREFIX, GRID_INDEXES, GRID_CACHE_MIB, GRID_RECHECK_SECONDS
}

// LoadConfig reads Config through getenv, reporting every problem at once.
func LoadConfig(getenv func(string) string) (Config, error) {
	r := env.New(getenv)
	cfg := Config{LogLevel: r.LogLevel("LOG_LEVEL"), Grid: gridstore.ReadConfig(r)}
	return cfg, r.Err()
}

// NewHandler builds the handler of routes over the grid indexes (none: the
// models answer everywhere), once, before lambda.Start.
func NewHandler(logger *slog.Logger, grids []*gridindex.Index, routes Routes) http.Handler {
	return NewGridsHandler(logger, gridstore.Fixed(grids), routes)
}

// NewGridsHandler is NewHandler over grids that follow the published
// release: a warm function serves a new grid release within the recheck.
func NewGridsHandler(logger *slog.Logger, grids *gridstore.Grids, routes Routes) http.Handler {
	return Mount(logger, grids, func(svc *convert.Service) []api.Route { return routes(convert.NewHandler(svc)) }, nil)
}

// Mount is the handler every function that answers from the grids builds
// (conversion, reports, tiles): the routes made over a conversion service
// that follows grids, behind the release check and the API Gateway
// adapter. changed, when not nil, runs after a new grid release is in
// place (the tiles function drops the tiles it generated from the old).
func Mount(logger *slog.Logger, grids *gridstore.Grids, routes func(svc *convert.Service) []api.Route, changed func()) http.Handler {
	svc := convert.New()
	rs := routes(svc)
	grids.Attach(svc.SetIndexes, changed)
	mux := api.NewMux()
	mux.Mount(rs...)
	return apigw.Wrap(grids.Handler(mux), logger)
}

// Main loads the environment, opens the grid indexes and serves routes on
// Lambda. A bad environment or an index that does not open stops the cold
// start with the reason logged.
func Main(routes Routes) {
	cfg, logger := awsfn.Setup(LoadConfig, func(c Config) slog.Level { return c.LogLevel })
	grids, err := gridstore.Open(context.Background(), cfg.Grid, logger)
	if err != nil {
		awsfn.Fail(logger, "cold start", err)
	}
	apigw.Start(NewGridsHandler(logger, grids, routes))
}
