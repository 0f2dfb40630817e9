// Command ag is the agriculture Lambda: GET /ag/report, behind an API
// Gateway REST API whose usage plan holds the agriculture product. It reads
// the agriculture dataset of the report store, a DynamoDB table
// (REPORTS_TABLE), and places quarter sections on the official grid
// indexes (GRID_BUCKET) and the survey models, as search does.
// Environment: see lambdafn.Config.
package main

import (
	"meridian/shared/ag/agapi"
	"meridian/shared/api"
	"meridian/shared/kv"
	"meridian/shared/kv/dynamokv"
	"meridian/shared/lambdafn"
	"meridian/shared/survey/grid"
)

// function serves the agriculture routes over the report store and the
// grid indexes.
var function = lambdafn.Reports(dynamokv.Open, func(store kv.Store, svc *grid.Service) []api.Route {
	return agapi.NewHandler(store, svc).Routes()
})

func main() { lambdafn.Main(function) }
