package energyingest

import (
	"fmt"
	"io"
	"strings"
	"time"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// Volumetric is one row of Petrinex Conventional Volumetrics
// (Vol_YYYY-MM-AB.csv, 30 columns; docs/data-sources.md §5.1): a volume of
// one product for one activity at a reporting facility in one month, from
// or to another facility or a well. Gas is in e3m3 (10³ m³), oil,
// condensate and water in m³, energy in GJ. Negative volumes are
// amendments and are kept as published.
type Volumetric struct {
	Month        string // ProductionMonth, "YYYY-MM"
	OperatorBA   string // OperatorBAID: "0045"
	OperatorName string
	// Facility is the reporting facility.
	Facility       FacilityRef
	SubmissionDate time.Time
	Activity       string // ActivityID: PROD, DISP, REC, INJ, FUEL, FLARE, VENT, SHUTIN ...; "" on proration rows
	Product        string // ProductID: OIL, GAS, WATER, COND ...
	// FromTo is the other end: FromToID ("ABWI100042205618W502",
	// "ABGS0004313"), its province, type (WI for a well) and identifier
	// (the 16-character UWI for a well). A confidential other end ("***")
	// leaves them empty and sets FromToConfidential.
	FromToID           string
	FromToProvince     string
	FromToType         string
	FromToIdentifier   string
	FromToConfidential bool
	Volume             Amount
	Energy             Amount
	Hours              Amount
	CCICode            string
	ProrationProduct   string
	ProrationFactor    Amount
	Heat               Amount
}

// FacilityRef is a reporting facility as the volumetrics describe it.
type FacilityRef struct {
	ID          string // ReportingFacilityID: "ABBT0127945" (province + type + 7 digits)
	Province    string // ReportingFacilityProvinceState: AB, SK ...
	Type        string // ReportingFacilityType: BT, GS, GP, IF ...
	Identifier  string // ReportingFacilityIdentifier: "0127945"
	Name        string
	SubType     string // ReportingFacilitySubType: "351"
	SubTypeDesc string // "GAS SINGLE WELL BATTERY"
	// LocationText is ReportingFacilityLocation as published, sometimes
	// truncated ("01-062-19W5" for 15-01-062-19W5); Location is rebuilt
	// from the split columns: an LSD, a section when the LSD is empty, the
	// zero Location when they are all empty.
	LocationText string
	Location     lld.Location
}

// WellUWI returns the 16-character UWI of the well at the other end of a
// row whose FromToIDType is WI, and false for other rows.
func (v Volumetric) WellUWI() (string, bool) {
	if v.FromToType != "WI" || v.FromToConfidential || v.FromToIdentifier == "" {
		return "", false
	}
	return v.FromToIdentifier, true
}

var volumetricColumns = []column{
	{"ProductionMonth", true}, {"OperatorBAID", true}, {"OperatorName", true}, {"ReportingFacilityID", true},
	{"ReportingFacilityProvinceState", true}, {"ReportingFacilityType", true}, {"ReportingFacilityIdentifier", true},
	{"ReportingFacilityName", true}, {"ReportingFacilitySubType", true}, {"ReportingFacilitySubTypeDesc", true},
	{"ReportingFacilityLocation", true}, {"FacilityLegalSubdivision", true}, {"FacilitySection", true},
	{"FacilityTownship", true}, {"FacilityRange", true}, {"FacilityMeridian", true}, {"SubmissionDate", true},
	{"ActivityID", true}, {"ProductID", true}, {"FromToID", true}, {"FromToIDProvinceState", true},
	{"FromToIDType", true}, {"FromToIDIdentifier", true}, {"Volume", true}, {"Energy", true}, {"Hours", true},
	{"CCICode", true}, {"ProrationProduct", true}, {"ProrationFactor", true}, {"Heat", true},
}

// VolumetricColumns returns the 30 column names of Conventional
// Volumetrics in the published order.
func VolumetricColumns() []string { return columnNames(volumetricColumns) }

func columnNames(cols []column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return names
}

const (
	vMonth = iota
	vOperatorBA
	vOperatorName
	vFacilityID
	vFacilityProvince
	vFacilityType
	vFacilityIdentifier
	vFacilityName
	vSubType
	vSubTypeDesc
	vLocation
	vLSD
	vSection
	vTownship
	vRange
	vMeridian
	vSubmissionDate
	vActivity
	vProduct
	vFromToID
	vFromToProvince
	vFromToType
	vFromToIdentifier
	vVolume
	vEnergy
	vHours
	vCCI
	vProrationProduct
	vProrationFactor
	vHeat
)

// ReadVolumetrics streams a Petrinex Conventional Volumetrics CSV (the CSV
// inside the monthly zip inside the zip) to fn. The file has a header row
// with the 30 columns (any order; extra columns are ignored), every field
// quoted or not. "***" marks a confidential value: an Amount with
// Confidential set, or FromToConfidential for the other end. A row is
// rejected when its month is not YYYY-MM, its facility ID is empty, a date
// or number does not parse, its split location columns are not numbers in
// range, or a well's 16-character UWI is malformed.
func ReadVolumetrics(r io.Reader, file string, fn func(Volumetric) error) error {
	t, err := newCSVTable(r, file, volumetricColumns, csvOptions{})
	if err != nil {
		return err
	}
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return err
		}
		v := Volumetric{
			Month:        t.month(vMonth, true),
			OperatorBA:   t.str(vOperatorBA),
			OperatorName: t.str(vOperatorName),
			Facility: FacilityRef{
				ID:           t.text(vFacilityID, true),
				Province:     t.str(vFacilityProvince),
				Type:         t.str(vFacilityType),
				Identifier:   t.str(vFacilityIdentifier),
				Name:         t.str(vFacilityName),
				SubType:      t.str(vSubType),
				SubTypeDesc:  t.str(vSubTypeDesc),
				LocationText: t.str(vLocation),
			},
			SubmissionDate:   t.date(vSubmissionDate),
			Activity:         t.str(vActivity),
			Product:          t.str(vProduct),
			FromToID:         t.str(vFromToID),
			FromToProvince:   t.str(vFromToProvince),
			FromToType:       t.str(vFromToType),
			FromToIdentifier: t.str(vFromToIdentifier),
			Volume:           t.amount(vVolume),
			Energy:           t.amount(vEnergy),
			Hours:            t.amount(vHours),
			CCICode:          t.str(vCCI),
			ProrationProduct: t.str(vProrationProduct),
			ProrationFactor:  t.amount(vProrationFactor),
			Heat:             t.amount(vHeat),
		}
		v.Facility.Location = t.splitLocation(vLSD, vSection, vTownship, vRange, vMeridian)
		if v.FromToID == ConfidentialText || v.FromToIdentifier == ConfidentialText {
			v.FromToConfidential = true
			v.FromToID, v.FromToIdentifier = "", ""
		}
		if v.FromToType == "WI" && strings.HasPrefix(v.FromToIdentifier, "1") {
			if _, err := parseUWI16(v.FromToIdentifier); err != nil {
				t.fail(vFromToIdentifier, err)
			}
		}
		if t.err != nil {
			return t.err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
}

// splitLocation rebuilds a DLS location from Petrinex's split columns
// (unpadded integers; the meridian as a number, read as W1-W6): an LSD,
// a section when the LSD is empty, the zero Location when all are empty.
func (t *csvTable) splitLocation(lsdCol, secCol, twpCol, rgeCol, merCol int) lld.Location {
	lsdS, secS, twpS, rgeS, merS := t.str(lsdCol), t.str(secCol), t.str(twpCol), t.str(rgeCol), t.str(merCol)
	if lsdS == "" && secS == "" && twpS == "" && rgeS == "" && merS == "" {
		return lld.Location{}
	}
	merS = strings.TrimPrefix(strings.ToUpper(merS), "W")
	num := func(col int, s string) int {
		n, ok := ingest.ParseUint(s)
		if !ok {
			t.fail(col, fmt.Errorf("%q is not a number", s))
		}
		return n
	}
	sec, twp, rge, mer := num(secCol, secS), num(twpCol, twpS), num(rgeCol, rgeS), num(merCol, merS)
	lsd := 1
	if lsdS != "" {
		lsd = num(lsdCol, lsdS)
	}
	if t.err != nil {
		return lld.Location{}
	}
	l, err := DLSLocation(lsd, sec, twp, rge, mer)
	if err != nil {
		if t.err == nil {
			t.err = t.errorf("location columns %s..%s: %v", t.cols[lsdCol].name, t.cols[merCol].name, err)
		}
		return lld.Location{}
	}
	if lsdS == "" {
		l.Unit, l.LSD = lld.Section, 0
	}
	return l
}

// VolumetricsLayout is Petrinex's Conventional Volumetrics CSV as
// ReadVolumetrics reads it.
var VolumetricsLayout = ingest.Layout{
	Dataset:   "Petrinex Conventional Volumetrics",
	Publisher: "Petrinex",
	Form:      "Vol_YYYY-MM-<jurisdiction>.csv, the 30 published columns with a header",
	Verified:  true,
	Evidence:  "samples/petrinex (720 real rows); the same 30 names in guanjieshen/petrinex-python-api petrinex/schema.py",
}
