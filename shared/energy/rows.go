package energy

import "meridian/shared/report"

// Rows as the energy endpoints return them (spec "Well row", "Pipeline
// row", ... and api-reference.md for what the spec leaves out). Ingest
// stores them ready to serve; the endpoints add only what depends on the
// request (days to expiry, paging).

// Point is a location as the reports write it (one type for both reports'
// points, parcel centroids included).
type Point = report.Point

// Party is an operator, licensee or holder.
type Party struct {
	Name   *string `json:"name"`
	BACode *string `json:"ba_code"`
	Slug   *string `json:"slug"`
}

// NewParty returns the party of a BA code and name; either may be empty
// (null in JSON).
func NewParty(ba, name string) Party {
	var p Party
	if ba != "" {
		p.BACode = &ba
	}
	if name != "" {
		s := Slug(name)
		p.Name, p.Slug = &name, &s
	}
	return p
}

// WellRow is a row of GET /energy/wells.
type WellRow struct {
	ID               string  `json:"id"`
	UWI              string  `json:"uwi"`
	WellName         string  `json:"well_name"`
	LicenceNumber    string  `json:"licence_number"`
	Status           Bucket  `json:"status"`
	LicenceStatusRaw string  `json:"licence_status_raw"`
	Operator         Party   `json:"operator"`
	Fluid            string  `json:"fluid"`
	Mode             string  `json:"mode"`
	Type             string  `json:"type"`
	TotalDepthM      float64 `json:"total_depth_m"`
	IsOrphan         bool    `json:"is_orphan"`
	IsAbandoned      bool    `json:"is_abandoned"`
	IsSuspended      bool    `json:"is_suspended"`
	Location         Point   `json:"location"`

	// Stored for the operator views and roll-ups, not sent in well rows.
	LSD        string `json:"lsd,omitempty"`
	StatusDate string `json:"status_date,omitempty"`
}

// PipelineRow is a row of GET /energy/pipelines (and a segment of the
// licence detail).
type PipelineRow struct {
	ID                      string   `json:"id"`
	Href                    string   `json:"href"`
	LicenceNumber           string   `json:"licence_number"`
	SegmentID               string   `json:"segment_id"`
	SegmentLineNumber       string   `json:"segment_line_number,omitempty"`
	Operator                Party    `json:"operator"`
	Status                  string   `json:"status"`
	SegmentStatusRaw        string   `json:"segment_status_raw"`
	Substance               string   `json:"substance"`
	OutsideDiameterMM       *float64 `json:"outside_diameter_mm"`
	MaxOperatingPressureKPa *float64 `json:"max_operating_pressure_kpa"`
	H2SPct                  *float64 `json:"h2s_pct"`
	H2SReleaseLevel         *string  `json:"h2s_release_level"`
	ClassLocation           string   `json:"class_location,omitempty"`
	PipelineEnvironment     string   `json:"pipeline_environment,omitempty"`
	LengthMOnParcel         *float64 `json:"length_m_on_parcel,omitempty"`
	SegmentLengthKM         *float64 `json:"segment_length_km"`
	FromFacility            string   `json:"from_facility,omitempty"`
	ToFacility              string   `json:"to_facility,omitempty"`
	OverlapPoint            *Point   `json:"overlap_point,omitempty"`
	Centroid                *Point   `json:"centroid,omitempty"`
}

// FacilityRow is a row of GET /energy/facilities.
type FacilityRow struct {
	ID                string `json:"id"`
	FacilityName      string `json:"facility_name"`
	Category          string `json:"category"`
	SubType           string `json:"sub_type"`
	SubCode           string `json:"sub_code"`
	Status            string `json:"status"`
	FacilityStatusRaw string `json:"facility_status_raw"`
	LicenceNumber     string `json:"licence_number"`
	Operator          Party  `json:"operator"`
	Licensee          Party  `json:"licensee"`
	Location          Point  `json:"location"`
}

