package gridstore

import (
	"log/slog"
	"net/http"

	"meridian/shared/api"
	"meridian/shared/api/apigw"
	"meridian/shared/survey/grid"
)

// Mount is the handler every function that answers from the grids builds
// (conversion, reports, tiles): the routes made over a grid service that
// follows grids, behind the release check and the API Gateway
// adapter. changed, when not nil, runs after a new grid release is in
// place (the tiles function drops the tiles it generated from the old).
func Mount(logger *slog.Logger, grids *Grids, routes func(svc *grid.Service) []api.Route, changed func()) http.Handler {
	svc := grid.New()
	rs := routes(svc)
	grids.Attach(svc.SetIndexes, changed)
	mux := api.NewMux()
	mux.Mount(rs...)
	return apigw.Wrap(grids.Handler(mux), logger)
}
