// Package convertfn forwards to package lambdafn, where the conversion
// Lambdas' wiring now lives, for the tests of functions/local that still
// call it. Deprecated: use lambdafn.Convert; this package goes once they do.
package convertfn

import (
	"log/slog"
	"net/http"

	"meridian/shared/api"
	"meridian/shared/convert"
	"meridian/shared/gridstore"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/gridindex"
)

// Routes picks a function's endpoint group, e.g. (*convert.Handler).SearchRoutes.
type Routes = func(*convert.Handler) []api.Route

// NewHandler is lambdafn.Convert(routes).Handler over fixed indexes.
func NewHandler(logger *slog.Logger, grids []*gridindex.Index, routes Routes) http.Handler {
	return NewGridsHandler(logger, gridstore.Fixed(grids), routes)
}

// NewGridsHandler is lambdafn.Convert(routes).Handler.
func NewGridsHandler(logger *slog.Logger, grids *gridstore.Grids, routes Routes) http.Handler {
	return lambdafn.Convert(routes).Handler(logger, lambdafn.Config{}, nil, grids)
}
