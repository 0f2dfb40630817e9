package energyingest_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/demo/energydemo"
	"meridian/shared/energy/energyingest"
	"meridian/shared/teamdata"
)

// realBAWorkbook is the register AER published in April 2017, kept out of
// git (testdata/real/aer-st104a/PROVENANCE.md says why and how to get it).
const realBAWorkbook = "../../../testdata/real/aer-st104a/BusinessAssociate_Codes.xlsx"

func registerXLSX(t *testing.T, rows [][]string) []byte {
	t.Helper()
	b, err := energydemo.WriteXLSX([]energydemo.Sheet{{Name: "Sheet1", Rows: rows}, {Name: "Sheet2"}}, time.Date(2017, 4, 7, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readBAXLSX(t testing.TB, b []byte) (baRead, error) {
	return readRegister(t, func(opt energyingest.ReadOptions, fn func(energyingest.BA) error) error {
		return energyingest.ReadBACodesXLSX(bytes.NewReader(b), int64(len(b)), "BusinessAssociate_Codes.xlsx", opt, fn)
	})
}

var baHeader = []string{"BA Code", "Company Name", "Address", "Phone"}

// The workbook's shape (PROVENANCE.md): title, empty row, header, empty
// row, codes, empty rows, notice, contacts. WriteXLSX leaves empty rows out
// of the sheet, as Excel does with unstyled ones: they count as empty.
func TestReadBACodesXLSX(t *testing.T) {
	t.Parallel()
	b := registerXLSX(t, [][]string{
		{"Business Associate List_Codes(ST104A) April 7, 2017"},
		nil,
		baHeader,
		nil,
		{"0001", "177293 Canada Ltd.", "15 Floor-150 6 Ave SW  Calgary, AB  T2P 3E3", "(403) 296-8000"},
		{"A5D4", "Cenovus Energy Inc."},
		nil, nil,
		{"NOTICE TO USER:  ", "The enclosed Data is provided to you subject to you"},
		{"Alberta Energy Regulator"},
		{"Tel (403) 297-8311"},
	})
	got, err := readBAXLSX(t, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []energyingest.BA{
		{Code: "0001", Name: "177293 Canada Ltd.", Address: "15 Floor-150 6 Ave SW  Calgary, AB  T2P 3E3", Phone: "(403) 296-8000"},
		{Code: "A5D4", Name: "Cenovus Energy Inc."},
	}
	if d := cmp.Diff(want, got.bas); d != "" {
		t.Errorf("ReadBACodesXLSX (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{energyingest.SkipBATitle: 1, energyingest.SkipBAEmpty: 4, energyingest.SkipBATrailer: 3}, got.skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if len(got.notices) != 2 || !strings.Contains(got.notices[1], "BusinessAssociate_Codes.xlsx:9:") || !strings.Contains(got.notices[1], "(3 rows)") {
		t.Errorf("notices %q: want the title and the 3 trailer rows from sheet row 9", got.notices)
	}
	if got.layout != energyingest.ST104AWorkbookLayout {
		t.Errorf("layout %v", got.layout)
	}
}

func TestReadBACodesXLSXRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		rows [][]string
		line int
		want []string
	}{
		{"short code", [][]string{{"Title"}, baHeader, {"0001", "A"}, {"X5", "Short Ltd."}}, 4, []string{`"X5"`, "4-character"}},
		{"no name", [][]string{baHeader, nil, {"0001"}}, 3, []string{"empty for BA 0001"}},
		{"no header", [][]string{{"Code", "Name"}, {"0001", "A"}}, 2, []string{"no header row"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readBAXLSX(t, registerXLSX(t, tc.rows))
			wantIngestError(t, err, "BusinessAssociate_Codes.xlsx", tc.line, tc.want...)
		})
	}
	_, err := readBAXLSX(t, []byte("BA Code,Company Name\n0001,A\n"))
	wantIngestError(t, err, "BusinessAssociate_Codes.xlsx", 0, "not an XLSX workbook")
}

// The whole register as AER published it: every code reads, the trailer is
// passed over, and the 428 codes of the team's CSV sample (the same
// register saved as CSV) have the same names and addresses.
func TestReadBACodesXLSXReal(t *testing.T) {
	t.Parallel()
	path := realBAWorkbook
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		dir, _ := teamdata.Dir()
		path = filepath.Join(dir, "samples", "aer-ba-codes", "BusinessAssociate_Codes.xlsx")
		if _, err := os.Stat(path); err != nil {
			t.Skipf("the real workbook is not here (%s; testdata/real/aer-st104a/PROVENANCE.md says how to get it)", realBAWorkbook)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readBAXLSX(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.bas); n < 14_000 || got.bas[0].Code != "0001" {
		t.Fatalf("%d codes, the first %+v: want at least 14,000 from 0001", n, got.bas[0])
	}
	t.Logf("%d codes, skipped %v", len(got.bas), got.skipped)
	seen := map[string]energyingest.BA{}
	for _, b := range got.bas {
		if _, dup := seen[b.Code]; dup {
			t.Errorf("BA %s twice", b.Code)
		}
		seen[b.Code] = b
	}
	if got.skipped[energyingest.SkipBATrailer] == 0 || got.skipped[energyingest.SkipBATitle] != 1 || got.skipped[energyingest.SkipBAText] != 0 {
		t.Errorf("skipped %v: want the title, a trailer and no text between codes", got.skipped)
	}
	n := 0
	err = energyingest.ReadBACodes(openSample(t, baSample), "ST104A.csv", energyingest.ReadOptions{}, func(csv energyingest.BA) error {
		n++
		if x := seen[csv.Code]; x.Name != csv.Name || x.Address != csv.Address || x.Phone != csv.Phone {
			t.Errorf("BA %s: workbook %+v, CSV sample %+v", csv.Code, x, csv)
		}
		return nil
	})
	if err != nil || n != 428 {
		t.Errorf("CSV sample: %d codes, %v", n, err)
	}
}
