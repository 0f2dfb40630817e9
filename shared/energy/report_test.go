package energy_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"meridian/shared/apierr"
	demodata "meridian/shared/demo"
	"meridian/shared/energy"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
)

const demoLSD = "9-10-60-22-W5"

func demoReporter(t *testing.T) *energy.Reporter {
	return energy.NewReporter(energytest.DemoStore(t), grid.New(), demodata.AsOf)
}

// The report assembled without HTTP; the whole bodies are checked against
// goldens by package energyapi.
func TestReport(t *testing.T) {
	t.Parallel()
	rep, err := demoReporter(t).Report(t.Context(), energy.Query{LegalLocation: " 09-10-060-22W5 ", Include: "summary,,Tenure"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.LegalLocation != "09-10-060-22W5" || rep.Province != "AB" || rep.Parcel.AreaHa != 16.21 || rep.Parcel.Geometry != nil {
		t.Errorf("Report = %s %s parcel %+v", rep.LegalLocation, rep.Province, rep.Parcel)
	}
	if rep.Summary == nil || rep.Tenure == nil || rep.Wells != nil || rep.Production != nil || rep.Pipelines != nil {
		t.Fatalf("include summary, tenure: %+v", rep)
	}
	// The domain's rules: the regulator is AB's primary source; the
	// operator with the most wells dominates, named from its INFO item.
	s := rep.Summary
	if s.Wells.PrimarySource != "regulator" || s.Operators.Dominant == nil || *s.Operators.Dominant.BACode != "Z9A1" || s.Operators.Dominant.Name == nil ||
		s.Operators.Dominant.ShareBasis != "regulator_total_wells" || s.Operators.Dominant.WellSharePct != 100 {
		t.Errorf("summary %+v, dominant %+v", s, s.Operators.Dominant)
	}
	// The tenure section is most urgent first.
	if !slices.IsSortedFunc(rep.Tenure.Rows, energy.ByUrgency) || rep.Tenure.Total != 3 {
		t.Errorf("tenure %+v", rep.Tenure)
	}
	if _, ok := rep.Meta.Sources["tenure"]; !ok || len(rep.Meta.Unavailable) != 0 {
		t.Errorf("meta %+v", rep.Meta)
	}
}

func TestReportErrors(t *testing.T) {
	t.Parallel()
	r := demoReporter(t)
	tests := []struct {
		name string
		q    energy.Query
		kind apierr.Kind
		code string
	}{
		{"no location", energy.Query{}, apierr.Invalid, "invalid_parameter"},
		{"quarter", energy.Query{LegalLocation: "NW-25-24-1-W5"}, apierr.Invalid, "invalid_legal_location"},
		{"nts", energy.Query{LegalLocation: "A-2-F/93-P-8"}, apierr.Invalid, "bc_not_supported"},
		// The location is checked before include, as the report always has.
		{"bad location and include", energy.Query{LegalLocation: "NW-25-24-1-W5", Include: "weather"}, apierr.Invalid, "invalid_legal_location"},
		{"bad include", energy.Query{LegalLocation: demoLSD, Include: "weather"}, apierr.Invalid, "invalid_parameter"},
		{"ag section", energy.Query{LegalLocation: demoLSD, Include: "soil"}, apierr.Invalid, "invalid_parameter"},
		{"only commas", energy.Query{LegalLocation: demoLSD, Include: ","}, apierr.Invalid, "invalid_parameter"},
		{"no data", energy.Query{LegalLocation: "1-1-1-1-W4"}, apierr.NotFound, "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := r.Report(t.Context(), tc.q)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Kind != tc.kind || ae.Code != tc.code {
				t.Errorf("Report(%+v) = %v, want %s", tc.q, err, tc.code)
			}
		})
	}
	// Nothing published: 503, after the location is checked.
	_, err := energy.NewReporter(kv.NewMem(), grid.New(), nil).Report(t.Context(), energy.Query{LegalLocation: demoLSD})
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Kind != apierr.Unavailable {
		t.Errorf("Report on an empty store = %v, want Unavailable", err)
	}
}

func TestByUrgency(t *testing.T) {
	t.Parallel()
	day := func(s string) *string { return &s }
	rows := []energy.TenureRow{
		{ID: "perpetual", ExpiryState: energy.Perpetual},
		{ID: "expired", ExpiryState: energy.Expired, ExpiryDate: day("2020-01-01")},
		{ID: "active-later", ExpiryState: energy.Current, ExpiryDate: day("2030-01-01")},
		{ID: "active-b", ExpiryState: energy.Current, ExpiryDate: day("2029-01-01")},
		{ID: "active-a", ExpiryState: energy.Current, ExpiryDate: day("2029-01-01")},
		{ID: "soon", ExpiryState: energy.ExpiringSoon, ExpiryDate: day("2027-02-01")},
		{ID: "today", ExpiryState: energy.ExpiresToday, ExpiryDate: day("2027-01-01")},
		{ID: "undated", ExpiryState: energy.Current},
	}
	slices.SortStableFunc(rows, energy.ByUrgency)
	var got []string
	for _, r := range rows {
		got = append(got, r.ID)
	}
	want := []string{"today", "soon", "active-a", "active-b", "active-later", "undated", "expired", "perpetual"}
	if !slices.Equal(got, want) {
		t.Errorf("ByUrgency order = %v, want %v", got, want)
	}
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	if r := energy.WithExpiry(energy.TenureRow{ExpiryDate: day("2027-01-01")}, now); r.ExpiryState != energy.ExpiresToday || r.DaysToExpiry == nil || *r.DaysToExpiry != 0 {
		t.Errorf("WithExpiry(today) = %v %v", r.ExpiryState, r.DaysToExpiry)
	}
}
