package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"meridian/shared/api"
)

// The document writes the path clients call (Op.Path), leaves Hidden routes
// out, has servers and a licence, gives every operation a 4xx (issue 16,
// item 13: redocly's recommended rules), a required Retry-After on 429, and
// offers the query key only where the route takes it.
func TestOpenAPIPathsServersAndErrors(t *testing.T) {
	t.Parallel()
	routes := []api.Route{
		{Pattern: "GET /tiles/{region}/{layer}", Handler: http.NotFoundHandler(),
			Op: api.Operation{Summary: "TileJSON", Path: "/tiles/{region}/{layer}.json", QueryKey: true,
				Params: []api.Param{{Name: "region", In: "path", Example: "ab"}, {Name: "layer", In: "path", Example: "sec"}}}},
		{Pattern: "GET /things", Handler: http.NotFoundHandler(), Op: api.Operation{Summary: "Things", NoContent: "nothing"}},
		{Pattern: "GET /healthz", Handler: http.NotFoundHandler(), Op: api.Operation{Summary: "Health", Public: true}},
		{Pattern: "GET /{$}", Handler: http.NotFoundHandler(), Op: api.Operation{Summary: "Map page", Public: true, Hidden: true}},
	}
	doc, err := api.OpenAPI(api.Info{Title: "T", Version: "1", License: "Terms", LicenseSPDX: "LicenseRef-T"}, routes)
	if err != nil {
		t.Fatal(err)
	}
	type response struct {
		Headers map[string]struct {
			Required bool `json:"required"`
		} `json:"headers"`
	}
	var d struct {
		Info struct {
			License struct {
				Name       string `json:"name"`
				Identifier string `json:"identifier"`
			} `json:"license"`
		} `json:"info"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]map[string]struct {
			OperationID string                  `json:"operationId"`
			Parameters  []struct{ Example any } `json:"parameters"`
			Responses   map[string]response     `json:"responses"`
			Security    []map[string][]string   `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range d.Paths {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if want := []string{"/healthz", "/things", "/tiles/{region}/{layer}.json"}; !slices.Equal(paths, want) {
		t.Errorf("paths = %v, want %v", paths, want)
	}
	if len(d.Servers) != 1 || d.Servers[0].URL != "/" {
		t.Errorf("servers = %+v, want one, /", d.Servers)
	}
	if d.Info.License.Name != "Terms" || d.Info.License.Identifier != "LicenseRef-T" {
		t.Errorf("license = %+v", d.Info.License)
	}
	for path, ops := range d.Paths {
		op := ops["get"]
		if _, ok := op.Responses["400"]; !ok {
			t.Errorf("%s: no 400 response", path)
		}
		if r, ok := op.Responses["429"]; ok && !r.Headers["Retry-After"].Required {
			t.Errorf("%s: 429 without a required Retry-After header", path)
		}
		if r, ok := op.Responses["503"]; ok && !r.Headers["Retry-After"].Required {
			t.Errorf("%s: 503 without a required Retry-After header", path)
		}
	}
	tj := d.Paths["/tiles/{region}/{layer}.json"]["get"]
	if tj.OperationID != "getTilesRegionLayerJson" || len(tj.Security) != 2 || tj.Parameters[0].Example != "ab" {
		t.Errorf("TileJSON: operationId %q, security %v, parameters %+v", tj.OperationID, tj.Security, tj.Parameters)
	}
	things := d.Paths["/things"]["get"]
	if len(things.Security) != 1 || things.Security[0]["ApiKeyHeader"] == nil {
		t.Errorf("/things security = %v, want the header key only", things.Security)
	}
	if _, ok := things.Responses["204"]; !ok {
		t.Errorf("/things: no 204 response")
	}
	if _, ok := things.Responses["429"]; !ok {
		t.Errorf("/things: no 429 response")
	}
}

// Every error status the document describes lists its codes.
func TestErrorCodesDocumented(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 413, 429, 503} {
		if len(api.ErrorCodes(status)) == 0 {
			t.Errorf("ErrorCodes(%d) is empty", status)
		}
	}
}
