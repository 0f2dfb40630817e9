package energy_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ingest/energy"
)

func readBAs(t testing.TB, in string) []energy.BA {
	t.Helper()
	var bas []energy.BA
	if err := energy.ReadBACodes(strings.NewReader(in), "ba.csv", func(b energy.BA) error {
		bas = append(bas, b)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return bas
}

func TestReadBACodesSample(t *testing.T) {
	t.Parallel()
	f := openSample(t, baSample)
	byCode := map[string]energy.BA{}
	var order []string
	err := energy.ReadBACodes(f, "ST104A.csv", func(b energy.BA) error {
		if _, dup := byCode[b.Code]; dup {
			t.Errorf("BA %s twice", b.Code)
		}
		byCode[b.Code] = b
		order = append(order, b.Code)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 428 || order[0] != "0001" || order[427] != "A7AZ" {
		t.Errorf("%d codes from %v to %v, want 428 from 0001 to A7AZ", len(order), order[0], order[len(order)-1])
	}
	for code, name := range map[string]string{
		"0045": "Chevron Canada Limited", "A5D4": "Cenovus Energy Inc.", "0144": "ATCO Gas And Pipelines Ltd.",
		"0003": "McGaha, Charles", "0HE9": "Canadian Natural Resources Limited", "A7AZ": "SanLing Energy Ltd.",
	} {
		if b := byCode[code]; b.Name != name || b.Address != "" || b.Phone != "" {
			t.Errorf("BA %s = %+v, want %q", code, b, name)
		}
	}
	// The README says the excerpt holds every licensee/agent/operator code
	// of the ST37 excerpt; two are missing.
	missing := map[string]bool{}
	err = energy.ReadWellList(openSample(t, st37Sample), "WellList.txt", func(w energy.Well) error {
		for _, c := range []string{w.LicenseeBA, w.AgentBA, w.OperatorBA} {
			if _, ok := byCode[c]; c != "" && !ok {
				missing[c] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]bool{"A1B4": true, "0YH9": true}, missing); d != "" {
		t.Errorf("ST37 BA codes missing from the BA excerpt (-want +got):\n%s", d)
	}
}

// TestReadBACodesRegister reads the register's own layout: title, blank
// row, four-column header, rows, disclaimers.
func TestReadBACodesRegister(t *testing.T) {
	t.Parallel()
	in := "\ufeffBusiness Associate List_Codes(ST104A) April 7, 2017,,,\r\n,,,\r\n" +
		"BA Code,Company Name,Address,Phone\r\n" +
		"0045,Chevron Canada Limited,\"500 5th Ave SW, Calgary AB\",403-234-5000\r\n" +
		"A5D4,Cenovus Energy Inc.,,\r\n" +
		",,,\r\n" +
		"The information in this list is provided as is,,,\r\n" +
		"AER makes no warranty\r\n"
	want := []energy.BA{
		{Code: "0045", Name: "Chevron Canada Limited", Address: "500 5th Ave SW, Calgary AB", Phone: "403-234-5000"},
		{Code: "A5D4", Name: "Cenovus Energy Inc."},
	}
	if d := cmp.Diff(want, readBAs(t, in)); d != "" {
		t.Errorf("ReadBACodes (-want +got):\n%s", d)
	}
	// Disclaimers without a blank row before them end the list too.
	if got := readBAs(t, "BA Code,Company Name\n0045,Chevron\nDisclaimer text,\n"); len(got) != 1 {
		t.Errorf("ReadBACodes = %v, want 1 BA", got)
	}
}

func TestReadBACodesRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"no header", "Code,Name\n0045,Chevron\n", 2, []string{"no header row", "BA Code"}},
		{"bad code", "BA Code,Company Name\n0045,Chevron\n45,Short\n", 3, []string{"BA Code", "4-character"}},
		{"lower case", "BA Code,Company Name\na5d4,Cenovus\n", 2, []string{"4-character"}},
		{"no name", "BA Code,Company Name\n0045,\n", 2, []string{"Company Name"}},
		{"wrong column count", "BA Code,Company Name\n0045,Chevron,extra\n", 2, []string{"3 fields", "want 2"}},
		{"row after the end", "BA Code,Company Name\n0045,Chevron\n,\nA5D4,Cenovus\n", 4, []string{"after the end"}},
		{"empty", "", 1, []string{"no header row"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energy.ReadBACodes(strings.NewReader(tc.in), "ba.csv", func(energy.BA) error { return nil })
			wantIngestError(t, err, "ba.csv", tc.line, tc.want...)
		})
	}
}

func FuzzReadBACodes(f *testing.F) {
	f.Add("BA Code,Company Name\r\n0001,177293 Canada Ltd.\r\n0003,\"McGaha, Charles\"\r\n")
	f.Add("Title,,,\n,,,\nBA Code,Company Name,Address,Phone\n0045,Chevron,x,y\n,,,\nDisclaimer\n")
	if b := sampleSeed(baSample); b != nil {
		f.Add(firstLines(b, 30))
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := energy.ReadBACodes(strings.NewReader(in), "ba.csv", func(b energy.BA) error {
			if len(b.Code) != 4 || b.Name == "" {
				t.Fatalf("BA %+v", b)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
