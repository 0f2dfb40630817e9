package energy_test

import (
	"fmt"
	"testing"
	"time"

	"meridian/shared/energy"
)

func TestWellBucket(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status, mode string
		orphan       bool
		want         energy.Bucket
	}{
		{"Issued      ", "10", false, energy.Active},    // FLOW
		{"Issued", "00", false, energy.Active},          // licensed, not drilled
		{"Amended", "11", false, energy.Active},         // PUMP
		{"Re-Entered", "04", false, energy.Active},      // ABRENT
		{"Issued", "02", false, energy.Abandoned},       // the mode says abandoned
		{"Issued", "01", false, energy.Suspended},       // SUSP
		{"Suspension  ", "07", false, energy.Suspended}, // DRL&C
		{"Abandoned", "03", false, energy.Abandoned},
		{"RecCertified", "02", false, energy.ReclamationCertified},
		{"RecExempt", "02", false, energy.ReclamationCertified},
		{"RecCertified", "02", true, energy.Orphan}, // the orphan flag overrides
		{"Issued", "10", true, energy.Orphan},
		{"Cancelled", "00", false, energy.Unknown},
		{"", "", false, energy.Unknown},
	} {
		if got := energy.WellBucket(c.status, c.mode, c.orphan); got != c.want {
			t.Errorf("WellBucket(%q, %q, %v) = %s, want %s", c.status, c.mode, c.orphan, got, c.want)
		}
	}
	if energy.Orphan.Rank() >= energy.Active.Rank() || energy.Active.Rank() >= energy.ReclamationCertified.Rank() {
		t.Error("status order: orphan before active before reclaimed")
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	for _, c := range []struct {
		expiry    string
		perpetual bool
		state     energy.ExpiryState
		days      int
		ok        bool
	}{
		{"2026-11-20", false, energy.Expired, -1, true},
		{"2026-11-21", false, energy.ExpiresToday, 0, true},
		{"2027-03-01", false, energy.ExpiringSoon, 100, true},
		{"2028-11-21", false, energy.ExpiringSoon, 731, true}, // the last day of the 24-month window
		{"2028-11-22", false, energy.Current, 732, true},
		{"2030-01-01", true, energy.Perpetual, 0, false}, // continued: never expires
		{"", false, "", 0, false},                        // Saskatchewan: no expiry published
	} {
		var e time.Time
		if c.expiry != "" {
			e = day(c.expiry)
		}
		state, days, ok := energy.Expiry(e, c.perpetual, now)
		if state != c.state || days != c.days || ok != c.ok {
			t.Errorf("Expiry(%s, %v) = %s %d %v, want %s %d %v", c.expiry, c.perpetual, state, days, ok, c.state, c.days, c.ok)
		}
	}
	if !(energy.Urgency(energy.ExpiringSoon) < energy.Urgency(energy.Current) && energy.Urgency(energy.Current) < energy.Urgency(energy.Perpetual)) {
		t.Error("urgency: expiring soon, then current, then perpetual")
	}
}

