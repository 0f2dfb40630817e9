package energyingest_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/energy/energyingest"
	"meridian/shared/teamdata"
)

// TestStatusCodesMatchSample checks the embedded code tables against the
// CSVs transcribed from AER's layout document.
func TestStatusCodesMatchSample(t *testing.T) {
	t.Parallel()
	for _, p := range []energyingest.StatusPart{energyingest.Fluid, energyingest.Mode, energyingest.Type, energyingest.Structure} {
		t.Run(p.String(), func(t *testing.T) {
			rows := teamdata.Rows(t, "samples/aer-st37/well_status_codes_"+p.String()+".csv", ',')
			if d := cmp.Diff([]string{"Value", "Short Description", "Description"}, rows[0]); d != "" {
				t.Fatalf("header (-want +got):\n%s", d)
			}
			var want []energyingest.Code
			for _, r := range rows[1:] {
				v, err := strconv.Atoi(r[0])
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, energyingest.Code{Value: v, Short: r[1], Description: r[2]})
			}
			if d := cmp.Diff(want, p.Codes()); d != "" {
				t.Errorf("%s codes (-sample +embedded):\n%s", p, d)
			}
		})
	}
}

func TestStatusCodes(t *testing.T) {
	t.Parallel()
	sizes := map[energyingest.StatusPart]int{energyingest.Fluid: 44, energyingest.Mode: 18, energyingest.Type: 14, energyingest.Structure: 6}
	for p, n := range sizes {
		if got := len(p.Codes()); got != n {
			t.Errorf("%s: %d codes, want %d", p, got, n)
		}
	}
	for _, tc := range []struct {
		p     energyingest.StatusPart
		v     int
		short string
	}{
		{energyingest.Fluid, 1, "CR-OIL"}, {energyingest.Fluid, 17, "CR-BIT"}, {energyingest.Fluid, 18, "COND"}, {energyingest.Fluid, 25, "SHG"},
		{energyingest.Mode, 1, "SUSP"}, {energyingest.Mode, 10, "FLOW"}, {energyingest.Mode, 14, "ABDWHP"}, {energyingest.Mode, 17, "PRESET"},
		{energyingest.Type, 3, "INJ"}, {energyingest.Type, 12, "SAGD"}, {energyingest.Structure, 5, "COMMIN"},
	} {
		if c, ok := tc.p.Lookup(tc.v); !ok || c.Short != tc.short {
			t.Errorf("%s.Lookup(%d) = %v, %v; want %s", tc.p, tc.v, c, ok, tc.short)
		}
	}
	if _, ok := energyingest.Fluid.Lookup(21); ok {
		t.Error("fluid 21 is not in the table")
	}
	codes := energyingest.Mode.Codes()
	codes[0].Short = "changed"
	if c, _ := energyingest.Mode.Lookup(0); c.Short != "N/A" {
		t.Error("Codes returned the table itself, not a copy")
	}
	s := energyingest.WellStatus{Fluid: 21, Mode: 11}
	if s.Short(energyingest.Fluid) != "21" || s.Short(energyingest.Mode) != "PUMP" {
		t.Errorf("Short = %s %s", s.Short(energyingest.Fluid), s.Short(energyingest.Mode))
	}
}
