package api

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Operation is the OpenAPI description of one route.
type Operation struct {
	Summary     string
	Description string
	Tag         string
	Params      []Param
	Body        *Body
	// Response is the JSON schema of the success body; nil means a JSON object.
	Response map[string]any
	// ContentType of the success body; default application/json. Without
	// Response, a type that is not JSON is documented as bytes.
	ContentType string
	// Errors lists the error statuses the route can answer besides the
	// gateway's 401/403/429 (added for keyed routes).
	Errors []int
	// Public routes need no key.
	Public bool
	// QueryKey: the route also takes the key in the api_key query parameter
	// (tiles and TileJSON, which map libraries fetch without headers); every
	// other keyed route takes it in the X-API-Key header only.
	QueryKey bool
	// Path is the OpenAPI path template when the mux pattern cannot say it:
	// a Go pattern's wildcard fills a whole segment, so "/tiles/{region}/{layer}"
	// serves "/tiles/ab/sec.json", which OpenAPI writes "/tiles/{region}/{layer}.json".
	// Empty: the pattern's path.
	Path string
	// NoContent, when set, documents a 204 answer with this description.
	NoContent string
	// Created: the success answer is 201 Created (a POST that makes a
	// resource), not 200.
	Created bool
	// Hidden routes are mounted but are not part of the API (the local map
	// page and its files): the document leaves them out.
	Hidden bool
}

// Param is a query or path parameter.
type Param struct {
	Name        string
	In          string // "query" (default) or "path"
	Required    bool
	Description string
	Schema      map[string]any // default {"type":"string"}
	// Example is a value that gives a documented answer: a client (and
	// TestOpenAPIRequests) can build a working request from the examples.
	Example any
}

// Body is a JSON request body.
type Body struct {
	Description string
	Schema      map[string]any
	Example     any
}

// Info heads the OpenAPI document.
type Info struct {
	Title, Version, Description string
	// License of the API; SPDX is an SPDX license expression
	// (LicenseRef-... for terms of our own), URL the terms' address.
	License, LicenseSPDX, LicenseURL string
	// Servers are base URLs; empty means "/": the host that served the
	// document (the OpenAPI default, written out for linters and generators).
	Servers []string
}

var errorSchema = map[string]any{
	"type":     "object",
	"required": []string{"error", "message"},
	"properties": map[string]any{
		"error": map[string]any{
			"type":     "object",
			"required": []string{"code", "message"},
			"properties": map[string]any{
				"code":       map[string]any{"type": "string", "description": "stable snake_case code"},
				"message":    map[string]any{"type": "string"},
				"request_id": map[string]any{"type": "string"},
			},
		},
		"message": map[string]any{"type": "string", "description": "the same message, for older clients"},
	},
}

// statusText describes each error status with the codes its body carries
// (error.code); functions/local TestBadInput holds the answers to this list.
var statusText = map[int]string{
	400: "Invalid input. error.code: invalid_parameter (a parameter, the path or the body is malformed or out of range; also any path or query holding a NUL byte or bytes that are not UTF-8), invalid_legal_location, invalid_coordinates, bc_not_supported",
	401: "error.code: missing_api_key (no key: send X-API-Key; tiles and TileJSON also take ?api_key=) or invalid_api_key (unknown or revoked)",
	403: "error.code: product_not_in_plan (the key's plan does not hold this product) or archive_not_published (tiles: not a published layer)",
	404: "error.code: not_found (nothing matches)",
	413: "error.code: batch_too_large (more than 100 records, or a body over its byte limit)",
	429: "error.code: rate_limited (the plan's requests per second) or quota_exceeded (the month's quota); wait Retry-After seconds",
	503: "error.code: upstream_unavailable (the data cannot be read at the moment or is not loaded yet: S3 or DynamoDB throttled, failing or slow); wait Retry-After seconds",
}

// statusCodes are the error codes each status documents, in the order of
// statusText.
var statusCodes = map[int][]string{
	400: {"invalid_parameter", "invalid_legal_location", "invalid_coordinates", "bc_not_supported"},
	401: {"missing_api_key", "invalid_api_key"},
	403: {"product_not_in_plan", "archive_not_published"},
	404: {"not_found"},
	413: {"batch_too_large"},
	429: {"rate_limited", "quota_exceeded"},
	503: {"upstream_unavailable"},
}

// ErrorCodes returns the error codes the document lists for an error status
// (nil for a status it does not describe).
func ErrorCodes(status int) []string { return statusCodes[status] }

var retryAfter = map[string]any{
	"description": "seconds to wait before retrying",
	"schema":      map[string]any{"type": "integer", "minimum": 1},
}

var rateLimitHeaders = map[string]any{
	"X-RateLimit-Limit":     map[string]any{"description": "the key's monthly quota for this product", "schema": map[string]any{"type": "integer"}},
	"X-RateLimit-Remaining": map[string]any{"description": "requests left this month (UTC) for this product", "schema": map[string]any{"type": "integer"}},
}

