package energyingest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/energy/energyingest"
	"meridian/shared/ingest"
	"meridian/shared/lld"
)

func readWells(t testing.TB, in string) []energyingest.Well {
	t.Helper()
	var ws []energyingest.Well
	if err := energyingest.ReadWellList(strings.NewReader(in), "WellList.txt", func(w energyingest.Well) error {
		ws = append(ws, w)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ws
}

func mustLLD(t testing.TB, s string) lld.Location {
	t.Helper()
	l, err := lld.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// The first two rows of the real sample, as in docs/data-sources.md §1.
const st37Rows = "00/06-06-001-01W4/0\t0014010606000\t \tCMG PCGAS WILDHORSE 6-6-1-1         \t0998\t0000000\t    \t0000000\t 0065081 \tRecCertified\t19770803\tA5D40\t     \t     \t19770820\t 1204.00\t0002000000\t19770824\r\n" +
	"F1/06-06-001-01W4/0\t0014010606F10\t \tHEYLAUFF WILDHORSE DW 6-6-1-1       \t0961\t0158098\t    \t0000000\t 0078503 \tIssued      \t19791009\t0FF30\t     \t     \t19770820\t 1205.00\t0600080000\t19770822\r\n"

func TestReadWellListRows(t *testing.T) {
	t.Parallel()
	ws := readWells(t, st37Rows)
	want := []energyingest.Well{{
		UWI: "00/06-06-001-01W4/0", LE: "00", Location: mustLLD(t, "6-6-1-1-W4"), Event: 0,
		Key: "0014010606000", Name: "CMG PCGAS WILDHORSE 6-6-1-1", FieldCode: "0998", PoolCode: "0000000",
		OilSandsDeposit: "0000000", Licence: "0065081", LicenceStatus: "RecCertified",
		LicenceIssueDate: day(1977, 8, 3), LicenseeBA: "A5D4", FinalDrillDate: day(1977, 8, 20), TotalDepth: 1204,
		Status:     energyingest.WellStatus{Code: "0002000000", Mode: 2},
		StatusDate: day(1977, 8, 24), Columns: 18,
	}, {
		UWI: "F1/06-06-001-01W4/0", LE: "F1", Location: mustLLD(t, "6-6-1-1-W4"), Event: 0,
		Key: "0014010606F10", Name: "HEYLAUFF WILDHORSE DW 6-6-1-1", FieldCode: "0961", PoolCode: "0158098",
		OilSandsDeposit: "0000000", Licence: "0078503", LicenceStatus: "Issued",
		LicenceIssueDate: day(1979, 10, 9), LicenseeBA: "0FF3", FinalDrillDate: day(1977, 8, 20), TotalDepth: 1205,
		Status:     energyingest.WellStatus{Code: "0600080000", Fluid: 6, Type: 8},
		StatusDate: day(1977, 8, 22), Columns: 18,
	}}
	if d := cmp.Diff(want, ws); d != "" {
		t.Errorf("ReadWellList (-want +got):\n%s", d)
	}
	if got := ws[1].UWI16(); got != "1F1060600101W400" {
		t.Errorf("UWI16 = %q, want 1F1060600101W400", got)
	}
	if got := ws[1].Status.Short(energyingest.Fluid) + " " + ws[1].Status.Short(energyingest.Type); got != "WATER FARM" {
		t.Errorf("Short = %q, want WATER FARM", got)
	}
}

// TestReadWellListSample reads the real 2,500-row excerpt of April 2017.
func TestReadWellListSample(t *testing.T) {
	t.Parallel()
	f := openSample(t, st37Sample)
	n := 0
	status := map[string]int{}
	les := map[string]int{}
	notDrilled, alnumLicence, events := 0, 0, 0
	var prevKey string
	err := energyingest.ReadWellList(f, "WellList_2017-04_excerpt.txt", func(w energyingest.Well) error {
		n++
		status[w.LicenceStatus]++
		les[w.LE]++
		if w.FinalDrillDate.IsZero() {
			notDrilled++
		}
		if !allDigits(w.Licence) {
			alnumLicence++
		}
		if w.Event > 0 {
			events++
		}
		if w.Columns != 18 {
			t.Errorf("%s: %d columns", w.UWI, w.Columns)
		}
		if w.Key <= prevKey && n != 2001 { // rows 1-2000 and 5001-5500: each run sorted
			t.Errorf("%s: key %s not after %s", w.UWI, w.Key, prevKey)
		}
		prevKey = w.Key
		u := w.UWI16()
		if d, err := energyingest.DisplayUWI(u); err != nil || d != w.UWI {
			t.Errorf("DisplayUWI(%s) = %q, %v; want %s", u, d, err, w.UWI)
		}
		if l, err := lld.ParseUWI(w.UWI); err != nil || l.String() != u || l.Location != w.Location {
			t.Errorf("lld.ParseUWI(%s) = %v, %v; want %s at %s", w.UWI, l, err, u, w.Location)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2500 {
		t.Errorf("%d wells, want 2500", n)
	}
	wantStatus := map[string]int{"Abandoned": 297, "Amended": 102, "Issued": 614, "Re-Entered": 25,
		"RecCertified": 814, "RecExempt": 247, "Suspension": 401}
	if d := cmp.Diff(wantStatus, status); d != "" {
		t.Errorf("licence statuses (-want +got):\n%s", d)
	}
	// Alphanumeric location exceptions are ~6% of the excerpt: a
	// digits-only rule would drop them.
	if les["00"] != 2027 || les["F1"] != 50 || les["W0"] != 32 || les["A0"] != 14 || len(les) != 17 {
		t.Errorf("location exceptions %v", les)
	}
	if notDrilled != 8 || alnumLicence != 182 || events != 519 {
		t.Errorf("%d not drilled, %d alphanumeric licences, %d events > 0; want 8, 182, 519", notDrilled, alnumLicence, events)
	}
}

// TestReadWellList24Columns reads the current layout: the 18 columns plus
// the short descriptions and scheme type and subtype.
func TestReadWellList24Columns(t *testing.T) {
	t.Parallel()
	in := strings.ReplaceAll(st37Rows, "19770824\r\n", "19770824\tN/A\tABD\tN/A\tN/A\t\t\r\n")
	in = strings.ReplaceAll(in, "19770822\r\n", "19770822\tWATER\tN/A\tFARM\tN/A\tSCHEME\tSUB\r\n")
	ws := readWells(t, in)
	if len(ws) != 2 || ws[0].Columns != 24 || ws[0].ModeShort != "ABD" || ws[1].TypeShort != "FARM" || ws[1].SchemeSubType != "SUB" {
		t.Errorf("24-column rows = %+v", ws)
	}
}

func TestReadWellListLatin1(t *testing.T) {
	t.Parallel()
	in := strings.Replace(st37Rows, "CMG PCGAS", "CMG C\xd4T\xc9", 1)
	if ws := readWells(t, in); ws[0].Name != "CMG CÔTÉ WILDHORSE 6-6-1-1" {
		t.Errorf("Name = %q", ws[0].Name)
	}
}

// TestReadWellListTextRows: text around the list (a title, a tool's
// "records selected" line, a trailer), empty lines and CRLF are not wells:
// skipped and counted, never the end of the list; the wells after them are
// read.
func TestReadWellListTextRows(t *testing.T) {
	t.Parallel()
	rows := strings.SplitAfter(st37Rows, "\n")
	in := "List of Wells in Alberta\r\n\r\n" + rows[0] + "\r\n" + "2 records selected\r\n" + rows[1] + "End of report\r\n"
	var notices ingest.Notices
	skipped := map[string]int{}
	var got []string
	err := energyingest.ReadWellListWith(strings.NewReader(in), "WellList.txt",
		energyingest.ReadOptions{Notices: &notices, Skip: func(r string) { skipped[r]++ }},
		func(w energyingest.Well) error { got = append(got, w.UWI); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || skipped[energyingest.SkipST37Text] != 3 {
		t.Errorf("wells %q, skipped %v; want 2 wells and 3 text rows", got, skipped)
	}
	if l := notices.Lines(); len(l) != 1 || !strings.Contains(l[0], `WellList.txt:1: column UWI: new value "List of Wells in Alberta"`) {
		t.Errorf("notices = %q, want one for the first text row", l)
	}
}

func TestReadWellListRejects(t *testing.T) {
	t.Parallel()
	row := strings.SplitAfter(st37Rows, "\n")[0]
	second := strings.SplitAfter(st37Rows, "\n")[1]
	cases := []struct {
		name string
		in   string
		line int
		want []string
	}{
		{"17 columns", second + strings.Replace(row, "\t0998", "", 1), 2, []string{"17 tab-separated columns", "want 18"}},
		{"mixed layouts", row + strings.Replace(second, "\r\n", "\ta\tb\tc\td\te\tf\r\n", 1), 2, []string{"24 columns", "first row has 18"}},
		{"bad UWI", strings.Replace(row, "00/06-06-001-01W4/0", "00/06-06-001-01W4/A", 1), 1, []string{"UWI-DISPLAY-FORMAT", "not a display UWI"}},
		{"LSD out of range", strings.Replace(row, "00/06-06-001", "00/17-06-001", 1), 1, []string{"LSD 17 is out of range"}},
		{"key mismatch", strings.Replace(row, "0014010606000", "0014010606002", 1), 1, []string{"KEY-LIST-OF-WELLS", "does not match"}},
		{"bad date", strings.Replace(row, "19770803", "19771303", 1), 1, []string{"column 11 LICENSE-ISSUE-DATE", "not a valid date"}},
		{"dashed date", strings.Replace(row, "19770803", "1977-8-3", 1), 1, []string{"LICENSE-ISSUE-DATE", "not a YYYYMMDD date"}},
		{"bad depth", strings.Replace(row, " 1204.00", " 12O4.00", 1), 1, []string{"WELL-TOTAL-DEPTH"}},
		{"bad status", strings.Replace(row, "0002000000", "000200000", 1), 1, []string{"WELL-STAT-CODE", "10-digit"}},
		{"bad BA", strings.Replace(row, "A5D40", "A5-40", 1), 1, []string{"LICENSEE-CODE"}},
		{"empty licence", strings.Replace(row, " 0065081 ", "         ", 1), 1, []string{"LICENSE-NO"}},
		{"line 3", st37Rows + "\n" + strings.Replace(row, "0998", "99x8", 1), 4, []string{"FIELD-CODE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := energyingest.ReadWellList(strings.NewReader(tc.in), "WellList.txt", func(energyingest.Well) error { return nil })
			wantIngestError(t, err, "WellList.txt", tc.line, tc.want...)
		})
	}
}

func TestReadWellListCallbackError(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	n := 0
	err := energyingest.ReadWellList(strings.NewReader(st37Rows), "WellList.txt", func(energyingest.Well) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("ReadWellList = %v after %d wells, want the callback's error after 1", err, n)
	}
}

func FuzzReadWellList(f *testing.F) {
	f.Add(st37Rows)
	f.Add(strings.ReplaceAll(st37Rows, "\r\n", "\tN/A\tABD\tN/A\tN/A\t\t\n"))
	if b := sampleSeed(st37Sample); b != nil {
		f.Add(firstLines(b, 20))
	}
	f.Add("\n\n\x1a")
	f.Fuzz(func(t *testing.T, in string) {
		err := energyingest.ReadWellList(strings.NewReader(in), "WellList.txt", func(w energyingest.Well) error {
			if w.Columns != 18 && w.Columns != 24 || w.Location.Unit != lld.LSD || len(w.LE) != 2 {
				t.Fatalf("well %+v", w)
			}
			if _, err := energyingest.DisplayUWI(w.UWI16()); err != nil {
				t.Fatalf("DisplayUWI(%s): %v", w.UWI16(), err)
			}
			return nil
		})
		checkFuzzError(t, err, 1)
	})
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
