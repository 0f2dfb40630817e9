package main

import (
	"strings"

	"meridian/shared/gateway"
)

// Product is one sold product as deployed: its Lambda, its REST API with
// stage v1, and one usage plan per plan of gateway.Plans for it.
type Product struct {
	Product gateway.Product
	// Function is the directory under functions/ and under the asset root
	// (<root>/<Function>/bootstrap, built by `make build`), and, title-cased,
	// the prefix of the construct ids (TilesFunction, TilesApi).
	Function string
	// Base is the path the function serves under ("tiles" for maps,
	// "energy/changes" for the change feed); every route of Routes is
	// /<Base> or starts with /<Base>/.
	Base string
	// Routes are the function's routes ("GET /search/coordinates"), each
	// an API Gateway method; routes.go.
	Routes []string
	// TimeoutSeconds bounds one invocation; below API Gateway's 29 s so
	// the function's own 503 reaches the caller, not a gateway timeout.
	TimeoutSeconds float64
	// Grid: reads the official grid indexes (GRID_* variables, s3:GetObject
	// on the grid prefix).
	Grid bool
	// Tiles: reads PMTiles archives (TILES_* variables and s3:GetObject on
	// the tiles prefix), is served through CloudFront (PUBLIC_TILES_URL) and
	// answers binary MVT.
	Tiles bool
	// Reports: reads the report table (REPORTS_TABLE, dynamodb:GetItem and
	// dynamodb:Query).
	Reports bool
	// Limits caps the product on AWS whatever its plans say.
	Limits Limits
}

// Limits are what one product may take of the account, so that a flood on
// one product (or one key) cannot starve the others.
type Limits struct {
	// Stage throttles the whole API (every key, every method): the stage's
	// default method throttling.
	Stage Throttle
	// Key throttles one key of a plan without a rate of its own (maps
	// default, every unlimited plan): a usage plan on AWS always has one.
	Key Throttle
	// Concurrency is the function's reserved concurrency: its share of the
	// account's Lambda concurrency, which is also its ceiling.
	Concurrency int
}

// Throttle is a token bucket: requests per second and burst.
type Throttle struct {
	Rate  float64
	Burst int
}

// Products is what the stack deploys, in output order, with the limits of
// each on AWS (README "Deploy to AWS" explains the numbers). The table is
// explicit: a product joins when its function exists, with one line here
// and its name in FUNCTIONS in the Makefile. TestProductTable fails while a
// product's function directory exists without its line here.
func Products() []Product {
	return []Product{
		{Product: gateway.Search, Function: "search", Base: "search", Routes: routes[gateway.Search], TimeoutSeconds: 10, Grid: true,
			Limits: Limits{Stage: Throttle{100, 200}, Key: Throttle{50, 100}, Concurrency: 20}},
		{Product: gateway.Autocomplete, Function: "autocomplete", Base: "autocomplete", Routes: routes[gateway.Autocomplete], TimeoutSeconds: 10, Grid: true,
			Limits: Limits{Stage: Throttle{200, 400}, Key: Throttle{50, 100}, Concurrency: 20}},
		{Product: gateway.Batch, Function: "batch", Base: "batch", Routes: routes[gateway.Batch], TimeoutSeconds: 20, Grid: true,
			Limits: Limits{Stage: Throttle{20, 40}, Key: Throttle{10, 20}, Concurrency: 10}},
		{Product: gateway.Maps, Function: "tiles", Base: "tiles", Routes: routes[gateway.Maps], TimeoutSeconds: 20, Grid: true, Tiles: true,
			Limits: Limits{Stage: Throttle{500, 1000}, Key: Throttle{100, 400}, Concurrency: 40}},
		{Product: gateway.Ag, Function: "ag", Base: "ag", Routes: routes[gateway.Ag], TimeoutSeconds: 10, Grid: true, Reports: true,
			Limits: Limits{Stage: Throttle{50, 100}, Key: Throttle{25, 50}, Concurrency: 10}},
		{Product: gateway.Energy, Function: "energy", Base: "energy", Routes: routes[gateway.Energy], TimeoutSeconds: 10, Grid: true, Reports: true,
			Limits: Limits{Stage: Throttle{50, 100}, Key: Throttle{25, 50}, Concurrency: 10}},
		{Product: gateway.Changes, Function: "changes", Base: "energy/changes", Routes: routes[gateway.Changes], TimeoutSeconds: 10, Grid: true, Reports: true,
			Limits: Limits{Stage: Throttle{50, 100}, Key: Throttle{25, 50}, Concurrency: 10}},
	}
}

// AuthorizerConcurrency is the key authorizer's reserved concurrency, apart
// from every product's: at a few milliseconds an answer, and with results
// cached five minutes per key on the REST APIs, 20 instances pass thousands
// of requests a second, and a product's flood cannot take the authorizer's
// share from the others.
const AuthorizerConcurrency = 20

// AuthorizerFunction is the directory of the key authorizer every API uses.
const AuthorizerFunction = "authorizer"

// title upper-cases the first letter of an ASCII name: "tiles" -> "Tiles".
func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
