package convert

import (
	"meridian/shared/api"
)

// geoJSON is the media type of every answer of these routes (RFC 7946).
const geoJSON = "application/geo+json"

var featureSchema = map[string]any{
	"type":     "object",
	"required": []string{"type", "geometry", "properties"},
	"properties": map[string]any{
		"type":     map[string]any{"const": "Feature"},
		"geometry": map[string]any{"type": []string{"object", "null"}, "description": "Polygon or MultiPolygon (grid), Point (centroid); null for the grid of a location whose source gives a point and no outline (a river lot of the Manitoba original survey: RFC 7946's unlocated feature)"},
		"properties": map[string]any{
			"type":     "object",
			"required": []string{"search_term", "legal_location", "unit", "survey_system"},
			"properties": map[string]any{
				"shape":          map[string]any{"enum": []string{"grid", "centroid"}, "description": "absent on autocomplete"},
				"search_term":    map[string]any{"type": "string", "description": "the caller's input"},
				"legal_location": map[string]any{"type": "string", "description": "canonical: NW-25-24-1-W5, 10-36-42-3-W5, A-2-F/93-P-8, F 48 60-20 N 100-30 W"},
				"unit":           map[string]any{"enum": unitNames, "description": "read with survey_system: DLS and FPS both have a Section, NTS and FPS both a Unit"},
				"survey_system":  map[string]any{"enum": systemNames},
				"province":       map[string]any{"type": "string", "description": "full name, e.g. Alberta; Canada Lands for FPS (Northwest Territories, Nunavut, offshore)"},
				"accuracy_m":     map[string]any{"type": "number", "description": "expected error of the geometry in metres, in the answer's datum: for NTS the NAD27 to NAD83 transformation's 2 m (0 in NAD27, where the grid is defined); for FPS that 2 m plus the bow of geodesic grid edges, up to 22 m (the bow alone in NAD27); for the DLS model its bound; for ingested data the source's; plus 2 m when a NAD83 grid is given in NAD27"},
				"source":         map[string]any{"type": "string", "description": "model, or the ingested dataset"},
				"datum":          map[string]any{"enum": []string{"NAD83", "NAD27"}, "description": "datum of the feature's coordinates: NAD83 unless the request asked for datum=NAD27"},
			},
		},
	},
}

var featureCollection = map[string]any{
	"type":        "object",
	"description": "GeoJSON FeatureCollection: per location a grid feature (Polygon or MultiPolygon) then a centroid feature (Point), with properties shape, search_term, legal_location, unit, survey_system, province, accuracy_m, source, datum",
	"required":    []string{"type", "features"},
	"properties": map[string]any{
		"type":     map[string]any{"const": "FeatureCollection"},
		"features": map[string]any{"type": "array", "items": featureSchema},
	},
}

var batchCollection = map[string]any{
	"type":        "object",
	"description": "GeoJSON FeatureCollection in input order, with the records that failed in the errors foreign member",
	"required":    []string{"type", "features", "errors"},
	"properties": map[string]any{
		"type":     map[string]any{"const": "FeatureCollection"},
		"features": map[string]any{"type": "array", "items": featureSchema},
		"errors": map[string]any{"type": "array", "items": map[string]any{
			"type":     "object",
			"required": []string{"index", "input", "code", "message"},
			"properties": map[string]any{
				"index":   map[string]any{"type": "integer"},
				"input":   map[string]any{},
				"code":    map[string]any{"type": "string"},
				"message": map[string]any{"type": "string"},
			},
		}},
	},
}

var (
	// systemNames and unitNames are the values survey_system and unit take
	// in features and requests (requests match them case-insensitively).
	systemNames = []string{"DLS", "NTS", "River Lot", "Geographic Township", "FPS"}
	unitNames   = []string{"Township", "Section", "Half Section", "Quarter Section", "LSD", "Series", "Map Area", "Map Sheet", "Block", "Unit", "Quarter Unit", "River/Parish Lot", "Concession", "Lot", "Grid"}
	// reverseUnits are the units of a reverse lookup: no Half Section
	// (ambiguous from a point), and all.
	reverseUnits = []string{"Township", "Section", "Quarter Section", "LSD", "Series", "Map Area", "Map Sheet", "Block", "Unit", "Quarter Unit", "River/Parish Lot", "Concession", "Lot", "Grid", "all"}

	unitParam = api.Param{Name: "unit", Description: "Township, Section, Quarter Section, LSD (DLS); Series, Map Area, Map Sheet, Block, Unit, Quarter Unit (NTS); River/Parish Lot; Lot, Concession; Grid, Section, Unit (FPS: with survey_system=FPS, as DLS also has a Section and NTS a Unit; Grid alone means FPS); or all. Omitted: the smallest block containing the point.",
		Schema: map[string]any{"type": "string", "enum": reverseUnits, "examples": []string{"Quarter Section", "Section", "Grid"}}}
	sysParam = api.Param{Name: "survey_system", Description: "DLS, NTS, River Lot, Geographic Township or FPS (Federal Permit System grids, NAD27 moved to NAD83). Omitted: the system covering the point; DLS where DLS and NTS both apply (BC Peace River Block); FPS only north of 60° N where no other grid applies (not in Nunavik, Labrador or Greenland); offshore FPS south of 60° needs survey_system=FPS.",
		Schema: map[string]any{"type": "string", "enum": systemNames, "examples": []string{"DLS", "FPS"}}}
	datumParamDoc = api.Param{Name: "datum", Description: "NAD83 (default) or NAD27, any case: the datum of the coordinates sent (location, proximity, batch pairs) and of the geometries answered. NAD27 coordinates are moved to NAD83 and answers back to NAD27 with NRCan's NTv1 grid, which covers 40° to 84° N, 44° to 142° W; a NAD27 point outside it is invalid_coordinates. Every feature carries a datum property.",
		Schema: map[string]any{"type": "string", "enum": []string{"NAD83", "NAD27", "nad83", "nad27"}, "default": "NAD83"}}
)

