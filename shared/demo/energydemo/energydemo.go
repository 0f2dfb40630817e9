// Package energydemo generates the energy demo data: invented wells,
// facilities, volumes, pipelines, Crown dispositions, BA codes and the
// Orphan Well Association inventory, written in the regulators' published
// layouts (ST37, Petrinex, AER pipelines, OWA) so that the local server
// ingests them with energyingest exactly as it ingests the real files
// (Generate, Write), plus the same at Alberta's published sizes for scale
// tests (WriteScale). It is separate from energyingest so that production
// ingest never links a generator; it imports energyingest for the column
// lists, identifiers and codes of the formats it writes. The data
// describes demo.AsOf.
package energydemo

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"meridian/shared/demo"
)

// File is one generated demo file.
type File struct {
	Name string // base name: "WellList_2026-11.txt"
	Data []byte
}

// Write writes the files of Generate into dir (created if
// needed).
func Write(dir string) error {
	files, err := Generate()
	if err != nil {
		return err
	}
	return writeFiles(dir, files)
}

func writeFiles(dir string, files []File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("energydemo: %w", err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return fmt.Errorf("energydemo: %w", err)
		}
	}
	return nil
}

// Generate builds the demo files: synthetic data, deterministic (the
// same bytes on every call and every platform: its random numbers come
// from a fixed-seed generator of this package), in the published formats
// of the readers of this package, for the demo townships
//
//	AB 24-1-W5 25-1-W5 50-26-W4 48-7-W5 56-18-W5 60-22-W5 10-15-W4 62-20-W5
//	SK 10-14-W2 38-5-W3 50-20-W3 6-25-W2
//	MB 5-6-W1 10-9-W1 14-26-W1
//
// Files, sorted by name:
//
//	Crown_Dispositions_{AB,SK,MB}.{csv,geojson}    PNG and mineral dispositions (DispositionColumns)
//	Facility Infrastructure-{AB,SK,MB}.csv          Petrinex, 39 columns
//	NGL_AB_marketable_gas_volumes.csv               Petrinex, 26 columns, AB gas wells
//	Pipelines_GCS_NAD83.{shp,shx,dbf,prj,cpg}       AER pipelines, 50 text attributes
//	Pipelines_GCS_NAD83.geojson                     the same segments as GeoJSON
//	README.md                                       what the files are
//	Reporting - Full Inventory - 2026-11-01 13.41.42.xlsx   OWA inventory
//	ST104A_BusinessAssociate_Codes_2026-11.csv      BA codes (the sample's two columns)
//	Vol_YYYY-MM-{AB,SK,MB}.csv                      Petrinex volumetrics, 2025-09 to 2026-10
//	Well Infrastructure-{AB,SK,MB}.csv              Petrinex, 57 columns
//	WellList_2026-10.txt, WellList_2026-11.txt      ST37, 24 columns, Latin-1
//
// The data covers every well status bucket (orphans through the OWA file
// and OrphanWellFlg), horizontal wells and location exception / event
// variants, sour pipelines, facilities of several subtypes, producing and
// shut-in wells over 14 months with confidential ("***") and amended
// (negative) rows, dispositions expiring within 24 months of demo.AsOf and
// continued ones, several operators per township, and licence transfers
// (licensee changes between the two ST37 snapshots). Every operator,
// licensee, holder and orphan licensee is an invented company marked
// "(demo)" under an invented BA code (Z9..) that is not in the AER
// register: no invented record points at a real company. Everything else
// (wells, volumes, lines, dispositions) is invented too; the three UWIs that docs/data-sources.md §0.1 uses as
// examples sit at their real locations with invented attributes.
func Generate() ([]File, error) {
	return newDemoWorld().files()
}

