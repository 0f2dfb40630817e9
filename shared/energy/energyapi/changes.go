package energyapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/lld"
)

// changesList is the answer of GET /energy/changes.
type changesList struct {
	LegalLocation string            `json:"legal_location"`
	Province      string            `json:"province"`
	Unit          string            `json:"unit"`
	Rows          []json.RawMessage `json:"rows"`
	Meta          changesMeta       `json:"meta"`
}

// changesMeta is the answer's meta, its fields in the order of their
// names, as the lists' meta maps are written.
type changesMeta struct {
	Dir        string `json:"dir"`
	Kinds      any    `json:"kinds"`
	NextCursor any    `json:"next_cursor"`
	Page       int    `json:"page"`
	PerPage    int    `json:"per_page"`
	Since      any    `json:"since"`
	Sort       string `json:"sort"`
	Total      any    `json:"total"`
}

// Changes answers GET /energy/changes: what changed on the LSDs of an
// area, newest first.
func (h *Handler) Changes(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	q := api.Params(r.URL.RawQuery)
	input := strings.TrimSpace(q.Get("legal_location"))
	if input == "" {
		return apierr.Invalidf("invalid_parameter", "legal_location is required: an LSD, quarter, section or township such as 24-1-W5")
	}
	l, err := lld.Parse(input)
	if err != nil {
		return err
	}
	if err := energy.CheckChangesArea(l, input); err != nil {
		return err
	}
	prov, err := h.rep.Province(ctx, l, input)
	if err != nil {
		return err
	}
	page, err := intParam(q, "page", 1, 1_000_000, 1)
	if err != nil {
		return err
	}
	perPage, err := intParam(q, "per_page", 1, MaxPerPage, DefaultPerPage)
	if err != nil {
		return err
	}
	after, err := energy.DecodeCursor(q.Get("cursor"), energy.ChangesPaging(page, perPage))
	if err != nil {
		return err
	}
	since := strings.TrimSpace(q.Get("since"))
	if since != "" {
		if _, err := time.Parse("2006-01-02", since); err != nil {
			return apierr.Invalidf("invalid_parameter", "since '%s' is not valid: use a date, YYYY-MM-DD", q.Get("since"))
		}
	}
	kinds, names, err := kindsParam(q.Get("kinds"))
	if err != nil {
		return err
	}
	// The answer is written by hand around the stored rows, which go out
	// as they are, copied once from the store into the body: encoding/json
	// scanned each json.RawMessage twice (13% of the route's CPU on pages
	// of one or two changes) and its reflection over the envelope was 1.5%
	// more.
	bp := bodyBufs.Get()
	defer bodyBufs.Put(bp)
	body := appendChangesHead(*bp, l.String(), prov, unitName(l.Unit))
	body, res, err := h.rep.AppendChanges(ctx, body, energy.ChangesQuery{Area: l, Since: since, Kinds: kinds, Page: page, PerPage: perPage, After: after})
	*bp = body // what it grew serves the next request, also on an error
	if err != nil {
		return err
	}
	var total any
	if res.Total >= 0 {
		total = res.Total
	}
	body = appendChangesMeta(body, changesMeta{Total: total, Page: page, PerPage: perPage, Sort: "newest", Dir: "desc",
		Since: echo(since), Kinds: names, NextCursor: echo(res.Next)})
	*bp = body
	api.WriteRaw(w, http.StatusOK, "application/json", body)
	return nil
}

// appendChangesHead and appendChangesMeta append the answer around its
// rows as api.WriteJSON writes a changesList: the fields in their order,
// no HTML escaping, a final newline (TestChangesListAsEncoder). The head
// ends at the rows' opening bracket, the meta starts at their closing one.
func appendChangesHead(b []byte, legalLocation, province, unit string) []byte {
	b = append(b, `{"legal_location":`...)
	b = appendJSONString(b, legalLocation)
	b = append(b, `,"province":`...)
	b = appendJSONString(b, province)
	b = append(b, `,"unit":`...)
	b = appendJSONString(b, unit)
	return append(b, `,"rows":[`...)
}

func appendChangesMeta(b []byte, m changesMeta) []byte {
	b = append(b, `],"meta":{"dir":`...)
	b = appendJSONString(b, m.Dir)
	b = append(b, `,"kinds":`...)
	b = appendJSONAny(b, m.Kinds)
	b = append(b, `,"next_cursor":`...)
	b = appendJSONAny(b, m.NextCursor)
	b = append(b, `,"page":`...)
	b = strconv.AppendInt(b, int64(m.Page), 10)
	b = append(b, `,"per_page":`...)
	b = strconv.AppendInt(b, int64(m.PerPage), 10)
	b = append(b, `,"since":`...)
	b = appendJSONAny(b, m.Since)
	b = append(b, `,"sort":`...)
	b = appendJSONString(b, m.Sort)
	b = append(b, `,"total":`...)
	b = appendJSONAny(b, m.Total)
	return append(b, "}}\n"...)
}

