package energyingest_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
)

var wellInfraHeader = strings.Join(energyingest.PetrinexWellColumns(), ",") + "\n"

// A row in the documented columns, with HorizontalDrill and the status
// words as the real AB file spells them (docs/real-layouts.md, id
// 23718322573: "Horizontal", "FLOW", "N/A"). The operator is invented.
const wellInfraRow = "ABWI100042205618W502,AB,WI,100042205618W502,,00,4,22,56,18,5,2,DEMO OPERATOR PINE CK 4-22-56-18,Non-Confidential,N,,," +
	"Well,0123456,2014-03-08,2014-06-09,Issued,0706,PINE CREEK,,,0706001,,,GAS,FLOW,N/A,N/A,02,10,00,00,2014-06-09,2014-04-20,Horizontal,2014-05-16," +
	"3116.2,3116.2,,,0ZZ9,DEMO OPERATOR LTD (INVENTED),,,,N,ABBT0127945,351,GAS SINGLE WELL BATTERY,2014-06-09,0ZZ9,DEMO OPERATOR LTD (INVENTED)\n"

func readPetrinexWells(t *testing.T, in string, opt energyingest.ReadOptions) []energyingest.PetrinexWell {
	t.Helper()
	var got []energyingest.PetrinexWell
	if err := energyingest.ReadPetrinexWells(strings.NewReader(in), "w.csv", opt, func(w energyingest.PetrinexWell) error {
		got = append(got, w)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestReadPetrinexWells(t *testing.T) {
	t.Parallel()
	var got []energyingest.PetrinexWell
	var layouts []ingest.Layout
	var ns ingest.Notices
	opt := energyingest.ReadOptions{Notices: &ns, Layout: func(l ingest.Layout) { layouts = append(layouts, l) }}
	if err := energyingest.ReadPetrinexWells(strings.NewReader(wellInfraHeader+wellInfraRow), "Well Infrastructure-AB.csv", opt, func(w energyingest.PetrinexWell) error {
		got = append(got, w)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(layouts) != 1 || layouts[0] != energyingest.PetrinexWellLayout || ns.Total() != 0 {
		t.Errorf("layouts %v, notices %v; want PetrinexWellLayout once and no notice", layouts, ns.Lines())
	}
	want := energyingest.PetrinexWell{
		WellID: "ABWI100042205618W502", Province: "AB", WellType: "WI", Identifier: "100042205618W502",
		LE: "00", Location: mustLLD(t, "4-22-56-18-W5"), Event: 2, Name: "DEMO OPERATOR PINE CK 4-22-56-18",
		ConfidentialType: "Non-Confidential", LicenceType: "Well", LicenceNumber: "0123456",
		LicenceIssueDate: day(2014, 3, 8), LicenceStatusDate: day(2014, 6, 9), LicenceStatus: "Issued",
		Field: "0706", FieldName: "PINE CREEK", PoolDeposit: "0706001",
		FluidName: "GAS", ModeName: "FLOW", TypeName: "N/A", StructureName: "N/A",
		Status:     energyingest.WellStatus{Code: "0210000000", Fluid: 2, Mode: 10},
		StatusDate: day(2014, 6, 9), SpudDate: day(2014, 4, 20), Trajectory: energyingest.Horizontal, FinishedDrillDate: day(2014, 5, 16),
		TotalDepth: energyingest.Amount{Value: 3116.2}, MaxTVD: energyingest.Amount{Value: 3116.2},
		LicenseeBA: "0ZZ9", LicenseeName: "DEMO OPERATOR LTD (INVENTED)",
		LinkedFacilityID: "ABBT0127945", LinkedFacilitySubType: "351", LinkedFacilitySubTypeDesc: "GAS SINGLE WELL BATTERY",
		LinkedStartDate: day(2014, 6, 9), LinkedFacilityOperatorBA: "0ZZ9", LinkedFacilityOperatorName: "DEMO OPERATOR LTD (INVENTED)",
	}
	if d := cmp.Diff([]energyingest.PetrinexWell{want}, got); d != "" {
		t.Errorf("ReadPetrinexWells (-want +got):\n%s", d)
	}
	// A minimal file: the required columns only.
	min := "WellID,WellIdentifier,LicenceNumber,LicenceStatus,LicenceeID\nSKWI141160301014W200,141160301014W200,12345,Issued,Z9A9\n"
	if err := energyingest.ReadPetrinexWells(strings.NewReader(min), "w.csv", energyingest.ReadOptions{}, func(w energyingest.PetrinexWell) error {
		if w.LE != "41" || w.Location != mustLLD(t, "16-3-10-14-W2") || w.Status != (energyingest.WellStatus{}) {
			t.Errorf("minimal row %+v", w)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestReadPetrinexWellsRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"missing column", "WellID,WellIdentifier,LicenceNumber,LicenceStatus\nx,y,z,w\n", 1, []string{"no LicenceeID column"}},
		{"short row", wellInfraHeader + wellInfraRow + "ABWI100042205618W502,AB\n", 3, []string{"2 fields", "want 57"}},
		{"bad UWI", wellInfraHeader + strings.Replace(wellInfraRow, ",100042205618W502,", ",100042205618W5,", 1), 2, []string{"WellIdentifier", "16-character"}},
		{"LE and event swapped", wellInfraHeader + strings.Replace(wellInfraRow, ",00,4,22,56,18,5,2,", ",02,4,22,56,18,5,0,", 1), 2, []string{"WellLocationException", "leading"}},
		{"location mismatch", wellInfraHeader + strings.Replace(wellInfraRow, ",00,4,22,56,18,5,2,", ",00,4,22,57,18,5,2,", 1), 2, []string{"location columns say"}},
		{"bad date", wellInfraHeader + strings.Replace(wellInfraRow, "2014-04-20", "2014-04-31", 1), 2, []string{"SpudDate"}},
		{"bad status code", wellInfraHeader + strings.Replace(wellInfraRow, ",02,10,00,00,", ",02,1O,00,00,", 1), 2, []string{"WellStatusModeCode"}},
		{"bad orphan flag", wellInfraHeader + strings.Replace(wellInfraRow, ",,,,N,ABBT", ",,,,maybe,ABBT", 1), 2, []string{"column OrphanWellFlg", `"maybe"`, "Y, N, YES, NO"}},
		{"bad experimental flag", wellInfraHeader + strings.Replace(wellInfraRow, ",Non-Confidential,N,", ",Non-Confidential,Confidential,", 1), 2, []string{"column ExperimentalConfidentialIndicator", `"Confidential"`, "Y, N"}},
		{"bad depth", wellInfraHeader + strings.Replace(wellInfraRow, "3116.2,3116.2", "3116.2 m,3116.2", 1), 2, []string{"FinalTotalDepth"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadPetrinexWells(strings.NewReader(tc.in), "w.csv", energyingest.ReadOptions{}, func(energyingest.PetrinexWell) error { return nil })
			wantIngestError(t, err, "w.csv", tc.line, tc.want...)
		})
	}
}

// The trajectory words and status words of the real AB file (id
// 23718322573), in the spellings it uses, with the codes they stand for.
func TestReadPetrinexWellsRealWords(t *testing.T) {
	t.Parallel()
	noCodes := strings.Replace(wellInfraRow, ",02,10,00,00,", ",,,,,", 1)
	cases := []struct {
		traj, fluid, mode, typ string
		want                   energyingest.Trajectory
		status                 energyingest.WellStatus
	}{
		{"HORIZONTAL", "GAS", "ABAN", "N/A", energyingest.Horizontal, energyingest.WellStatus{Code: "0202000000", Fluid: 2, Mode: 2}},
		{"Horizontal", "CR-OIL", "SUSP", "N/A", energyingest.Horizontal, energyingest.WellStatus{Code: "0101000000", Fluid: 1, Mode: 1}},
		{"VERTICAL", "WATER", "DRL & C", "OBSERV", energyingest.Vertical, energyingest.WellStatus{Code: "0607050000", Fluid: 6, Mode: 7, Type: 5}},
		{"Vertical", "N/A", "J & A", "N/A", energyingest.Vertical, energyingest.WellStatus{Code: "0008000000", Mode: 8}},
		{"NATURAL DRIFT", "GAS", "Tstcmp", "STOR", energyingest.NaturalDrift, energyingest.WellStatus{Code: "0216020000", Fluid: 2, Mode: 16, Type: 2}},
		{"DIRECTIONAL", "STEAM", "D & COMP", "SAGD", energyingest.Directional, energyingest.WellStatus{Code: "1015120000", Fluid: 10, Mode: 15, Type: 12}},
		{"Slant", "CR-BIT", "PUMP", "CYCL", energyingest.Slant, energyingest.WellStatus{Code: "1711100000", Fluid: 17, Mode: 11, Type: 10}},
		{"", "", "", "", "", energyingest.WellStatus{}},
	}
	for _, tc := range cases {
		row := strings.Replace(noCodes, ",Horizontal,", ","+tc.traj+",", 1)
		row = strings.Replace(row, ",GAS,FLOW,N/A,N/A,", ","+tc.fluid+","+tc.mode+","+tc.typ+",N/A,", 1)
		if tc.fluid == "" {
			row = strings.Replace(row, ","+tc.fluid+","+tc.mode+","+tc.typ+",N/A,", ",,,,,", 1)
		}
		var ns ingest.Notices
		got := readPetrinexWells(t, wellInfraHeader+row, energyingest.ReadOptions{Notices: &ns})
		if len(got) != 1 || got[0].Trajectory != tc.want || got[0].Status != tc.status || ns.Total() != 0 {
			t.Errorf("%q %q %q %q: %+v, notices %v; want %q %+v", tc.traj, tc.fluid, tc.mode, tc.typ, got, ns.Lines(), tc.want, tc.status)
		}
	}
}

// A word the reader does not know is kept as given and counted, not fatal.
func TestReadPetrinexWellsNotices(t *testing.T) {
	t.Parallel()
	row := strings.Replace(wellInfraRow, ",Horizontal,", ",S-CURVE,", 1)
	row = strings.Replace(row, ",GAS,FLOW,", ",GAS,GEOTHERM,", 1)
	var ns ingest.Notices
	got := readPetrinexWells(t, wellInfraHeader+row+row, energyingest.ReadOptions{Notices: &ns})
	if len(got) != 2 || got[0].Trajectory != "S-CURVE" || got[0].ModeName != "GEOTHERM" || got[0].Status.Mode != 10 {
		t.Fatalf("rows %+v: want both kept, the words as given and the mode from its code", got)
	}
	lines := ns.Lines()
	if ns.Total() != 4 || len(lines) != 2 || !strings.Contains(lines[0], `HorizontalDrill: new value "S-CURVE"`) ||
		!strings.Contains(lines[0], "(2 rows)") || !strings.Contains(lines[1], `WellStatusMode: new value "GEOTHERM"`) {
		t.Errorf("notices %d %q: want 4 in 2 lines naming HorizontalDrill S-CURVE and WellStatusMode GEOTHERM", ns.Total(), lines)
	}
	// Without a Notices the rows are read all the same.
	if got := readPetrinexWells(t, wellInfraHeader+row, energyingest.ReadOptions{}); len(got) != 1 {
		t.Errorf("nil Notices: %d rows, want 1", len(got))
	}
}

func FuzzReadPetrinexWells(f *testing.F) {
	f.Add(wellInfraHeader + wellInfraRow)
	f.Add(wellInfraHeader + strings.Replace(strings.Replace(wellInfraRow, ",Horizontal,", ",S-CURVE,", 1), ",02,10,00,00,", ",,,,,", 1))
	f.Add("WellID,WellIdentifier,LicenceNumber,LicenceStatus,LicenceeID\nSKWI141160301014W200,141160301014W200,12345,Issued,Z9A9\n")
	if b, err := demoOnce(); err == nil {
		f.Add(firstLines(b["Well Infrastructure-SK.csv"], 6))
	}
	f.Fuzz(func(t *testing.T, in string) {
		var ns ingest.Notices
		err := energyingest.ReadPetrinexWells(strings.NewReader(in), "w.csv", energyingest.ReadOptions{Notices: &ns}, func(w energyingest.PetrinexWell) error {
			if w.WellID == "" {
				t.Fatal("well without an ID")
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
