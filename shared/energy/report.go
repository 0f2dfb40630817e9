package energy

import (
	"cmp"
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/report"
	"meridian/shared/survey"
)

// ReportRows is how many rows each list section of the report embeds; the
// section's more path leads to the rest.
const ReportRows = 20

// ReportSections are the report's sections in its order: the values of
// include besides geometry.
var ReportSections = []string{"summary", "production", "tenure", "wells", "pipelines", "facilities", "alternative_energy"}

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

// Resolver finds the block a report is asked for: the grid service
// (*grid.Service).
type Resolver interface {
	Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error)
}

// Reporter assembles energy parcel reports from the report store, placing
// LSDs with the grid; its clock dates the tenure's expiry states.
type Reporter struct {
	store   kv.Store
	svc     Resolver
	now     func() time.Time
	sources report.Sources // the dataset's SOURCES items

	// provinces remembers the province of each DLS area Province placed
	// (by dlsKey), up to maxProvinceMemo of them.
	mu        sync.RWMutex
	provinces map[uint64]string

	meta metaMemo // meta's JSON by what it depends on (Report with PassRows)
}

// metaMemo keeps the JSON of a report's meta for one published version:
// meta is the SOURCES items of the sections asked for and the sections
// unavailable, the same for every LSD asked the same way (encoding it was
// 5% of a report's server CPU). Its keys are the version, the sections
// asked for and the unavailable entries: a few hundred combinations at
// most, bound at maxMetaMemo entries of under 2 KB.
type metaMemo struct {
	mu      sync.RWMutex
	version int64
	m       map[string][]byte
}

const maxMetaMemo = 1024

// json returns meta's JSON, filling its sources with fill first when it
// is not kept; asked has bit i set when ReportSections[i] was asked for
// (which decides the sources).
func (mm *metaMemo) json(version int64, asked uint32, meta report.Meta[Source], fill func(map[string]Source) error) ([]byte, error) {
	var kb [128]byte
	k := strconv.AppendInt(kb[:0], version, 10)
	k = append(k, '|')
	k = strconv.AppendUint(k, uint64(asked), 10)
	for _, u := range meta.Unavailable {
		k = append(append(append(append(k, '|'), u.Section...), ':'), u.Reason...)
	}
	mm.mu.RLock()
	b, ok := mm.m[string(k)]
	mm.mu.RUnlock()
	if ok {
		return b, nil
	}
	if err := fill(meta.Sources); err != nil {
		return nil, err
	}
	b, err := api.AppendJSON(nil, meta)
	if err != nil {
		return nil, err
	}
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if mm.m == nil || mm.version != version {
		mm.m, mm.version = map[string][]byte{}, version
	}
	if len(mm.m) < maxMetaMemo {
		mm.m[string(k)] = b
	}
	return b, nil
}

// maxProvinceMemo bounds Reporter.provinces (under 50 bytes an entry: the
// key, the province's string header, the map's slot; 2.5 MB at most):
// Alberta, Saskatchewan and Manitoba's surveyed land is some 18,000 DLS
// townships (their areas over 93 km² each), so every township fits, with
// room for the sections, quarters and LSDs asked most; areas past the
// bound are placed on every request.
const maxProvinceMemo = 50_000

// NewReporter returns the reporter over store; svc locates parcels, now is
// the clock expiry states are computed with (time.Now when nil).
func NewReporter(store kv.Store, svc Resolver, now func() time.Time) *Reporter {
	if now == nil {
		now = time.Now
	}
	return &Reporter{store: store, svc: svc, now: now}
}

// LocatedLSD is an LSD placed on the grid: what the report and the parcel
// lists are about.
type LocatedLSD struct {
	Input    string // as the client sent it, trimmed
	LSD      string // canonical
	Province string // AB, SK or MB
	Block    survey.Block
}

// Locate checks and places input, the legal_location parameter: an LSD in
// AB, SK or MB.
func (r *Reporter) Locate(ctx context.Context, input string) (LocatedLSD, error) {
	input = strings.TrimSpace(input)
	if input == "" {
		return LocatedLSD{}, apierr.Invalidf("invalid_parameter", "legal_location is required: an LSD such as 10-36-42-3-W5")
	}
	l, err := lld.Parse(input)
	if err != nil {
		return LocatedLSD{}, err
	}
	if l.System == lld.NTS {
		return LocatedLSD{}, apierr.Invalidf("bc_not_supported", "'%s' is in British Columbia: energy data covers AB, SK and MB", input)
	}
	if l.System != lld.DLS || l.Unit != lld.LSD {
		return LocatedLSD{}, apierr.Invalidf("invalid_legal_location", "'%s' is not an LSD: energy reports need an LSD such as 10-36-42-3-W5", input)
	}
	b, prov, err := r.place(ctx, l, input)
	if err != nil {
		return LocatedLSD{}, err
	}
	return LocatedLSD{Input: input, LSD: l.String(), Province: prov, Block: b}, nil
}

