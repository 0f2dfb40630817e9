// Command ag is the agriculture Lambda: GET /ag/report, behind an API
// Gateway REST API whose usage plan holds the agriculture product. It reads
// the agriculture dataset of the report store, a DynamoDB table
// (REPORTS_TABLE), and places quarter sections on the official grid
// indexes (GRID_BUCKET) and the survey models, as search does.
// Environment: see reportfn.Config.
package main

import (
	"log/slog"
	"net/http"

	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/kv"
	"meridian/shared/reportfn"
	"meridian/shared/survey/grid"
)

func routes(store kv.Store, svc *grid.Service) []api.Route {
	return agapi.NewHandler(store, svc).Routes()
}

func main() { reportfn.Main(routes) }

// newHandler is the function's handler over a store without grid indexes,
// for tests.
func newHandler(logger *slog.Logger, store kv.Store) http.Handler {
	return reportfn.NewHandler(logger, store, nil, routes)
}
