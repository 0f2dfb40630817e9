// Package reportfn is the wiring the report Lambdas (ag, energy) share:
// their environment, the report store on DynamoDB, the official grid
// indexes on S3 (so a report's parcel is the block search answers), and
// the handler over the routes of one endpoint group.
package reportfn

import (
	"context"
	"log/slog"
	"net/http"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/awsfn"
	"meridian/shared/env"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
)

// Config is a report function's environment, checked at cold start.
type Config struct {
	LogLevel slog.Level       // LOG_LEVEL: debug, info (default), warn, error
	Table    string           // REPORTS_TABLE: the report store's DynamoDB table
	Grid     gridstore.Config // GRID_BUCKET, GRID_PREFIX, GRID_INDEXES, GRID_CACHE_MIB, GRID_RECHECK_SECONDS
}

// LoadConfig reads Config through getenv, reporting every problem at once.
func LoadConfig(getenv func(string) string) (Config, error) {
	r := env.New(getenv)
	c := Config{
		LogLevel: r.LogLevel("LOG_LEVEL"),
		Table:    r.Required("REPORTS_TABLE", "the DynamoDB table of the report store"),
		Grid:     gridstore.ReadConfig(r),
	}
	return c, r.Err()
}

// Routes picks a function's endpoint group over the store and the grid
// service.
type Routes func(store kv.Store, svc *grid.Service) []api.Route

// NewHandler builds the handler of routes over the store and the grid
// indexes (none: the survey models place parcels), once, before
// lambda.Start.
func NewHandler(logger *slog.Logger, store kv.Store, grids []*gridindex.Index, routes Routes) http.Handler {
	return NewGridsHandler(logger, store, gridstore.Fixed(grids), routes)
}

// NewGridsHandler is NewHandler over grids that follow the published
// release: a warm function places parcels on a new grid release within
// the recheck.
func NewGridsHandler(logger *slog.Logger, store kv.Store, grids *gridstore.Grids, routes Routes) http.Handler {
	return gridstore.Mount(logger, grids, func(svc *grid.Service) []api.Route { return routes(store, svc) }, nil)
}

// Main loads the environment, connects to the table, opens the grid indexes
// and serves routes on Lambda. A bad environment or an index that does not
// open stops the cold start with the reason logged.
func Main(routes Routes) {
	c, logger := awsfn.Setup(LoadConfig, func(c Config) slog.Level { return c.LogLevel })
	ctx := context.Background()
	client, err := dynamokv.NewClient(ctx, dynamokv.ClientOptions{})
	if err != nil {
		awsfn.Fail(logger, "cold start", err)
	}
	grids, err := gridstore.Open(ctx, c.Grid, logger)
	if err != nil {
		awsfn.Fail(logger, "cold start", err)
	}
	apigw.Start(NewGridsHandler(logger, dynamokv.New(client, c.Table, dynamokv.Options{}), grids, routes))
}
