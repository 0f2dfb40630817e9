package energyapi

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/report"
)

// ReportRows is how many rows each list section of the report embeds; the
// section's more path leads to the rest.
const ReportRows = 20

// reportSections are the values of include, in the report's order.
var reportSections = []string{"summary", "production", "tenure", "wells", "pipelines", "facilities", "alternative_energy", "geometry"}

// sectionSources names the SOURCES items behind each section.
var sectionSources = map[string][]string{
	"summary":    {"wells", "wells_petrinex", "orphans", "pipelines", "facilities", "operators"},
	"production": {"production"},
	"tenure":     {"tenure"},
	"wells":      {"wells", "wells_petrinex", "orphans"},
	"pipelines":  {"pipelines"},
	"facilities": {"facilities"},
}

// Units are the report's units.
var Units = map[string]string{"length": "m", "area": "ha", "depth": "m", "pressure": "kPa", "oil": "m3", "gas": "e3m3"}

// section is an embedded list: the first rows and the way to the rest.
type section[T any] struct {
	Total     int     `json:"total"`
	Returned  int     `json:"returned"`
	Truncated bool    `json:"truncated"`
	More      *string `json:"more"`
	Rows      []T     `json:"rows"`
}

func newSection[T any](rows []T, list, lsd string) *section[T] {
	s := &section[T]{Total: len(rows), Rows: rows[:min(len(rows), ReportRows)]}
	s.Returned = len(s.Rows)
	s.Truncated = s.Returned < s.Total
	if s.Total > 0 {
		m := "/energy/" + list + "?legal_location=" + url.QueryEscape(lsd)
		s.More = &m
	}
	return s
}

type unavailable struct {
	Section string `json:"section"`
	Reason  string `json:"reason"`
}

// Report is the energy parcel report; sections not included are omitted,
// sections included but not available are null.
type Report struct {
	LegalLocation     string                       `json:"legal_location"`
	Province          string                       `json:"province"`
	Parcel            report.Parcel                `json:"parcel"`
	Summary           *reportSummary               `json:"summary,omitempty"`
	Production        *reportProduction            `json:"production,omitempty"`
	Tenure            *section[energy.TenureRow]   `json:"tenure,omitempty"`
	Wells             *section[energy.WellRow]     `json:"wells,omitempty"`
	Pipelines         json.RawMessage              `json:"pipelines,omitempty"`
	Facilities        *section[energy.FacilityRow] `json:"facilities,omitempty"`
	AlternativeEnergy json.RawMessage              `json:"alternative_energy,omitempty"`
	Units             map[string]string            `json:"units"`
	Meta              reportMeta                   `json:"meta"`
}

type reportMeta struct {
	Unavailable []unavailable            `json:"unavailable"`
	Sources     map[string]energy.Source `json:"sources"`
}

type reportSummary struct {
	Wells            summaryWells      `json:"wells"`
	Pipelines        summaryPipelines  `json:"pipelines"`
	Facilities       summaryFacilities `json:"facilities"`
	Operators        summaryOperators  `json:"operators"`
	LastActivityDate *string           `json:"last_activity_date"`
}

type summaryWells struct {
	energy.Liability
	PrimarySource string                      `json:"primary_source"`
	BySource      map[string]energy.Liability `json:"by_source"`
}

type summaryPipelines struct {
	SegmentCount    int     `json:"segment_count"`
	LengthMOnParcel float64 `json:"length_m_on_parcel"`
}

type summaryFacilities struct {
	Count      int      `json:"count"`
	Categories []string `json:"categories"`
}

type summaryOperators struct {
	Dominant *dominant `json:"dominant"`
}

type dominant struct {
	energy.Party
	WellCount    int     `json:"well_count"`
	WellSharePct float64 `json:"well_share_pct"`
	ShareBasis   string  `json:"share_basis"`
}

type reportProduction struct {
	WindowMonths       int                `json:"window_months"`
	LastProducingMonth *string            `json:"last_producing_month"`
	Volumes            map[string]float64 `json:"volumes"`
	HasOil             bool               `json:"has_oil"`
	HasGas             bool               `json:"has_gas"`
	HasCondensate      bool               `json:"has_condensate"`
	HasWater           bool               `json:"has_water"`
	DominantProduct    *string            `json:"dominant_product"`
	ProducingWellCount int                `json:"producing_well_count"`
}

