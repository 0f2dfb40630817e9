package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/aws/aws-lambda-go/events"
)

// route is one measured route: the function that serves it and the
// API Gateway event of a random request.
type route struct {
	name, function string
	event          func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest
}

// baselineRoute runs the search function without GRID_BUCKET: the survey
// models answer and nothing is read from S3. It is the baseline of a run:
// a runtime's start and a request through the emulator, on the machine as
// loaded as it is during the other routes.
const baselineRoute = "baseline"

// routes are the measured routes, in the table's order.
var routes = []route{
	{baselineRoute, "search", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		// The LSDs with energy data: real Alberta LSDs, which the model
		// places (the generated grid's parcels may lie beyond its extent).
		return get("/search/legal-location", "location", pick(s.LSDs, rng))
	}},
	{"search", "search", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		return get("/search/legal-location", "location", pick(s.GridParcels, rng))
	}},
	{"reverse", "search", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		pt := s.GridPoints[rng.IntN(len(s.GridPoints))]
		return get("/search/coordinates", "location", fmt.Sprintf("%.6f,%.6f", pt[0], pt[1]))
	}},
	{"batch100", "batch", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		lls := make([]string, 100)
		for i := range lls {
			lls[i] = pick(s.GridParcels, rng)
		}
		body, _ := json.Marshal(lls)
		ev := get("/batch/legal-location", "", "")
		ev.HTTPMethod, ev.Body = "POST", string(body)
		ev.Headers["Content-Type"] = "application/json"
		return ev
	}},
	{"energy_report", "energy", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		return get("/energy/report", "legal_location", pick(s.LSDs, rng))
	}},
	{"ag_report", "ag", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		return get("/ag/report", "legal_location", pick(s.Quarters, rng))
	}},
	{"energy_wells", "energy", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		return get("/energy/wells", "legal_location", pick(s.LSDs, rng))
	}},
	{"tile", "tiles", func(s loadSample, rng *rand.Rand) events.APIGatewayProxyRequest {
		layers := make([]string, 0, len(s.Tiles))
		for l := range s.Tiles {
			layers = append(layers, l)
		}
		sort.Strings(layers)
		l := layers[rng.IntN(len(layers))]
		t := s.Tiles[l][rng.IntN(len(s.Tiles[l]))]
		ev := get(fmt.Sprintf("/tiles/%s/%d/%d/%d.mvt", l, t[0], t[1], t[2]), "", "")
		ev.Headers["Accept-Encoding"] = "gzip"
		return ev
	}},
}

func routeNames() []string {
	var n []string
	for _, r := range routes {
		n = append(n, r.name)
	}
	return n
}

func routeNamed(name string) (route, bool) {
	i := slices.IndexFunc(routes, func(r route) bool { return r.name == name })
	if i < 0 {
		return route{}, false
	}
	return routes[i], true
}

func pick(ids []string, rng *rand.Rand) string { return ids[rng.IntN(len(ids))] }

// get is an API Gateway REST proxy event of GET path?key=value, as the
// gateway sends it after the authorizer let it through.
func get(path, key, value string) events.APIGatewayProxyRequest {
	ev := events.APIGatewayProxyRequest{
		Resource:   path,
		Path:       path,
		HTTPMethod: "GET",
		Headers:    map[string]string{"Accept": "application/json", "Host": "bench.execute-api.ca-central-1.amazonaws.com", "X-Forwarded-Proto": "https"},
		RequestContext: events.APIGatewayProxyRequestContext{
			Stage: "v1", RequestID: fmt.Sprintf("bench-%d", rand.Uint64()), HTTPMethod: "GET", Path: "/v1" + path,
		},
	}
	if key != "" {
		ev.QueryStringParameters = map[string]string{key: value}
		ev.MultiValueQueryStringParameters = map[string][]string{key: {value}}
	}
	return ev
}
