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
	// Base is the first path segment the function serves ("tiles" for
	// maps); the API proxies /<Base> and /<Base>/{proxy+} to the function.
	Base string
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
}

// Products is what the stack deploys, in output order. The table is
// explicit: a product joins when its function exists, with one line here
// and its name in FUNCTIONS in the Makefile. TestProductTable fails while a
// product's function directory exists without its line here.
func Products() []Product {
	return []Product{
		{Product: gateway.Search, Function: "search", Base: "search", TimeoutSeconds: 10, Grid: true},
		{Product: gateway.Autocomplete, Function: "autocomplete", Base: "autocomplete", TimeoutSeconds: 10, Grid: true},
		{Product: gateway.Batch, Function: "batch", Base: "batch", TimeoutSeconds: 20, Grid: true},
		{Product: gateway.Maps, Function: "tiles", Base: "tiles", TimeoutSeconds: 20, Grid: true, Tiles: true},
		{Product: gateway.Ag, Function: "ag", Base: "ag", TimeoutSeconds: 10, Grid: true, Reports: true},
		{Product: gateway.Energy, Function: "energy", Base: "energy", TimeoutSeconds: 10, Grid: true, Reports: true},
	}
}

// AuthorizerFunction is the directory of the key authorizer every API uses.
const AuthorizerFunction = "authorizer"

// title upper-cases the first letter of an ASCII name: "tiles" -> "Tiles".
func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