// includeParam reads include: the sections asked for; when omitted, the
// full report, whose parcel geometry stays null (the spec attaches the
// polygon only when include names geometry, as the ag report does).
func includeParam(r *http.Request) (map[string]bool, error) {
	s := strings.TrimSpace(r.URL.Query().Get("include"))
	inc := map[string]bool{}
	if s == "" {
		for _, k := range reportSections {
			inc[k] = k != "geometry"
		}
		return inc, nil
	}
	for _, part := range strings.Split(s, ",") {
		k := strings.ToLower(strings.TrimSpace(part))
		if k == "" {
			continue
		}
		if !slices.Contains(reportSections, k) {
			return nil, apierr.Invalidf("invalid_parameter", "include '%s' is not a section: use a comma-separated list of %s", part, strings.Join(reportSections, ", "))
		}
		inc[k] = true
	}
	if len(inc) == 0 {
		return nil, apierr.Invalidf("invalid_parameter", "include is empty: use a comma-separated list of %s", strings.Join(reportSections, ", "))
	}
	return inc, nil
}

// Report answers GET /energy/report.
func (h *Handler) Report(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	pc, err := h.parcelParam(ctx, r)
	if err != nil {
		return err
	}
	inc, err := includeParam(r)
	if err != nil {
		return err
	}
	ds, err := h.open(ctx)
	if err != nil {
		return err
	}
	rep := Report{LegalLocation: pc.input, Province: pc.province, Units: Units,
		Meta: reportMeta{Unavailable: []unavailable{}, Sources: map[string]energy.Source{}}}
	rep.Parcel = report.NewParcel(pc.block, inc["geometry"])
	// The whole LSD partition in one query: the roll-up and every section's
	// rows (one round trip on DynamoDB besides the dataset pointer).
	part, err := loadLSD(ctx, ds, pc.lsd)
	if err != nil {
		return err
	}
	found := false
	if inc["summary"] || inc["production"] {
		var sum energy.LSDSummary
		if part.summary != nil {
			found = true
			if err := json.Unmarshal(part.summary.Data, &sum); err != nil {
				return err
			}
		}
		sum.Production.WindowMonths = 12
		if inc["summary"] {
			s, err := h.summary(r, ds, pc, sum)
			if err != nil {
				return err
			}
			rep.Summary = s
		}
		if inc["production"] {
			rep.Production = production(sum)
		}
	}
	if inc["tenure"] {
		rows, err := decodeTenure(part.tenure, h.now())
		if err != nil {
			return err
		}
		sortRows(rows, tenureCmp("urgency"), false)
		rep.Tenure = newSection(rows, "tenure", pc.lsd)
		found = found || len(rows) > 0
	}
	if inc["wells"] {
		rows, err := decodeWells(part.wells)
		if err != nil {
			return err
		}
		rep.Wells = newSection(rows, "wells", pc.lsd)
		found = found || len(rows) > 0
	}
	if inc["pipelines"] {
		rows, err := decodeAll[energy.PipelineRow](part.pipes)
		if err != nil {
			return err
		}
		if len(rows) == 0 && pc.province != "AB" {
			rep.Pipelines = json.RawMessage("null")
			rep.Meta.Unavailable = append(rep.Meta.Unavailable, unavailable{"pipelines", "not_published_in_province"})
		} else {
			b, err := json.Marshal(newSection(rows, "pipelines", pc.lsd))
			if err != nil {
				return err
			}
			rep.Pipelines = b
		}
		found = found || len(rows) > 0
	}
	if inc["facilities"] {
		rows, err := decodeAll[energy.FacilityRow](part.facs)
		if err != nil {
			return err
		}
		rep.Facilities = newSection(rows, "facilities", pc.lsd)
		found = found || len(rows) > 0
	}
	if inc["alternative_energy"] {
		rep.AlternativeEnergy = json.RawMessage("null")
		rep.Meta.Unavailable = append(rep.Meta.Unavailable, unavailable{"alternative_energy", "not_ingested"})
	}
	asked := false
	for k := range sectionSources {
		asked = asked || inc[k]
	}
	if asked && !found {
		return apierr.NotFoundf("No energy data for %s", pc.lsd)
	}
	if asked {
		if err := h.sources(r, ds, inc, rep.Meta.Sources); err != nil {
			return err
		}
	}
	api.WriteJSON(w, http.StatusOK, rep)
	return nil
}

