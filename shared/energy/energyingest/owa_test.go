package energyingest_test

import (
	"testing"

	"meridian/shared/energy/energyingest"
)

// The Site Name spellings of docs/data-sources.md §4.3.
func TestParseSiteName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, loc, qualifier, suffix string
	}{
		{"01-01-002-19W4 (100)", "1-1-2-19-W4", "100", ""},
		{"06-26-019-27W4 (100) - WIPA", "6-26-19-27-W4", "100", "WIPA"},
		{"01-28-020-27W4 (Facility)", "1-28-20-27-W4", "Facility", ""},
		{"06-36-018-26W4 (Multi) - MIXED", "6-36-18-26-W4", "Multi", "MIXED"},
		{"12-04-062-20W5 (1AA)", "12-4-62-20-W5", "1AA", ""},
		{"12-04-062-20W5", "12-4-62-20-W5", "", ""},
	}
	for _, tc := range cases {
		l, q, s, err := energyingest.ParseSiteName(tc.in)
		if err != nil || l != mustLLD(t, tc.loc) || q != tc.qualifier || s != tc.suffix {
			t.Errorf("ParseSiteName(%q) = %v, %q, %q, %v; want %s, %q, %q", tc.in, l, q, s, err, tc.loc, tc.qualifier, tc.suffix)
		}
	}
	if le, ok := (energyingest.OrphanSite{Qualifier: "102"}).LE(); !ok || le != "02" {
		t.Errorf("LE of (102) = %q, %v", le, ok)
	}
	if _, ok := (energyingest.OrphanSite{Qualifier: "Facility"}).LE(); ok {
		t.Error("(Facility) has no location exception")
	}
	for _, bad := range []string{"", "Site 1 (100)", "01-062-19W5 (100)", "01-01-002-19W4 (100", "NW-1-2-19-W4 (100)"} {
		if _, _, _, err := energyingest.ParseSiteName(bad); err == nil {
			t.Errorf("ParseSiteName(%q) accepted", bad)
		}
	}
}
