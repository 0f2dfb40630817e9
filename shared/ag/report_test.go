package ag_test

import (
	"errors"
	"testing"

	"meridian/shared/ag"
	"meridian/shared/ag/agtest"
	"meridian/shared/apierr"
	"meridian/shared/report"
	"meridian/shared/survey/grid"
)

// The report assembled without HTTP; the whole bodies are checked against
// goldens by package agapi.
func TestReport(t *testing.T) {
	t.Parallel()
	r := ag.NewReporter(agtest.DemoStore(t), grid.New())
	rep, err := r.Report(t.Context(), ag.Query{LegalLocation: "10-25-24-1-W5", Include: "soil,,Drought, geometry"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Resolved != "NE-25-24-1-W5" || rep.Grain != "lsd" || rep.Province != "AB" {
		t.Errorf("Report = %s %s %s", rep.Resolved, rep.Grain, rep.Province)
	}
	if rep.Soil == nil || rep.Drought == nil || rep.Cropping != nil || rep.ProvincialDetail != nil || rep.Parcel.Geometry == nil {
		t.Errorf("include soil, drought, geometry: soil %s drought %s cropping %s provincial %s geometry %v",
			rep.Soil, rep.Drought, rep.Cropping, rep.ProvincialDetail, rep.Parcel.Geometry)
	}
	if len(rep.Meta.Sources) != 2 || rep.Parcel.AreaHa < 60 || rep.Parcel.AreaHa > 70 {
		t.Errorf("meta.sources %v, area_ha %v", rep.Meta.Sources, rep.Parcel.AreaHa)
	}
}

func TestReportInvalid(t *testing.T) {
	t.Parallel()
	r := ag.NewReporter(agtest.DemoStore(t), grid.New())
	tests := []struct {
		name string
		q    ag.Query
		code string
	}{
		{"no location", ag.Query{Include: "soil"}, "invalid_parameter"},
		// The location is checked after include, as the report always has.
		{"bad include and location", ag.Query{LegalLocation: "nonsense", Include: "weather"}, "invalid_parameter"},
		{"only commas", ag.Query{LegalLocation: "NW-25-24-1-W5", Include: ","}, "invalid_parameter"},
		{"energy section", ag.Query{LegalLocation: "NW-25-24-1-W5", Include: "wells"}, "invalid_parameter"},
		{"not a quarter", ag.Query{LegalLocation: "25-24-1-W5"}, "invalid_legal_location"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := r.Report(t.Context(), tc.q)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Kind != apierr.Invalid || ae.Code != tc.code {
				t.Errorf("Report(%+v) = %v, want %s", tc.q, err, tc.code)
			}
		})
	}
}

func TestSections(t *testing.T) {
	t.Parallel()
	inc, err := report.ParseInclude("", ag.Sections)
	if err != nil || len(ag.Sections) != 9 || ag.Sections[0] != ag.SectionProductivity || ag.Sections[8] != ag.SectionProvincialDetail || !inc.All() {
		t.Errorf("Sections = %v (%v)", ag.Sections, err)
	}
}
