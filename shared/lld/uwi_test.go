package lld_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/lld"
	"meridian/shared/teamdata"
)

// uwiTests are accepted UWIs with their value and 16-character form.
// FuzzParseUWI seeds from them.
var uwiTests = []struct {
	name    string
	in      string
	want    lld.UWI
	compact string
}{
	{"display", "100/06-32-048-07W5/00", lld.UWI{Survey: '1', LE: "00", Location: lsd(6, 32, 48, 7, lld.W5), Event: "00"}, "100063204807W500"},
	{"display no survey one digit event", "00/06-06-001-01W4/0", lld.UWI{Survey: '1', LE: "00", Location: lsd(6, 6, 1, 1, lld.W4), Event: "00"}, "100060600101W400"},
	{"display LE F1", "F1/06-06-001-01W4/0", lld.UWI{Survey: '1', LE: "F1", Location: lsd(6, 6, 1, 1, lld.W4), Event: "00"}, "1F1060600101W400"},
	{"display LE AA", "AA/12-04-062-20W5/0", lld.UWI{Survey: '1', LE: "AA", Location: lsd(12, 4, 62, 20, lld.W5), Event: "00"}, "1AA120406220W500"},
	{"display LE 02 event 2", "02/01-22-035-24W4/2", lld.UWI{Survey: '1', LE: "02", Location: lsd(1, 22, 35, 24, lld.W4), Event: "02"}, "102012203524W402"},
	{"display survey LE F1", "1F1/06-06-001-01W4/00", lld.UWI{Survey: '1', LE: "F1", Location: lsd(6, 6, 1, 1, lld.W4), Event: "00"}, "1F1060600101W400"},
	{"display lower case", "1w0/06-06-001-01w4/00", lld.UWI{Survey: '1', LE: "W0", Location: lsd(6, 6, 1, 1, lld.W4), Event: "00"}, "1W0060600101W400"},
	{"display E1", "100/01-01-001-01E1/00", lld.UWI{Survey: '1', LE: "00", Location: lsd(1, 1, 1, 1, lld.E1), Event: "00"}, "100010100101E100"},
	{"manitoba dotted", "100.16-09-010-09W1.00", lld.UWI{Survey: '1', LE: "00", Location: lsd(16, 9, 10, 9, lld.W1), Event: "00"}, "100160901009W100"},
	{"compact", "100103604203W500", lld.UWI{Survey: '1', LE: "00", Location: lsd(10, 36, 42, 3, lld.W5), Event: "00"}, "100103604203W500"},
	{"compact LE F1", "1F1060600101W400", lld.UWI{Survey: '1', LE: "F1", Location: lsd(6, 6, 1, 1, lld.W4), Event: "00"}, "1F1060600101W400"},
	{"compact 2", "100071901015W400", lld.UWI{Survey: '1', LE: "00", Location: lsd(7, 19, 10, 15, lld.W4), Event: "00"}, "100071901015W400"},
	{"compact lower case", "1f1060600101w402", lld.UWI{Survey: '1', LE: "F1", Location: lsd(6, 6, 1, 1, lld.W4), Event: "02"}, "1F1060600101W402"},
	{"petrinex", "ABWI100042205618W502", lld.UWI{Survey: '1', LE: "00", Location: lsd(4, 22, 56, 18, lld.W5), Event: "02"}, "100042205618W502"},
	{"petrinex SK", "SKWI100042205618W302", lld.UWI{Survey: '1', LE: "00", Location: lsd(4, 22, 56, 18, lld.W3), Event: "02"}, "100042205618W302"},
	{"nts compact", "200D080H092G0300", lld.UWI{Survey: '2', LE: "00", Location: ntsQuarter('D', 80, 'H', 92, 'G', 3), Event: "00"}, "200D080H092G0300"},
	{"nts display", "200/D-080-H/092-G-03/00", lld.UWI{Survey: '2', LE: "00", Location: ntsQuarter('D', 80, 'H', 92, 'G', 3), Event: "00"}, "200D080H092G0300"},
	{"nts compact lower case", "202a045d094b1601", lld.UWI{Survey: '2', LE: "02", Location: ntsQuarter('A', 45, 'D', 94, 'B', 16), Event: "01"}, "202A045D094B1601"},
	{"messy", "\u00a0100/06\u201332\u2013048\u201307W5/00 (MONARCH)", lld.UWI{Survey: '1', LE: "00", Location: lsd(6, 32, 48, 7, lld.W5), Event: "00"}, "100063204807W500"},
}

func TestParseUWI(t *testing.T) {
	t.Parallel()
	for _, tc := range uwiTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := lld.ParseUWI(tc.in)
			if err != nil {
				t.Fatalf("ParseUWI(%q) error: %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseUWI(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if s := got.String(); s != tc.compact {
				t.Errorf("ParseUWI(%q).String() = %q, want %q", tc.in, s, tc.compact)
			}
			if back, err := lld.ParseUWI(tc.compact); err != nil || back != tc.want {
				t.Errorf("ParseUWI(%q) = %+v, %v, want %+v", tc.compact, back, err, tc.want)
			}
			if l, err := lld.Parse(tc.in); err != nil || l != tc.want.Location {
				t.Errorf("Parse(%q) = %v, %v, want %v", tc.in, l, err, tc.want.Location)
			}
		})
	}
}

func TestParseUWIErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "legal location is empty"},
		{"quarter section", "NW-25-24-1-W5", `"NW-25-24-1-W5" is not a UWI; examples: 100/06-32-048-07W5/00`},
		{"lsd without LE and event", "06-32-048-07W5", "is not a UWI"},
		{"display without event", "100/06-32-048-07W5", "is not a UWI"},
		{"display event of 3 digits", "100/06-32-048-07W5/000", "is not a UWI"},
		{"compact 15 characters", "10010360420W500", "is not a UWI"},
		{"compact bad meridian letter", "100103604203X500", "is not a UWI"},
		{"petrinex bad province", "XXWI100042205618W502", "is not a UWI"},
		{"survey 3", "300/06-32-048-07W5/00", "UWI survey system 3 is not supported"},
		{"section location", "100/25-24-1-W5/00", "UWI location 25-24-1-W5 is a section"},
		{"extra text in location", "100/06-32-048-07W5 Athabasca/00", `UWI location "06-32-048-07W5 Athabasca" has extra text`},
		{"survey mismatch", "100/A-2-F/93-P-8/00", "UWI survey system 1 does not match its NTS location A-2-F/93-P-8"},
		{"LSD out of range", "100/17-32-048-07W5/00", "LSD 17 is out of range: LSDs are 1-16"},
		{"compact township 0", "100063200007W500", "township 0 is out of range"},
		{"compact meridian E3", "100063204807E300", "meridian E3 is not valid"},
		{"nts compact unit 0", "200D000H092G0300", "unit 0 is out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := lld.ParseUWI(tc.in)
			if err == nil {
				t.Fatalf("ParseUWI(%q) = %+v, want error containing %q", tc.in, got, tc.want)
			}
			checkError(t, "ParseUWI", tc.in, err, tc.want)
		})
	}
}

func TestUWIStringZero(t *testing.T) {
	t.Parallel()
	if s := (lld.UWI{}).String(); s != "" {
		t.Errorf("UWI{}.String() = %q, want \"\"", s)
	}
}

// TestParseUWIST37 parses the display UWIs of a real AER ST37 excerpt and
// checks every part against the file's own sort key, KEY-LIST-OF-WELLS:
// township (3), meridian (1), range (2), section (2), LSD (2), location
// exception (2), event (1). The LE is leading and the event trailing; a
// parser that swaps them fails here.
func TestParseUWIST37(t *testing.T) {
	t.Parallel()
	les := map[string]bool{}
	// WellList.txt has no header row: every row is a well.
	for _, row := range teamdata.Rows(t, "samples/aer-st37/WellList_2017-04_excerpt.txt", '\t') {
		if len(row) < 2 {
			t.Fatalf("short ST37 row %q", row)
		}
		display, key := row[0], row[1]
		if len(key) != 13 {
			t.Fatalf("ST37 row %q: KEY-LIST-OF-WELLS %q is not 13 characters", display, key)
		}
		u, err := lld.ParseUWI(display)
		if err != nil {
			t.Errorf("ParseUWI(%q) error: %v", display, err)
			continue
		}
		l := u.Location
		got := pad(l.Township, 3) + string('0'+byte(l.Meridian.Number())) + pad(l.Range, 2) + pad(l.Section, 2) + pad(l.LSD, 2) + u.LE + u.Event[1:]
		if got != key || u.Event[0] != '0' || u.Survey != '1' {
			t.Errorf("ParseUWI(%q) = %+v, key %q, want key %q", display, u, got, key)
		}
		if back, err := lld.ParseUWI(u.String()); err != nil || back != u {
			t.Errorf("ParseUWI(%q) = %+v, %v, want %+v", u.String(), back, err, u)
		}
		les[u.LE] = true
	}
	// The excerpt has alphanumeric location exceptions; make sure they
	// were read, not only "00".
	for _, le := range []string{"00", "02", "F1", "W0", "A0", "S0"} {
		if !les[le] {
			t.Errorf("no UWI with LE %q in the ST37 excerpt", le)
		}
	}
}

func pad(v uint8, width int) string {
	s := strings.Repeat("0", width) + string(rune('0'+v/100)) + string(rune('0'+v/10%10)) + string(rune('0'+v%10))
	return s[len(s)-width:]
}

// TestParseUWIPetrinex parses real Petrinex well IDs: the 16-character UWI
// after "ABWI".
func TestParseUWIPetrinex(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, id := range teamdata.Column(t, "samples/petrinex/NGL_AB_marketable_gas_volumes_excerpt.csv", ',', "WellID") {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		u, err := lld.ParseUWI(id)
		if err != nil {
			t.Errorf("ParseUWI(%q) error: %v", id, err)
			continue
		}
		if got, want := u.String(), id[4:]; got != want {
			t.Errorf("ParseUWI(%q).String() = %q, want %q", id, got, want)
		}
	}
}
