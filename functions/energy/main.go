// Command energy is the energy Lambda: the /energy routes (parcel report,
// wells, pipelines, facilities, tenure, operators, expiring tenure,
// disposition and pipeline licence detail), behind an API Gateway REST API
// whose usage plan holds the energy product. It reads the energy dataset of
// the report store, a DynamoDB table (REPORTS_TABLE), and places parcels on
// the official grid indexes (GRID_BUCKET) and the survey models, as search
// does. Environment: see lambdafn.Config.
package main

import (
	"time"

	"meridian/shared/api"
	"meridian/shared/energy/energyapi"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/grid"
)

// functionAt serves the energy routes over the report store and the grid
// indexes, with a clock: days to expiry are counted from now().
func functionAt(now func() time.Time) lambdafn.Function {
	return lambdafn.Reports(dynamokv.Open, func(store kv.Store, svc *grid.Service) []api.Route {
		return energyapi.NewHandler(store, svc, now).Routes()
	})
}

func main() { lambdafn.Main(functionAt(time.Now)) }
