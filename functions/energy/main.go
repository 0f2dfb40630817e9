// Command energy is the energy Lambda: the /energy routes (parcel report,
// wells, pipelines, facilities, tenure, operators, expiring tenure,
// disposition and pipeline licence detail), behind an API Gateway REST API
// whose usage plan holds the energy product. It reads the energy dataset of
// the report store, a DynamoDB table (REPORTS_TABLE), and places parcels on
// the official grid indexes (GRID_BUCKET) and the survey models, as search
// does. Environment: see reportfn.Config.
package main

import (
	"log/slog"
	"net/http"
	"time"

	"meridian/shared/api"
	"meridian/shared/energy/energyapi"
	"meridian/shared/kv"
	"meridian/shared/reportfn"
	"meridian/shared/survey/grid"
)

// routesAt mounts the energy routes with a clock: days to expiry are
// counted from now().
func routesAt(now func() time.Time) reportfn.Routes {
	return func(store kv.Store, svc *grid.Service) []api.Route {
		return energyapi.NewHandler(store, svc, now).Routes()
	}
}

func main() { reportfn.Main(routesAt(time.Now)) }

// newHandler is the function's handler over a store without grid indexes
// and with a clock, for tests.
func newHandler(logger *slog.Logger, store kv.Store, now func() time.Time) http.Handler {
	return reportfn.NewHandler(logger, store, nil, routesAt(now))
}