// files renders the world in the published formats (Generate).
func (w *demoWorld) files() ([]File, error) {
	var files []File
	add := func(name string, data []byte) { files = append(files, File{Name: name, Data: data}) }

	add("WellList_2026-10.txt", w.st37(false))
	add("WellList_2026-11.txt", w.st37(true))
	add("ST104A_BusinessAssociate_Codes_2026-11.csv", w.baCodes())
	for _, prov := range demoProvinces {
		add("Well Infrastructure-"+prov+".csv", w.wellInfrastructure(prov))
		add("Facility Infrastructure-"+prov+".csv", w.facilityInfrastructure(prov))
		for m := range demoMonths {
			add("Vol_"+demoMonth(m)+"-"+prov+".csv", w.volumetrics(prov, m))
		}
		csv, geo, err := w.dispositionFiles(prov)
		if err != nil {
			return nil, fmt.Errorf("energydemo: dispositions of %s: %w", prov, err)
		}
		add("Crown_Dispositions_"+prov+".csv", csv)
		add("Crown_Dispositions_"+prov+".geojson", geo)
	}
	add("NGL_AB_marketable_gas_volumes.csv", w.ngl())
	pipelines, err := w.pipelinesGeoJSON()
	if err != nil {
		return nil, fmt.Errorf("energydemo: pipelines: %w", err)
	}
	add("Pipelines_GCS_NAD83.geojson", pipelines)
	shpFiles, err := w.pipelinesShapefile()
	if err != nil {
		return nil, fmt.Errorf("energydemo: %w", err)
	}
	files = append(files, shpFiles...)
	xlsx, err := w.orphanInventory()
	if err != nil {
		return nil, fmt.Errorf("energydemo: %w", err)
	}
	add(demoOWAFile, xlsx)
	add("README.md", demoReadme(files))
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

const demoOWAFile = "Reporting - Full Inventory - 2026-11-01 13.41.42.xlsx"

var demoProvinces = []string{"AB", "SK", "MB"}

// demoMonths is the number of production months: 2025-09 to 2026-10, so
// that a trailing-12-month window ending at the latest month has history
// before it.
const demoMonths = 14

func demoMonth(i int) string {
	return time.Date(2025, time.September+time.Month(i), 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
}

// newDemoRand is the demo stream derived from seed's numbers in turn.
func newDemoRand(seed ...int) *demo.Rand {
	r := demo.NewRand(0x6d657269646961) // "meridia"
	for _, v := range seed {
		r.Fold(uint64(v + 1))
	}
	return r
}

// round1 rounds to one decimal, as Petrinex publishes volumes.
func round1(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 1, 64), 64)
	return f
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// demoOperator is an invented business associate: a name that is no real
// company's, marked "(demo)", under a BA code (Z9..) that the AER register
// does not use (TestDemoOperatorsAreInvented checks both against the real
// ST104A sample).
type demoOperator struct {
	BA    string
	Name  string // as the BA register writes it
	Short string // as well names abbreviate it
}

// Upper is the name as Petrinex writes it.
func (o demoOperator) Upper() string { return strings.ToUpper(o.Name) }

var demoOperators = map[string]demoOperator{
	"Z9A1": {"Z9A1", "Aspen Coulee Petroleum Ltd. (demo)", "ASPEN COULEE"},
	"Z9A2": {"Z9A2", "Badger Flats Energy Inc. (demo)", "BADGER FLATS"},
	"Z9A3": {"Z9A3", "Cattail Ridge Resources Limited (demo)", "CATTAIL"},
	"Z9A4": {"Z9A4", "Larkspur Meadow Oil Corp. (demo)", "LARKSPUR"},
	"Z9A5": {"Z9A5", "Foxtail Prairie Resources Inc. (demo)", "FOXTAIL"},
	"Z9A6": {"Z9A6", "Gullwing Resources Ltd. (demo)", "GULLWING"},
	"Z9A7": {"Z9A7", "Hoarfrost Resources Ltd. (demo)", "HOARFROST"},
	"Z9A8": {"Z9A8", "Ironwood Slough Energy Ltd. (demo)", "IRONWOOD"},
	"Z9A9": {"Z9A9", "Juniper Bend Energy Corp. (demo)", "JUNIPER"},
	"Z9B1": {"Z9B1", "Kestrel Lake Oil Operations Limited (demo)", "KESTREL"},
	"Z9B2": {"Z9B2", "Mossback Disposal Services Inc. (demo)", "MOSSBACK"},
	"Z9B3": {"Z9B3", "Northwind Gas And Pipelines Ltd. (demo)", "NORTHWIND"},
	"Z9B4": {"Z9B4", "Quillwort Midstream ULC (demo)", "QUILLWORT"},
	// Defunct licensees of the orphan wells.
	"Z9X1": {"Z9X1", "Prairie Sunset Petroleum Ltd. (demo)", "PRAIRIE SUNSET"},
	"Z9X2": {"Z9X2", "Northern Lapse Resources Inc. (demo)", "NORTHERN LAPSE"},
}

func op(ba string) demoOperator {
	if o, ok := demoOperators[ba]; ok {
		return o
	}
	if o, ok := scaleOperator(ba); ok {
		return o
	}
	panic("energydemo: unknown operator " + ba)
}

// demoTownship is one demo township with what the demo puts in it.
type demoTownship struct {
	Prov               string
	Twp, Rge, Mer      int
	Ops                [3]string // BA codes: primary, secondary, third
	Field              string    // field name (ST103) for well names
	FieldAbbrev        string
	FieldCode          string // 4 digits
	FieldCentre        string // AER field centre (pipelines)
	Deep               bool   // deep basin wells (W5) vs shallow (W4, SK, MB)
	Sour               bool   // sour gas area
	index              int    // within its province
	defunct            string // BA of the orphan licensee
	previousLicenseeOf int    // role whose licensee changed this month (-1: none)
	newLicence         bool   // role 5 licensed this month (absent from the previous ST37)
	suspendedThisMonth bool   // role 4 went from Issued to Suspension this month
}

// demoTownships are the demo townships; newDemoWorld works on copies.
var demoTownships = []demoTownship{
	{Prov: "AB", Twp: 24, Rge: 1, Mer: 5, Ops: [3]string{"Z9A1", "Z9A2", "Z9A7"}, Field: "TURNER VALLEY", FieldAbbrev: "TV", FieldCode: "0909", FieldCentre: "Midnapore", Deep: true, Sour: true},
	{Prov: "AB", Twp: 25, Rge: 1, Mer: 5, Ops: [3]string{"Z9A2", "Z9A1", "Z9A6"}, Field: "TURNER VALLEY", FieldAbbrev: "TV", FieldCode: "0909", FieldCentre: "Midnapore", Deep: true},
	{Prov: "AB", Twp: 50, Rge: 26, Mer: 4, Ops: [3]string{"Z9A3", "Z9A5", "Z9A8"}, Field: "LEDUC-WOODBEND", FieldAbbrev: "LEDUC-WB", FieldCode: "0551", FieldCentre: "St. Albert"},
	{Prov: "AB", Twp: 48, Rge: 7, Mer: 5, Ops: [3]string{"Z9A5", "Z9A3", "Z9A4"}, Field: "PEMBINA", FieldAbbrev: "PEMBINA", FieldCode: "0685", FieldCentre: "Drayton Valley", Deep: true},
	{Prov: "AB", Twp: 56, Rge: 18, Mer: 5, Ops: [3]string{"Z9A1", "Z9A4", "Z9A7"}, Field: "PINE CREEK", FieldAbbrev: "PINE CK", FieldCode: "0706", FieldCentre: "Drayton Valley", Deep: true, Sour: true},
	{Prov: "AB", Twp: 60, Rge: 22, Mer: 5, Ops: [3]string{"Z9A4", "Z9A1", "Z9A6"}, Field: "KAYBOB SOUTH", FieldAbbrev: "KAYBOBS", FieldCode: "0514", FieldCentre: "Grande Prairie", Deep: true, Sour: true},
	{Prov: "AB", Twp: 10, Rge: 15, Mer: 4, Ops: [3]string{"Z9A8", "Z9A3", "Z9A2"}, Field: "TABER", FieldAbbrev: "TABER", FieldCode: "0893", FieldCentre: "Medicine Hat"},
	{Prov: "AB", Twp: 62, Rge: 20, Mer: 5, Ops: [3]string{"Z9A1", "Z9A7", "Z9A4"}, Field: "TWO CREEK", FieldAbbrev: "TWOCK", FieldCode: "0915", FieldCentre: "Grande Prairie", Deep: true, Sour: true},
	{Prov: "SK", Twp: 10, Rge: 14, Mer: 2, Ops: [3]string{"Z9A9", "Z9A5", "Z9A8"}, Field: "WEYBURN DEMO", FieldAbbrev: "WEYB", FieldCode: "0301"},
	{Prov: "SK", Twp: 38, Rge: 5, Mer: 3, Ops: [3]string{"Z9A3", "Z9A2", "Z9A9"}, Field: "KINDERSLEY DEMO", FieldAbbrev: "KIND", FieldCode: "0302"},
	{Prov: "SK", Twp: 50, Rge: 20, Mer: 3, Ops: [3]string{"Z9B1", "Z9A2", "Z9A3"}, Field: "LLOYD DEMO", FieldAbbrev: "LLOYD", FieldCode: "0303"},
	{Prov: "SK", Twp: 6, Rge: 25, Mer: 2, Ops: [3]string{"Z9A9", "Z9A8", "Z9A5"}, Field: "ESTEVAN DEMO", FieldAbbrev: "EST", FieldCode: "0304"},
	{Prov: "MB", Twp: 5, Rge: 6, Mer: 1, Ops: [3]string{"Z9A9", "Z9A5", "Z9A9"}, Field: "PEMBINA VALLEY DEMO", FieldAbbrev: "PEMV", FieldCode: "0401"},
	{Prov: "MB", Twp: 10, Rge: 9, Mer: 1, Ops: [3]string{"Z9A5", "Z9A9", "Z9A5"}, Field: "ELM CREEK DEMO", FieldAbbrev: "ELMC", FieldCode: "0402"},
	{Prov: "MB", Twp: 14, Rge: 26, Mer: 1, Ops: [3]string{"Z9A9", "Z9A5", "Z9A9"}, Field: "VIRDEN DEMO", FieldAbbrev: "VIRD", FieldCode: "0403"},
}

func (t *demoTownship) String() string { return fmt.Sprintf("%d-%d-W%d", t.Twp, t.Rge, t.Mer) }

// demoWorld holds every demo entity; the writers render it in each format.
type demoWorld struct {
	townships    []*demoTownship // copies of demoTownships
	wells        []*demoWell
	facilities   []*demoFacility
	pipelines    []*demoPipeline
	dispositions []*demoDisposition
	orphans      []demoOrphanRow
}

func newDemoWorld() *demoWorld {
	w := &demoWorld{}
	counts := map[string]int{}
	for _, t0 := range demoTownships {
		t := new(demoTownship)
		*t = t0
		w.townships = append(w.townships, t)
		t.index = counts[t.Prov]
		counts[t.Prov]++
		t.previousLicenseeOf = -1
		if t.Prov == "AB" {
			t.defunct = []string{"Z9X1", "Z9X2"}[t.index%2]
			if t.index%3 == 0 {
				t.previousLicenseeOf = 1 // transfers pending in 24-1-W5, 48-7-W5, 10-15-W4
			}
			t.newLicence = t.index == 2 || t.index == 5
			t.suspendedThisMonth = t.index == 1
		}
	}
	for _, t := range w.townships {
		w.addFacilities(t)
		w.addWells(t)
	}
	w.linkWells()
	w.addPipelines()
	w.addDispositions()
	w.addOrphans()
	return w
}

func demoDate(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func demoReadme(files []File) []byte {
	var b strings.Builder
	b.WriteString("# Meridian energy demo data (synthetic)\n\n")
	b.WriteString("Generated by meridian/shared/demo/energydemo.Generate, deterministic. Formats are the published ones\n")
	b.WriteString("(docs/data-sources.md); the content is invented. Operators, licensees, holders and orphan licensees are invented\n")
	b.WriteString("companies marked (demo) under BA codes (Z9..) that the AER does not use. Nothing here describes a real well, line, facility or disposition: the three\n")
	b.WriteString("UWIs that docs/data-sources.md §0.1 uses as examples are placed at their real locations with invented attributes.\n")
	fmt.Fprintf(&b, "As of %s. Files:\n\n", demo.AsOf().Format("2006-01-02"))
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, fmt.Sprintf("- `%s` (%d bytes)", f.Name, len(f.Data)))
	}
	sort.Strings(names)
	b.WriteString(strings.Join(names, "\n"))
	b.WriteString("\n")
	return []byte(b.String())
}
