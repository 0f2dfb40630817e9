// Package grid answers the conversion endpoints: search (legal land
// description to block), reverse (point to legal land description),
// autocomplete and batch, on top of the survey grid systems. It writes
// GeoJSON FeatureCollections: per location a grid feature then a centroid
// feature, with the properties of docs/ARCHITECTURE.md §3.
package grid

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/gridindex"
	"meridian/shared/survey/nts"
)

// Service resolves legal land descriptions and points over the computed
// grid models and the official grid indexes loaded into it. It is safe for
// concurrent use.
type Service struct {
	grids atomic.Pointer[[]*gridindex.Index]
}

// New returns a Service over the computed grid models; SetIndexes adds
// official data.
func New() *Service { return &Service{} }

// SetIndexes replaces the official grid indexes consulted before the models,
// in order of preference. It is safe to call while requests are served.
func (s *Service) SetIndexes(ix []*gridindex.Index) {
	ix = slices.Clone(ix)
	s.grids.Store(&ix)
}

func (s *Service) indexes() []*gridindex.Index {
	if p := s.grids.Load(); p != nil {
		return *p
	}
	return nil
}

// hasSystem reports whether any loaded index holds sys.
func (s *Service) hasSystem(sys lld.System) bool {
	for _, ix := range s.indexes() {
		if holdsSystem(ix, sys) {
			return true
		}
	}
	return false
}

// Sources names the datasets of the loaded indexes that hold sys, in order
// of preference.
func (s *Service) Sources(sys lld.System) []string {
	var out []string
	for _, ix := range s.indexes() {
		if holdsSystem(ix, sys) {
			out = append(out, ix.Meta().Source)
		}
	}
	return out
}

// SourceMetas describes the loaded indexes that hold sys, in order of
// preference: Sources with each index's Fixture flag and counts.
func (s *Service) SourceMetas(sys lld.System) []gridindex.Meta {
	var out []gridindex.Meta
	for _, ix := range s.indexes() {
		if holdsSystem(ix, sys) {
			out = append(out, ix.Meta())
		}
	}
	return out
}

// Search parses a legal land description and resolves it to its block.
func (s *Service) Search(ctx context.Context, input string) (survey.Block, error) {
	l, err := lld.Parse(input)
	if err != nil {
		return survey.Block{}, err
	}
	return s.Resolve(ctx, l, input)
}

// Resolve returns the block l names: from an official index where one holds
// it, else from the model. input is the caller's text, quoted in the
// message when l names no block.
func (s *Service) Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error) {
	switch l.System {
	case lld.DLS, lld.RiverLot, lld.GeoTownship:
		b, ok, err := s.fromIndex(ctx, l)
		if err != nil || ok {
			return b, err
		}
	}
	switch l.System {
	case lld.DLS:
		if b, ok := dls.Resolve(l); ok {
			return b, nil
		}
		return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': %s lies outside the DLS grid of Alberta, Saskatchewan, Manitoba and the BC Peace River Block", input, l)
	case lld.NTS:
		if b, ok := nts.Resolve(l); ok {
			return b, nil
		}
		return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': NTS block %s lies outside British Columbia", input, l)
	case lld.RiverLot:
		if !s.hasSystem(lld.RiverLot) {
			return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': Manitoba river and parish lots come from the Manitoba Original Survey data, which is not loaded on this server", input)
		}
		return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': the Manitoba Original Survey data loaded here has no %s", input, l)
	case lld.GeoTownship:
		if !s.hasSystem(lld.GeoTownship) {
			return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': Ontario geographic townships come from the Land Information Ontario lot fabric, which is not loaded on this server", input)
		}
		return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': the Ontario lot fabric loaded here has no %s", input, l)
	case lld.FPS:
		return resolveFPS(l, input)
	}
	return survey.Block{}, fmt.Errorf("grid: location %+v has no survey system", l)
}

// ReverseQuery is a point to locate and what to locate it in.
type ReverseQuery struct {
	Point  orb.Point  // lng, lat
	System lld.System // SystemUnknown: the system that covers the point (DLS first in the Peace River Block)
	Unit   lld.Unit   // UnitUnknown: the smallest block
	All    bool       // every block containing the point, largest first
}

var (
	dlsUnits = []lld.Unit{lld.Township, lld.Section, lld.QuarterSection, lld.LSD}
	ntsUnits = []lld.Unit{lld.Series, lld.MapArea, lld.MapSheet, lld.Block, lld.NTSUnit, lld.QuarterUnit}
)

