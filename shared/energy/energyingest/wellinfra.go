package energyingest

import (
	"fmt"
	"io"
	"strings"
	"time"

	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// PetrinexWell is one row of Petrinex Well Infrastructure (one well event;
// docs/data-sources.md §5.3), for AB, SK and MB alike.
//
// No whole real file has been seen: the columns are those a published
// loader of the report reads. The values of HorizontalDrill and of the
// status words are those of the real AB file (PetrinexWellLayout); the
// date and flag formats are assumptions to check against the first real
// download (§22).
type PetrinexWell struct {
	WellID     string // "ABWI100042205618W502"
	Province   string // WellProvinceState
	WellType   string // "WI"
	Identifier string // WellIdentifier, the 16-character UWI
	PreviousID string // PreviousWellID
	// LE, Location and Event are the UWI's parts (from WellIdentifier when
	// it is a DLS UWI, else from the split columns; the two must agree).
	LE                                      string
	Location                                lld.Location
	Event                                   int
	Name                                    string
	ConfidentialType                        string
	ExperimentalConfidential                bool // ExperimentalConfidentialIndicator
	ExperimentalConfidentialEffectiveDate   time.Time
	ExperimentalConfidentialTerminationDate time.Time
	LicenceType                             string
	LicenceNumber                           string
	LicenceIssueDate                        time.Time
	LicenceStatusDate                       time.Time
	LicenceStatus                           string // as ST37: Issued, Amended, Suspension ...
	Field, FieldName                        string
	Area, AreaName                          string
	PoolDeposit, PoolDepositName            string
	PoolDepositDensity                      string
	// FluidName ... StructureName are WellStatusFluid ... (short
	// descriptions such as "GAS", "FLOW"); Status holds the codes
	// (WellStatusFluidCode ...), zero when the four are empty.
	FluidName, ModeName, TypeName, StructureName string
	Status                                       WellStatus
	StatusDate                                   time.Time
	SpudDate                                     time.Time
	// Trajectory is HorizontalDrill: the drilling trajectory word, not a
	// yes/no flag.
	Trajectory                 Trajectory
	FinishedDrillDate          time.Time
	TotalDepth                 Amount // FinalTotalDepth, m
	MaxTVD                     Amount // MaxTrueVerticalDepth, m
	GasWellLiquidType          string // VolumetricGasWellLiquidType
	GasWellLiquidEffectiveDate time.Time
	LicenseeBA                 string // LicenceeID (sic)
	LicenseeName               string // LicenceeName
	AllowableType              string
	BlockNumber                string
	RecoveryMechanismType      string
	Orphan                     bool // OrphanWellFlg
	// The linked facility (the battery the well reports to), when the file
	// flattens it into columns.
	LinkedFacilityID           string
	LinkedFacilitySubType      string
	LinkedFacilitySubTypeDesc  string
	LinkedStartDate            time.Time
	LinkedFacilityOperatorBA   string
	LinkedFacilityOperatorName string
}

// PetrinexWellLayout is the layout ReadPetrinexWells reads.
var PetrinexWellLayout = ingest.Layout{
	Dataset:   "Petrinex Well Infrastructure",
	Publisher: "Petrinex",
	Form:      "Well Infrastructure-{AB,SK,MB}.csv, header row, every field quoted",
	Verified:  false,
	Evidence: "values of HorizontalDrill (trajectory words), WellStatusMode and WellStatusType follow the real AB file " +
		"(docs/real-layouts.md, id 23718322573); the column names are the report's XML element names as a loader " +
		"reads them (id 9274889379), with OrphanWellFlg a one-character field in a loader's schema (id 9124177837), " +
		"not seen in a real CSV: check the header, the date format (YYYY-MM-DD), the status code columns and the " +
		"spelling of ExperimentalConfidentialIndicator and OrphanWellFlg (Y/N assumed) in the first real download",
}

// Trajectory is a well event's drilling trajectory, the HorizontalDrill
// column of Petrinex Well Infrastructure, upper case with single spaces.
// A word outside the known ones is kept as published (and reported as a
// notice); "" is none given.
type Trajectory string

// The trajectory words of the real file (docs/real-layouts.md, id
// 23718322573), which spells them in upper or title case.
const (
	Vertical     Trajectory = "VERTICAL"
	Horizontal   Trajectory = "HORIZONTAL"
	Directional  Trajectory = "DIRECTIONAL"
	Slant        Trajectory = "SLANT"
	NaturalDrift Trajectory = "NATURAL DRIFT"
)

var trajectories = []Trajectory{Vertical, Horizontal, Directional, Slant, NaturalDrift}

// ParseTrajectory reads a HorizontalDrill value without regard to case or
// spacing ("Horizontal", "natural  drift"); false when the word is not one
// of the known trajectories (or is empty).
func ParseTrajectory(s string) (Trajectory, bool) {
	k := Trajectory(strings.ToUpper(strings.Join(strings.Fields(s), " ")))
	for _, t := range trajectories {
		if k == t {
			return t, true
		}
	}
	return "", false
}

var wellInfraColumns = []column{
	{"WellID", true}, {"WellProvinceState", false}, {"WellType", false}, {"WellIdentifier", true},
	{"PreviousWellID", false}, {"WellLocationException", false}, {"WellLegalSubdivision", false},
	{"WellSection", false}, {"WellTownship", false}, {"WellRange", false}, {"WellMeridian", false},
	{"WellEventSequence", false}, {"WellName", false}, {"ConfidentialType", false},
	{"ExperimentalConfidentialIndicator", false}, {"ExperimentalConfidentialEffectiveDate", false},
	{"ExperimentalConfidentialTerminationDate", false}, {"LicenceType", false}, {"LicenceNumber", true},
	{"LicenceIssueDate", false}, {"LicenceStatusDate", false}, {"LicenceStatus", true}, {"Field", false},
	{"FieldName", false}, {"Area", false}, {"AreaName", false}, {"PoolDeposit", false},
	{"PoolDepositName", false}, {"PoolDepositDensity", false}, {"WellStatusFluid", false},
	{"WellStatusMode", false}, {"WellStatusType", false}, {"WellStatusStructure", false},
	{"WellStatusFluidCode", false}, {"WellStatusModeCode", false}, {"WellStatusTypeCode", false},
	{"WellStatusStructureCode", false}, {"WellStatusDate", false}, {"SpudDate", false},
	{"HorizontalDrill", false}, {"FinishedDrillDate", false}, {"FinalTotalDepth", false},
	{"MaxTrueVerticalDepth", false}, {"VolumetricGasWellLiquidType", false},
	{"VolumetricGasWellLiquidEffectiveDate", false}, {"LicenceeID", true}, {"LicenceeName", false},
	{"AllowableType", false}, {"BlockNumber", false}, {"RecoveryMechanismType", false},
	{"OrphanWellFlg", false},
	{"LinkedFacilityID", false}, {"LinkedFacilitySubType", false}, {"LinkedFacilitySubTypeDesc", false},
	{"LinkedStartDate", false}, {"LinkedFacilityOperatorBAID", false}, {"LinkedFacilityOperatorLegalName", false},
}

// PetrinexWellColumns returns the 57 column names ReadPetrinexWells knows:
// the 51 documented flat columns and the 6 of the linked facility.
func PetrinexWellColumns() []string { return columnNames(wellInfraColumns) }

const (
	wWellID = iota
	wProvince
	wType
	wIdentifier
	wPrevious
	wLE
	wLSD
	wSection
	wTownship
	wRange
	wMeridian
	wEvent
	wName
	wConfType
	wExpConf
	wExpConfEff
	wExpConfTerm
	wLicenceType
	wLicenceNumber
	wLicenceIssue
	wLicenceStatusDate
	wLicenceStatus
	wField
	wFieldName
	wArea
	wAreaName
	wPool
	wPoolName
	wPoolDensity
	wFluid
	wMode
	wTypeName
	wStructure
	wFluidCode
	wModeCode
	wTypeCode
	wStructureCode
	wStatusDate
	wSpud
	wHorizontal
	wFinDrill
	wTotalDepth
	wMaxTVD
	wGasLiquidType
	wGasLiquidDate
	wLicenseeBA
	wLicenseeName
	wAllowable
	wBlock
	wRecovery
	wOrphan
	wLinkedID
	wLinkedSubType
	wLinkedSubTypeDesc
	wLinkedStart
	wLinkedOperatorBA
	wLinkedOperatorName
)

// ReadPetrinexWells streams a Petrinex Well Infrastructure CSV (AB, SK or
// MB) to fn. Columns are found by header name; WellID, WellIdentifier,
// LicenceNumber, LicenceStatus and LicenceeID are required, the other
// documented columns read as empty when absent, unknown ones are ignored.
//
// Fatal (the file is rejected): a malformed DLS UWI or one that disagrees
// with the split location columns (the location exception leads and the
// event trails); a date, number or two-digit status code that does not
// parse; ExperimentalConfidentialIndicator or OrphanWellFlg other than a
// yes/no spelling (Y/N, Yes/No, True/False, T/F, 1/0, empty, any case; no
// real value has been seen, a loader's schema gives OrphanWellFlg one
// character, so Y/N is the likely form).
//
// Notices (the row is kept, the value as published): a HorizontalDrill
// word that is not a known trajectory; a WellStatusFluid, -Mode, -Type or
// -Structure word that neither AER's code tables nor Petrinex's spellings
// know (that part of Status is then left as the code columns give it).
// When the code columns are empty, Status is built from the words.
//
// The layout is PetrinexWellLayout (partly verified): check it against
// the first real download.
func ReadPetrinexWells(r io.Reader, file string, opt ReadOptions, fn func(PetrinexWell) error) error {
	t, err := newCSVTable(r, file, wellInfraColumns, csvOptions{})
	if err != nil {
		return err
	}
	opt.recognised(PetrinexWellLayout)
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return err
		}
		w := PetrinexWell{
			WellID:                                  t.text(wWellID, true),
			Province:                                t.str(wProvince),
			WellType:                                t.str(wType),
			Identifier:                              t.str(wIdentifier),
			PreviousID:                              t.str(wPrevious),
			Name:                                    t.str(wName),
			ConfidentialType:                        t.str(wConfType),
			ExperimentalConfidential:                t.flag(wExpConf),
			ExperimentalConfidentialEffectiveDate:   t.date(wExpConfEff),
			ExperimentalConfidentialTerminationDate: t.date(wExpConfTerm),
			LicenceType:                             t.str(wLicenceType),
			LicenceNumber:                           t.str(wLicenceNumber),
			LicenceIssueDate:                        t.date(wLicenceIssue),
			LicenceStatusDate:                       t.date(wLicenceStatusDate),
			LicenceStatus:                           t.str(wLicenceStatus),
			Field:                                   t.str(wField),
			FieldName:                               t.str(wFieldName),
			Area:                                    t.str(wArea),
			AreaName:                                t.str(wAreaName),
			PoolDeposit:                             t.str(wPool),
			PoolDepositName:                         t.str(wPoolName),
			PoolDepositDensity:                      t.str(wPoolDensity),
			FluidName:                               t.str(wFluid),
			ModeName:                                t.str(wMode),
			TypeName:                                t.str(wTypeName),
			StructureName:                           t.str(wStructure),
			StatusDate:                              t.date(wStatusDate),
			SpudDate:                                t.date(wSpud),
			Trajectory:                              t.trajectory(wHorizontal, opt.Notices),
			FinishedDrillDate:                       t.date(wFinDrill),
			TotalDepth:                              t.amount(wTotalDepth),
			MaxTVD:                                  t.amount(wMaxTVD),
			GasWellLiquidType:                       t.str(wGasLiquidType),
			GasWellLiquidEffectiveDate:              t.date(wGasLiquidDate),
			LicenseeBA:                              t.str(wLicenseeBA),
			LicenseeName:                            t.str(wLicenseeName),
			AllowableType:                           t.str(wAllowable),
			BlockNumber:                             t.str(wBlock),
			RecoveryMechanismType:                   t.str(wRecovery),
			Orphan:                                  t.flag(wOrphan),
			LinkedFacilityID:                        t.str(wLinkedID),
			LinkedFacilitySubType:                   t.str(wLinkedSubType),
			LinkedFacilitySubTypeDesc:               t.str(wLinkedSubTypeDesc),
			LinkedStartDate:                         t.date(wLinkedStart),
			LinkedFacilityOperatorBA:                t.str(wLinkedOperatorBA),
			LinkedFacilityOperatorName:              t.str(wLinkedOperatorName),
		}
		t.wellStatus(&w)
		t.wellStatusWords(&w, opt.Notices)
		t.wellLocation(&w)
		if t.err != nil {
			return t.err
		}
		if err := fn(w); err != nil {
			return err
		}
	}
}

