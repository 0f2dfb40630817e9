package ag

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"meridian/shared/apierr"
	"meridian/shared/internal/jsonscan"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/report"
	"meridian/shared/survey"
)

// Resolver finds the block a report is asked for: the grid service
// (*grid.Service).
type Resolver interface {
	Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error)
}

// Reporter assembles agriculture reports from the report store, placing
// parcels with the grid.
type Reporter struct {
	store   kv.Store
	svc     Resolver
	sources report.Sources // the dataset's SOURCES items, by stored SK
}

// NewReporter returns the reporter over the report store and the grid.
func NewReporter(store kv.Store, svc Resolver) *Reporter {
	return &Reporter{store: store, svc: svc}
}

// Query asks for the report of a quarter section (or LSD), its two
// parameters as the client sent them: Report checks them.
type Query struct {
	LegalLocation string // a quarter section or an LSD of the DLS
	Include       string // comma-separated sections and geometry; "": every section
}

// Report is the body of GET /ag/report. A section is omitted when include
// leaves it out, and null when it cannot be provided.
type Report struct {
	LegalLocation    string                       `json:"legal_location"`
	Resolved         string                       `json:"resolved_legal_location"`
	Grain            string                       `json:"grain"`
	Province         string                       `json:"province"`
	Parcel           report.Parcel                `json:"parcel"`
	Productivity     json.RawMessage              `json:"productivity,omitempty"`
	Cropping         json.RawMessage              `json:"cropping,omitempty"`
	Soil             json.RawMessage              `json:"soil,omitempty"`
	LandUse          json.RawMessage              `json:"land_use,omitempty"`
	Drought          json.RawMessage              `json:"drought,omitempty"`
	Wetlands         json.RawMessage              `json:"wetlands,omitempty"`
	Hydrology        json.RawMessage              `json:"hydrology,omitempty"`
	ParcelContext    json.RawMessage              `json:"parcel_context,omitempty"`
	ProvincialDetail json.RawMessage              `json:"provincial_detail,omitempty"`
	Units            Units                        `json:"units"`
	Meta             report.Meta[json.RawMessage] `json:"meta"`

	// Compact says every section and source above is valid JSON without
	// whitespace outside its strings, as encoding/json writes a
	// json.RawMessage: Reporter.Report checks and compacts what it reads,
	// and a writer need not scan them again (agapi).
	Compact bool `json:"-"`
}