// SystemOfUnit returns the survey system a reverse-lookup unit belongs to
// when the caller named no system. Township is DLS (the Ontario township
// needs survey_system=Geographic Township).
func SystemOfUnit(u lld.Unit) lld.System {
	switch u {
	case lld.Township, lld.Section, lld.QuarterSection, lld.LSD:
		return lld.DLS
	case lld.Series, lld.MapArea, lld.MapSheet, lld.Block, lld.NTSUnit, lld.QuarterUnit:
		return lld.NTS
	case lld.RiverParishLot:
		return lld.RiverLot
	case lld.Lot, lld.Concession:
		return lld.GeoTownship
	case lld.Grid, lld.FPSSection, lld.FPSUnit:
		return lld.FPS
	}
	return lld.SystemUnknown
}

// CheckReverse validates the system and unit of a reverse query: the unit
// must belong to the system, and a half section cannot be looked up (which
// half is ambiguous).
func CheckReverse(q ReverseQuery) error {
	q = withFPSUnit(q)
	if q.Unit == lld.HalfSection {
		return apierr.Invalidf("invalid_parameter", "unit 'Half Section' cannot be looked up from a point (a point lies in both an N/S and an E/W half): use Quarter Section")
	}
	if q.Unit != lld.UnitUnknown && q.System != lld.SystemUnknown {
		if sys := SystemOfUnit(q.Unit); sys != q.System && !(q.System == lld.GeoTownship && q.Unit == lld.Township) {
			return apierr.Invalidf("invalid_parameter", "unit '%s' does not belong to survey_system '%s'", q.Unit, q.System)
		}
	}
	return nil
}

// Reverse returns the blocks containing q.Point: one block (the requested
// unit, or the smallest), or with q.All every block of the system from the
// largest down. Without a system it answers in the system that covers the
// point: official DLS data, then Ontario lots, then a Manitoba lot whose
// centroid is within 400 m, then the DLS model (so DLS wins in the Peace
// River Block), then NTS in BC.
func (s *Service) Reverse(ctx context.Context, q ReverseQuery) ([]survey.Block, error) {
	if err := CheckReverse(q); err != nil {
		return nil, err
	}
	q = withFPSUnit(q)
	sys := q.System
	if sys == lld.SystemUnknown && q.Unit != lld.UnitUnknown {
		sys = SystemOfUnit(q.Unit)
	}
	at := s.at(q.Point)
	if sys == lld.SystemUnknown {
		// Most points asked for are in a DLS index: answering in DLS
		// first decides the system too, where deciding first asked the
		// indexes for the point's township and then again for the
		// answer's units (a third of a reverse lookup's time at province
		// size). A block of a DLS index at the point makes it DLS, as
		// systemAt would say.
		units := answerUnits(q, dlsUnits)
		blocks, any, err := s.dlsFromIndexes(ctx, at, units)
		if err != nil {
			return nil, err
		}
		if any {
			return s.fillDLS(q, units, blocks)
		}
		if sys, err = s.systemAt(ctx, at); err != nil {
			return nil, err
		}
	}
	switch sys {
	case lld.DLS:
		return s.reverseDLS(ctx, at, q)
	case lld.NTS:
		return reverseNTS(q)
	case lld.GeoTownship:
		return s.reverseOntario(ctx, at, q)
	case lld.FPS:
		return reverseFPS(q)
	case lld.RiverLot:
		b, ok, err := s.nearestLot(ctx, q.Point, maxRiverLotDistanceM)
		if err != nil {
			return nil, err
		}
		if !ok {
			if !s.hasSystem(lld.RiverLot) {
				return nil, apierr.NotFoundf("No Manitoba river or parish lot contains %s: the Manitoba Original Survey data is not loaded on this server", fmtPoint(q.Point))
			}
			return nil, apierr.NotFoundf("No Manitoba river or parish lot has its centre within %d m of %s", maxRiverLotDistanceM, fmtPoint(q.Point))
		}
		return []survey.Block{b}, nil
	}
	return nil, outside(q.Point)
}

// nearLotM is how close a Manitoba lot centroid must be for a point with no
// requested system to be answered as a river or parish lot.
const nearLotM = 400

