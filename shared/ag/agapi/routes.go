package agapi

import (
	"meridian/shared/api"
	"meridian/shared/report"
)

func obj(desc string) map[string]any {
	return map[string]any{"type": []string{"object", "null"}, "description": desc}
}

var reportSchema = map[string]any{
	"type":        "object",
	"description": "Agriculture parcel report of one quarter section. Sections left out by include are absent; a requested section that cannot be provided is null and listed in meta.unavailable.",
	"required":    []string{"legal_location", "resolved_legal_location", "grain", "province", "parcel", "units", "meta"},
	"properties": map[string]any{
		"legal_location":          map[string]any{"type": "string", "description": "the input, canonical: NW-36-42-3-W5 or 10-36-42-3-W5"},
		"resolved_legal_location": map[string]any{"type": "string", "description": "the quarter section reported on"},
		"grain":                   map[string]any{"enum": []string{"quarter_section", "lsd"}},
		"province":                map[string]any{"enum": []string{"AB", "SK", "MB"}},
		"parcel": map[string]any{
			"type":     "object",
			"required": []string{"area_ha", "centroid", "geometry"},
			"properties": map[string]any{
				"area_ha":  map[string]any{"type": "number", "description": "on the WGS84 ellipsoid, 2 decimals"},
				"centroid": map[string]any{"type": "object", "properties": map[string]any{"lat": map[string]any{"type": "number"}, "lng": map[string]any{"type": "number"}}},
				"geometry": obj("GeoJSON Polygon of the quarter section; null unless include contains geometry"),
			},
		},
		"productivity":      obj("lsrs and cli, each {score, class, limiter} or null"),
		"cropping":          obj("dominant {code, name, category}, rotation, diversity_index, years_covered"),
		"soil":              obj("classification {order, great_group, subgroup_code}, drainage_class, slope_class"),
		"land_use":          obj("dominant {code, label, ipcc_class}, breakdown [{code, label, ipcc_class, pct}]"),
		"drought":           obj("class, severity_label, as_of (YYYY-MM)"),
		"wetlands":          obj("count, on_parcel, on_parcel_pct, nearest_m within the search radius (NRCan hydrology: National Hydro Network or CanVec Hydro)"),
		"hydrology":         obj("watercourse {name, distance_m, is_on_parcel}, water_body {name, distance_m, is_on_parcel, on_parcel_pct}, search_radius_m"),
		"parcel_context":    obj("municipality {name, type}"),
		"provincial_detail": obj("crown_land, soils, pastures (arrays); SK and MB; null in AB (not_published_in_province)"),
		"units":             map[string]any{"type": "object", "properties": map[string]any{"area": map[string]any{"const": "ha"}, "distance": map[string]any{"const": "m"}}},
		"meta": map[string]any{
			"type":     "object",
			"required": []string{"unavailable", "sources"},
			"properties": map[string]any{
				"unavailable": map[string]any{"type": "array", "items": map[string]any{
					"type":     "object",
					"required": []string{"section", "reason"},
					"properties": map[string]any{
						"section": map[string]any{"type": "string", "description": "a section name, or productivity.lsrs / productivity.cli"},
						"reason":  map[string]any{"enum": []string{report.ReasonNoData, report.ReasonNotPublished, report.ReasonSourceError}},
					},
				}},
				"sources": map[string]any{"type": "object", "description": "per section (productivity.lsrs and productivity.cli for productivity): {name, as_of, demo}"},
			},
		},
	},
}

// Routes are the routes of the agriculture report.
func (h *Handler) Routes() []api.Route {
	return []api.Route{{
		Pattern: "GET /ag/report",
		Handler: api.Func(h.ServeReport),
		Op: api.Operation{
			Tag:     "agriculture",
			Summary: "Agriculture parcel report of a quarter section (an LSD resolves to its quarter)",
			Params: []api.Param{
				{Name: "legal_location", Required: true, Description: "a quarter section (NW-36-42-3-W5) or LSD (10-36-42-3-W5) in AB, SK or MB", Example: "NE-25-10-14-W2"},
				{Name: "include", Description: "comma list of productivity, cropping, soil, land_use, drought, wetlands, hydrology, parcel_context, provincial_detail, geometry; omitted: every section, without geometry. Sections left out are not read."},
			},
			Response: reportSchema,
			Errors:   []int{400, 404, 503},
		},
	}}
}
