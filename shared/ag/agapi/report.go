// Package agapi serves the agriculture parcel report, GET /ag/report, from
// the agriculture dataset of the report store (package meridian/shared/ag)
// and the survey grid (package meridian/shared/convert).
//
// Decisions the references leave open:
//
//   - Sections not named by include are left out of the body (no key),
//     are not listed in meta.unavailable and are never read from the store.
//     A full report (include omitted) reads the quarter's partition with one
//     Query; a projection Gets only the items of the sections it names.
//   - A requested section with no item is null and listed in meta.unavailable
//     with reason "no_data" (the published data does not cover the quarter);
//     "not_published_in_province" where the province publishes no such data
//     (provincial_detail in AB: not read at all); "source_error" where the
//     stored item is not valid JSON. A store failure is not a section reason:
//     the whole request fails with 503, so "timeout" does not occur.
//   - productivity is null only when both ratings are missing; one missing
//     rating is null inside it and listed as "productivity.lsrs" or
//     "productivity.cli". meta.sources uses the same keys.
//   - wetlands is served wherever the store holds it: the ingested source
//     is the National Hydro Network's wetlands, which is national, not the
//     AB-only ABMI inventory of the reference.
//   - provincial_detail always carries crown_land, soils and pastures
//     (empty arrays where the province publishes none, e.g. MB crown land).
//   - No item of any requested section (or, for a projection, none in the
//     quarter's partition at all) is 404 not_found "No agriculture data".
package agapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"meridian/shared/ag"
	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/report"
	"meridian/shared/survey"
)

// Reasons of meta.unavailable.
const (
	ReasonNoData       = "no_data"
	ReasonNotPublished = "not_published_in_province"
	ReasonSourceError  = "source_error"
)

// Section names of the report, the include values besides "geometry".
const (
	Productivity     = "productivity"
	Cropping         = "cropping"
	Soil             = "soil"
	LandUse          = "land_use"
	Drought          = "drought"
	Wetlands         = "wetlands"
	Hydrology        = "hydrology"
	ParcelContext    = "parcel_context"
	ProvincialDetail = "provincial_detail"
	Geometry         = "geometry"
)

// sections in report order, with the sort keys of their items.
var sections = []struct {
	name string
	sks  []string
}{
	{Productivity, []string{ag.SKLSRS, ag.SKCLI}},
	{Cropping, []string{ag.SKCropping}},
	{Soil, []string{ag.SKSoil}},
	{LandUse, []string{ag.SKLandUse}},
	{Drought, []string{ag.SKDrought}},
	{Wetlands, []string{ag.SKWetlands}},
	{Hydrology, []string{ag.SKHydrology}},
	{ParcelContext, []string{ag.SKMunicipality}},
	{ProvincialDetail, []string{ag.SKProvincial}},
}

// sourceKeys maps a sort key to its member of meta.sources (the SK of
// PK SOURCES as the ingest writes it).
var sourceKeys = map[string]struct{ stored, meta string }{
	ag.SKLSRS:         {"lsrs", "productivity.lsrs"},
	ag.SKCLI:          {"cli", "productivity.cli"},
	ag.SKCropping:     {"cropping", Cropping},
	ag.SKSoil:         {"soil", Soil},
	ag.SKLandUse:      {"land_use", LandUse},
	ag.SKDrought:      {"drought", Drought},
	ag.SKWetlands:     {"wetlands", Wetlands},
	ag.SKHydrology:    {"hydrology", Hydrology},
	ag.SKMunicipality: {"parcel_context", ParcelContext},
	ag.SKProvincial:   {"provincial_detail", ProvincialDetail},
}

// Resolver finds the block a report is asked for: the grid service
// (*grid.Service).
type Resolver interface {
	Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error)
}

// Handler serves the agriculture report.
type Handler struct {
	store kv.Store
	svc   Resolver

	mu      sync.Mutex
	srcVer  kv.Version
	sources map[string]json.RawMessage // by stored SK, of version srcVer
}

// NewHandler returns the report handler over the report store and the grid.
func NewHandler(store kv.Store, svc Resolver) *Handler {
	return &Handler{store: store, svc: svc}
}

// Report is the body of GET /ag/report. A section is omitted when include
// leaves it out, and null when it cannot be provided.
type Report struct {
	LegalLocation    string          `json:"legal_location"`
	Resolved         string          `json:"resolved_legal_location"`
	Grain            string          `json:"grain"`
	Province         string          `json:"province"`
	Parcel           report.Parcel   `json:"parcel"`
	Productivity     json.RawMessage `json:"productivity,omitempty"`
	Cropping         json.RawMessage `json:"cropping,omitempty"`
	Soil             json.RawMessage `json:"soil,omitempty"`
	LandUse          json.RawMessage `json:"land_use,omitempty"`
	Drought          json.RawMessage `json:"drought,omitempty"`
	Wetlands         json.RawMessage `json:"wetlands,omitempty"`
	Hydrology        json.RawMessage `json:"hydrology,omitempty"`
	ParcelContext    json.RawMessage `json:"parcel_context,omitempty"`
	ProvincialDetail json.RawMessage `json:"provincial_detail,omitempty"`
	Units            Units           `json:"units"`
	Meta             Meta            `json:"meta"`
}

