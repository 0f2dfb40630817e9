package api

import (
	"encoding/json"
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
	// ContentType of the success body; default application/json.
	ContentType string
	// Errors lists the error statuses the route can answer besides the
	// gateway's 401/403/429 (added for keyed routes).
	Errors []int
	// Public routes need no key.
	Public bool
}

// Param is a query or path parameter.
type Param struct {
	Name        string
	In          string // "query" (default) or "path"
	Required    bool
	Description string
	Schema      map[string]any // default {"type":"string"}
}

// Body is a JSON request body.
type Body struct {
	Description string
	Schema      map[string]any
}

// Info heads the OpenAPI document.
type Info struct {
	Title, Version, Description string
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

var statusText = map[int]string{
	400: "Invalid parameter, legal location or coordinates",
	401: "Missing or unknown API key",
	403: "The key does not hold this product, or the archive is not published",
	404: "Nothing matches",
	405: "Method not allowed on this path",
	413: "Batch larger than 100 records",
	429: "Rate limit or monthly quota exceeded; see Retry-After",
	503: "A dependency is unavailable; retry later",
}

// OpenAPI renders an OpenAPI 3.1 document of routes.
func OpenAPI(info Info, routes []Route) ([]byte, error) {
	paths := map[string]map[string]any{}
	for _, r := range routes {
		path := r.Path()
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(r.Method())] = operation(r)
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       info.Title,
			"version":     info.Version,
			"description": info.Description,
		},
		"paths": paths,
		"components": map[string]any{
			"schemas": map[string]any{"Error": errorSchema},
			"securitySchemes": map[string]any{
				"ApiKeyHeader": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key"},
				"ApiKeyQuery":  map[string]any{"type": "apiKey", "in": "query", "name": "api_key"},
			},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
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
		params = append(params, map[string]any{
			"name": p.Name, "in": in, "required": p.Required || in == "path",
			"description": p.Description, "schema": schema,
		})
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if op.Body != nil {
		out["requestBody"] = map[string]any{
			"required":    true,
			"description": op.Body.Description,
			"content":     map[string]any{"application/json": map[string]any{"schema": op.Body.Schema}},
		}
	}
	ct := op.ContentType
	if ct == "" {
		ct = "application/json"
	}
	schema := op.Response
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	responses := map[string]any{
		"200": map[string]any{"description": "OK", "content": map[string]any{ct: map[string]any{"schema": schema}}},
	}
	codes := append([]int(nil), op.Errors...)
	if !op.Public {
		codes = append(codes, 401, 403, 429)
		out["security"] = []any{map[string]any{"ApiKeyHeader": []string{}}, map[string]any{"ApiKeyQuery": []string{}}}
	} else {
		out["security"] = []any{}
	}
	sort.Ints(codes)
	for _, c := range codes {
		responses[strconv.Itoa(c)] = map[string]any{
			"description": statusText[c],
			"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
		}
	}
	out["responses"] = responses
	return out
}

func operationID(r Route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Method()))
	up := true
	for _, c := range r.Path() {
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
