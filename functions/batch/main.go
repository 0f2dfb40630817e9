// Command batch is the batch Lambda: POST /batch/legal-location and POST /batch/coordinates, behind an API Gateway REST API
// whose usage plan holds the batch product. Environment: see lambdafn.Config.
package main

import (
	"meridian/shared/convert"
	"meridian/shared/lambdafn"
)

// function serves the batch routes over the grid indexes.
var function = lambdafn.Convert((*convert.Handler).BatchRoutes)

func main() { lambdafn.Main(function) }
