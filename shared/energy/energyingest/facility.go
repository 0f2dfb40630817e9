package energyingest

import (
	"io"
	"time"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// Facility is one row of Petrinex Facility Infrastructure
// (docs/data-sources.md §5.4): a battery, gas plant, gathering system,
// injection/disposal facility, terminal ...
type Facility struct {
	ID          string // FacilityID: "ABBT0049013"
	Province    string // FacilityProvinceState
	Type        string // FacilityType: BT, GS, GP, IF, TM ...
	Identifier  string // FacilityIdentifier, 7 digits
	Name        string
	SubType     string // FacilitySubType: "311"
	SubTypeDesc string // "CRUDE OIL SINGLE-WELL BATTERY"
	// ExperimentalConfidential is published as is (values unverified).
	ExperimentalConfidential string
	StartDate                time.Time
	// LocationText is FacilityLocation as published; Location comes from
	// the split columns when the file has them (as in Volumetric), else
	// from LocationText when it is a complete LSD-SEC-TWP-RGEWM, else it is
	// the zero Location.
	LocationText                  string
	Location                      lld.Location
	LicenceStatus                 string
	OperationalStatus             string // FacilityOperationalStatus: "ACTIVE" ...
	OperationalStatusDate         time.Time
	LicenceType                   string
	LicenceNumber                 string
	EnergyDevelopmentCategoryType string
	LicenceIssueDate              time.Time
	LicenseeBA                    string // LicenseeBAID
	LicenseeName                  string
	OperatorBA                    string // OperatorBAID: "A76W"
	OperatorName                  string
	OperatorStartDate             time.Time
	TerminalPipelineLink          string
	TPFacilityProvince            string
	TPFacilityType                string
	TPFacilityIdentifier          string
	MeterStationPipelineLink      string
	MPFacilityProvince            string
	MPFacilityType                string
	MPFacilityIdentifier          string
	EnergyDevelopmentCategoryID   string
	Orphan                        bool // OrphanWellFlg (Y/N; values unverified)
	TierAggregateID               string
	TierAggregatePR               string
}

var facilityColumns = []column{
	{"FacilityID", true}, {"FacilityProvinceState", false}, {"FacilityType", false}, {"FacilityIdentifier", false},
	{"FacilityName", false}, {"FacilitySubType", false}, {"FacilitySubTypeDesc", false},
	{"ExperimentalConfidential", false}, {"FacilityStartDate", false}, {"FacilityLocation", false},
	{"FacilityLegalSubdivision", false}, {"FacilitySection", false}, {"FacilityTownship", false},
	{"FacilityRange", false}, {"FacilityMeridian", false}, {"FacilityLicenceStatus", false},
	{"FacilityOperationalStatus", false}, {"FacilityOperationalStatusDate", false}, {"LicenceType", false},
	{"LicenceNumber", false}, {"EnergyDevelopmentCategoryType", false}, {"LicenceIssueDate", false},
	{"LicenseeBAID", false}, {"LicenseeName", false}, {"OperatorBAID", false}, {"OperatorName", false},
	{"OperatorStartDate", false}, {"TerminalPipelineLink", false}, {"TPFacilityProvinceState", false},
	{"TPFacilityType", false}, {"TPFacilityIdentifier", false}, {"MeterStationPipelineLink", false},
	{"MPFacilityProvinceState", false}, {"MPFacilityType", false}, {"MPFacilityIdentifier", false},
	{"EnergyDevelopmentCategoryID", false}, {"OrphanWellFlg", false}, {"TierAggregateID", false},
	{"TierAggregatePR", false},
}

// FacilityColumns returns the 39 documented column names of Facility
// Infrastructure in the documented order.
func FacilityColumns() []string { return columnNames(facilityColumns) }

const (
	fID = iota
	fProvince
	fType
	fIdentifier
	fName
	fSubType
	fSubTypeDesc
	fExpConf
	fStartDate
	fLocation
	fLSD
	fSection
	fTownship
	fRange
	fMeridian
	fLicenceStatus
	fOpStatus
	fOpStatusDate
	fLicenceType
	fLicenceNumber
	fEDCType
	fLicenceIssueDate
	fLicenseeBA
	fLicenseeName
	fOperatorBA
	fOperatorName
	fOperatorStartDate
	fTPLink
	fTPProvince
	fTPType
	fTPIdentifier
	fMPLink
	fMPProvince
	fMPType
	fMPIdentifier
	fEDCID
	fOrphan
	fTierID
	fTierPR
)

// ReadFacilities streams a Petrinex Facility Infrastructure CSV to fn.
// Columns are found by header name; only FacilityID is required, because
// the one real sample is a slice of 8 of the 39 documented columns: the
// others read as empty when absent. Dates are YYYY-MM-DD (a time of day
// is dropped); OrphanWellFlg is a yes/no flag. A row is rejected when its
// FacilityID is empty or a date, flag or split location column does not
// parse.
func ReadFacilities(r io.Reader, file string, fn func(Facility) error) error {
	t, err := newCSVTable(r, file, facilityColumns, csvOptions{})
	if err != nil {
		return err
	}
	split := t.has(fSection) && t.has(fTownship) && t.has(fRange) && t.has(fMeridian)
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return err
		}
		f := Facility{
			ID:                            t.text(fID, true),
			Province:                      t.str(fProvince),
			Type:                          t.str(fType),
			Identifier:                    t.str(fIdentifier),
			Name:                          t.str(fName),
			SubType:                       t.str(fSubType),
			SubTypeDesc:                   t.str(fSubTypeDesc),
			ExperimentalConfidential:      t.str(fExpConf),
			StartDate:                     t.date(fStartDate),
			LocationText:                  t.str(fLocation),
			LicenceStatus:                 t.str(fLicenceStatus),
			OperationalStatus:             t.str(fOpStatus),
			OperationalStatusDate:         t.date(fOpStatusDate),
			LicenceType:                   t.str(fLicenceType),
			LicenceNumber:                 t.str(fLicenceNumber),
			EnergyDevelopmentCategoryType: t.str(fEDCType),
			LicenceIssueDate:              t.date(fLicenceIssueDate),
			LicenseeBA:                    t.str(fLicenseeBA),
			LicenseeName:                  t.str(fLicenseeName),
			OperatorBA:                    t.str(fOperatorBA),
			OperatorName:                  t.str(fOperatorName),
			OperatorStartDate:             t.date(fOperatorStartDate),
			TerminalPipelineLink:          t.str(fTPLink),
			TPFacilityProvince:            t.str(fTPProvince),
			TPFacilityType:                t.str(fTPType),
			TPFacilityIdentifier:          t.str(fTPIdentifier),
			MeterStationPipelineLink:      t.str(fMPLink),
			MPFacilityProvince:            t.str(fMPProvince),
			MPFacilityType:                t.str(fMPType),
			MPFacilityIdentifier:          t.str(fMPIdentifier),
			EnergyDevelopmentCategoryID:   t.str(fEDCID),
			Orphan:                        t.flag(fOrphan),
			TierAggregateID:               t.str(fTierID),
			TierAggregatePR:               t.str(fTierPR),
		}
		if split {
			f.Location = t.splitLocation(fLSD, fSection, fTownship, fRange, fMeridian)
		}
		if f.Location == (lld.Location{}) {
			f.Location, _ = parseLSDText(f.LocationText)
		}
		if t.err != nil {
			return t.err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
}

// FacilityLayout is Petrinex's Facility Infrastructure CSV as ReadFacilities
// reads it: columns by header name, FacilityID required.
var FacilityLayout = ingest.Layout{
	Dataset:   "Petrinex Facility Infrastructure",
	Publisher: "Petrinex",
	Form:      "Facility Infrastructure-<jurisdiction>.csv, quoted CSV with a header",
	Verified:  true,
	Evidence:  "samples/petrinex/Facility_Infrastructure_AB_partial_slice.csv (8 of the 39 columns; XML loaders ids 8920090715, 9124177837)",
}
