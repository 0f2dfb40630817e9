package report_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"meridian/shared/apierr"
	"meridian/shared/report"
)

var sections = []string{"summary", "wells", "tenure"}

func TestParseInclude(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, include string
		want          []string // sections asked for
		geometry, all bool
	}{
		{"omitted", "", sections, false, true},
		{"blank", "  ", sections, false, true},
		{"one", "wells", []string{"wells"}, false, false},
		{"geometry only", "geometry", nil, true, false},
		{"case and blanks", " Wells , GEOMETRY,tenure ", []string{"tenure", "wells"}, true, false},
		{"every section named", "tenure,summary,wells", sections, false, true},
		{"every section and geometry", "tenure,summary,wells,geometry", sections, true, true},
		{"empty elements skipped", "wells,,tenure,", []string{"tenure", "wells"}, false, false},
		{"repeated", "wells,wells", []string{"wells"}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inc, err := report.ParseInclude(tc.include, sections)
			if err != nil {
				t.Fatalf("ParseInclude(%q) = %v", tc.include, err)
			}
			var got []string
			for _, s := range sections {
				if inc.Has(s) {
					got = append(got, s)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) || inc.Geometry != tc.geometry || inc.All() != tc.all {
				t.Errorf("ParseInclude(%q) = %v geometry %v all %v, want %v %v %v", tc.include, got, inc.Geometry, inc.All(), want, tc.geometry, tc.all)
			}
			if inc.Has("geometry") || inc.Has("") {
				t.Errorf("ParseInclude(%q) has a section geometry or \"\"", tc.include)
			}
		})
	}
}

func TestParseIncludeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, include, message string }{
		{"unknown", "wells,weather", "include 'weather' is not a section: use a comma-separated list of summary, wells, tenure, geometry"},
		{"v1 geometry flag", "true", "include 'true' is not a section"},
		{"raw part quoted", "wells, Weather ", "include ' Weather ' is not a section"},
		{"section of another report", "soil", "include 'soil' is not a section"},
		{"only commas", ",", "include is empty: use a comma-separated list of summary, wells, tenure, geometry"},
		{"only blanks and commas", " , ,", "include is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := report.ParseInclude(tc.include, sections)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Kind != apierr.Invalid || ae.Code != "invalid_parameter" || !strings.HasPrefix(ae.Message, tc.message) {
				t.Errorf("ParseInclude(%q) = %v, want invalid_parameter %q", tc.include, err, tc.message)
			}
		})
	}
	// The caller's slice is not written to by the message's list.
	s := make([]string, 2, 3)
	copy(s, []string{"a", "b"})
	report.ParseInclude("x", s)
	if s[:3][2] != "" {
		t.Errorf("ParseInclude wrote into the sections' spare capacity: %q", s[:3])
	}
}

func FuzzParseInclude(f *testing.F) {
	for _, s := range []string{"", "wells", "geometry,wells", ",", "wells,,tenure", "WELLS ", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, include string) {
		inc, err := report.ParseInclude(include, sections)
		if err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Kind != apierr.Invalid {
				t.Fatalf("ParseInclude(%q) = %v, want an Invalid apierr", include, err)
			}
			return
		}
		n := 0
		for _, s := range sections {
			if inc.Has(s) {
				n++
			}
		}
		if n == 0 && !inc.Geometry {
			t.Fatalf("ParseInclude(%q) asks for nothing", include)
		}
		if inc.All() != (n == len(sections)) {
			t.Fatalf("ParseInclude(%q): All %v with %d sections", include, inc.All(), n)
		}
	})
}
