package energyingest

import (
	"math"
	"strings"

	"meridian/shared/energy"
	"meridian/shared/lld"
)

// FacilityCategory groups a Petrinex facility type into the report's
// categories.
func FacilityCategory(typ string) string {
	switch strings.ToUpper(typ) {
	case "BT":
		return "battery"
	case "GP":
		return "gas plant"
	case "GS":
		return "gas gathering system"
	case "IF":
		return "injection/disposal"
	case "TM":
		return "terminal"
	case "PL":
		return "pipeline"
	case "MS", "WM":
		return "meter station"
	}
	return "other"
}

// H2SPct converts the pipelines' H2S content, published in mol/kmol, to
// percent (1 mol/kmol = 0.1 %). The unit is AER's for pipeline licences
// (docs/data-sources.md §3) and unverified against the product metadata.
func H2SPct(molPerKmol float64) float64 { return math.Round(molPerKmol/10*1e4) / 1e4 }

// DispositionID is the id a disposition is served under: the number for
// PNG, category:number for mineral tenure.
func DispositionID(kind, category, number string) string {
	if kind == KindMineral {
		return energy.Slug(category) + ":" + number
	}
	return number
}

// QuarterOf returns the quarter section that holds LSD lsd (1-16).
func QuarterOf(lsd uint8) lld.Aliquot {
	for a, ls := range quarterLSDs {
		for _, n := range ls {
			if n == lsd {
				return a
			}
		}
	}
	return 0
}