// Units names the report's units.
type Units struct {
	Area     string `json:"area"`
	Distance string `json:"distance"`
}

// Meta lists the sections that could not be provided and the datasets
// of those that were requested.
type Meta struct {
	Unavailable []Unavailable              `json:"unavailable"`
	Sources     map[string]json.RawMessage `json:"sources"`
}

// Unavailable is an item of meta.unavailable.
type Unavailable struct {
	Section string `json:"section"`
	Reason  string `json:"reason"`
}

// include is the parsed include parameter.
type include struct {
	sections map[string]bool
	geometry bool
	full     bool // every section
}

func parseInclude(v string) (include, error) {
	inc := include{sections: map[string]bool{}}
	if strings.TrimSpace(v) == "" {
		for _, s := range sections {
			inc.sections[s.name] = true
		}
		inc.full = true
		return inc, nil
	}
	for _, name := range strings.Split(v, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == Geometry {
			inc.geometry = true
			continue
		}
		ok := false
		for _, s := range sections {
			if s.name == name {
				inc.sections[name], ok = true, true
			}
		}
		if !ok {
			return include{}, apierr.Invalidf("invalid_parameter", "include: unknown section %q; use a comma list of productivity, cropping, soil, land_use, drought, wetlands, hydrology, parcel_context, provincial_detail, geometry", name)
		}
	}
	inc.full = len(inc.sections) == len(sections)
	return inc, nil
}

// quarterOf checks that l is a quarter section or an LSD of the DLS and
// returns its quarter section.
func quarterOf(l lld.Location) (lld.Location, error) {
	if l.System == lld.NTS {
		return lld.Location{}, apierr.Invalidf("bc_not_supported", "BC locations are not yet supported")
	}
	if l.System != lld.DLS || (l.Unit != lld.QuarterSection && l.Unit != lld.LSD) {
		return lld.Location{}, apierr.Invalidf(lld.ErrorCode, "Not a quarter section or LSD: %s", l)
	}
	q := l
	if l.Unit == lld.LSD {
		q.Unit, q.Aliquot, q.LSD = lld.QuarterSection, lld.QuarterOfLSD(int(l.LSD)), 0
	}
	return q, nil
}

// ServeReport answers GET /ag/report?legal_location=...&include=...
func (h *Handler) ServeReport(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	input := q.Get("legal_location")
	if strings.TrimSpace(input) == "" {
		return apierr.Invalidf("invalid_parameter", "legal_location is required: a quarter section such as NW-36-42-3-W5 or an LSD such as 10-36-42-3-W5")
	}
	inc, err := parseInclude(q.Get("include"))
	if err != nil {
		return err
	}
	rep, err := h.Report(r.Context(), input, inc)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, rep)
	return nil
}

// Report assembles the report of the quarter section (or LSD) input names.
func (h *Handler) Report(ctx context.Context, input string, inc include) (*Report, error) {
	l, err := lld.Parse(input)
	if err != nil {
		return nil, err
	}
	ql, err := quarterOf(l)
	if err != nil {
		return nil, err
	}
	b, err := h.svc.Resolve(ctx, ql, input)
	if err != nil {
		return nil, err
	}
	switch b.Province {
	case survey.AB, survey.SK, survey.MB:
	case survey.BC:
		return nil, apierr.Invalidf("bc_not_supported", "BC locations are not yet supported")
	default:
		return nil, apierr.NotFoundf("No agriculture data")
	}
	ds, ok, err := kv.Open(ctx, h.store, ag.Dataset)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.NotFoundf("No agriculture data")
	}
	resolved := ql.String()
	pk := ag.QuarterKey(resolved)

	// The store reads: the items of the requested sections only.
	wanted := make([]string, 0, len(sections)+1)
	for _, s := range sections {
		if !inc.sections[s.name] || (s.name == ProvincialDetail && b.Province == survey.AB) {
			continue
		}
		wanted = append(wanted, s.sks...)
	}
	items, err := h.read(ctx, ds, pk, wanted, inc.full)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		// A quarter with none of the requested sections may still have
		// others: a projection looks for any item before saying 404.
		found := false
		if !inc.full {
			p, err := ds.Query(ctx, kv.Query{PK: pk, Limit: 1})
			if err != nil {
				return nil, err
			}
			found = len(p.Items) > 0
		}
		if !found {
			return nil, apierr.NotFoundf("No agriculture data")
		}
	}
	srcs, err := h.sourcesOf(ctx, ds)
	if err != nil {
		return nil, err
	}

	rep := &Report{
		LegalLocation: l.String(),
		Resolved:      resolved,
		Grain:         "quarter_section",
		Province:      b.Province.Code(),
		Parcel:        report.NewParcel(b, inc.geometry),
		Units:         Units{Area: "ha", Distance: "m"},
		Meta:          Meta{Unavailable: []Unavailable{}, Sources: map[string]json.RawMessage{}},
	}
	if l.Unit == lld.LSD {
		rep.Grain = "lsd"
	}
	null := json.RawMessage("null")
	// source adds the dataset of sk's item to meta.sources.
	source := func(sk string) {
		if s, ok := sourceKeys[sk]; ok {
			if src, ok := srcs[s.stored]; ok {
				rep.Meta.Sources[s.meta] = src
			}
		}
	}
	// item returns the item of sk, or null with the reason in
	// meta.unavailable under the name section.
	item := func(section, sk string) json.RawMessage {
		source(sk)
		data, ok := items[sk]
		switch {
		case !ok:
			rep.Meta.Unavailable = append(rep.Meta.Unavailable, Unavailable{section, ReasonNoData})
			return null
		case !json.Valid(data):
			rep.Meta.Unavailable = append(rep.Meta.Unavailable, Unavailable{section, ReasonSourceError})
			return null
		}
		return data
	}
	for _, s := range sections {
		if !inc.sections[s.name] {
			continue
		}
		var out json.RawMessage
		switch s.name {
		case Productivity:
			_, hasL := items[ag.SKLSRS]
			_, hasC := items[ag.SKCLI]
			if !hasL && !hasC {
				source(ag.SKLSRS)
				source(ag.SKCLI)
				rep.Meta.Unavailable = append(rep.Meta.Unavailable, Unavailable{Productivity, ReasonNoData})
				out = null
				break
			}
			lsrs, cli := item("productivity.lsrs", ag.SKLSRS), item("productivity.cli", ag.SKCLI)
			out = compose("lsrs", lsrs, "cli", cli)
		case ParcelContext:
			if m := item(ParcelContext, ag.SKMunicipality); string(m) != "null" {
				out = compose("municipality", m)
			} else {
				out = null
			}
		case ProvincialDetail:
			if b.Province == survey.AB {
				rep.Meta.Unavailable = append(rep.Meta.Unavailable, Unavailable{ProvincialDetail, ReasonNotPublished})
				out = null
				break
			}
			out = item(ProvincialDetail, ag.SKProvincial)
		default:
			out = item(s.name, s.sks[0])
		}
		rep.set(s.name, out)
	}
	return rep, nil
}

