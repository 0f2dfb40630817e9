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
	// asked has bit i set when names[i] is asked for: a map of the
	// sections, made and filled on every request and read a dozen times
	// by each, was 2-3% of a report's server CPU.
	names []string
	asked uint64
	all   bool
}

// Has reports whether the section is asked for.
func (inc Include) Has(section string) bool {
	for i, n := range inc.names {
		if n == section {
			return inc.asked&(1<<i) != 0
		}
	}
	return false
}

// All reports whether every section is asked for (include omitted, or
// naming them all).
func (inc Include) All() bool { return inc.all }

// ParseInclude parses include, a comma-separated list of the report's
// sections and geometry, case-insensitive, blanks around and between
// commas ignored. Omitted (empty) it is every section, without the
// polygon. A value that is not a section, or a list of nothing but commas,
// is invalid_parameter.
func ParseInclude(include string, sections []string) (Include, error) {
	if len(sections) > 64 {
		panic("report: more than 64 sections") // a report's own list: a few
	}
	inc := Include{names: sections}
	if strings.TrimSpace(include) == "" {
		inc.asked, inc.all = 1<<len(sections)-1, true
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
			inc.asked |= 1 << slices.Index(sections, k)
		default:
			return Include{}, apierr.Invalidf("invalid_parameter", "include '%s' is not a section: use a comma-separated list of %s", part, names)
		}
		empty = false
	}
	if empty {
		return Include{}, apierr.Invalidf("invalid_parameter", "include is empty: use a comma-separated list of %s", names)
	}
	inc.all = inc.asked == 1<<len(sections)-1
	return inc, nil
}
