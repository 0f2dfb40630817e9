// Command autocomplete is the autocomplete Lambda: GET /autocomplete/legal-location, behind an API Gateway REST API
// whose usage plan holds the autocomplete product. Environment: see convertfn.Config.
package main

import (
	"log/slog"
	"net/http"

	"meridian/shared/convert"
	"meridian/shared/convert/convertfn"
	"meridian/shared/survey/gridindex"
)

func main() { convertfn.Main((*convert.Handler).AutocompleteRoutes) }

// newHandler is the function's handler, for tests.
func newHandler(logger *slog.Logger, grids []*gridindex.Index) http.Handler {
	return convertfn.NewHandler(logger, grids, (*convert.Handler).AutocompleteRoutes)
}
