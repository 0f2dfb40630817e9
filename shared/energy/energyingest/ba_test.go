package energyingest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
)

func readBAs(t testing.TB, in string) []energyingest.BA {
	t.Helper()
	var bas []energyingest.BA
	if err := energyingest.ReadBACodes(strings.NewReader(in), "ba.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error {
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
	byCode := map[string]energyingest.BA{}
	var order []string
	skipped := map[string]int{}
	err := energyingest.ReadBACodes(f, "ST104A.csv", energyingest.ReadOptions{Skip: func(r string) { skipped[r]++ }}, func(b energyingest.BA) error {
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
	// Its 462 rows as the README describes them: the title, the header,
	// 428 codes, 8 empty rows (2 above the codes, 6 after) and 24 rows of
	// notice and contacts.
	if d := cmp.Diff(map[string]int{energyingest.SkipBATitle: 1, energyingest.SkipBAEmpty: 8, energyingest.SkipBATrailer: 24}, skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	for code, name := range map[string]string{
		"0045": "Chevron Canada Limited", "A5D4": "Cenovus Energy Inc.", "0144": "ATCO Gas And Pipelines Ltd.",
		"0003": "McGaha, Charles", "0HE9": "Canadian Natural Resources Limited", "A7AZ": "SanLing Energy Ltd.",
	} {
		if b := byCode[code]; b.Name != name {
			t.Errorf("BA %s = %+v, want %q", code, b, name)
		}
	}
	if b := byCode["0001"]; b.Address != "15 Floor-150 6 Ave SW  Calgary, AB  T2P 3E3" || b.Phone != "(403) 296-8000" {
		t.Errorf("BA 0001 = %+v: want its address and phone", b)
	}
	// The README says the excerpt holds every licensee/agent/operator code
	// of the ST37 excerpt; two are missing.
	missing := map[string]bool{}
	err = energyingest.ReadWellList(openSample(t, st37Sample), "WellList.txt", func(w energyingest.Well) error {
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

// baRead is what ReadBACodes or ReadBACodesXLSX made of a register.
type baRead struct {
	bas     []energyingest.BA
	skipped map[string]int
	notices []string
	layout  ingest.Layout
}

func readRegister(t testing.TB, read func(energyingest.ReadOptions, func(energyingest.BA) error) error) (baRead, error) {
	t.Helper()
	got := baRead{skipped: map[string]int{}}
	notices := &ingest.Notices{}
	opt := energyingest.ReadOptions{Notices: notices, Skip: func(r string) { got.skipped[r]++ }, Layout: func(l ingest.Layout) { got.layout = l }}
	err := read(opt, func(b energyingest.BA) error {
		got.bas = append(got.bas, b)
		return nil
	})
	got.notices = notices.Lines()
	return got, err
}

func readBACSV(t testing.TB, in string) (baRead, error) {
	return readRegister(t, func(opt energyingest.ReadOptions, fn func(energyingest.BA) error) error {
		return energyingest.ReadBACodes(strings.NewReader(in), "ba.csv", opt, fn)
	})
}

// The register's own shape, as samples/aer-ba-codes keeps it: title, empty
// row, header, an empty row right after it, codes, then empty rows, the
// notice and AER's contact rows. Every row that is not a code is passed
// over and counted.
const registerCSV = "\ufeffBusiness Associate List_Codes(ST104A) April 7, 2017,,,\r\n,,,\r\n" +
	"BA Code,Company Name,Address,Phone\r\n" +
	",,,\r\n" +
	"0045,Chevron Canada Limited,\"500 5th Ave SW, Calgary AB\",403-234-5000\r\n" +
	"A5D4,Cenovus Energy Inc.,,\r\n" +
	",,,\r\n,,,\r\n" +
	"NOTICE TO USER:  ,\"The enclosed Data is provided to you subject to you\",,\r\n" +
	"accepting the following terms and conditions:,,,\r\n" +
	"Alberta Energy Regulator,,,\r\n" +
	"Tel (403) 297-8311,,,\r\n"

func TestReadBACodesRegister(t *testing.T) {
	t.Parallel()
	got, err := readBACSV(t, registerCSV)
	if err != nil {
		t.Fatal(err)
	}
	want := []energyingest.BA{
		{Code: "0045", Name: "Chevron Canada Limited", Address: "500 5th Ave SW, Calgary AB", Phone: "403-234-5000"},
		{Code: "A5D4", Name: "Cenovus Energy Inc."},
	}
	if d := cmp.Diff(want, got.bas); d != "" {
		t.Errorf("ReadBACodes (-want +got):\n%s", d)
	}
	wantSkipped := map[string]int{energyingest.SkipBATitle: 1, energyingest.SkipBAEmpty: 4, energyingest.SkipBATrailer: 4}
	if d := cmp.Diff(wantSkipped, got.skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if len(got.notices) != 2 || !strings.Contains(got.notices[0], "ba.csv:1:") || !strings.Contains(got.notices[0], "title row") ||
		!strings.Contains(got.notices[1], "ba.csv:9:") || !strings.Contains(got.notices[1], `"NOTICE TO USER:"`) || !strings.Contains(got.notices[1], "(4 rows)") {
		t.Errorf("notices %q: want the title at line 1, and the 4 trailer rows from line 9", got.notices)
	}
	if got.layout != energyingest.ST104ALayout {
		t.Errorf("layout %v", got.layout)
	}
	// Text after the codes is no end of the list: a code after it is read,
	// the text between codes counted apart.
	got, err = readBACSV(t, "BA Code,Company Name\n0045,Chevron\n,\nDisclaimer text,\nA5D4,Cenovus\nAER,\n")
	if err != nil || len(got.bas) != 2 || got.bas[1].Code != "A5D4" {
		t.Fatalf("ReadBACodes = %v, %v; want 0045 and A5D4", got.bas, err)
	}
	wantSkipped = map[string]int{energyingest.SkipBAEmpty: 1, energyingest.SkipBAText: 1, energyingest.SkipBATrailer: 1}
	if d := cmp.Diff(wantSkipped, got.skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
}

// TestReadBACodesNumericCodes: a register opened in a spreadsheet and saved
// again has its all-digit codes as numbers ("0001" -> 1, "0045" -> 45);
// their zeros are restored, and each is a notice.
func TestReadBACodesNumericCodes(t *testing.T) {
	t.Parallel()
	in := "Title,,\n,,\nBA Code,Company Name,Phone\n,,\n1,177293 Canada Ltd.,x\n45,Chevron,y\nA5D4,Cenovus,z\n"
	var notices ingest.Notices
	var got []string
	err := energyingest.ReadBACodes(strings.NewReader(in), "ba.csv", energyingest.ReadOptions{Notices: &notices}, func(b energyingest.BA) error {
		got = append(got, b.Code+" "+b.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0001 177293 Canada Ltd.", "0045 Chevron", "A5D4 Cenovus"}; !slices.Equal(got, want) {
		t.Errorf("codes = %q, want %q", got, want)
	}
	var restored []string
	for _, l := range notices.Lines() {
		if strings.Contains(l, "leading zeros restored") {
			restored = append(restored, l)
		}
	}
	if len(restored) != 2 || !strings.Contains(restored[0], `ba.csv:5: column BA Code: new value "1"`) {
		t.Errorf("notices = %q, want one per restored code", notices.Lines())
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
		{"bad code", "BA Code,Company Name\n0045,Chevron\nA5,Short\n", 3, []string{"BA Code", `"A5"`, "4-character"}},
		{"long code", "Title,,\n,,\nBA Code,Company Name,Phone\n,,\n12345,177293 Canada Ltd.,x\n", 5, []string{`"12345"`, "4-character"}},
		{"lower case", "BA Code,Company Name\na5d4,Cenovus\n", 2, []string{"4-character"}},
		{"no name", "BA Code,Company Name\n0045,\n", 2, []string{"Company Name", "empty for BA 0045"}},
		{"no name after the trailer", "BA Code,Company Name\n0045,Chevron\nNotice,\nA5D4,\n", 4, []string{"Company Name", "empty for BA A5D4"}},
		{"wrong column count", "BA Code,Company Name\n0045,Chevron,extra\n", 2, []string{"3 fields", "want 2"}},
		{"no name column", "BA Code,Address\n0045,x\n", 1, []string{"no Company Name column"}},
		{"empty", "", 1, []string{"header row"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadBACodes(strings.NewReader(tc.in), "ba.csv", energyingest.ReadOptions{}, func(energyingest.BA) error { return nil })
			wantIngestError(t, err, "ba.csv", tc.line, tc.want...)
		})
	}
}

// PRABAIdentifiers.csv as Petrinex publishes it (columns BAName, BACode,
// CorpStatus, docs/real-layouts.md id 1416037198; every field quoted as in
// Petrinex's other files). The names are invented demo names.
const petrinexBA = "\ufeff\"BACode\",\"BAName\",\"CorpStatus\"\r\n\"0ZZ1\",\"DEMO OPERATOR ONE LTD (INVENTED)\",\"Active\"\r\n" +
	"\"A9Z2\",\"DEMO, OPERATOR TWO (INVENTED)\",\"Amalgamated\"\r\n"

func TestReadBACodesPetrinex(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"quoted":        petrinexBA,
		"other order":   "BAName,CorpStatus,BACode,Extra\nDEMO OPERATOR ONE LTD (INVENTED),Active,0ZZ1,x\n\"DEMO, OPERATOR TWO (INVENTED)\",Amalgamated,A9Z2,y\n",
		"no CorpStatus": "BACode,BAName\n0ZZ1,DEMO OPERATOR ONE LTD (INVENTED)\nA9Z2,\"DEMO, OPERATOR TWO (INVENTED)\"\n",
	} {
		var layouts []ingest.Layout
		var got []energyingest.BA
		err := energyingest.ReadBACodes(strings.NewReader(in), "PRABAIdentifiers.csv", energyingest.ReadOptions{Layout: func(l ingest.Layout) { layouts = append(layouts, l) }}, func(b energyingest.BA) error {
			got = append(got, b)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		status := [2]string{"Active", "Amalgamated"}
		if name == "no CorpStatus" {
			status = [2]string{}
		}
		want := []energyingest.BA{{Code: "0ZZ1", Name: "DEMO OPERATOR ONE LTD (INVENTED)", CorpStatus: status[0]}, {Code: "A9Z2", Name: "DEMO, OPERATOR TWO (INVENTED)", CorpStatus: status[1]}}
		if d := cmp.Diff(want, got); d != "" || len(layouts) != 1 || layouts[0] != energyingest.PetrinexBALayout {
			t.Errorf("%s: layouts %v (-want +got):\n%s", name, layouts, d)
		}
	}
	// The ST104A form says so too.
	var layout ingest.Layout
	if err := energyingest.ReadBACodes(strings.NewReader("BA Code,Company Name\n0045,x\n"), "ba.csv", energyingest.ReadOptions{Layout: func(l ingest.Layout) { layout = l }}, func(energyingest.BA) error { return nil }); err != nil || layout != energyingest.ST104ALayout {
		t.Errorf("ST104A: layout %v, error %v", layout, err)
	}
}

func TestReadBACodesPetrinexRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"no name column", "BACode,CorpStatus\n0045,Active\n", 1, []string{"no BAName column"}},
		{"bad code", "BACode,BAName\n0ZZ1,DEMO\n0ZZ12,DEMO TWO\n", 3, []string{"column BACode", `"0ZZ12"`, "4 upper-case letters or digits"}},
		{"lower case code", "BACode,BAName\na9z2,DEMO\n", 2, []string{"column BACode", `"a9z2"`}},
		{"empty name", "BACode,BAName\n0ZZ1,\n", 2, []string{"BAName", "empty"}},
		{"short row", "BACode,BAName,CorpStatus\n0ZZ1,DEMO\n", 2, []string{"2 fields", "want 3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadBACodes(strings.NewReader(tc.in), "PRABAIdentifiers.csv", energyingest.ReadOptions{}, func(energyingest.BA) error { return nil })
			wantIngestError(t, err, "PRABAIdentifiers.csv", tc.line, tc.want...)
		})
	}
}

func FuzzReadBACodes(f *testing.F) {
	f.Add(petrinexBA)
	f.Add("BA Code,Company Name\r\n0001,177293 Canada Ltd.\r\n0003,\"McGaha, Charles\"\r\n")
	f.Add("Title,,,\n,,,\nBA Code,Company Name,Address,Phone\n0045,Chevron,x,y\n,,,\nDisclaimer\n")
	if b := sampleSeed(baSample); b != nil {
		f.Add(firstLines(b, 30))
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := energyingest.ReadBACodes(strings.NewReader(in), "ba.csv", energyingest.ReadOptions{}, func(b energyingest.BA) error {
			if len(b.Code) != 4 || b.Name == "" {
				t.Fatalf("BA %+v", b)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}