// compose writes {"k1":v1,"k2":v2,...} of already encoded values.
func compose(kv ...any) json.RawMessage {
	var b []byte
	b = append(b, '{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, kv[i].(string)...)
		b = append(b, '"', ':')
		b = append(b, kv[i+1].(json.RawMessage)...)
	}
	return append(b, '}')
}

func (rep *Report) set(section string, v json.RawMessage) {
	switch section {
	case Productivity:
		rep.Productivity = v
	case Cropping:
		rep.Cropping = v
	case Soil:
		rep.Soil = v
	case LandUse:
		rep.LandUse = v
	case Drought:
		rep.Drought = v
	case Wetlands:
		rep.Wetlands = v
	case Hydrology:
		rep.Hydrology = v
	case ParcelContext:
		rep.ParcelContext = v
	case ProvincialDetail:
		rep.ProvincialDetail = v
	}
}

// read returns the quarter's items of the sort keys wanted: one Query of the
// partition for a full report, else one Get per item, concurrently.
func (h *Handler) read(ctx context.Context, ds kv.Dataset, pk string, wanted []string, full bool) (map[string][]byte, error) {
	items := make(map[string][]byte, len(wanted))
	if len(wanted) == 0 {
		return items, nil
	}
	if full {
		want := make(map[string]bool, len(wanted))
		for _, sk := range wanted {
			want[sk] = true
		}
		p, err := ds.Query(ctx, kv.Query{PK: pk, Limit: kv.MaxLimit})
		if err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			if want[it.SK] {
				items[it.SK] = it.Data
			}
		}
		return items, nil
	}
	type result struct {
		data []byte
		ok   bool
		err  error
	}
	res := make([]result, len(wanted))
	var wg sync.WaitGroup
	for i, sk := range wanted {
		wg.Go(func() {
			it, ok, err := ds.Get(ctx, pk, sk)
			res[i] = result{it.Data, ok, err}
		})
	}
	wg.Wait()
	for i, r := range res {
		if r.err != nil {
			return nil, r.err
		}
		if r.ok {
			items[wanted[i]] = r.data
		}
	}
	return items, nil
}

// sourcesOf returns the dataset's SOURCES items by SK, read once per
// published version.
func (h *Handler) sourcesOf(ctx context.Context, ds kv.Dataset) (map[string]json.RawMessage, error) {
	h.mu.Lock()
	if h.sources != nil && h.srcVer == ds.Version {
		s := h.sources
		h.mu.Unlock()
		return s, nil
	}
	h.mu.Unlock()
	p, err := ds.Query(ctx, kv.Query{PK: ag.PKSources, Limit: kv.MaxLimit})
	if err != nil {
		return nil, err
	}
	s := make(map[string]json.RawMessage, len(p.Items))
	for _, it := range p.Items {
		if json.Valid(it.Data) {
			s[it.SK] = it.Data
		}
	}
	h.mu.Lock()
	h.srcVer, h.sources = ds.Version, s
	h.mu.Unlock()
	return s, nil
}