func (s *Service) systemAt(ctx context.Context, at *atPoint) (lld.System, error) {
	pt := at.pt
	if len(at.ixs) > 0 {
		if _, any, err := s.dlsFromIndexes(ctx, at, dlsUnits[:1]); err != nil || any {
			return lld.DLS, err
		}
		if _, ok, err := s.containingIn(ctx, at, lld.GeoTownship, lld.Township); err != nil || ok {
			return lld.GeoTownship, err
		}
		if _, ok, err := s.containingIn(ctx, at, lld.GeoTownship, lld.Lot); err != nil || ok {
			return lld.GeoTownship, err
		}
		if _, ok, err := s.nearestLot(ctx, pt, nearLotM); err != nil || ok {
			return lld.RiverLot, err
		}
	}
	if _, ok := dls.Locate(pt, lld.Township); ok {
		return lld.DLS, nil
	}
	if nts.InBC(pt) {
		return lld.NTS, nil
	}
	if fpsByDefault(pt) {
		return lld.FPS, nil
	}
	return lld.SystemUnknown, nil
}

func (s *Service) reverseDLS(ctx context.Context, at *atPoint, q ReverseQuery) ([]survey.Block, error) {
	units := answerUnits(q, dlsUnits)
	blocks, _, err := s.dlsFromIndexes(ctx, at, units)
	if err != nil {
		return nil, err
	}
	return s.fillDLS(q, units, blocks)
}

// fillDLS completes blocks, the indexes' answers for units, with the
// survey model's where no index had one.
func (s *Service) fillDLS(q ReverseQuery, units []lld.Unit, blocks []survey.Block) ([]survey.Block, error) {
	for i, u := range units {
		if blocks[i].Location.System != lld.SystemUnknown {
			continue
		}
		l, ok := dls.Locate(q.Point, u)
		if ok {
			blocks[i], ok = dls.ResolveAt(l, q.Point)
		}
		if !ok {
			return nil, outsideSystem(q.Point, lld.DLS)
		}
	}
	return blocks, nil
}

// answerUnits returns the units a reverse lookup q answers in, from a
// system's units, largest first: every one with q.All, the one asked for,
// or else the smallest.
func answerUnits(q ReverseQuery, units []lld.Unit) []lld.Unit {
	switch {
	case q.All:
		return units
	case q.Unit != lld.UnitUnknown:
		return []lld.Unit{q.Unit}
	}
	return units[len(units)-1:]
}

func reverseNTS(q ReverseQuery) ([]survey.Block, error) {
	units := answerUnits(q, ntsUnits)
	blocks := make([]survey.Block, 0, len(units))
	for _, u := range units {
		l, ok := nts.Locate(q.Point, u)
		var b survey.Block
		if ok {
			b, ok = nts.Resolve(l)
		}
		if !ok {
			return nil, outsideSystem(q.Point, lld.NTS)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

var ontarioUnits = []lld.Unit{lld.Township, lld.Concession, lld.Lot}

func (s *Service) reverseOntario(ctx context.Context, at *atPoint, q ReverseQuery) ([]survey.Block, error) {
	if !s.hasSystem(lld.GeoTownship) {
		return nil, apierr.NotFoundf("No Ontario geographic township contains %s: the Land Information Ontario lot fabric is not loaded on this server", fmtPoint(q.Point))
	}
	units := answerUnits(q, ontarioUnits)
	blocks := make([]survey.Block, 0, len(units))
	for _, u := range units {
		b, ok, err := s.containingIn(ctx, at, lld.GeoTownship, u)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, apierr.NotFoundf("No Ontario %s in the loaded lot fabric contains %s", strings.ToLower(u.String()), fmtPoint(q.Point))
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

func outside(pt orb.Point) error {
	return apierr.NotFoundf("No legal land location contains %s: it is outside the grids this server covers (DLS in AB, SK, MB and the BC Peace River Block; NTS in BC; FPS north of 60° N, and offshore with survey_system=FPS)", fmtPoint(pt))
}

func outsideSystem(pt orb.Point, sys lld.System) error {
	return apierr.NotFoundf("No %s block contains %s", sys, fmtPoint(pt))
}

// fmtPoint writes a point as lng,lat the way callers send it, to 6
// decimals (0.1 m) without trailing zeros.
func fmtPoint(pt orb.Point) string {
	return fmtCoord(pt[0]) + "," + fmtCoord(pt[1])
}

func fmtCoord(v float64) string {
	return strconv.FormatFloat(survey.Round6(v), 'f', -1, 64)
}