// TenureRow is a row of GET /energy/tenure and of the disposition views.
// DaysToExpiry and ExpiryState depend on the day of the request: ingest
// stores them as of its own day and the endpoints recompute them.
type TenureRow struct {
	ID                 string      `json:"id"`
	Href               string      `json:"href"`
	TenureKind         string      `json:"tenure_kind"`
	Province           string      `json:"province"`
	DispositionNumber  string      `json:"disposition_number"`
	MineralCategory    *string     `json:"mineral_category"`
	DispositionType    string      `json:"disposition_type"`
	DispositionTypeRaw string      `json:"disposition_type_raw"`
	TargetSubstance    *string     `json:"target_substance"`
	CoalCategory       *string     `json:"coal_category"`
	Holder             Party       `json:"holder"`
	Status             string      `json:"status"`
	IssueDate          string      `json:"issue_date,omitempty"`
	ExpiryDate         *string     `json:"expiry_date"`
	Perpetual          bool        `json:"-"`
	DaysToExpiry       *int        `json:"days_to_expiry"`
	ExpiryState        ExpiryState `json:"expiry_state"` // null when unknown
	AreaHa             *float64    `json:"area_ha"`
	LSDCoveragePct     *float64    `json:"lsd_coverage_pct"`
	IsTransferPending  bool        `json:"is_transfer_pending"`
	OverlapPoint       *Point      `json:"overlap_point,omitempty"`
	Centroid           *Point      `json:"centroid,omitempty"`
	LSDs               []string    `json:"lsds,omitempty"` // disposition detail only
}

// OperatorRow is a row of GET /energy/operators, with the summary view's
// liability and tenure counts.
type OperatorRow struct {
	BACode                    string    `json:"ba_code"`
	Name                      string    `json:"name"`
	Slug                      string    `json:"slug"`
	ActiveWells               int       `json:"active_wells"`
	AbandonedWells            int       `json:"abandoned_wells"`
	OrphanWells               int       `json:"orphan_wells"`
	ReclamationCertifiedWells int       `json:"reclamation_certified_wells"`
	DispositionsCount         int       `json:"dispositions_count"`
	RefreshedAt               string    `json:"refreshed_at"`
	Liability                 Liability `json:"-"`
	PNGDispositions           int       `json:"-"`
	MineralDispositions       int       `json:"-"`
	TotalAreaHa               float64   `json:"-"`
	TransfersIn, TransfersOut int       `json:"-"`
	FootprintTotal            int       `json:"-"`
}

// FootprintRow is one LSD of an operator's footprint.
type FootprintRow struct {
	LegalLocation  string `json:"legal_location"`
	Province       string `json:"province"`
	TotalWells     int    `json:"total_wells"`
	ActiveWells    int    `json:"active_wells"`
	AbandonedWells int    `json:"abandoned_wells"`
	OrphanWells    int    `json:"orphan_wells"`
	Centroid       Point  `json:"centroid"`
}

// LSDSummary is what an LSD holds, for the report's summary and the tile
// roll-ups: well counts by bucket, pipelines, facilities, the dominant
// operator and the last activity.
type LSDSummary struct {
	LSD             string         `json:"lsd"`
	Wells           Liability      `json:"wells"`
	WellsByOperator map[string]int `json:"wells_by_operator,omitempty"`
	// OperatorNames names the operators of WellsByOperator (BA code →
	// name), so a report needs no read of an operator's INFO item.
	OperatorNames    map[string]string `json:"operator_names,omitempty"`
	Segments         int               `json:"pipeline_segments"`
	PipelineLengthM  float64           `json:"pipeline_length_m"`
	Facilities       int               `json:"facilities"`
	Categories       []string          `json:"facility_categories,omitempty"`
	LastActivityDate string            `json:"last_activity_date,omitempty"`
	Production       Production        `json:"production"`
	ProducingWells   int               `json:"producing_wells"`
}

// Source is one section's entry in meta.sources.
type Source struct {
	Name string `json:"name"`
	AsOf string `json:"as_of"` // YYYY-MM-DD or YYYY-MM
	Demo bool   `json:"demo,omitempty"`
}
