// Package reportfn forwards to package lambdafn, where the report Lambdas'
// wiring now lives, for the tests of functions/local that still call it.
// Deprecated: use lambdafn.Reports; this package goes once they do.
package reportfn

import (
	"log/slog"
	"net/http"

	"meridian/shared/api"
	"meridian/shared/gridstore"
	"meridian/shared/kv"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/grid"
	"meridian/shared/survey/gridindex"
)

// Routes picks a function's endpoint group over the store and the grid
// service.
type Routes = func(store kv.Store, svc *grid.Service) []api.Route

// NewHandler is lambdafn.Reports(nil, routes).Handler over fixed indexes.
func NewHandler(logger *slog.Logger, store kv.Store, grids []*gridindex.Index, routes Routes) http.Handler {
	return NewGridsHandler(logger, store, gridstore.Fixed(grids), routes)
}

// NewGridsHandler is lambdafn.Reports(nil, routes).Handler.
func NewGridsHandler(logger *slog.Logger, store kv.Store, grids *gridstore.Grids, routes Routes) http.Handler {
	return lambdafn.Reports(nil, routes).Handler(logger, lambdafn.Config{}, store, grids)
}
