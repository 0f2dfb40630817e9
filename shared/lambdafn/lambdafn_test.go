package lambdafn_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/convert"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/grid"
)

func env(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	if _, err := (lambdafn.Function{}).LoadConfig(env(nil)); err != nil {
		t.Errorf("empty environment: %v", err)
	}
	vars := map[string]string{"LOG_LEVEL": "loud", "GRID_BUCKET": "grids", "GRID_CACHE_MIB": "0", "GRID_RECHECK_SECONDS": "0"}
	_, err := (lambdafn.Function{}).LoadConfig(env(vars))
	for _, name := range []string{"LOG_LEVEL", "GRID_INDEXES", "GRID_CACHE_MIB", "GRID_RECHECK_SECONDS"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	if err == nil || strings.Contains(err.Error(), "REPORTS_TABLE") {
		t.Errorf("error %v names REPORTS_TABLE, which a function without Reports does not read", err)
	}
	c, err := (lambdafn.Function{}).LoadConfig(env(map[string]string{"GRID_BUCKET": "grids", "GRID_INDEXES": "a.mgix, b.mgix"}))
	if err != nil || c.Grid.Bucket != "grids" || strings.Join(c.Grid.Indexes, "|") != "a.mgix|b.mgix" || c.Grid.Prefix != "grid/" || c.Grid.Recheck != 300*time.Second {
		t.Errorf("LoadConfig = %+v, %v", c, err)
	}
}

func TestLoadConfigReports(t *testing.T) {
	t.Parallel()
	f := lambdafn.Reports(func(context.Context, string) (kv.Store, error) { return kv.NewMem(), nil }, nil)
	_, err := f.LoadConfig(env(map[string]string{"LOG_LEVEL": "loud", "GRID_BUCKET": "grids"}))
	for _, name := range []string{"LOG_LEVEL", "REPORTS_TABLE", "GRID_INDEXES"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	c, err := f.LoadConfig(env(map[string]string{"REPORTS_TABLE": "reports"}))
	if err != nil || c.Table != "reports" || c.LogLevel != slog.LevelInfo || c.Grid.Bucket != "" {
		t.Errorf("LoadConfig = %+v, %v", c, err)
	}
}

// A function's own variables are read with the common ones, and their
// problems reported together.
func TestLoadConfigOwnVariables(t *testing.T) {
	t.Parallel()
	var n int
	f := lambdafn.Function{Env: func(r *lambdafn.Env) { n = r.Int("PER_PAGE", 50, 1, 200) }}
	_, err := f.LoadConfig(env(map[string]string{"PER_PAGE": "500", "GRID_CACHE_MIB": "x"}))
	for _, name := range []string{"PER_PAGE", "GRID_CACHE_MIB"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	if _, err := f.LoadConfig(env(map[string]string{"PER_PAGE": "20"})); err != nil || n != 20 {
		t.Errorf("PER_PAGE=20: %d, %v", n, err)
	}
}

// The handler serves the routes made over what the cold start opened: the
// configuration, the store and a grid service that follows the grids.
func TestHandler(t *testing.T) {
	t.Parallel()
	store := kv.NewMem()
	var got lambdafn.Deps
	f := lambdafn.Function{Routes: func(d lambdafn.Deps) []api.Route {
		got = d
		return []api.Route{{Pattern: "GET /hello", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("hello"))
		})}}
	}}
	c := lambdafn.Config{Table: "reports"}
	h := f.Handler(slog.New(slog.DiscardHandler), c, store, gridstore.Fixed(nil))
	if got.Config.Table != "reports" || got.Store != kv.Store(store) || got.Grid == nil {
		t.Errorf("routes made over %+v; want the config, the store and a grid service", got)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/hello", nil))
	if rec.Code != 200 || rec.Body.String() != "hello" {
		t.Errorf("GET /hello: %d %q", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/nowhere", nil))
	if rec.Code != 404 {
		t.Errorf("GET /nowhere: %d; want 404 from the mux", rec.Code)
	}
}

// Reports hands the routes the store and the grid service.
func TestReports(t *testing.T) {
	t.Parallel()
	store := kv.NewMem()
	var gotStore kv.Store
	var gotSvc *grid.Service
	f := lambdafn.Reports(nil, func(s kv.Store, svc *grid.Service) []api.Route { gotStore, gotSvc = s, svc; return nil })
	f.Handler(slog.New(slog.DiscardHandler), lambdafn.Config{}, store, gridstore.Fixed(nil))
	if gotStore != kv.Store(store) || gotSvc == nil {
		t.Errorf("Reports: store %v, service %v", gotStore, gotSvc)
	}
}

// A conversion function reading its indexes from S3 resolves a batch's
// locations on S3BatchWorkers goroutines; without a bucket, on convert's
// default.
func TestConvertBatchWorkers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bucket string
		want   int
	}{{"", 0}, {"grids", lambdafn.S3BatchWorkers}} {
		var got *convert.Handler
		f := lambdafn.Convert(func(h *convert.Handler) []api.Route { got = h; return h.BatchRoutes() })
		f.Handler(slog.New(slog.DiscardHandler), lambdafn.Config{Grid: gridstore.Config{Bucket: c.bucket}}, nil, gridstore.Fixed(nil))
		if got == nil || got.BatchWorkers != c.want {
			t.Errorf("GRID_BUCKET=%q: handler %+v; want BatchWorkers %d", c.bucket, got, c.want)
		}
	}
}

// A request whose S3 or DynamoDB call stalls answers 503 with Retry-After
// DeadlineMargin before the invocation's deadline, not when Lambda cuts it
// off; a request without a deadline runs without one.
func TestHandlerDeadline(t *testing.T) {
	t.Parallel()
	var sawDeadline bool
	f := lambdafn.Function{Routes: func(d lambdafn.Deps) []api.Route {
		return []api.Route{
			{Pattern: "GET /stall", Handler: api.Func(func(w http.ResponseWriter, r *http.Request) error {
				<-r.Context().Done() // a call that never answers, bounded only by the context
				return apierr.Unavailablef(r.Context().Err(), "the data cannot be read at the moment")
			})},
			{Pattern: "GET /free", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, sawDeadline = r.Context().Deadline()
			})},
		}
	}}
	h := f.Handler(slog.New(slog.DiscardHandler), lambdafn.Config{}, nil, gridstore.Fixed(nil))

	invocation := 1500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), invocation)
	defer cancel()
	start := time.Now()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/stall", nil).WithContext(ctx))
	took := time.Since(start)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `"upstream_unavailable"`) {
		t.Errorf("stalled request: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if took >= invocation || took < invocation-lambdafn.DeadlineMargin-100*time.Millisecond {
		t.Errorf("stalled request answered after %s; want about %s (the invocation's %s less the margin)", took, invocation-lambdafn.DeadlineMargin, invocation)
	}
	if ctx.Err() != nil {
		t.Errorf("the invocation's own deadline passed before the answer")
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/free", nil))
	if sawDeadline {
		t.Errorf("a request without a deadline got one")
	}
}