// SearchRoutes are the routes of the search product.
func (h *Handler) SearchRoutes() []api.Route {
	return []api.Route{
		{
			Pattern: "GET /search/legal-location",
			Handler: api.Func(h.SearchLegalLocation),
			Op: api.Operation{
				Tag:     "search",
				Summary: "Legal land description to its block and centre point",
				Params: []api.Param{{Name: "location", Required: true,
					Description: "a legal land description: NW-25-24-1-W5, 10-36-42-3-W5, 25-24-1-W5, 100/06-32-048-07W5/00, A-2-F/93-P-8, FPS F 48 60-20 N 100-30 W (unit), 48 60-20 N 100-30 W (section), 60-20 N 100-30 W (grid), ...",
					Schema:      map[string]any{"type": "string", "examples": []string{"NW-25-24-1-W5", "A-2-F/93-P-8", "F 48 60-20 N 100-30 W"}},
					Example:     "NW-25-24-1-W5"}, datumParamDoc},
				Response: featureCollection, ContentType: geoJSON,
				Errors: []int{400, 404},
			},
		},
		{
			Pattern: "GET /search/coordinates",
			Handler: api.Func(h.SearchCoordinates),
			Op: api.Operation{
				Tag:     "search",
				Summary: "Coordinates to the legal land description of the block containing them",
				Params: []api.Param{
					{Name: "location", Required: true, Description: "lng,lat (lat,lng is recognised by range; degrees-minutes-seconds with hemispheres also accepted)",
						Example: "-114.01924,51.077932"},
					sysParam, unitParam, datumParamDoc,
				},
				Response: featureCollection, ContentType: geoJSON,
				Errors: []int{400, 404},
			},
		},
	}
}

// AutocompleteRoutes are the routes of the autocomplete product.
func (h *Handler) AutocompleteRoutes() []api.Route {
	return []api.Route{{
		Pattern: "GET /autocomplete/legal-location",
		Handler: api.Func(h.Autocomplete),
		Op: api.Operation{
			Tag:         "autocomplete",
			Summary:     "Complete a partial legal land description",
			Description: "Suggestions are centre points, nearest first to proximity when given, otherwise to a fixed default point (Calgary, 51.0447,-114.0719).",
			Params: []api.Param{
				{Name: "location", Required: true, Description: "partial or full legal land description, at least 2 characters; FPS prefixes such as F 48 60-20 or 60-20 N complete to FPS units, sections and grids",
					Schema: map[string]any{"type": "string", "examples": []string{"NW-25-24", "F 48 60-20", "60-20 N"}}, Example: "NW-25-24"},
				{Name: "limit", Description: "1 to 10, default 3", Schema: map[string]any{"type": "integer", "minimum": 1, "maximum": 10, "default": 3}},
				{Name: "proximity", Description: "a point as lng,lat (or lat,lng) that ranks suggestions by distance"},
				datumParamDoc,
			},
			Response: featureCollection, ContentType: geoJSON,
			Errors: []int{400},
		},
	}}
}

// BatchRoutes are the routes of the batch product.
func (h *Handler) BatchRoutes() []api.Route {
	return []api.Route{
		{
			Pattern: "POST /batch/legal-location",
			Handler: api.Func(h.BatchLegalLocation),
			Op: api.Operation{
				Tag:     "batch",
				Summary: "Up to 100 legal land descriptions to blocks and centre points",
				Params:  []api.Param{datumParamDoc},
				Body: &api.Body{Description: "a JSON array of up to 100 legal land descriptions",
					Schema:  map[string]any{"type": "array", "maxItems": MaxBatch, "items": map[string]any{"type": "string"}},
					Example: []string{"NW-25-24-1-W5", "10-36-42-3-W5", "A-2-F/93-P-8"}},
				Response: batchCollection, ContentType: geoJSON,
				Errors: []int{400, 413},
			},
		},
		{
			Pattern: "POST /batch/coordinates",
			Handler: api.Func(h.BatchCoordinates),
			Op: api.Operation{
				Tag:     "batch",
				Summary: "Up to 100 coordinate pairs to legal land descriptions",
				Params:  []api.Param{datumParamDoc},
				Body: &api.Body{Description: "coordinates as [lng, lat] pairs, with optional survey_system, unit and datum (NAD83, the default, or NAD27; the datum query parameter may be used instead, and must agree when both are given)",
					Schema: map[string]any{
						"type":     "object",
						"required": []string{"coordinates"},
						"properties": map[string]any{
							"coordinates":   map[string]any{"type": "array", "maxItems": MaxBatch, "items": map[string]any{"type": "array", "items": map[string]any{"type": "number"}, "minItems": 2, "maxItems": 2}},
							"survey_system": sysParam.Schema,
							"unit":          unitParam.Schema,
							"datum":         map[string]any{"type": "string", "enum": []string{"NAD83", "NAD27", "nad83", "nad27"}, "default": "NAD83"},
						},
					},
					Example: map[string]any{"coordinates": [][]float64{{-114.01924, 51.077932}, {-120.265625, 55.335417}}}},
				Response: batchCollection, ContentType: geoJSON,
				Errors: []int{400, 413},
			},
		},
	}
}