// wellStatus assembles the four status codes into a WellStatus.
func (t *csvTable) wellStatus(w *PetrinexWell) {
	cols := [4]int{wFluidCode, wModeCode, wTypeCode, wStructureCode}
	var code strings.Builder
	empty := true
	for _, c := range cols {
		s := t.str(c)
		if s == "" {
			code.WriteString("00")
			continue
		}
		empty = false
		n, ok := ingest.ParseUint(s)
		if !ok || n > 99 {
			t.fail(c, fmt.Errorf("%q is not a two-digit status code", s))
			return
		}
		fmt.Fprintf(&code, "%02d", n)
	}
	if empty {
		return
	}
	code.WriteString("00")
	w.Status, _ = ParseWellStatus(code.String())
}

// trajectory reads requested column i as a Trajectory; an unknown word is
// a notice and kept as published.
func (t *csvTable) trajectory(i int, ns *ingest.Notices) Trajectory {
	s := t.str(i)
	if s == "" {
		return ""
	}
	if tr, ok := ParseTrajectory(s); ok {
		return tr
	}
	t.notice(ns, i, s, "not a known trajectory (VERTICAL, HORIZONTAL, DIRECTIONAL, SLANT, NATURAL DRIFT): kept as given")
	return Trajectory(s)
}

// wellStatusWords checks the four status words against the code tables
// and, when the code columns were empty, builds Status from them.
func (t *csvTable) wellStatusWords(w *PetrinexWell, ns *ingest.Notices) {
	words := [4]struct {
		col  int
		part StatusPart
		word string
	}{{wFluid, Fluid, w.FluidName}, {wMode, Mode, w.ModeName}, {wTypeName, Type, w.TypeName}, {wStructure, Structure, w.StructureName}}
	var vals [4]int
	named := false
	for k, x := range words {
		if x.word == "" {
			continue
		}
		c, ok := x.part.LookupWord(x.word)
		if !ok {
			t.notice(ns, x.col, x.word, "not in AER's "+x.part.String()+" code table nor a Petrinex spelling: kept as given, status part unknown")
			continue
		}
		vals[k], named = c.Value, true
	}
	if w.Status.Code != "" || !named {
		return
	}
	w.Status = WellStatus{Code: fmt.Sprintf("%02d%02d%02d%02d00", vals[0], vals[1], vals[2], vals[3]),
		Fluid: vals[0], Mode: vals[1], Type: vals[2], Structure: vals[3]}
}

