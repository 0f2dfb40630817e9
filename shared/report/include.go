package report

import (
	"slices"
	"strings"

	"meridian/shared/apierr"
)

// Geometry is the include value that attaches the parcel's polygon; every
// other value names a section.
const Geometry = "geometry"

// Include is a report's include parameter, parsed: the sections asked for
// and whether the parcel's polygon is.
type Include struct {
	Geometry bool
	sections map[string]bool
	all      bool
}

// Has reports whether the section is asked for.
func (inc Include) Has(section string) bool { return inc.sections[section] }

// All reports whether every section is asked for (include omitted, or
// naming them all).
func (inc Include) All() bool { return inc.all }

// ParseInclude parses include, a comma-separated list of the report's
// sections and geometry, case-insensitive, blanks around and between
// commas ignored. Omitted (empty) it is every section, without the
// polygon. A value that is not a section, or a list of nothing but commas,
// is invalid_parameter.
func ParseInclude(include string, sections []string) (Include, error) {
	inc := Include{sections: map[string]bool{}}
	if strings.TrimSpace(include) == "" {
		for _, s := range sections {
			inc.sections[s] = true
		}
		inc.all = true
		return inc, nil
	}
	names := strings.Join(append(slices.Clip(sections), Geometry), ", ")
	empty := true
	for _, part := range strings.Split(include, ",") {
		k := strings.ToLower(strings.TrimSpace(part))
		switch {
		case k == "":
			continue
		case k == Geometry:
			inc.Geometry = true
		case slices.Contains(sections, k):
			inc.sections[k] = true
		default:
			return Include{}, apierr.Invalidf("invalid_parameter", "include '%s' is not a section: use a comma-separated list of %s", part, names)
		}
		empty = false
	}
	if empty {
		return Include{}, apierr.Invalidf("invalid_parameter", "include is empty: use a comma-separated list of %s", names)
	}
	inc.all = len(inc.sections) == len(sections)
	return inc, nil
}
