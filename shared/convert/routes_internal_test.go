package convert

import (
	"slices"
	"testing"

	"meridian/shared/lld"
)

// TestOpenAPIEnums: the survey_system and unit enums of the OpenAPI
// document are exactly the names lld answers and parses.
func TestOpenAPIEnums(t *testing.T) {
	t.Parallel()
	for _, name := range systemNames {
		if s, ok := lld.ParseSystem(name); !ok || s.String() != name {
			t.Errorf("survey_system %q: ParseSystem = %v, %v", name, s, ok)
		}
	}
	for s := lld.DLS; s.String() != ""; s++ {
		if !slices.Contains(systemNames, s.String()) {
			t.Errorf("system %q missing from the enum", s)
		}
	}
	for u := lld.Township; u.String() != ""; u++ {
		if !slices.Contains(unitNames, u.String()) {
			t.Errorf("unit %q missing from the enum", u)
		}
		if u != lld.HalfSection && !slices.Contains(reverseUnits, u.String()) {
			t.Errorf("unit %q missing from the reverse enum", u)
		}
	}
	for _, name := range reverseUnits {
		if _, ok := lld.ParseUnit(name); !ok && name != "all" {
			t.Errorf("reverse unit %q does not parse", name)
		}
	}
}