// wellLocation fills LE, Location and Event from the UWI and checks the
// split columns against it.
func (t *csvTable) wellLocation(w *PetrinexWell) {
	split := t.splitLocation(wLSD, wSection, wTownship, wRange, wMeridian)
	le := t.str(wLE)
	ev := -1
	if s := t.str(wEvent); s != "" {
		n, ok := ingest.ParseUint(s)
		if !ok || n > 99 {
			t.fail(wEvent, fmt.Errorf("%q is not an event sequence", s))
			return
		}
		ev = n
	}
	if strings.HasPrefix(w.Identifier, "1") {
		u, err := parseUWI16(w.Identifier)
		if err != nil {
			t.fail(wIdentifier, err)
			return
		}
		w.LE, w.Event = u.LE, u.Event
		w.Location, _ = u.Location()
		switch {
		case split != (lld.Location{}) && split != w.Location:
			t.fail(wIdentifier, fmt.Errorf("UWI %s is at %s but the location columns say %s", w.Identifier, w.Location, split))
		case le != "" && le != u.LE && !(len(le) == 1 && "0"+le == u.LE):
			t.fail(wLE, fmt.Errorf("%q differs from the UWI's location exception %s (leading, not trailing)", le, u.LE))
		case ev >= 0 && ev != u.Event:
			t.fail(wEvent, fmt.Errorf("%d differs from the UWI's event sequence %d (trailing, not leading)", ev, u.Event))
		}
		return
	}
	w.Location, w.LE = split, le
	w.Event = max(ev, 0)
}
