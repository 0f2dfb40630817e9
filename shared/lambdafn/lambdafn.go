// Package lambdafn is the wiring of every Lambda behind API Gateway
// (search, autocomplete, batch, ag, energy, tiles), in one shape: a
// Function names its routes, and Main is its cold start. Main reads the
// environment (LOG_LEVEL, the GRID_* variables, REPORTS_TABLE when the
// function reads reports, and the function's own), connects to the report
// store on DynamoDB (through the opener the function passes), opens the official grid indexes on S3 (package
// gridstore) beside whatever else the function opens, and serves the
// function's routes over a grid service that follows the grid release,
// through the API Gateway adapter. A bad environment, or a store or index
// that does not open, stops the cold start with the reason logged.
//
// Each functions/<name>/main.go is then a Function value and
// `func main() { lambdafn.Main(function) }`; its tests build the same
// handler with Function.Handler.
//
// The part of the cold start that needs only the standard library (Env,
// Setup, Fail) is package coldstart, which the key authorizer and the
// refresh job use without the rest.
package lambdafn

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/convert"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/lambdafn/coldstart"
	"meridian/shared/survey/grid"
)

// Env reads the environment; see package coldstart.
type Env = coldstart.Env

// Config is the environment every API function reads, checked at cold
// start.
type Config struct {
	LogLevel slog.Level       // LOG_LEVEL: debug, info (default), warn, error
	Grid     gridstore.Config // GRID_BUCKET, GRID_PREFIX, GRID_INDEXES, GRID_CACHE_MIB, GRID_RECHECK_SECONDS, AWS_REGION, AWS_ENDPOINT_URL_S3
	Table    string           // REPORTS_TABLE: the report store's DynamoDB table, for a Function with OpenStore
}

// Deps are what a cold start opened, for a function's routes.
type Deps struct {
	Config Config
	Grid   *grid.Service // the survey models and the grid indexes; follows the grid release
	Store  kv.Store      // the report store, for a Function with OpenStore; nil otherwise
}

// A Function is one Lambda behind API Gateway.
type Function struct {
	// OpenStore, when not nil, connects to the report store, the table
	// REPORTS_TABLE names (then required): dynamokv.Open for the report
	// functions. It is passed in, not imported here, so that the functions
	// without reports do not link the DynamoDB client (655 KB of each
	// bootstrap, make size).
	OpenStore func(ctx context.Context, table string) (kv.Store, error)
	// Env, when not nil, reads the function's own variables, recording
	// problems in r; they are reported with the common ones.
	Env func(r *Env)
	// Open, when not nil, runs at cold start beside the opening of the grid
	// indexes (the tiles function opens its archives); an error stops the
	// cold start.
	Open func(ctx context.Context, c Config) error
	// Routes makes the function's endpoint group, once, before the first
	// request.
	Routes func(d Deps) []api.Route
	// Changed, when not nil, runs after a new grid release is in place (the
	// tiles function drops the tiles it generated from the old).
	Changed func()
}

// LoadConfig reads f's environment through getenv, reporting every problem
// at once.
func (f Function) LoadConfig(getenv func(string) string) (Config, error) {
	r := coldstart.NewEnv(getenv)
	c := Config{LogLevel: r.LogLevel("LOG_LEVEL"), Grid: ReadGridConfig(r)}
	if f.OpenStore != nil {
		c.Table = r.Required("REPORTS_TABLE", "the DynamoDB table of the report store")
	}
	if f.Env != nil {
		f.Env(r)
	}
	return c, r.Err()
}

// ReadGridConfig reads where the grid indexes are, recording problems in r.
func ReadGridConfig(r *Env) gridstore.Config {
	c := gridstore.Config{
		Bucket:   r.String("GRID_BUCKET", ""),
		Prefix:   r.String("GRID_PREFIX", "grid/"),
		Region:   r.String("AWS_REGION", "us-east-1"),
		Endpoint: r.String("AWS_ENDPOINT_URL_S3", ""),
		CacheMiB: r.Int("GRID_CACHE_MIB", 32, 1, 1024),
		Recheck:  time.Duration(r.Int("GRID_RECHECK_SECONDS", 300, 1, 86400)) * time.Second,
	}
	for _, k := range strings.Split(r.String("GRID_INDEXES", ""), ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.Indexes = append(c.Indexes, k)
		}
	}
	if c.Bucket != "" && len(c.Indexes) == 0 {
		r.Required("GRID_INDEXES", "the index files in GRID_BUCKET to serve, comma-separated (e.g. altalis-ats-v4.1.mgix)")
	}
	return c
}

