package ag

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
)

// DroughtClass is a Canadian Drought Monitor category, D0 to D4.
type DroughtClass uint8

// Drought classes. Higher classes nest inside lower ones: a quarter's
// class is the highest whose area it meets.
const (
	D0 DroughtClass = iota // abnormally dry (a 1-in-3 to 5-year event)
	D1                     // moderate drought (1 in 5 to 10 years)
	D2                     // severe drought (1 in 10 to 20 years)
	D3                     // extreme drought (1 in 20 to 25 years)
	D4                     // exceptional drought (1 in 50 years)
)

var droughtLabels = [...]string{"Abnormally Dry", "Moderate Drought", "Severe Drought", "Extreme Drought", "Exceptional Drought"}

// String returns "D0" ... "D4".
func (c DroughtClass) String() string { return "D" + strconv.Itoa(int(c)) }

// Label returns the severity label: "Abnormally Dry", "Moderate Drought",
// "Severe Drought", "Extreme Drought", "Exceptional Drought".
func (c DroughtClass) Label() string {
	if int(c) < len(droughtLabels) {
		return droughtLabels[c]
	}
	return ""
}

// DroughtArea is one drought polygon of a monthly Canadian Drought
// Monitor release.
type DroughtArea struct {
	Month    string // the assessment's month, "2025-07"
	Class    DroughtClass
	Geometry orb.Geometry // Polygon or MultiPolygon, longitude and latitude
}

// ReadDrought streams the drought areas of one monthly Canadian Drought
// Monitor release (shapefile or GeoJSON) to fn. The class is the DM
// attribute (0 to 4, or D0 to D4; CLASS is read when there is no DM ⚠:
// the attribute name is from US Drought Monitor practice, not yet seen in
// a CDM file). The month comes from a MONTH or DATE attribute (YYYY-MM,
// YYYYMM or a date) or, failing that, from the file name (…2025-07…,
// …2025_07…, …202507…); a release with neither is refused. Months before
// the series began (2002-11) are refused.
func ReadDrought(src Source, fn func(DroughtArea) error) error {
	t, err := src.open()
	if err != nil {
		return err
	}
	if !t.spatial {
		return t.errorf(t.headerAt, "the drought monitor needs geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	nameMonth := monthInName(t.name)
	return each(t, func(r *row) error {
		var a DroughtArea
		dm := strings.ToUpper(r.get("DM", "CLASS"))
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(dm, ".0"), "D"))
		if err != nil || n < 0 || n > 4 {
			return t.errorf(r.line, "DM %q: want a drought class 0 to 4 (D0 to D4)", dm)
		}
		a.Class = DroughtClass(n)
		if s := r.get("MONTH", "DATE"); s != "" {
			if a.Month = parseMonth(s); a.Month == "" {
				return t.errorf(r.line, "month %q: want YYYY-MM, YYYYMM or a date", s)
			}
		} else if a.Month = nameMonth; a.Month == "" {
			return t.errorf(r.line, "no month: give a MONTH attribute or put YYYY-MM in the file name")
		}
		if a.Month < "2002-11" {
			return t.errorf(r.line, "month %s is before the Canadian Drought Monitor began (2002-11)", a.Month)
		}
		g, why := polygonal(r.geom)
		if why != "" {
			return t.errorf(r.line, "%s", why)
		}
		a.Geometry = g
		return fn(a)
	})
}

var (
	monthText = regexp.MustCompile(`^((?:19|20|21)\d\d)[-_/]?(0[1-9]|1[0-2])(?:[-_/]?(?:0[1-9]|[12]\d|3[01]))?(?:[T ].*)?$`)
	monthName = regexp.MustCompile(`(?:^|\D)((?:19|20|21)\d\d)[-_]?(0[1-9]|1[0-2])(?:\D|$)`)
)

// parseMonth reads YYYY-MM, YYYYMM, YYYY-MM-DD or YYYYMMDD (with an
// optional time) as "YYYY-MM", or returns "".
func parseMonth(s string) string {
	m := monthText.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ""
	}
	return m[1] + "-" + m[2]
}

// monthInName finds YYYY-MM, YYYY_MM or YYYYMM in a file name.
func monthInName(name string) string {
	m := monthName.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	return fmt.Sprintf("%s-%s", m[1], m[2])
}
