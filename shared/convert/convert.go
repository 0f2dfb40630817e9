// Package convert answers the conversion endpoints: search (legal land
// description to block), reverse (point to legal land description),
// autocomplete and batch, on top of the survey grid systems. It writes
// GeoJSON FeatureCollections: per location a grid feature then a centroid
// feature, with the properties of docs/ARCHITECTURE.md §3.
package convert

import (
	"fmt"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
	"meridian/shared/survey/nts"
)

// Service resolves legal land descriptions and points. It is safe for
// concurrent use.
type Service struct{}

// New returns a Service over the computed grid models.
func New() *Service { return &Service{} }

// Search parses a legal land description and resolves it to its block.
func (s *Service) Search(input string) (survey.Block, error) {
	l, err := lld.Parse(input)
	if err != nil {
		return survey.Block{}, err
	}
	return s.Resolve(l, input)
}

// Resolve returns the block l names. input is the caller's text, quoted in
// the message when l names no block.
func (s *Service) Resolve(l lld.Location, input string) (survey.Block, error) {
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
		return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': Manitoba river and parish lots come from the Manitoba Original Survey data, which is not loaded on this server", input)
	case lld.GeoTownship:
		return survey.Block{}, apierr.NotFoundf("No legal land location matches '%s': Ontario geographic townships come from the Land Information Ontario lot fabric, which is not loaded on this server", input)
	}
	return survey.Block{}, fmt.Errorf("convert: location %+v has no survey system", l)
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
	}
	return lld.SystemUnknown
}

// CheckReverse validates the system and unit of a reverse query: the unit
// must belong to the system, and a half section cannot be looked up (which
// half is ambiguous).
func CheckReverse(q ReverseQuery) error {
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
// largest down.
func (s *Service) Reverse(q ReverseQuery) ([]survey.Block, error) {
	if err := CheckReverse(q); err != nil {
		return nil, err
	}
	sys := q.System
	if sys == lld.SystemUnknown && q.Unit != lld.UnitUnknown {
		sys = SystemOfUnit(q.Unit)
	}
	if sys == lld.SystemUnknown {
		// DLS wins where both apply (the Peace River Block): wells and titles
		// there are described in DLS. survey_system=NTS asks for NTS.
		if _, ok := dls.Locate(q.Point, lld.Township); ok {
			sys = lld.DLS
		} else if nts.InBC(q.Point) {
			sys = lld.NTS
		} else {
			return nil, outside(q.Point)
		}
	}
	var units []lld.Unit
	switch {
	case q.All && sys == lld.DLS:
		units = dlsUnits
	case q.All && sys == lld.NTS:
		units = ntsUnits
	case q.Unit != lld.UnitUnknown:
		units = []lld.Unit{q.Unit}
	case sys == lld.DLS:
		units = dlsUnits[len(dlsUnits)-1:]
	case sys == lld.NTS:
		units = ntsUnits[len(ntsUnits)-1:]
	}
	switch sys {
	case lld.DLS, lld.NTS:
	case lld.RiverLot:
		return nil, apierr.NotFoundf("No Manitoba river or parish lot contains %s: the Manitoba Original Survey data is not loaded on this server", fmtPoint(q.Point))
	case lld.GeoTownship:
		return nil, apierr.NotFoundf("No Ontario geographic township contains %s: the Land Information Ontario lot fabric is not loaded on this server", fmtPoint(q.Point))
	}
	blocks := make([]survey.Block, 0, len(units))
	for _, u := range units {
		var (
			b  survey.Block
			ok bool
		)
		if sys == lld.DLS {
			var l lld.Location
			if l, ok = dls.Locate(q.Point, u); ok {
				b, ok = dls.Resolve(l)
			}
		} else {
			var l lld.Location
			if l, ok = nts.Locate(q.Point, u); ok {
				b, ok = nts.Resolve(l)
			}
		}
		if !ok {
			return nil, outsideSystem(q.Point, sys)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

func outside(pt orb.Point) error {
	return apierr.NotFoundf("No legal land location contains %s: it is outside the grids this server covers (DLS in AB, SK, MB and the BC Peace River Block; NTS in BC)", fmtPoint(pt))
}

func outsideSystem(pt orb.Point, sys lld.System) error {
	return apierr.NotFoundf("No %s block contains %s", sys, fmtPoint(pt))
}

// fmtPoint writes a point as lng,lat the way callers send it.
func fmtPoint(pt orb.Point) string {
	return fmt.Sprintf("%s,%s", appendCoord(nil, pt[0]), appendCoord(nil, pt[1]))
}