// place resolves l on the grid and returns its block and province code;
// a location in British Columbia is refused.
func (r *Reporter) place(ctx context.Context, l lld.Location, input string) (survey.Block, string, error) {
	b, err := r.svc.Resolve(ctx, l, input)
	if err != nil {
		return survey.Block{}, "", err
	}
	prov := b.Province.Code()
	if prov == "BC" {
		return survey.Block{}, "", apierr.Invalidf("bc_not_supported", "'%s' is in British Columbia: energy data covers AB, SK and MB", input)
	}
	return b, prov, nil
}

// Query asks for the report of an LSD, its two parameters as the client
// sent them: Report checks them.
type Query struct {
	LegalLocation string // an LSD in AB, SK or MB
	Include       string // comma-separated sections and geometry; "": every section
	// PassRows leaves the rows of the wells, pipelines, facilities and
	// tenure sections as stored (section.Raw) wherever their stored JSON
	// is the answer's, and meta as JSON (its Sources may stay empty): a
	// report read so is written with Report.AppendJSON only. False
	// decodes every row into the sections' Rows and fills meta.
	PassRows bool
}

// section is an embedded list: the first rows and the way to the rest.
type section[T any] struct {
	Total     int     `json:"total"`
	Returned  int     `json:"returned"`
	Truncated bool    `json:"truncated"`
	More      *string `json:"more"`
	Rows      []T     `json:"rows"`
	Raw       RawPage `json:"-"` // the rows as the answer writes them, when passed through (Rows is then empty)
}

func newSection[T any](rows []T, list, lsd string) *section[T] {
	return sectionOf(rows[:min(len(rows), ReportRows)], len(rows), list, lsd)
}

// keyOrderSection is the section of a list the report shows in its key
// order: only the rows it embeds are read, the others only counted. With
// raw, the rows are passed through as raw writes them (a row raw refuses
// is decoded and encoded); without, they are decoded into Rows.
func keyOrderSection[T any](items []kv.Item, decode func(kv.Item) (T, error), raw rawRow, list, lsd string) (*section[T], error) {
	embedded := items[:min(len(items), ReportRows)]
	if raw == nil {
		rows := make([]T, len(embedded))
		for i, it := range embedded {
			var err error
			if rows[i], err = decode(it); err != nil {
				return nil, err
			}
		}
		return sectionOf(rows, len(items), list, lsd), nil
	}
	s := sectionOf([]T{}, len(items), list, lsd)
	for _, it := range embedded {
		if err := s.Raw.appendRow(raw, it, func() (any, error) { return decode(it) }); err != nil {
			return nil, err
		}
	}
	s.Raw.ok = true
	s.Returned = len(embedded)
	s.Truncated = s.Returned < s.Total
	return s, nil
}

func sectionOf[T any](rows []T, total int, list, lsd string) *section[T] {
	s := &section[T]{Total: total, Rows: rows}
	s.Returned = len(s.Rows)
	s.Truncated = s.Returned < s.Total
	if s.Total > 0 {
		m := "/energy/" + list + "?legal_location=" + url.QueryEscape(lsd)
		s.More = &m
	}
	return s
}

// Report is the energy parcel report; sections not included are omitted,
// sections included but not available are null.
type Report struct {
	LegalLocation     string                `json:"legal_location"`
	Province          string                `json:"province"`
	Parcel            report.Parcel         `json:"parcel"`
	Summary           *reportSummary        `json:"summary,omitempty"`
	Production        *reportProduction     `json:"production,omitempty"`
	Tenure            *section[TenureRow]   `json:"tenure,omitempty"`
	Wells             *section[WellRow]     `json:"wells,omitempty"`
	Pipelines         json.RawMessage       `json:"pipelines,omitempty"` // null, or pipes encoded (without PassRows)
	Facilities        *section[FacilityRow] `json:"facilities,omitempty"`
	AlternativeEnergy json.RawMessage       `json:"alternative_energy,omitempty"`
	Units             map[string]string     `json:"units"`
	Meta              report.Meta[Source]   `json:"meta"`

	pipes    *section[PipelineRow] // the pipelines section when published (PassRows: not in Pipelines)
	metaJSON []byte                // Meta's JSON, with PassRows
}

type reportSummary struct {
	Wells            summaryWells      `json:"wells"`
	Pipelines        summaryPipelines  `json:"pipelines"`
	Facilities       summaryFacilities `json:"facilities"`
	Operators        summaryOperators  `json:"operators"`
	LastActivityDate *string           `json:"last_activity_date"`
}