// appendJSONString appends s as a JSON string the way api.WriteJSON
// writes it: as it is when it is printable ASCII without a quote or
// backslash (every value of this answer but a client's odd input), else
// through the encoder.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return appendJSONAny(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONAny appends v as api.WriteJSON encodes it, without the
// encoder's newline: null, a string or a []string, an int.
func appendJSONAny(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	}
	out, err := api.AppendJSON(b, v)
	if err != nil { // strings and slices of them do not fail
		panic(err)
	}
	return out
}

// kindsParam reads kinds: comma-separated change kinds or entity types
// (energy.ParseChangeKinds); nil for all, and the names asked for meta.
func kindsParam(s string) (map[energy.ChangeKind]bool, any, error) {
	kinds, err := energy.ParseChangeKinds(strings.Split(s, ","))
	if err != nil || len(kinds) == 0 {
		return nil, nil, err
	}
	set := map[energy.ChangeKind]bool{}
	var names []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.ToLower(strings.TrimSpace(f)); f != "" && !slices.Contains(names, f) {
			names = append(names, f)
		}
	}
	for _, k := range kinds {
		set[k] = true
	}
	return set, names, nil
}

// unitName is the area's unit as the answer names it.
func unitName(u lld.Unit) string {
	switch u {
	case lld.Township:
		return "township"
	case lld.Section:
		return "section"
	case lld.QuarterSection:
		return "quarter_section"
	}
	return "lsd"
}

// changesSchema documents the answer of GET /energy/changes.
var changesSchema = func() map[string]any {
	kinds := make([]string, len(energy.ChangeKinds))
	for i, k := range energy.ChangeKinds {
		kinds[i] = string(k)
	}
	str := map[string]any{"type": "string"}
	fields := map[string]any{"type": "object", "additionalProperties": true,
		"description": "the fields that changed (status, licence_status_raw, operator_ba_code, operator_name, is_orphan, holder_ba_code, holder_name, expiry_date, issue_date, expired, ...); null for an entity new (before) or gone (after)"}
	nullableFields := map[string]any{"oneOf": []any{fields, map[string]any{"type": "null"}}}
	change := map[string]any{"type": "object",
		"required": []string{"id", "kind", "legal_location", "province", "entity_type", "entity_id", "before", "after", "version", "as_of", "source"},
		"properties": map[string]any{
			"id":             map[string]any{"type": "string", "description": "stable: the same change delivered twice has the same id"},
			"kind":           map[string]any{"type": "string", "enum": kinds},
			"legal_location": map[string]any{"type": "string", "description": "the LSD"},
			"province":       str,
			"entity_type":    map[string]any{"type": "string", "enum": []string{energy.EntityWell, energy.EntityPipeline, energy.EntityFacility, energy.EntityDisposition}},
			"entity_id":      map[string]any{"type": "string", "description": "UWI, <licence>/<segment>, facility id or disposition number"},
			"href":           map[string]any{"type": "string", "description": "the entity's own endpoint, where one exists"},
			"before":         nullableFields,
			"after":          nullableFields,
			"version":        map[string]any{"type": "integer", "description": "the energy data version the change was seen in"},
			"as_of":          map[string]any{"type": "string", "format": "date", "description": "that version's as-of date"},
			"source":         map[string]any{"type": "string", "description": "the dataset the entity comes from"},
			"demo":           map[string]any{"type": "boolean", "description": "true for the invented demo data"},
		}}
	nullable := func(t string) map[string]any { return map[string]any{"type": []string{t, "null"}} }
	return map[string]any{"type": "object", "required": []string{"legal_location", "province", "unit", "rows", "meta"},
		"properties": map[string]any{
			"legal_location": str,
			"province":       str,
			"unit":           map[string]any{"type": "string", "enum": []string{"township", "section", "quarter_section", "lsd"}},
			"rows":           map[string]any{"type": "array", "items": change},
			"meta": map[string]any{"type": "object", "properties": map[string]any{
				"total":       map[string]any{"type": []string{"integer", "null"}, "description": "null unless this page read the area's changes to their end"},
				"page":        map[string]any{"type": "integer"},
				"per_page":    map[string]any{"type": "integer"},
				"sort":        str,
				"dir":         str,
				"since":       nullable("string"),
				"kinds":       map[string]any{"type": []string{"array", "null"}, "items": str},
				"next_cursor": nullable("string"),
			}},
		}}
}()
