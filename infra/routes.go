package main

import "meridian/shared/gateway"

// routes are the routes each product's function mounts (its api.Mux
// patterns), which the product's REST API declares one by one instead of a
// catch-all {proxy+}: a path or method that is not here is refused by API
// Gateway itself (MISSING_AUTHENTICATION_TOKEN, rewritten to 404
// not_found) before the authorizer runs or the usage plan counts it.
//
// Path parameters are whole segments, as in Go's mux and in API Gateway:
// TileJSON is /tiles/{region}/{layer} with layer "sec.json", a tile is
// /tiles/{region}/{layer}/{z}/{x}/{y} with y "300.mvt".
//
// functions/authorizer's TestDeployedRoutes reads this file and fails when
// it differs from the patterns the handlers mount: add a route there, add
// it here.
var routes = map[gateway.Product][]string{
	gateway.Search: {
		"GET /search/legal-location",
		"GET /search/coordinates",
	},
	gateway.Autocomplete: {
		"GET /autocomplete/legal-location",
	},
	gateway.Batch: {
		"POST /batch/legal-location",
		"POST /batch/coordinates",
	},
	gateway.Maps: {
		"GET /tiles/{region}/{layer}",
		"GET /tiles/{region}/{layer}/{z}/{x}/{y}",
	},
	gateway.Ag: {
		"GET /ag/report",
	},
	gateway.Energy: {
		"GET /energy/report",
		"GET /energy/wells",
		"GET /energy/pipelines",
		"GET /energy/facilities",
		"GET /energy/tenure",
		"GET /energy/operators",
		"GET /energy/operators/{name}",
		"GET /energy/tenure/expiring",
		"GET /energy/dispositions/{number}",
		"GET /energy/pipelines/{licence}",
	},
	gateway.Changes: {
		"GET /energy/changes",
	},
}

// watchRoutes are the routes of the watches function (functions/watches),
// on the API of the product that sells the change feed (watches.go).
// functions/authorizer's TestDeployedRoutes checks them against the
// patterns its handler mounts.
var watchRoutes = []string{
	"POST /watches",
	"GET /watches",
	"GET /watches/{id}",
	"DELETE /watches/{id}",
	"GET /watches/{id}/deliveries",
}
