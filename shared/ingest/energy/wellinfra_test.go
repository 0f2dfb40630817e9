package energy_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ingest/energy"
)

var wellInfraHeader = strings.Join(energy.PetrinexWellColumns(), ",") + "\n"

// A row in the documented layout (no real file has been seen).
const wellInfraRow = "ABWI100042205618W502,AB,WI,100042205618W502,,00,4,22,56,18,5,2,CHEVRON PINE CK 4-22-56-18,Non-Confidential,N,,," +
	"Well,0123456,2014-03-08,2014-06-09,Issued,0706,PINE CREEK,,,0706001,,,GAS,FLOW,N/A,N/A,02,10,00,00,2014-06-09,2014-04-20,N,2014-05-16," +
	"3116.2,3116.2,,,0045,CHEVRON CANADA LIMITED,,,,N,ABBT0127945,351,GAS SINGLE WELL BATTERY,2014-06-09,0045,CHEVRON CANADA LIMITED\n"

func TestReadPetrinexWells(t *testing.T) {
	t.Parallel()
	var got []energy.PetrinexWell
	if err := energy.ReadPetrinexWells(strings.NewReader(wellInfraHeader+wellInfraRow), "Well Infrastructure-AB.csv", func(w energy.PetrinexWell) error {
		got = append(got, w)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := energy.PetrinexWell{
		WellID: "ABWI100042205618W502", Province: "AB", WellType: "WI", Identifier: "100042205618W502",
		LE: "00", Location: mustLLD(t, "4-22-56-18-W5"), Event: 2, Name: "CHEVRON PINE CK 4-22-56-18",
		ConfidentialType: "Non-Confidential", LicenceType: "Well", LicenceNumber: "0123456",
		LicenceIssueDate: day(2014, 3, 8), LicenceStatusDate: day(2014, 6, 9), LicenceStatus: "Issued",
		Field: "0706", FieldName: "PINE CREEK", PoolDeposit: "0706001",
		FluidName: "GAS", ModeName: "FLOW", TypeName: "N/A", StructureName: "N/A",
		Status:     energy.WellStatus{Code: "0210000000", Fluid: 2, Mode: 10},
		StatusDate: day(2014, 6, 9), SpudDate: day(2014, 4, 20), FinishedDrillDate: day(2014, 5, 16),
		TotalDepth: energy.Amount{Value: 3116.2}, MaxTVD: energy.Amount{Value: 3116.2},
		LicenseeBA: "0045", LicenseeName: "CHEVRON CANADA LIMITED",
		LinkedFacilityID: "ABBT0127945", LinkedFacilitySubType: "351", LinkedFacilitySubTypeDesc: "GAS SINGLE WELL BATTERY",
		LinkedStartDate: day(2014, 6, 9), LinkedFacilityOperatorBA: "0045", LinkedFacilityOperatorName: "CHEVRON CANADA LIMITED",
	}
	if d := cmp.Diff([]energy.PetrinexWell{want}, got); d != "" {
		t.Errorf("ReadPetrinexWells (-want +got):\n%s", d)
	}
	// A minimal file: the required columns only.
	min := "WellID,WellIdentifier,LicenceNumber,LicenceStatus,LicenceeID\nSKWI141160301014W200,141160301014W200,12345,Issued,A2J6\n"
	if err := energy.ReadPetrinexWells(strings.NewReader(min), "w.csv", func(w energy.PetrinexWell) error {
		if w.LE != "41" || w.Location != mustLLD(t, "16-3-10-14-W2") || w.Status != (energy.WellStatus{}) {
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
		{"bad orphan flag", wellInfraHeader + strings.Replace(wellInfraRow, ",,,,N,ABBT", ",,,,maybe,ABBT", 1), 2, []string{"OrphanWellFlg"}},
		{"bad depth", wellInfraHeader + strings.Replace(wellInfraRow, "3116.2,3116.2", "3116.2 m,3116.2", 1), 2, []string{"FinalTotalDepth"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energy.ReadPetrinexWells(strings.NewReader(tc.in), "w.csv", func(energy.PetrinexWell) error { return nil })
			wantIngestError(t, err, "w.csv", tc.line, tc.want...)
		})
	}
}

func FuzzReadPetrinexWells(f *testing.F) {
	f.Add(wellInfraHeader + wellInfraRow)
	f.Add("WellID,WellIdentifier,LicenceNumber,LicenceStatus,LicenceeID\nSKWI141160301014W200,141160301014W200,12345,Issued,A2J6\n")
	if b, err := demoOnce(); err == nil {
		f.Add(firstLines(b["Well Infrastructure-SK.csv"], 6))
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := energy.ReadPetrinexWells(strings.NewReader(in), "w.csv", func(w energy.PetrinexWell) error {
			if w.WellID == "" {
				t.Fatal("well without an ID")
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
