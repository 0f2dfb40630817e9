// Command search is the search Lambda: GET /search/legal-location and GET /search/coordinates, behind an API Gateway REST API
// whose usage plan holds the search product. Environment: see lambdafn.Config.
package main

import (
	"meridian/shared/convert"
	"meridian/shared/lambdafn"
)

// function serves the search routes over the grid indexes.
var function = lambdafn.Convert((*convert.Handler).SearchRoutes)

func main() { lambdafn.Main(function) }