type summaryWells struct {
	Liability
	PrimarySource string               `json:"primary_source"`
	BySource      map[string]Liability `json:"by_source"`
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
	Party
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

// Report assembles the report q asks for (GET /energy/report; package
// energyapi serves it). include omitted is the full report, whose parcel
// geometry stays null (the spec attaches the polygon only when include
// names geometry, as the ag report does).
func (r *Reporter) Report(ctx context.Context, q Query) (*Report, error) {
	pc, err := r.Locate(ctx, q.LegalLocation)
	if err != nil {
		return nil, err
	}
	inc, err := report.ParseInclude(q.Include, ReportSections)
	if err != nil {
		return nil, err
	}
	ds, err := Open(ctx, r.store)
	if err != nil {
		return nil, err
	}
	rep := &Report{LegalLocation: pc.Input, Province: pc.Province, Units: Units, Meta: report.NewMeta[Source]()}
	rep.Parcel = report.NewParcel(pc.Block, inc.Geometry)
	// The whole LSD partition in one query: the roll-up and every section's
	// rows (one round trip on DynamoDB besides the dataset pointer).
	part, err := loadLSD(ctx, ds, pc.LSD)
	if err != nil {
		return nil, err
	}
	found := false
	if inc.Has("summary") || inc.Has("production") {
		var sum LSDSummary
		if part.summary != nil {
			found = true
			if err := decodeSummary(part.summary.Data, &sum); err != nil {
				return nil, err
			}
		}
		sum.Production.WindowMonths = 12
		if inc.Has("summary") {
			s, err := summary(ctx, ds, pc, sum)
			if err != nil {
				return nil, err
			}
			rep.Summary = s
		}
		if inc.Has("production") {
			rep.Production = production(sum)
		}
	}
	if inc.Has("tenure") {
		now := r.now()
		var ok bool
		if q.PassRows {
			rep.Tenure, ok, err = urgentSection(part.tenure, now, pc.LSD)
			if err != nil {
				return nil, err
			}
		}
		if !ok {
			rows, err := decodeTenure(part.tenure, now)
			if err != nil {
				return nil, err
			}
			slices.SortStableFunc(rows, ByUrgency)
			rep.Tenure = newSection(rows, "tenure", pc.LSD)
		}
		found = found || len(part.tenure) > 0
	}
	// Wells, pipelines and facilities are shown in their key order: only
	// the rows the report embeds are read.
	var wellRaw, storedRaw rawRow
	if q.PassRows {
		wellRaw, storedRaw = reportWellRow, storedRow
	}
	if inc.Has("wells") {
		if rep.Wells, err = keyOrderSection(part.wells, decodeWell, wellRaw, "wells", pc.LSD); err != nil {
			return nil, err
		}
		found = found || len(part.wells) > 0
	}
	if inc.Has("pipelines") {
		if len(part.pipes) == 0 && pc.Province != "AB" {
			rep.Pipelines = json.RawMessage("null")
			rep.Meta.AddUnavailable("pipelines", report.ReasonNotPublished)
		} else {
			sec, err := keyOrderSection(part.pipes, decodeJSON[PipelineRow], storedRaw, "pipelines", pc.LSD)
			if err != nil {
				return nil, err
			}
			rep.pipes = sec
			if !q.PassRows {
				b, err := json.Marshal(sec)
				if err != nil {
					return nil, err
				}
				rep.Pipelines = b
			}
		}
		found = found || len(part.pipes) > 0
	}
	if inc.Has("facilities") {
		if rep.Facilities, err = keyOrderSection(part.facs, decodeJSON[FacilityRow], storedRaw, "facilities", pc.LSD); err != nil {
			return nil, err
		}
		found = found || len(part.facs) > 0
	}
	if inc.Has("alternative_energy") {
		rep.AlternativeEnergy = json.RawMessage("null")
		rep.Meta.AddUnavailable("alternative_energy", report.ReasonNotIngested)
	}
	asked := false
	for k := range sectionSources {
		asked = asked || inc.Has(k)
	}
	if asked && !found {
		return nil, apierr.NotFoundf("No energy data for %s", pc.LSD)
	}
	fill := func(sources map[string]Source) error {
		if !asked {
			return nil
		}
		return r.fillSources(ctx, ds, inc, sources)
	}
	if !q.PassRows {
		if err := fill(rep.Meta.Sources); err != nil {
			return nil, err
		}
		return rep, nil
	}
	// meta's JSON, its sources filled only when it is not kept (its
	// Sources then stay empty: AppendJSON writes metaJSON).
	var mask uint32
	for i, s := range ReportSections {
		if inc.Has(s) {
			mask |= 1 << i
		}
	}
	if rep.metaJSON, err = r.meta.json(int64(ds.Version), mask, rep.Meta, fill); err != nil {
		return nil, err
	}
	return rep, nil
}

// fillSources fills meta.sources with the SOURCES items of the included
// sections, read once per dataset version.
func (r *Reporter) fillSources(ctx context.Context, ds kv.Dataset, inc report.Include, out map[string]Source) error {
	items, err := report.DecodedSources[Source](&r.sources, int64(ds.Version), func(add func(sk string, data []byte)) error {
		return ds.Each(ctx, kv.Query{PK: PKSources}, func(it kv.Item) error { add(it.SK, it.Data); return nil })
	})
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for sec, names := range sectionSources {
		if inc.Has(sec) {
			for _, n := range names {
				want[n] = true
			}
		}
	}
	for sk, s := range items {
		if want[sk] {
			out[sk] = s
		}
	}
	return nil
}

// summary builds the summary section from an LSD's roll-up: the primary
// source is the regulator in AB and Petrinex elsewhere; the dominant
// operator has the most wells (ties to the lowest BA code), its name read
// from its INFO item where the roll-up does not carry it.
func summary(ctx context.Context, ds kv.Dataset, pc LocatedLSD, sum LSDSummary) (*reportSummary, error) {
	primary, basis := "regulator", "regulator_total_wells"
	if pc.Province != "AB" {
		primary, basis = "petrinex", "petrinex_total_wells"
	}
	cats := sum.Categories
	if cats == nil {
		cats = []string{}
	}
	s := &reportSummary{
		Wells:      summaryWells{Liability: sum.Wells, PrimarySource: primary, BySource: map[string]Liability{primary: sum.Wells}},
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
			info, found, err := ReadOperatorInfo(ctx, ds, best)
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
		s.Operators.Dominant = &dominant{Party: NewParty(best, name), WellCount: n, WellSharePct: share, ShareBasis: basis}
	}
	return s, nil
}

func production(sum LSDSummary) *reportProduction {
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

// lsdPartition is an LSD's partition read whole, in one query: its roll-up
// and its rows by kind. The report reads it so (one round trip on
// DynamoDB, not one per section); the list routes read one kind each.
type lsdPartition struct {
	summary                    *kv.Item
	wells, pipes, facs, tenure []kv.Item
}

func loadLSD(ctx context.Context, ds kv.Dataset, lsd string) (lsdPartition, error) {
	var items []kv.Item
	if err := ds.Each(ctx, kv.Query{PK: LSDKey(lsd)}, func(it kv.Item) error { items = append(items, it); return nil }); err != nil {
		return lsdPartition{}, err
	}
	var p lsdPartition
	for i, it := range items {
		switch {
		case it.SK == SKProduction:
			p.summary = &items[i]
		case strings.HasPrefix(it.SK, SKWellPrefix):
			p.wells = append(p.wells, it)
		case strings.HasPrefix(it.SK, SKPipePrefix):
			p.pipes = append(p.pipes, it)
		case strings.HasPrefix(it.SK, SKFacilityPrefix):
			p.facs = append(p.facs, it)
		case strings.HasPrefix(it.SK, SKTenurePrefix):
			p.tenure = append(p.tenure, it)
		}
	}
	return p, nil
}

func decodeWell(it kv.Item) (WellRow, error) {
	row, err := decodeJSON[WellRow](it)
	row.LSD, row.StatusDate = "", "" // stored for the operator views only
	return row, err
}

// urgentSection is the report's tenure section with its rows passed
// through: sorted by urgency on now's day from their stored bytes
// (urgencyOf), not decoded; ok == false when a row must be decoded, and
// then the section is built from decoded rows. Decoding every tenure row
// to sort them was 12% of a report's server CPU.
func urgentSection(items []kv.Item, now time.Time, lsd string) (*section[TenureRow], bool, error) {
	c := newExpiryClock(now)
	raw, ok, err := passSorted(items, c.urgencyOf, urgencyKey.cmp, false, 0, ReportRows, c.tenureRow(false), tenureDecoder(now))
	if !ok || err != nil {
		return nil, false, err
	}
	s := sectionOf([]TenureRow{}, len(items), "tenure", lsd)
	s.Raw = raw
	s.Returned = min(len(items), ReportRows)
	s.Truncated = s.Returned < s.Total
	return s, true, nil
}

// tenureDecoder decodes a stored tenure row with its expiry on now's day.
func tenureDecoder(now time.Time) func(kv.Item) (TenureRow, error) {
	return func(it kv.Item) (TenureRow, error) {
		t, err := decodeJSON[TenureRow](it)
		return WithExpiry(t, now), err
	}
}

func decodeTenure(items []kv.Item, now time.Time) ([]TenureRow, error) {
	rows, err := DecodeRows[TenureRow](items)
	for i := range rows {
		rows[i] = WithExpiry(rows[i], now)
	}
	return rows, err
}
