package energyapi

import "meridian/shared/api"

var (
	lsdParam   = api.Param{Name: "legal_location", Required: true, Description: "an LSD in AB, SK or MB, such as 10-36-42-3-W5", Example: "9-10-60-22-W5"}
	pageParams = []api.Param{
		{Name: "page", Description: "1-based page, default 1", Schema: map[string]any{"type": "integer", "minimum": 1, "default": 1}},
		{Name: "per_page", Description: "1 to 200, default 50", Schema: map[string]any{"type": "integer", "minimum": 1, "maximum": MaxPerPage, "default": DefaultPerPage}},
		{Name: "dir", Description: "asc or desc; the default depends on the sort", Schema: map[string]any{"enum": []string{"asc", "desc"}}},
	}
	windowSchema = map[string]any{"type": "integer", "minimum": 1, "maximum": MaxWindowDays}
	cursorDoc    = api.Param{Name: "cursor", Description: "meta.next_cursor of the previous page: pages a list in a key order (the default sort, every sort of the operators list; either direction) at constant cost; not with page"}
)

func params(ps ...api.Param) []api.Param { return append(ps, pageParams...) }

// Routes are the energy endpoints.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Pattern: "GET /energy/report", Handler: api.Func(h.Report), Op: api.Operation{Tag: "energy",
			Summary: "Energy parcel report of an LSD: summary, production, tenure, wells, pipelines, facilities",
			Params:  []api.Param{lsdParam, {Name: "include", Description: "comma-separated: summary, production, tenure, wells, pipelines, facilities, alternative_energy, geometry; omitted: the full report"}},
			Errors:  []int{400, 404, 503}}},
		{Pattern: "GET /energy/wells", Handler: api.Func(h.Wells), Op: api.Operation{Tag: "energy", Summary: "Wells on an LSD",
			Params: params(lsdParam, api.Param{Name: "status", Description: "active, suspended, abandoned, orphan, reclamation_certified, unknown"},
				api.Param{Name: "operator", Description: "operator name substring, case-insensitive"},
				api.Param{Name: "sort", Description: "id, status (default), operator, depth"}),
			Errors: []int{400, 503}}},
		{Pattern: "GET /energy/pipelines", Handler: api.Func(h.Pipelines), Op: api.Operation{Tag: "energy", Summary: "Pipeline segments crossing an LSD",
			Params: params(lsdParam, api.Param{Name: "substance", Description: "substring, case-insensitive"},
				api.Param{Name: "status", Description: "segment status, exact, case-insensitive"},
				api.Param{Name: "operator", Description: "operator name substring, case-insensitive"},
				api.Param{Name: "sort", Description: "id, length, h2s (default, descending)"}),
			Errors: []int{400, 503}}},
		{Pattern: "GET /energy/facilities", Handler: api.Func(h.Facilities), Op: api.Operation{Tag: "energy", Summary: "Facilities on an LSD",
			Params: params(lsdParam, api.Param{Name: "category", Description: "exact, case-insensitive"},
				api.Param{Name: "status", Description: "exact, case-insensitive"},
				api.Param{Name: "operator", Description: "operator name substring, case-insensitive"},
				api.Param{Name: "sort", Description: "id, name, status (default)"}),
			Errors: []int{400, 503}}},
		{Pattern: "GET /energy/tenure", Handler: api.Func(h.Tenure), Op: api.Operation{Tag: "energy", Summary: "Crown dispositions over an LSD",
			Params: params(lsdParam, api.Param{Name: "tenure_kind", Description: "png, mineral, all (default)"},
				api.Param{Name: "status", Description: "disposition status, exact, case-insensitive"},
				api.Param{Name: "operator", Description: "holder name substring, case-insensitive"},
				api.Param{Name: "expires_within_days", Description: "1 to 3650; perpetual dispositions never enter the window", Schema: windowSchema},
				api.Param{Name: "sort", Description: "expiry, urgency (default), area, id"}),
			Errors: []int{400, 503}}},
		{Pattern: "GET /energy/operators", Handler: api.Func(h.answers.keep(h.operators)), Op: api.Operation{Tag: "energy", Summary: "Operators by well liability",
			Params: params(cursorDoc, api.Param{Name: "q", Description: "substring of the name or BA code"},
				api.Param{Name: "sort", Description: "orphan (default), active, abandoned, name, dispositions; descending except name"}),
			Errors: []int{400, 503}}},
		{Pattern: "GET /energy/operators/{name}", Handler: api.Func(h.answers.keep(h.operator)), Op: api.Operation{Tag: "energy", Summary: "One operator: summary, dispositions, wells or LSDs",
			Params: params(cursorDoc, api.Param{Name: "name", In: "path", Required: true, Description: "BA code, display name, kebab slug or alphanumeric squash", Example: "Z9A1"},
				api.Param{Name: "view", Description: "summary (default), dispositions, wells, lsds"},
				api.Param{Name: "q", Description: "substring scoped to the view"},
				api.Param{Name: "tenure_kind", Description: "view=dispositions: png, mineral, all"},
				api.Param{Name: "type", Description: "view=dispositions: a mineral category or a PNG disposition type"},
				api.Param{Name: "status", Description: "view=dispositions: registry status, expired or expiring; view=wells: a well status"},
				api.Param{Name: "expires_within_days", Description: "view=dispositions: 1 to 3650", Schema: windowSchema},
				api.Param{Name: "sort", Description: "dispositions: expiry, days, area, id, type, status; wells: uwi, status, licence, lsd; lsds: total, lsd, active, orphan"}),
			Errors: []int{400, 404, 503}}},
		{Pattern: "GET /energy/tenure/expiring", Handler: api.Func(h.answers.keep(h.expiring)), Op: api.Operation{Tag: "energy", Summary: "Dispositions expiring within a window",
			Params: params(cursorDoc, api.Param{Name: "expires_within_days", Description: "1 to 3650, default 365", Schema: windowSchema},
				api.Param{Name: "operator", Description: "holder name substring"},
				api.Param{Name: "type", Description: "a mineral category or a PNG disposition type"},
				api.Param{Name: "tenure_kind", Description: "png, mineral, all"},
				api.Param{Name: "q", Description: "disposition number or holder name substring"},
				api.Param{Name: "sort", Description: "expiry (default), days, area, operator, id"}),
			Errors: []int{400, 503}}},
		{Pattern: "GET /energy/dispositions/{number}", Handler: api.Func(h.Disposition), Op: api.Operation{Tag: "energy", Summary: "One Crown disposition",
			Params: []api.Param{{Name: "number", In: "path", Required: true, Description: "PNG number, or category:number (colon percent-encoded) for minerals", Example: "0522020020"}},
			Errors: []int{400, 404, 503}}},
		{Pattern: "GET /energy/pipelines/{licence}", Handler: api.Func(h.PipelineLicence), Op: api.Operation{Tag: "energy", Summary: "A pipeline licence and its segments",
			Params: []api.Param{{Name: "licence", In: "path", Required: true, Description: "the regulator's pipeline licence number", Example: "40822"}},
			Errors: []int{400, 404, 503}}},
	}
}

