// Command changes is the change feed's Lambda: GET /energy/changes, what
// changed on the LSDs of an area between versions of the energy data,
// behind an API Gateway REST API whose usage plans hold the changes
// product. It reads the change items every energy version carries
// (CHG#<township>, package energy/changefeed) from the report store, a
// DynamoDB table (REPORTS_TABLE), and places areas on the official grid
// indexes (GRID_BUCKET) and the survey models. Environment: see
// lambdafn.Config.
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

func function() lambdafn.Function {
	return lambdafn.Reports(dynamokv.Open, func(store kv.Store, svc *grid.Service) []api.Route {
		return energyapi.NewHandler(store, svc, time.Now).ChangesRoutes()
	})
}

func main() { lambdafn.Main(function()) }
