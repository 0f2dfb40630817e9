package energyingest

import (
	"io"
	"strings"

	"meridian/shared/ingest"
)

// The two forms of NGL and Marketable Gas Volumes: they differ only in
// the names of the two facility columns.
var (
	NGLLayout = ingest.Layout{
		Dataset:   "Petrinex NGL and Marketable Gas Volumes",
		Publisher: "Petrinex",
		Form:      "CSV, 26 columns, facility as ReportingFacilityID, ReportingFacilityName",
		Verified:  true,
		Evidence:  "the real AB file (samples/petrinex/NGL_AB_marketable_gas_volumes_excerpt.csv, vragovvolo/Petrinex fixtures)",
	}
	NGLDocumentedLayout = ingest.Layout{
		Dataset:   "Petrinex NGL and Marketable Gas Volumes",
		Publisher: "Petrinex",
		Form:      "CSV, 26 columns, facility as FacilityID, FacilityName (the official PDF's names)",
		Verified:  false,
		Evidence: "Petrinex's report description names the facility columns FacilityID, FacilityName " +
			"(docs/real-layouts.md); no real file with these names has been seen: check that the other 24 columns match",
	}
)

// nglAliases are the official PDF's names of the facility columns.
var nglAliases = map[string][]string{"ReportingFacilityID": {"FacilityID"}, "ReportingFacilityName": {"FacilityName"}}

// NGLVolume is one row of Petrinex "NGL and Marketable Gas Volumes" (26
// columns; docs/data-sources.md §5.2): one well's production in one month
// at a gas plant or battery. Gas and residue gas are in e3m3, liquids in
// m³, energy in GJ, hours in h.
type NGLVolume struct {
	FacilityID   string // ReportingFacilityID
	FacilityName string
	OperatorBA   string // OperatorBAID
	OperatorName string
	Month        string // ProductionMonth, "YYYY-MM"
	WellID       string // "ABWI100012206216W500"
	// UWI is the 16-character UWI inside WellID ("" when WellID is not a
	// DLS well ID).
	UWI         string
	WellLicence string // WellLicenseNumber, 7 digits zero-padded: "0479860"
	Field       string // 4 digits
	Pool        string // 7 digits
	Area        string
	Hours       Amount
	Gas         Amount // GasProduction
	Oil         Amount // OilProduction
	Condensate  Amount // CondensateProduction
	Water       Amount // WaterProduction
	ResidueGas  Amount // ResidueGasVolume
	Energy      Amount
	EthaneMix   Amount
	EthaneSpec  Amount
	PropaneMix  Amount
	PropaneSpec Amount
	ButaneMix   Amount
	ButaneSpec  Amount
	PentaneMix  Amount
	PentaneSpec Amount
	LiteMix     Amount
}

var nglColumns = []column{
	{"ReportingFacilityID", true}, {"ReportingFacilityName", true}, {"OperatorBAID", true}, {"OperatorName", true},
	{"ProductionMonth", true}, {"WellID", true}, {"WellLicenseNumber", true}, {"Field", true}, {"Pool", true},
	{"Area", true}, {"Hours", true}, {"GasProduction", true}, {"OilProduction", true}, {"CondensateProduction", true},
	{"WaterProduction", true}, {"ResidueGasVolume", true}, {"Energy", true}, {"EthaneMixVolume", true},
	{"EthaneSpecVolume", true}, {"PropaneMixVolume", true}, {"PropaneSpecVolume", true}, {"ButaneMixVolume", true},
	{"ButaneSpecVolume", true}, {"PentaneMixVolume", true}, {"PentaneSpecVolume", true}, {"LiteMixVolume", true},
}

// NGLColumns returns the 26 column names of NGL and Marketable Gas Volumes
// in the published order.
func NGLColumns() []string { return columnNames(nglColumns) }

const (
	nFacilityID = iota
	nFacilityName
	nOperatorBA
	nOperatorName
	nMonth
	nWellID
	nLicence
	nField
	nPool
	nArea
	nHours
	nGas
	nOil
	nCond
	nWater
	nResidue
	nEnergy
	nEthaneMix
	nEthaneSpec
	nPropaneMix
	nPropaneSpec
	nButaneMix
	nButaneSpec
	nPentaneMix
	nPentaneSpec
	nLiteMix
)

// ReadNGLVolumes streams a Petrinex NGL and Marketable Gas Volumes CSV to
// fn: header row with the 26 columns (any order, extra columns ignored;
// the facility columns named ReportingFacilityID, ReportingFacilityName as
// in the real file, NGLLayout, or FacilityID, FacilityName as in the
// official PDF, NGLDocumentedLayout; opt.Layout is told which),
// "***" confidential amounts as in ReadVolumetrics. A row is rejected when
// its month is not YYYY-MM, its facility is empty, a number does not parse
// or a DLS well ID (xxWI1...) is malformed.
func ReadNGLVolumes(r io.Reader, file string, opt ReadOptions, fn func(NGLVolume) error) error {
	t, err := newCSVTable(r, file, nglColumns, csvOptions{aliases: nglAliases})
	if err != nil {
		return err
	}
	if t.names[nFacilityID] == "ReportingFacilityID" {
		opt.recognised(NGLLayout)
	} else {
		opt.recognised(NGLDocumentedLayout)
	}
	for {
		ok, err := t.next()
		if err != nil || !ok {
			return err
		}
		v := NGLVolume{
			FacilityID:   t.text(nFacilityID, true),
			FacilityName: t.str(nFacilityName),
			OperatorBA:   t.str(nOperatorBA),
			OperatorName: t.str(nOperatorName),
			Month:        t.month(nMonth, true),
			WellID:       t.str(nWellID),
			WellLicence:  t.str(nLicence),
			Field:        t.str(nField),
			Pool:         t.str(nPool),
			Area:         t.str(nArea),
			Hours:        t.amount(nHours),
			Gas:          t.amount(nGas),
			Oil:          t.amount(nOil),
			Condensate:   t.amount(nCond),
			Water:        t.amount(nWater),
			ResidueGas:   t.amount(nResidue),
			Energy:       t.amount(nEnergy),
			EthaneMix:    t.amount(nEthaneMix),
			EthaneSpec:   t.amount(nEthaneSpec),
			PropaneMix:   t.amount(nPropaneMix),
			PropaneSpec:  t.amount(nPropaneSpec),
			ButaneMix:    t.amount(nButaneMix),
			ButaneSpec:   t.amount(nButaneSpec),
			PentaneMix:   t.amount(nPentaneMix),
			PentaneSpec:  t.amount(nPentaneSpec),
			LiteMix:      t.amount(nLiteMix),
		}
		if len(v.WellID) == 20 && v.WellID[2:4] == "WI" && v.WellID[4] == '1' {
			u, err := parseUWI16(v.WellID)
			if err != nil {
				t.fail(nWellID, err)
			}
			v.UWI = u.UWI16()
		} else if strings.HasPrefix(v.WellID, "1") && len(v.WellID) == 16 {
			if _, err := parseUWI16(v.WellID); err != nil {
				t.fail(nWellID, err)
			}
			v.UWI = v.WellID
		}
		if t.err != nil {
			return t.err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
}
