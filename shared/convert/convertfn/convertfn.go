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
	"meridian/shared/survey/grid"
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
	return newGridsHandler(logger, grids, routes, 0)
}

// S3BatchWorkers is a batch's goroutines when the indexes are read from
// S3: one a location, so that a batch's uncached lookups wait on their
// range reads together (a round or two of S3 latency) instead of eight
// or more one after another on each of a few goroutines.
const S3BatchWorkers = convert.MaxBatch

// newGridsHandler is NewGridsHandler with batchWorkers goroutines a batch
// (0: convert's default).
func newGridsHandler(logger *slog.Logger, grids *gridstore.Grids, routes Routes, batchWorkers int) http.Handler {
	return gridstore.Mount(logger, grids, func(svc *grid.Service) []api.Route {
		h := convert.NewHandler(svc)
		h.BatchWorkers = batchWorkers
		return routes(h)
	}, nil)
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
	workers := 0
	if cfg.Grid.Bucket != "" {
		workers = S3BatchWorkers
	}
	apigw.Start(newGridsHandler(logger, grids, routes, workers))
}