// OpenAPI renders an OpenAPI 3.1 document of routes.
func OpenAPI(info Info, routes []Route) ([]byte, error) {
	paths := map[string]map[string]any{}
	for _, r := range routes {
		if r.Op.Hidden {
			continue
		}
		path := DocPath(r)
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(r.Method())] = operation(r)
	}
	infoOut := map[string]any{
		"title":       info.Title,
		"version":     info.Version,
		"description": info.Description,
	}
	if info.License != "" {
		license := map[string]any{"name": info.License}
		if info.LicenseSPDX != "" {
			license["identifier"] = info.LicenseSPDX
		} else if info.LicenseURL != "" {
			license["url"] = info.LicenseURL
		}
		infoOut["license"] = license
	}
	servers := []any{}
	for _, u := range info.Servers {
		servers = append(servers, map[string]any{"url": u})
	}
	if len(servers) == 0 {
		servers = append(servers, map[string]any{"url": "/", "description": "the server that answered this document"})
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    infoOut,
		"servers": servers,
		"paths":   paths,
		"components": map[string]any{
			"schemas": map[string]any{"Error": errorSchema},
			"securitySchemes": map[string]any{
				"ApiKeyHeader": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key",
					"description": "your API key; every keyed route takes it here"},
				"ApiKeyQuery": map[string]any{"type": "apiKey", "in": "query", "name": "api_key",
					"description": "your API key in the URL, accepted only by tiles and TileJSON (map libraries cannot send headers); a key in a URL ends up in logs and histories, so use the header elsewhere"},
			},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

// DocPath is the route's path as the OpenAPI document writes it.
func DocPath(r Route) string {
	if r.Op.Path != "" {
		return r.Op.Path
	}
	return r.Path()
}

func operation(r Route) map[string]any {
	op := r.Op
	out := map[string]any{
		"operationId": operationID(r),
		"summary":     op.Summary,
	}
	if op.Description != "" {
		out["description"] = op.Description
	}
	if op.Tag != "" {
		out["tags"] = []string{op.Tag}
	}
	var params []any
	for _, p := range op.Params {
		in := p.In
		if in == "" {
			in = "query"
		}
		schema := p.Schema
		if schema == nil {
			schema = map[string]any{"type": "string"}
		}
		param := map[string]any{
			"name": p.Name, "in": in, "required": p.Required || in == "path",
			"description": p.Description, "schema": schema,
		}
		if p.Example != nil {
			param["example"] = p.Example
		}
		params = append(params, param)
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if op.Body != nil {
		media := map[string]any{"schema": op.Body.Schema}
		if op.Body.Example != nil {
			media["example"] = op.Body.Example
		}
		out["requestBody"] = map[string]any{
			"required":    true,
			"description": op.Body.Description,
			"content":     map[string]any{"application/json": media},
		}
	}
	ct := op.ContentType
	if ct == "" {
		ct = "application/json"
	}
	schema := op.Response
	if schema == nil {
		schema = map[string]any{"type": "object"}
		if !isJSON(ct) {
			// Bytes (an MVT tile): a JSON Schema can say only that it is
			// not JSON. Prism held a tile to "type: object".
			schema = map[string]any{"type": "string", "contentMediaType": ct}
		}
	}
	ok := map[string]any{"description": "OK", "content": map[string]any{ct: map[string]any{"schema": schema}}}
	responses := map[string]any{"200": ok}
	if op.Created {
		ok["description"] = "Created"
		responses = map[string]any{"201": ok}
	}
	if op.NoContent != "" {
		responses["204"] = map[string]any{"description": op.NoContent}
	}
	// Every route answers 400 invalid_parameter to a path or query holding
	// a NUL byte or bytes that are not UTF-8 (Mux.Handle).
	codes := append([]int{400}, op.Errors...)
	if !op.Public {
		codes = append(codes, 401, 403, 429)
		ok["headers"] = rateLimitHeaders
		security := []any{map[string]any{"ApiKeyHeader": []string{}}}
		if op.QueryKey {
			security = append(security, map[string]any{"ApiKeyQuery": []string{}})
		}
		out["security"] = security
	} else {
		out["security"] = []any{}
	}
	sort.Ints(codes)
	codes = slices.Compact(codes)
	for _, c := range codes {
		resp := map[string]any{
			"description": statusText[c],
			"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
		}
		switch c {
		case 429:
			resp["headers"] = map[string]any{"Retry-After": withRequired(retryAfter)}
		case 503:
			resp["headers"] = map[string]any{"Retry-After": withRequired(retryAfter)}
		}
		responses[strconv.Itoa(c)] = resp
	}
	out["responses"] = responses
	return out
}

func withRequired(h map[string]any) map[string]any {
	out := maps.Clone(h)
	out["required"] = true
	return out
}

func operationID(r Route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Method()))
	up := true
	for _, c := range DocPath(r) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			if up && c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			b.WriteRune(c)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}

// isJSON reports whether a media type is JSON: application/json or a
// +json type (application/geo+json).
func isJSON(ct string) bool {
	ct, _, _ = strings.Cut(ct, ";")
	return ct == "application/json" || strings.HasSuffix(ct, "+json")
}
