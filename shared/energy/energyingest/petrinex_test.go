package energyingest_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/lld"
)

// quoteAll writes a CSV row with every field quoted, as Petrinex does.
func quoteAll(fields ...string) string {
	q := make([]string, len(fields))
	for i, f := range fields {
		q[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
	}
	return strings.Join(q, ",") + "\r\n"
}

var volHeader = quoteAll(energyingest.VolumetricColumns()...)

// The real row of docs/data-sources.md §5.1 (Pine Creek, Chevron).
var volRow = []string{"2023-10", "0045", "CHEVRON CANADA LIMITED", "ABBT0127945", "AB", "BT", "0127945",
	"Pine Creek 4-22-56-18W5/02", "351", "GAS SINGLE WELL BATTERY", "22-056-18W5", "4", "22", "56", "18", "5",
	"2023-11-20", "PROD", "GAS", "ABWI100042205618W502", "AB", "WI", "100042205618W502", "210.8", "0", "569",
	" ", "", "", ""}

func withField(row []string, i int, v string) []string {
	r := slices.Clone(row)
	r[i] = v
	return r
}

func TestReadVolumetricsRow(t *testing.T) {
	t.Parallel()
	conf := withField(withField(withField(volRow, 19, "***"), 22, "***"), 23, "***")
	neg := withField(volRow, 23, "-12.5")
	in := volHeader + quoteAll(volRow...) + quoteAll(conf...) + quoteAll(neg...)
	var got []energyingest.Volumetric
	if err := energyingest.ReadVolumetrics(strings.NewReader(in), "Vol_2023-10-AB.csv", func(v energyingest.Volumetric) error {
		got = append(got, v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := energyingest.Volumetric{
		Month: "2023-10", OperatorBA: "0045", OperatorName: "CHEVRON CANADA LIMITED",
		Facility: energyingest.FacilityRef{ID: "ABBT0127945", Province: "AB", Type: "BT", Identifier: "0127945",
			Name: "Pine Creek 4-22-56-18W5/02", SubType: "351", SubTypeDesc: "GAS SINGLE WELL BATTERY",
			LocationText: "22-056-18W5", Location: mustLLD(t, "4-22-56-18-W5")},
		SubmissionDate: day(2023, 11, 20), Activity: "PROD", Product: "GAS",
		FromToID: "ABWI100042205618W502", FromToProvince: "AB", FromToType: "WI", FromToIdentifier: "100042205618W502",
		Volume: energyingest.Amount{Value: 210.8}, Energy: energyingest.Amount{}, Hours: energyingest.Amount{Value: 569},
		ProrationFactor: energyingest.Amount{Empty: true}, Heat: energyingest.Amount{Empty: true},
	}
	if len(got) != 3 {
		t.Fatalf("%d rows, want 3", len(got))
	}
	if d := cmp.Diff(want, got[0]); d != "" {
		t.Errorf("row (-want +got):\n%s", d)
	}
	if u, ok := got[0].WellUWI(); !ok || u != "100042205618W502" {
		t.Errorf("WellUWI = %q, %v", u, ok)
	}
	c := got[1]
	if !c.FromToConfidential || c.FromToID != "" || c.FromToIdentifier != "" || !c.Volume.Confidential || c.Volume.Known() || c.Volume.String() != "***" {
		t.Errorf("confidential row = %+v", c)
	}
	if _, ok := c.WellUWI(); ok {
		t.Error("a confidential row has no well")
	}
	if got[2].Volume.Value != -12.5 {
		t.Errorf("amendment volume %v, want -12.5", got[2].Volume)
	}
}

// TestReadVolumetricsSample reads the real excerpt: 720 rows of three
// Chevron batteries, 2024-02 to 2024-11 (the README says to 2025-01; the
// file stops at 2024-11).
func TestReadVolumetricsSample(t *testing.T) {
	t.Parallel()
	f := openSample(t, volumetricSample)
	n, conf := 0, 0
	months := map[string]int{}
	facilities := map[string]lld.Location{}
	prod := map[[2]string]float64{}
	activities := map[string]int{}
	err := energyingest.ReadVolumetrics(f, "Vol_AB_excerpt.csv", func(v energyingest.Volumetric) error {
		n++
		months[v.Month]++
		activities[v.Activity]++
		facilities[v.Facility.ID] = v.Facility.Location
		if v.FromToConfidential {
			conf++
		}
		if u, ok := v.WellUWI(); ok && v.Activity == "PROD" {
			prod[[2]string{u, v.Product}] += v.Volume.Value
		}
		if v.Energy != (energyingest.Amount{}) || !v.Heat.Empty {
			t.Errorf("energy %v heat %v", v.Energy, v.Heat)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 720 || conf != 45 || len(months) != 10 || months["2024-02"] != 67 || months["2024-11"] != 66 {
		t.Errorf("%d rows, %d confidential, months %v; want 720, 45, 10 months", n, conf, months)
	}
	if activities["PROD"] != 358 || activities[""] != 53 || activities["SHUTIN"] != 1 || len(activities) != 12 {
		t.Errorf("activities %v", activities)
	}
	// Locations rebuilt from the split columns, where the published text
	// is truncated ("01-062-19W5", "10-063-16W5").
	wantFac := map[string]lld.Location{
		"ABBT0156564": mustLLD(t, "15-1-62-19-W5"),
		"ABBT0147937": mustLLD(t, "11-28-62-16-W5"),
		"ABBT0143349": mustLLD(t, "11-10-63-16-W5"),
	}
	if d := cmp.Diff(wantFac, facilities); d != "" {
		t.Errorf("facility locations (-want +got):\n%s", d)
	}
	wells := map[string]bool{}
	for k := range prod {
		wells[k[0]] = true
	}
	if len(wells) != 16 {
		t.Errorf("%d producing wells, want 16", len(wells))
	}
	for k, want := range map[[2]string]float64{
		{"100011506219W500", "GAS"}: 6082.0, {"100012206216W500", "OIL"}: 6335.4,
		{"102163106118W500", "WATER"}: 849.5, {"100030306316W500", "GAS"}: 483.8,
	} {
		if got := prod[k]; math.Abs(got-want) > 1e-6 {
			t.Errorf("PROD %v = %v, want %v", k, got, want)
		}
	}
}

func TestReadVolumetricsRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"missing column", quoteAll(energyingest.VolumetricColumns()[:29]...) + quoteAll(volRow[:29]...), 1, []string{"no Heat column"}},
		{"29 fields", volHeader + quoteAll(volRow...) + quoteAll(volRow[:29]...), 3, []string{"29 fields", "want 30"}},
		{"bad month", volHeader + quoteAll(withField(volRow, 0, "2023-13")...), 2, []string{"ProductionMonth", "not a month"}},
		{"bad date", volHeader + quoteAll(withField(volRow, 16, "2023-11-31")...), 2, []string{"SubmissionDate", "not a valid date"}},
		{"bad volume", volHeader + quoteAll(withField(volRow, 23, "21O.8")...), 2, []string{"Volume", "not a number"}},
		{"bad location", volHeader + quoteAll(withField(volRow, 12, "37")...), 2, []string{"section 37"}},
		{"bad UWI", volHeader + quoteAll(withField(volRow, 22, "100042205618W5")...), 2, []string{"FromToIDIdentifier", "16-character"}},
		{"no facility", volHeader + quoteAll(withField(volRow, 3, "")...), 2, []string{"ReportingFacilityID", "empty"}},
		{"unterminated quote", volHeader + "\"2023-10\",\"0045\n", 2, []string{"2 fields"}},
		{"empty", "", 1, []string{"empty file"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadVolumetrics(strings.NewReader(tc.in), "Vol.csv", func(energyingest.Volumetric) error { return nil })
			wantIngestError(t, err, "Vol.csv", tc.line, tc.want...)
		})
	}
}

func FuzzReadVolumetrics(f *testing.F) {
	f.Add(volHeader + quoteAll(volRow...))
	f.Add(volHeader + quoteAll(withField(volRow, 19, "***")...))
	if b := sampleSeed(volumetricSample); b != nil {
		f.Add(firstLines(b, 12))
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := energyingest.ReadVolumetrics(strings.NewReader(in), "Vol.csv", func(v energyingest.Volumetric) error {
			if err := checkMonth(v.Month); err != nil {
				t.Fatal(err)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}

func checkMonth(m string) error {
	if len(m) != 7 || m[4] != '-' {
		return fmt.Errorf("month %q", m)
	}
	return nil
}

var nglHeader = strings.Join(energyingest.NGLColumns(), ",") + "\n"

const nglRow = "ABBT0137130,Two Creeks 3-5-62-16w5,0045,CHEVRON CANADA LIMITED,2018-05,ABWI100012206216W500,0479860,0235,0728005,,629,308.2,2200.6,0,0,146.2,6409,0.8,0.0,9.7,0.0,7,0.0,4.9,0.0,0\n"

func TestReadNGLVolumesSample(t *testing.T) {
	t.Parallel()
	f := openSample(t, nglSample)
	var first, last energyingest.NGLVolume
	n := 0
	wells := map[string]string{}
	gas := 0.0
	var layouts []ingest.Layout
	err := energyingest.ReadNGLVolumes(f, "NGL_excerpt.csv", energyingest.ReadOptions{Layout: func(l ingest.Layout) { layouts = append(layouts, l) }}, func(v energyingest.NGLVolume) error {
		if n == 0 {
			first = v
		}
		last = v
		n++
		wells[v.UWI] = v.WellLicence
		gas += v.Gas.Value
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(layouts) != 1 || layouts[0] != energyingest.NGLLayout {
		t.Errorf("layouts %v, want NGLLayout", layouts)
	}
	if n != 778 || len(wells) != 16 || math.Abs(gas-578354.5) > 1e-6 {
		t.Errorf("%d rows, %d wells, %.1f e3m3 gas; want 778, 16, 578354.5", n, len(wells), gas)
	}
	want := energyingest.NGLVolume{
		FacilityID: "ABBT0137130", FacilityName: "Two Creeks 3-5-62-16w5", OperatorBA: "0045",
		OperatorName: "CHEVRON CANADA LIMITED", Month: "2018-05", WellID: "ABWI100012206216W500",
		UWI: "100012206216W500", WellLicence: "0479860", Field: "0235", Pool: "0728005",
		Hours: energyingest.Amount{Value: 629}, Gas: energyingest.Amount{Value: 308.2}, Oil: energyingest.Amount{Value: 2200.6},
		ResidueGas: energyingest.Amount{Value: 146.2}, Energy: energyingest.Amount{Value: 6409},
		EthaneMix: energyingest.Amount{Value: 0.8}, PropaneMix: energyingest.Amount{Value: 9.7},
		ButaneMix: energyingest.Amount{Value: 7}, PentaneMix: energyingest.Amount{Value: 4.9},
	}
	if d := cmp.Diff(want, first); d != "" {
		t.Errorf("first row (-want +got):\n%s", d)
	}
	if last.Month != "2020-10" || last.UWI != "102041406219W500" || last.PentaneSpec.Value != 1325.9 {
		t.Errorf("last row %+v", last)
	}
}

// The official PDF names the facility columns FacilityID, FacilityName:
// the same rows read the same, and the reader says which form it saw.
func TestReadNGLVolumesDocumentedNames(t *testing.T) {
	t.Parallel()
	read := func(header string) ([]energyingest.NGLVolume, []ingest.Layout) {
		var got []energyingest.NGLVolume
		var layouts []ingest.Layout
		err := energyingest.ReadNGLVolumes(strings.NewReader(header+nglRow), "NGL.csv", energyingest.ReadOptions{Layout: func(l ingest.Layout) { layouts = append(layouts, l) }}, func(v energyingest.NGLVolume) error {
			got = append(got, v)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, layouts
	}
	pdf := strings.Replace(strings.Replace(nglHeader, "ReportingFacilityID,", "FacilityID,", 1), "ReportingFacilityName,", "FacilityName,", 1)
	realRows, realLayouts := read(nglHeader)
	doc, docLayouts := read(pdf)
	if d := cmp.Diff(realRows, doc); d != "" || len(doc) != 1 || doc[0].FacilityID != "ABBT0137130" || doc[0].FacilityName != "Two Creeks 3-5-62-16w5" {
		t.Errorf("FacilityID form (-real +documented):\n%s", d)
	}
	if len(realLayouts) != 1 || realLayouts[0] != energyingest.NGLLayout || len(docLayouts) != 1 || docLayouts[0] != energyingest.NGLDocumentedLayout {
		t.Errorf("layouts %v and %v, want NGLLayout and NGLDocumentedLayout", realLayouts, docLayouts)
	}
	// Errors name the column as the file does.
	err := energyingest.ReadNGLVolumes(strings.NewReader(pdf+strings.Replace(nglRow, "ABBT0137130", "", 1)), "NGL.csv", energyingest.ReadOptions{}, func(energyingest.NGLVolume) error { return nil })
	wantIngestError(t, err, "NGL.csv", 2, "FacilityID: empty")
	if ie := (*ingest.Error)(nil); errors.As(err, &ie) && strings.HasPrefix(ie.Reason, "Reporting") {
		t.Errorf("reason %q names the column as the real file does, not as this file does", ie.Reason)
	}
	noFacility := strings.Replace(nglHeader, "ReportingFacilityID,", "Facility,", 1)
	err = energyingest.ReadNGLVolumes(strings.NewReader(noFacility+nglRow), "NGL.csv", energyingest.ReadOptions{}, func(energyingest.NGLVolume) error { return nil })
	wantIngestError(t, err, "NGL.csv", 1, "no ReportingFacilityID column (nor FacilityID)")
}

func TestReadNGLVolumesRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"25 fields", nglHeader + nglRow + strings.Replace(nglRow, ",0\n", "\n", 1), 3, []string{"25 fields", "want 26"}},
		{"bad month", nglHeader + strings.Replace(nglRow, "2018-05", "2018-5", 1), 2, []string{"ProductionMonth"}},
		{"bad gas", nglHeader + strings.Replace(nglRow, "308.2", "3O8.2", 1), 2, []string{"GasProduction"}},
		{"bad well", nglHeader + strings.Replace(nglRow, "ABWI100012206216W500", "ABWI100012206216X500", 1), 2, []string{"WellID"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadNGLVolumes(strings.NewReader(tc.in), "NGL.csv", energyingest.ReadOptions{}, func(energyingest.NGLVolume) error { return nil })
			wantIngestError(t, err, "NGL.csv", tc.line, tc.want...)
		})
	}
}

func FuzzReadNGLVolumes(f *testing.F) {
	f.Add(nglHeader + nglRow)
	f.Add(strings.Replace(strings.Replace(nglHeader, "ReportingFacilityID,", "FacilityID,", 1), "ReportingFacilityName,", "FacilityName,", 1) + nglRow)
	if b := sampleSeed(nglSample); b != nil {
		f.Add(firstLines(b, 8))
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := energyingest.ReadNGLVolumes(strings.NewReader(in), "NGL.csv", energyingest.ReadOptions{}, func(energyingest.NGLVolume) error { return nil })
		checkFuzzError(t, err, 1)
	})
}

func TestReadFacilitiesSample(t *testing.T) {
	t.Parallel()
	f := openSample(t, facilitySample)
	var got []energyingest.Facility
	if err := energyingest.ReadFacilities(f, "Facility_Infrastructure.csv", func(fac energyingest.Facility) error {
		got = append(got, fac)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 {
		t.Fatalf("%d facilities, want 7", len(got))
	}
	want := energyingest.Facility{ID: "ABBT0049013", Type: "BT", Name: "REDWATER 08-24", LocationText: "08-24-055-21W4",
		Location: mustLLD(t, "8-24-55-21-W4"), OperationalStatus: "ACTIVE", OperatorName: "LONGSHORE RESOURCES LTD.",
		OperatorBA: "A76W", SubTypeDesc: "CRUDE OIL SINGLE-WELL BATTERY"}
	if d := cmp.Diff(want, got[0]); d != "" {
		t.Errorf("first facility (-want +got):\n%s", d)
	}
	if g := got[6]; g.ID != "ABTM0000843" || g.OperatorBA != "A5D4" || g.Location != mustLLD(t, "5-29-42-9-W4") {
		t.Errorf("last facility %+v", g)
	}
	types := map[string]int{}
	for _, f := range got {
		types[f.Type]++
	}
	if d := cmp.Diff(map[string]int{"BT": 4, "IF": 1, "TM": 2}, types); d != "" {
		t.Errorf("types (-want +got):\n%s", d)
	}
}

func TestReadFacilitiesRejects(t *testing.T) {
	t.Parallel()
	head := strings.Join(energyingest.FacilityColumns(), ",") + "\n"
	row := "ABBT0900001,AB,BT,0900001,DEMO BT,311,CRUDE OIL SINGLE-WELL BATTERY,N,2001-05-01,06-06-024-01W5,6,6,24,1,5,ISSUED,ACTIVE,2001-05-01,Facility,F0001,EDCT,2001-04-01,Z9A1,ASPEN COULEE (DEMO),Z9A1,ASPEN COULEE (DEMO),2001-05,,,,,,,,,E1,N,T1,PR\n"
	var ok []energyingest.Facility
	if err := energyingest.ReadFacilities(strings.NewReader(head+row), "f.csv", func(f energyingest.Facility) error { ok = append(ok, f); return nil }); err != nil || len(ok) != 1 || ok[0].OperatorStartDate != day(2001, 5, 1) || ok[0].Location != mustLLD(t, "6-6-24-1-W5") {
		t.Fatalf("ReadFacilities = %+v, %v", ok, err)
	}
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"no FacilityID column", "FacilityName\nX\n", 1, []string{"no FacilityID column"}},
		{"short row", head + row + "ABBT0900002,AB\n", 3, []string{"2 fields", "want 39"}},
		{"bad flag", head + strings.Replace(row, ",N,T1", ",maybe,T1", 1), 2, []string{"OrphanWellFlg"}},
		{"bad date", head + strings.Replace(row, "2001-04-01", "2001-04-31", 1), 2, []string{"LicenceIssueDate"}},
		{"bad township", head + strings.Replace(row, ",6,6,24,1,5,", ",6,6,0,1,5,", 1), 2, []string{"township 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadFacilities(strings.NewReader(tc.in), "f.csv", func(energyingest.Facility) error { return nil })
			wantIngestError(t, err, "f.csv", tc.line, tc.want...)
		})
	}
}

func FuzzReadFacilities(f *testing.F) {
	if b := sampleSeed(facilitySample); b != nil {
		f.Add(string(b))
	}
	f.Add(strings.Join(energyingest.FacilityColumns(), ",") + "\nABBT0900001,AB,BT,0900001,DEMO BT,311,X,N,2001-05-01,06-06-024-01W5,6,6,24,1,5,ISSUED,ACTIVE,2001-05-01,Facility,F0001,EDCT,2001-04-01,Z9A1,ASPEN COULEE (DEMO),Z9A1,ASPEN COULEE (DEMO),2001-05,,,,,,,,,E1,N,T1,PR\n")
	f.Fuzz(func(t *testing.T, in string) {
		err := energyingest.ReadFacilities(strings.NewReader(in), "f.csv", func(fac energyingest.Facility) error {
			if fac.ID == "" {
				t.Fatal("facility without an ID")
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