func TestTrailingProduction(t *testing.T) {
	t.Parallel()
	var vols []energy.Volume
	for m := 1; m <= 14; m++ { // 2025-10 .. 2026-11
		month := time.Date(2025, time.Month(9+m), 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
		vols = append(vols, energy.Volume{Month: month, Product: energy.Gas, Value: 100})
		vols = append(vols, energy.Volume{Month: month, Product: energy.Water, Value: 5})
	}
	vols = append(vols,
		energy.Volume{Month: "2026-10", Product: energy.Oil, Value: 30},
		energy.Volume{Month: "2026-10", Product: energy.Oil, Value: -10}, // an amendment
		energy.Volume{Month: "2026-09", Product: energy.Condensate, Confidential: true},
	)
	end := energy.WindowEnd([]string{"2025-10", "2026-11", "2026-03"})
	p := energy.Trailing(vols, end, 12)
	if end != "2026-11" || p.Gas != 1200 || p.Water != 60 || p.Oil != 20 || p.Condensate != 0 || p.ConfidentialMonths != 1 || p.LastProducingMonth != "2026-11" {
		t.Errorf("Trailing = %+v (end %s)", p, end)
	}
	if p.Dominant() != "gas" || !p.Producing() {
		t.Errorf("dominant %q", p.Dominant())
	}
	lsd := p.Add(energy.Trailing([]energy.Volume{{Month: "2026-05", Product: energy.Oil, Value: 2000}}, end, 12))
	if lsd.Oil != 2020 || lsd.Gas != 1200 || lsd.Dominant() != "oil" {
		t.Errorf("LSD roll-up %+v dominant %s", lsd, lsd.Dominant())
	}
	if shut := energy.Trailing([]energy.Volume{{Month: "2024-01", Product: energy.Oil, Value: 9}}, end, 12); shut.Producing() || shut.LastProducingMonth != "" {
		t.Errorf("a well shut in before the window: %+v", shut)
	}
	// 1 e3m3 of gas is 0.9357 m³ of oil equivalent at 6:1.
	if d := (energy.Production{Oil: 94, Gas: 100}).Dominant(); d != "oil" {
		t.Errorf("94 vs 93.6: %s", d)
	}
	if d := (energy.Production{Oil: 93.5, Gas: 100}).Dominant(); d != "gas" {
		t.Errorf("93.5 vs 93.57: %s", d)
	}
}

func TestRollUp(t *testing.T) {
	t.Parallel()
	r := energy.RollUp([]energy.OperatorWell{
		{"Z9A2", energy.Active}, {"Z9A2", energy.Orphan}, {"Z9A2", energy.Orphan}, {"Z9A1", energy.Suspended},
		{"Z9A1", energy.Orphan}, {"Z9B2", energy.ReclamationCertified}, {"Z9B2", energy.Unknown},
	})
	if got := fmt.Sprint(r["Z9A2"]); got != "{3 1 0 0 2 0}" {
		t.Errorf("Z9A2 %s", got)
	}
	if got := fmt.Sprint(energy.SortedBAs(r)); got != "[Z9A2 Z9A1 Z9B2]" {
		t.Errorf("order %s", got)
	}
	if r["Z9B2"].Total != 2 || r["Z9B2"].ReclamationCertified != 1 {
		t.Errorf("Z9B2 %+v", r["Z9B2"])
	}
}

func TestKeysSortAsTheListsDo(t *testing.T) {
	t.Parallel()
	if !(energy.PipeSK(3.5, "b") < energy.PipeSK(0.1, "a") && energy.PipeSK(0.1, "a") < energy.PipeSK(0, "a")) {
		t.Error("pipelines: higher H2S first")
	}
	if !(energy.WellSK(energy.Orphan, "z") < energy.WellSK(energy.Active, "a")) {
		t.Error("wells: orphan first")
	}
	if !(energy.TenureSK("2027-01-01", "9") < energy.TenureSK("2030-01-01", "1") && energy.TenureSK("2030-01-01", "1") < energy.TenureSK("", "0")) {
		t.Error("tenure: soonest first, perpetual last")
	}
	if !(energy.OperatorsSK(12, "B") < energy.OperatorsSK(3, "A")) || !(energy.FootprintSK(40, "x") < energy.FootprintSK(7, "a")) {
		t.Error("operators and footprints: most first")
	}
	for in, want := range map[string]string{"Cenovus Energy Inc.": "cenovus-energy-inc", "  CHEVRON CANADA LIMITED ": "chevron-canada-limited", "Secure Energy (Drilling) Ltd": "secure-energy-drilling-ltd"} {
		if got := energy.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	if energy.Squash("Cenovus Energy Inc.") != "cenovusenergyinc" {
		t.Error("Squash")
	}
}
