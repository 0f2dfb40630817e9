// Command autocomplete is the autocomplete Lambda: GET /autocomplete/legal-location, behind an API Gateway REST API
// whose usage plan holds the autocomplete product. Environment: see lambdafn.Config.
package main

import (
	"meridian/shared/convert"
	"meridian/shared/lambdafn"
)

// function serves the autocomplete routes over the grid indexes.
var function = lambdafn.Convert((*convert.Handler).AutocompleteRoutes)

func main() { lambdafn.Main(function) }
