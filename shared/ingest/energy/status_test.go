package energy_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/ingest/energy"
	"meridian/shared/teamdata"
)

// TestStatusCodesMatchSample checks the embedded code tables against the
// CSVs transcribed from AER's layout document.
func TestStatusCodesMatchSample(t *testing.T) {
	t.Parallel()
	for _, p := range []energy.StatusPart{energy.Fluid, energy.Mode, energy.Type, energy.Structure} {
		t.Run(p.String(), func(t *testing.T) {
			rows := teamdata.Rows(t, "samples/aer-st37/well_status_codes_"+p.String()+".csv", ',')
			if d := cmp.Diff([]string{"Value", "Short Description", "Description"}, rows[0]); d != "" {
				t.Fatalf("header (-want +got):\n%s", d)
			}
			var want []energy.Code
			for _, r := range rows[1:] {
				v, err := strconv.Atoi(r[0])
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, energy.Code{Value: v, Short: r[1], Description: r[2]})
			}
			if d := cmp.Diff(want, p.Codes()); d != "" {
				t.Errorf("%s codes (-sample +embedded):\n%s", p, d)
			}
		})
	}
}

func TestStatusCodes(t *testing.T) {
	t.Parallel()
	sizes := map[energy.StatusPart]int{energy.Fluid: 44, energy.Mode: 18, energy.Type: 14, energy.Structure: 6}
	for p, n := range sizes {
		if got := len(p.Codes()); got != n {
			t.Errorf("%s: %d codes, want %d", p, got, n)
		}
	}
	for _, tc := range []struct {
		p     energy.StatusPart
		v     int
		short string
	}{
		{energy.Fluid, 1, "CR-OIL"}, {energy.Fluid, 17, "CR-BIT"}, {energy.Fluid, 18, "COND"}, {energy.Fluid, 25, "SHG"},
		{energy.Mode, 1, "SUSP"}, {energy.Mode, 10, "FLOW"}, {energy.Mode, 14, "ABDWHP"}, {energy.Mode, 17, "PRESET"},
		{energy.Type, 3, "INJ"}, {energy.Type, 12, "SAGD"}, {energy.Structure, 5, "COMMIN"},
	} {
		if c, ok := tc.p.Lookup(tc.v); !ok || c.Short != tc.short {
			t.Errorf("%s.Lookup(%d) = %v, %v; want %s", tc.p, tc.v, c, ok, tc.short)
		}
	}
	if _, ok := energy.Fluid.Lookup(21); ok {
		t.Error("fluid 21 is not in the table")
	}
	codes := energy.Mode.Codes()
	codes[0].Short = "changed"
	if c, _ := energy.Mode.Lookup(0); c.Short != "N/A" {
		t.Error("Codes returned the table itself, not a copy")
	}
	s := energy.WellStatus{Fluid: 21, Mode: 11}
	if s.Short(energy.Fluid) != "21" || s.Short(energy.Mode) != "PUMP" {
		t.Errorf("Short = %s %s", s.Short(energy.Fluid), s.Short(energy.Mode))
	}
}
