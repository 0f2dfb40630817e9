package energyingest_test

import (
	"strings"
	"testing"

	"meridian/shared/energy/energyingest"
	"meridian/shared/lld"
)

// The examples of docs/data-sources.md §0.1.
var uwiPairs = []struct{ display, uwi16 string }{
	{"00/07-19-010-15W4/0", "100071901015W400"},
	{"F1/06-06-001-01W4/0", "1F1060600101W400"},
	{"00/06-06-001-01W4/0", "100060600101W400"},
	{"AA/12-04-062-20W5/0", "1AA120406220W500"},
	{"00/04-22-056-18W5/2", "100042205618W502"},
	{"02/16-09-010-09W1/0", "102160901009W100"},
}

func TestUWI16(t *testing.T) {
	t.Parallel()
	for _, tc := range uwiPairs {
		got, err := energyingest.UWI16(tc.display)
		if err != nil || got != tc.uwi16 {
			t.Errorf("UWI16(%q) = %q, %v; want %q", tc.display, got, err, tc.uwi16)
		}
		back, err := energyingest.DisplayUWI(tc.uwi16)
		if err != nil || back != tc.display {
			t.Errorf("DisplayUWI(%q) = %q, %v; want %q", tc.uwi16, back, err, tc.display)
		}
		// lld reads both spellings as the same well.
		if u, err := lld.ParseUWI(tc.display); err != nil || u.String() != tc.uwi16 {
			t.Errorf("lld.ParseUWI(%q) = %v, %v; want %s", tc.display, u, err, tc.uwi16)
		}
	}
	if got, err := energyingest.DisplayUWI("ABWI100042205618W502"); err != nil || got != "00/04-22-056-18W5/2" {
		t.Errorf("DisplayUWI(ABWI100042205618W502) = %q, %v", got, err)
	}
}

// TestUWISwap shows the trap: with the location exception and the event
// swapped, a well still converts but to another well.
func TestUWISwap(t *testing.T) {
	t.Parallel()
	got, err := energyingest.UWI16("00/06-06-001-01W4/2")
	if err != nil || got == "102060600101W400" || got != "100060600101W402" {
		t.Errorf("UWI16(00/06-06-001-01W4/2) = %q, %v; want the event trailing: 100060600101W402", got, err)
	}
}

func TestUWIRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "0/06-06-001-01W4/0", "00/06-06-001-01W4/10", "00/06-06-001-01w4/0", "00/06-37-001-01W4/0",
		"00/06-06-000-01W4/0", "00/06-06-001-35W4/0", "00/06-06-001-01W7/0", "0f/06-06-001-01W4/0", "00-06-06-001-01W4-0"} {
		if got, err := energyingest.UWI16(s); err == nil {
			t.Errorf("UWI16(%q) = %q, want an error", s, got)
		}
	}
	for _, s := range []string{"", "200D080H092G0300", "100071901015W4000", "100071901015E400", "100171901015W400", "ABWI10007190101W400", "100071901015W410"} {
		if got, err := energyingest.DisplayUWI(s); err == nil {
			t.Errorf("DisplayUWI(%q) = %q, want an error", s, got)
		}
	}
}

func FuzzUWI(f *testing.F) {
	for _, p := range uwiPairs {
		f.Add(p.display)
		f.Add(p.uwi16)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if u, err := energyingest.UWI16(s); err == nil {
			if d, err := energyingest.DisplayUWI(u); err != nil || d != s {
				t.Fatalf("DisplayUWI(UWI16(%q) = %q) = %q, %v", s, u, d, err)
			}
		}
		if d, err := energyingest.DisplayUWI(s); err == nil {
			u, err := energyingest.UWI16(d)
			if err != nil || !strings.HasSuffix(s, u) {
				t.Fatalf("UWI16(DisplayUWI(%q) = %q) = %q, %v", s, d, u, err)
			}
		}
	})
}