// Handler is f's handler: its routes over a grid service that follows
// grids, on one mux, behind the grid release check and the API Gateway
// adapter. store is the report store (nil without OpenStore). Main builds it
// once, before lambda.Start; tests build it over gridstore.Fixed indexes.
func (f Function) Handler(logger *slog.Logger, c Config, store kv.Store, grids *gridstore.Grids) http.Handler {
	svc := grid.New()
	rs := f.Routes(Deps{Config: c, Grid: svc, Store: store})
	grids.Attach(svc.SetIndexes, f.Changed)
	mux := api.NewMux()
	mux.Mount(rs...)
	return apigw.WrapMux(WithDeadline(grids.Handler(mux), DeadlineMargin), mux, logger)
}

// DeadlineMargin is how long before the invocation's deadline (the
// function's timeout in the stack, infra/products.go) a request's own
// deadline falls: the time left to write a 503 upstream_unavailable
// instead of Lambda cutting the invocation off (API Gateway then answers
// 502 or 504 with no body of ours).
const DeadlineMargin = time.Second

// WithDeadline runs h under a context whose deadline is margin before the
// one the request came with (the Lambda runtime's, which aws-lambda-go
// puts in the invocation's context and the API Gateway adapter passes
// on). An S3 or DynamoDB call still waiting then (a stalled connection,
// retries) ends with context.DeadlineExceeded, which the stores report as
// unavailable: the client gets 503 with Retry-After in time. A request
// without a deadline (the local server, tests) runs as it came.
func WithDeadline(h http.Handler, margin time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := r.Context().Deadline()
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithDeadline(r.Context(), d.Add(-margin))
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Main is f's cold start: it loads the environment, connects to the report
// store (with OpenStore), opens the grid indexes while f.Open runs, and
// serves f's handler on Lambda. Anything that fails stops the cold start
// with the reason logged.
func Main(f Function) {
	c, logger := coldstart.Setup(f.LoadConfig, func(c Config) slog.Level { return c.LogLevel })
	ctx := context.Background()
	var store kv.Store
	if f.OpenStore != nil {
		var err error
		if store, err = f.OpenStore(ctx, c.Table); err != nil {
			coldstart.Fail(logger, "cold start", err)
		}
	}
	opened := make(chan error, 1)
	if f.Open != nil {
		go func() { opened <- f.Open(ctx, c) }()
	} else {
		opened <- nil
	}
	grids, err := gridstore.Open(ctx, c.Grid, logger)
	if err != nil {
		coldstart.Fail(logger, "cold start", err)
	}
	if err := <-opened; err != nil {
		coldstart.Fail(logger, "cold start", err)
	}
	apigw.Start(f.Handler(logger, c, store, grids))
}

// S3BatchWorkers is a batch's goroutines when the indexes are read from
// S3: one a location, so that a batch's uncached lookups wait on their
// range reads together (a round or two of S3 latency) instead of eight
// or more one after another on each of a few goroutines.
const S3BatchWorkers = convert.MaxBatch

// Convert is the Function of a conversion Lambda (search, autocomplete,
// batch) serving one endpoint group, e.g. (*convert.Handler).SearchRoutes.
// With the indexes on S3 (GRID_BUCKET) a batch runs S3BatchWorkers
// goroutines; without, convert's default.
func Convert(routes func(*convert.Handler) []api.Route) Function {
	return Function{Routes: func(d Deps) []api.Route {
		h := convert.NewHandler(d.Grid)
		if d.Config.Grid.Bucket != "" {
			h.BatchWorkers = S3BatchWorkers
		}
		return routes(h)
	}}
}

// Reports is the Function of a report Lambda (ag, energy): routes over the
// report store open connects to (dynamokv.Open) and the grid service, which
// places parcels on the official grid indexes (so a report's parcel is the
// block search answers).
func Reports(open func(ctx context.Context, table string) (kv.Store, error), routes func(store kv.Store, svc *grid.Service) []api.Route) Function {
	return Function{OpenStore: open, Routes: func(d Deps) []api.Route { return routes(d.Store, d.Grid) }}
}
