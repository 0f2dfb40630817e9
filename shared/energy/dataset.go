package energy

import (
	"strings"

	"github.com/paulmach/orb"
)

// Dataset is the report store dataset the energy ingest publishes: every
// energy file at once, so the derived items (operator liability, LSD
// summaries) always agree with the rows they count.
const Dataset = "energy"

// PKSources holds one item per report section naming its dataset and date
// (meta.sources).
const PKSources = "SOURCES"

// FacilityRank orders facility statuses for the default status sort:
// active, suspended, abandoned, then the rest.
func FacilityRank(status string) int {
	switch strings.ToUpper(strings.TrimSpace(status)) {
	case "ACTIVE":
		return 0
	case "SUSPENDED", "SUSPENSION":
		return 1
	case "ABANDONED":
		return 2
	}
	return 3
}

// SKPipelineGeometry starts the sort keys of a licence's segment lines
// (PIPELINE#<licence>, GEOM#<line>#<segment>): what the pipelines map layer
// draws.
const SKPipelineGeometry = "GEOM#"

// PipelineGeometry is a segment's line as published, for the map layer.
type PipelineGeometry struct {
	Licence   string              `json:"licence_number"`
	LineNo    string              `json:"line_number"`
	SegmentID string              `json:"segment_id"`
	Status    string              `json:"status"`
	Substance string              `json:"substance"`
	H2SPct    *float64            `json:"h2s_pct"`
	Lines     orb.MultiLineString `json:"lines"`
}

// OperatorInfo is the OP#<ba> INFO item: the operator row with the summary
// view's counts.
type OperatorInfo struct {
	OperatorRow
	Liability Liability `json:"liability"`
	PNG       int       `json:"png_dispositions"`
	Mineral   int       `json:"mineral_dispositions"`
	AreaHa    float64   `json:"total_area_ha"`
	In        int       `json:"transfers_in"`
	Out       int       `json:"transfers_out"`
	Footprint int       `json:"footprint_total"`
}