// sourceItems returns the SOURCES partition of the dataset's version, read
// once per version: items of a published version are never rewritten.
func (h *Handler) sourceItems(ctx context.Context, ds kv.Dataset) ([]kv.Item, error) {
	h.srcMu.Lock()
	if h.srcVer == ds.Version && h.srcItems != nil {
		items := h.srcItems
		h.srcMu.Unlock()
		return items, nil
	}
	h.srcMu.Unlock()
	items, err := queryAll(ctx, ds, kv.Query{PK: energy.PKSources})
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []kv.Item{}
	}
	h.srcMu.Lock()
	h.srcVer, h.srcItems = ds.Version, items
	h.srcMu.Unlock()
	return items, nil
}

// sources fills meta.sources with the SOURCES items of the included
// sections.
func (h *Handler) sources(r *http.Request, ds kv.Dataset, inc map[string]bool, out map[string]energy.Source) error {
	items, err := h.sourceItems(r.Context(), ds)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for sec, names := range sectionSources {
		if inc[sec] {
			for _, n := range names {
				want[n] = true
			}
		}
	}
	for _, it := range items {
		if !want[it.SK] {
			continue
		}
		var s energy.Source
		if err := json.Unmarshal(it.Data, &s); err != nil {
			return err
		}
		out[it.SK] = s
	}
	return nil
}

// summary builds the summary section from an LSD's roll-up, with the
// dominant operator's name read from its INFO item.
func (h *Handler) summary(r *http.Request, ds kv.Dataset, pc parcel, sum energy.LSDSummary) (*reportSummary, error) {
	primary, basis := "regulator", "regulator_total_wells"
	if pc.province != "AB" {
		primary, basis = "petrinex", "petrinex_total_wells"
	}
	cats := sum.Categories
	if cats == nil {
		cats = []string{}
	}
	s := &reportSummary{
		Wells:      summaryWells{Liability: sum.Wells, PrimarySource: primary, BySource: map[string]energy.Liability{primary: sum.Wells}},
		Pipelines:  summaryPipelines{SegmentCount: sum.Segments, LengthMOnParcel: report.Round(sum.PipelineLengthM, 1)},
		Facilities: summaryFacilities{Count: sum.Facilities, Categories: cats},
	}
	if sum.LastActivityDate != "" {
		d := sum.LastActivityDate
		s.LastActivityDate = &d
	}
	var best string
	for ba, n := range sum.WellsByOperator {
		if best == "" || n > sum.WellsByOperator[best] || (n == sum.WellsByOperator[best] && cmp.Less(ba, best)) {
			best = ba
		}
	}
	if best != "" {
		name, ok := sum.OperatorNames[best]
		if !ok { // data ingested before the roll-up named its operators
			info, found, err := h.operatorInfo(r.Context(), ds, best)
			if err != nil {
				return nil, err
			}
			if found {
				name = info.Name
			}
		}
		n := sum.WellsByOperator[best]
		share := 0.0
		if sum.Wells.Total > 0 {
			share = report.Round(100*float64(n)/float64(sum.Wells.Total), 1)
		}
		s.Operators.Dominant = &dominant{Party: energy.NewParty(best, name), WellCount: n, WellSharePct: share, ShareBasis: basis}
	}
	return s, nil
}

func production(sum energy.LSDSummary) *reportProduction {
	p := sum.Production
	out := &reportProduction{WindowMonths: p.WindowMonths,
		Volumes: map[string]float64{"oil_m3": report.Round(p.Oil, 2), "gas_e3m3": report.Round(p.Gas, 2), "condensate_m3": report.Round(p.Condensate, 2), "water_m3": report.Round(p.Water, 2)},
		HasOil:  p.Oil > 0, HasGas: p.Gas > 0, HasCondensate: p.Condensate > 0, HasWater: p.Water > 0, ProducingWellCount: sum.ProducingWells}
	if p.LastProducingMonth != "" {
		m := p.LastProducingMonth
		out.LastProducingMonth = &m
	}
	d := p.Dominant() // oil, gas, condensate; "" when nothing flowed
	if d != "" {
		out.DominantProduct = &d
	}
	return out
}