// ChangesRoutes are the change feed's routes: a product of its own
// (gateway.Changes), served beside the energy routes locally and by its
// own function on AWS (functions/changes).
func (h *Handler) ChangesRoutes() []api.Route {
	return []api.Route{
		{Pattern: "GET /energy/changes", Handler: api.Func(h.Changes), Op: api.Operation{Tag: "energy", Response: changesSchema,
			Summary: "What changed on the LSDs of an area since a date: wells licensed, status and operator changes, orphans, pipelines, facilities, dispositions issued, transferred, expired",
			Params: []api.Param{{Name: "legal_location", Required: true, Description: "an LSD, quarter section, section or township in AB, SK or MB: the changes of every LSD in it", Example: "24-1-W5"},
				{Name: "since", Description: "YYYY-MM-DD: changes seen in a version as of that date or later; omitted: every change kept (two years)", Schema: map[string]any{"type": "string", "format": "date"}},
				{Name: "kinds", Description: "comma-separated change kinds (well_licensed, well_status_changed, ...) or entity types (well, pipeline, facility, disposition: all of theirs); omitted: all"},
				{Name: "page", Description: "1-based page, default 1", Schema: map[string]any{"type": "integer", "minimum": 1, "default": 1}},
				{Name: "per_page", Description: "1 to 200, default 50", Schema: map[string]any{"type": "integer", "minimum": 1, "maximum": MaxPerPage, "default": DefaultPerPage}},
				{Name: "cursor", Description: "meta.next_cursor of the previous page: pages at constant cost; not with page"}},
			Errors: []int{400, 503}}},
	}
}