// Units names the report's units.
type Units struct {
	Area     string `json:"area"`
	Distance string `json:"distance"`
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

// Report assembles the report q asks for (GET /ag/report; package agapi
// serves it) from the dataset's items. Decisions the references leave
// open:
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
//     is NRCan hydrology (the NHN or CanVec Hydro), which is national, not the
//     AB-only ABMI inventory of the reference.
//   - provincial_detail always carries crown_land, soils and pastures
//     (empty arrays where the province publishes none, e.g. MB crown land).
//   - No item of any requested section (or, for a projection, none in the
//     quarter's partition at all) is 404 not_found "No agriculture data".

// Section names of the report, the include values besides "geometry".
const (
	SectionProductivity     = "productivity"
	SectionCropping         = "cropping"
	SectionSoil             = "soil"
	SectionLandUse          = "land_use"
	SectionDrought          = "drought"
	SectionWetlands         = "wetlands"
	SectionHydrology        = "hydrology"
	SectionParcelContext    = "parcel_context"
	SectionProvincialDetail = "provincial_detail"
)

// sections in report order, with the sort keys of their items.
var sections = []struct {
	name string
	sks  []string
}{
	{SectionProductivity, []string{SKLSRS, SKCLI}},
	{SectionCropping, []string{SKCropping}},
	{SectionSoil, []string{SKSoil}},
	{SectionLandUse, []string{SKLandUse}},
	{SectionDrought, []string{SKDrought}},
	{SectionWetlands, []string{SKWetlands}},
	{SectionHydrology, []string{SKHydrology}},
	{SectionParcelContext, []string{SKMunicipality}},
	{SectionProvincialDetail, []string{SKProvincial}},
}

// Sections are the report's sections in report order: the include values
// besides geometry.
var Sections = func() []string {
	names := make([]string, len(sections))
	for i, s := range sections {
		names[i] = s.name
	}
	return names
}()

// sourceKeys maps a sort key to its member of meta.sources (the SK of
// PK SOURCES as the ingest writes it).
var sourceKeys = map[string]struct{ stored, meta string }{
	SKLSRS:         {"lsrs", "productivity.lsrs"},
	SKCLI:          {"cli", "productivity.cli"},
	SKCropping:     {"cropping", SectionCropping},
	SKSoil:         {"soil", SectionSoil},
	SKLandUse:      {"land_use", SectionLandUse},
	SKDrought:      {"drought", SectionDrought},
	SKWetlands:     {"wetlands", SectionWetlands},
	SKHydrology:    {"hydrology", SectionHydrology},
	SKMunicipality: {"parcel_context", SectionParcelContext},
	SKProvincial:   {"provincial_detail", SectionProvincialDetail},
}

// SourceNames are the members meta.sources can have, sorted: a writer
// can list a report's sources in order without sorting them.
var SourceNames = func() []string {
	var names []string
	for _, k := range sourceKeys {
		names = append(names, k.meta)
	}
	slices.Sort(names)
	return names
}()

func (r *Reporter) Report(ctx context.Context, q Query) (*Report, error) {
	input := q.LegalLocation
	if strings.TrimSpace(input) == "" {
		return nil, apierr.Invalidf("invalid_parameter", "legal_location is required: a quarter section such as NW-36-42-3-W5 or an LSD such as 10-36-42-3-W5")
	}
	inc, err := report.ParseInclude(q.Include, Sections)
	if err != nil {
		return nil, err
	}
	l, err := lld.Parse(input)
	if err != nil {
		return nil, err
	}
	ql, err := quarterOf(l)
	if err != nil {
		return nil, err
	}
	b, err := r.svc.Resolve(ctx, ql, input)
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
	ds, ok, err := kv.Open(ctx, r.store, Dataset)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.NotFoundf("No agriculture data")
	}
	resolved := ql.String()
	pk := QuarterKey(resolved)

	// The store reads: the items of the requested sections only.
	wanted := make([]string, 0, len(sections)+1)
	for _, s := range sections {
		if !inc.Has(s.name) || (s.name == SectionProvincialDetail && b.Province == survey.AB) {
			continue
		}
		wanted = append(wanted, s.sks...)
	}
	items, err := read(ctx, ds, pk, wanted, inc.All())
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		// A quarter with none of the requested sections may still have
		// others: a projection looks for any item before saying 404.
		found := false
		if !inc.All() {
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
	srcs, err := r.sourcesOf(ctx, ds)
	if err != nil {
		return nil, err
	}

	rep := &Report{
		LegalLocation: l.String(),
		Resolved:      resolved,
		Grain:         "quarter_section",
		Province:      b.Province.Code(),
		Parcel:        report.NewParcel(b, inc.Geometry),
		Units:         Units{Area: "ha", Distance: "m"},
		Meta:          report.NewMeta[json.RawMessage](),
		Compact:       true, // item and sourcesOf compact what they read; compose joins compact parts
	}
	if l.Unit == lld.LSD {
		rep.Grain = "lsd"
	}
	null := json.RawMessage("null")
	// source adds the dataset of sk's item to meta.sources (a SOURCES item
	// that is not JSON is left out).
	source := func(sk string) {
		if s, ok := sourceKeys[sk]; ok {
			if src, ok := srcs[s.stored]; ok { // valid JSON (sourcesOf)
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
			rep.Meta.AddUnavailable(section, report.ReasonNoData)
			return null
		}
		ok, compact := jsonscan.Scan(data)
		switch {
		case !ok:
			rep.Meta.AddUnavailable(section, report.ReasonSourceError)
			return null
		case !compact:
			return compacted(data)
		}
		return data
	}
	for _, s := range sections {
		if !inc.Has(s.name) {
			continue
		}
		var out json.RawMessage
		switch s.name {
		case SectionProductivity:
			_, hasL := items[SKLSRS]
			_, hasC := items[SKCLI]
			if !hasL && !hasC {
				source(SKLSRS)
				source(SKCLI)
				rep.Meta.AddUnavailable(SectionProductivity, report.ReasonNoData)
				out = null
				break
			}
			lsrs, cli := item("productivity.lsrs", SKLSRS), item("productivity.cli", SKCLI)
			out = compose("lsrs", lsrs, "cli", cli)
		case SectionParcelContext:
			if m := item(SectionParcelContext, SKMunicipality); string(m) != "null" {
				out = compose("municipality", m)
			} else {
				out = null
			}
		case SectionProvincialDetail:
			if b.Province == survey.AB {
				rep.Meta.AddUnavailable(SectionProvincialDetail, report.ReasonNotPublished)
				out = null
				break
			}
			out = item(SectionProvincialDetail, SKProvincial)
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
	case SectionProductivity:
		rep.Productivity = v
	case SectionCropping:
		rep.Cropping = v
	case SectionSoil:
		rep.Soil = v
	case SectionLandUse:
		rep.LandUse = v
	case SectionDrought:
		rep.Drought = v
	case SectionWetlands:
		rep.Wetlands = v
	case SectionHydrology:
		rep.Hydrology = v
	case SectionParcelContext:
		rep.ParcelContext = v
	case SectionProvincialDetail:
		rep.ProvincialDetail = v
	}
}

// read returns the quarter's items of the sort keys wanted: one Query of the
// partition for a full report, else one Get per item, concurrently.
func read(ctx context.Context, ds kv.Dataset, pk string, wanted []string, full bool) (map[string][]byte, error) {
	items := make(map[string][]byte, len(wanted))
	if len(wanted) == 0 {
		return items, nil
	}
	if full {
		p, err := ds.Query(ctx, kv.Query{PK: pk, Limit: kv.MaxLimit})
		if err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			if slices.Contains(wanted, it.SK) { // a dozen keys: no map to make per request
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

// sourcesOf returns the dataset's SOURCES items by SK, read, checked and
// compacted once per published version: an item that is not JSON is left
// out.
func (r *Reporter) sourcesOf(ctx context.Context, ds kv.Dataset) (map[string]json.RawMessage, error) {
	return r.sources.Of(int64(ds.Version), func(add func(sk string, data []byte)) error {
		return ds.Each(ctx, kv.Query{PK: PKSources}, func(it kv.Item) error {
			switch ok, compact := jsonscan.Scan(it.Data); {
			case !ok: // left out
			case !compact:
				add(it.SK, compacted(it.Data))
			default:
				add(it.SK, it.Data)
			}
			return nil
		})
	})
}

// compacted is valid JSON without whitespace outside its strings, as
// encoding/json writes a json.RawMessage without HTML escaping.
func compacted(data []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		panic("ag: compact of valid JSON: " + err.Error()) // jsonscan.Scan said valid
	}
	return b.Bytes()
}
