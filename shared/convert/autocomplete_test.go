package convert_test

import (
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
)

func TestAutocomplete(t *testing.T) {
	t.Parallel()
	t.Run("default ranking", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "NW-25-24"))
		if len(fc.Features) != 3 {
			t.Fatalf("%d suggestions, want the default 3", len(fc.Features))
		}
		if got := fc.Features[0].prop("legal_location"); got != "NW-25-24-1-W5" {
			t.Errorf("first suggestion = %s, want NW-25-24-1-W5 (nearest the default point, Calgary)", got)
		}
		for _, f := range fc.Features {
			if !strings.HasPrefix(f.prop("legal_location"), "NW-25-24-") || f.prop("search_term") != "NW-25-24" {
				t.Errorf("suggestion %v does not complete NW-25-24", f.Properties)
			}
			if _, ok := f.Properties["shape"]; ok || f.Geometry.Type != "Point" {
				t.Errorf("suggestion must be a Point without shape: %+v", f)
			}
		}
	})
	t.Run("proximity", func(t *testing.T) {
		prox := orb.Point{-114.3, 52.66}
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "10-36-42", "limit", "10", "proximity", "-114.3,52.66"))
		if len(fc.Features) != 10 {
			t.Fatalf("%d suggestions, want 10", len(fc.Features))
		}
		if got := fc.Features[0].prop("legal_location"); got != "10-36-42-3-W5" {
			t.Errorf("first = %s, want 10-36-42-3-W5", got)
		}
		last := 0.0
		for _, f := range fc.Features {
			d := geo.Distance(prox, f.point(t))
			if d+1 < last {
				t.Errorf("suggestions are not nearest first: %s at %.0f m after %.0f m", f.prop("legal_location"), d, last)
			}
			last = d
			if f.prop("unit") != "LSD" || !strings.HasPrefix(f.prop("legal_location"), "10-36-42-") {
				t.Errorf("suggestion %s %s does not complete LSD 10-36-42", f.prop("unit"), f.prop("legal_location"))
			}
		}
	})
	t.Run("unfinished number", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "SE-1-12", "limit", "10", "proximity", "-110.5,50.1"))
		for _, f := range fc.Features {
			l := f.prop("legal_location")
			parts := strings.Split(l, "-")
			if parts[0] != "SE" || parts[1] != "1" || !strings.HasPrefix(parts[2], "12") {
				t.Errorf("suggestion %s does not complete SE-1-12", l)
			}
		}
		if len(fc.Features) == 0 {
			t.Error("no suggestions")
		}
	})
	t.Run("NTS", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "A-2-F/93-P", "limit", "5"))
		if len(fc.Features) != 5 {
			t.Fatalf("%d suggestions, want 5", len(fc.Features))
		}
		for _, f := range fc.Features {
			if !strings.HasPrefix(f.prop("legal_location"), "A-2-F/93-P-") || f.prop("survey_system") != "NTS" {
				t.Errorf("suggestion %s does not complete A-2-F/93-P", f.prop("legal_location"))
			}
		}
	})
	t.Run("complete description first", func(t *testing.T) {
		fc := decode[collection](t, get(t, "/autocomplete/legal-location", "location", "NW-36-42-3-W5"))
		if len(fc.Features) == 0 || fc.Features[0].prop("legal_location") != "NW-36-42-3-W5" {
			t.Errorf("first suggestion of a complete description: %+v", fc.Features)
		}
	})
	t.Run("nothing matches", func(t *testing.T) {
		rec := get(t, "/autocomplete/legal-location", "location", "zzzz")
		fc := decode[collection](t, rec)
		if rec.Code != 200 || len(fc.Features) != 0 {
			t.Errorf("status %d, %d features, want 200 and none", rec.Code, len(fc.Features))
		}
	})
}

func TestAutocompleteErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		params []string
		code   string
	}{
		{"missing", nil, "invalid_parameter"},
		{"one character", []string{"location", "N"}, "invalid_parameter"},
		{"limit 0", []string{"location", "NW-25", "limit", "0"}, "invalid_parameter"},
		{"limit 11", []string{"location", "NW-25", "limit", "11"}, "invalid_parameter"},
		{"limit text", []string{"location", "NW-25", "limit", "ten"}, "invalid_parameter"},
		{"bad proximity", []string{"location", "NW-25", "proximity", "north"}, "invalid_coordinates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(t, "/autocomplete/legal-location", tc.params...)
			if e := decode[errorBody](t, rec); rec.Code != 400 || e.Error.Code != tc.code {
				t.Errorf("status %d code %q, want 400 %s", rec.Code, e.Error.Code, tc.code)
			}
		})
	}
}
