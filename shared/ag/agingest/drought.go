package agingest

import (
	"regexp"
	"strconv"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
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
	Month    string // the assessment's month, "2024-07"
	Class    DroughtClass
	Geometry orb.Geometry // Polygon or MultiPolygon, longitude and latitude
}

// The layouts ReadDrought reads.
var (
	// DroughtGeoJSONLayout is AAFC's release: one GeoJSON file per month
	// and class, …/geoJSON/areasofDrought/{year}/cdm_{yy}{mm}_drought_areas/CDM_{yy}{mm}_D{d}_LR.geojson.
	DroughtGeoJSONLayout = ingest.Layout{
		Dataset:   "Canadian Drought Monitor, areas of drought",
		Publisher: "AAFC (National Agroclimate Information Service)",
		Form:      "one GeoJSON file per month and class, CDM_{yy}{mm}_D{d}_LR.geojson; class and month from the file name",
		Verified:  true,
		Evidence:  "evidence ids 45654400110 (a downloader of agriculture.canada.ca/atlas/data_donnees/canadianDroughtMonitor/data_donnees/geoJSON/areasofDrought/{year}/cdm_{yy}{mm}_drought_areas/CDM_{yy}{mm}_D{0-4}_LR.geojson) and 46106383745 (a converter taking year, month and class from the name: CDM_2407_D2_LR = July 2024, D2) (docs/real-layouts.md, Agriculture)",
	}
	// DroughtShapefileLayout is the same per-class release as a shapefile
	// named the same way.
	DroughtShapefileLayout = ingest.Layout{
		Dataset:   "Canadian Drought Monitor, areas of drought",
		Publisher: "AAFC (National Agroclimate Information Service)",
		Form:      "a shapefile per month and class named like the GeoJSON, CDM_{yy}{mm}_D{d}_LR.shp",
		Verified:  false,
		Evidence:  "no shapefile of the release seen (docs/data-sources.md §15 says shapefiles exist): check that the download has one file per class named CDM_{yy}{mm}_D{d}…, and its .prj",
	}
)

// droughtName matches a release file's name: CDM_2407_D2_LR.geojson.
var droughtName = regexp.MustCompile(`(?i)^CDM_(\d\d)(0[1-9]|1[0-2])_D([0-4])(?:_LR)?\.(?:geojson|json|shp)$`)

// ParseDroughtName reads the month ("2024-07") and class of a Canadian
// Drought Monitor file from its name, CDM_{yy}{mm}_D{d}_LR.geojson (or
// .shp; _LR optional; any case); ok is false for any other name. Years
// are 20yy.
func ParseDroughtName(name string) (month string, class DroughtClass, ok bool) {
	m := droughtName.FindStringSubmatch(name)
	if m == nil {
		return "", 0, false
	}
	return "20" + m[1] + "-" + m[2], DroughtClass(m[3][0] - '0'), true
}

// ReadDrought streams the drought areas of one file of a monthly Canadian
// Drought Monitor release to fn. AAFC publishes a month as one file per
// class (DroughtGeoJSONLayout): the class and month come from the file
// name, CDM_{yy}{mm}_D{d}_LR.geojson (ParseDroughtName), and every feature
// of the file is an area of that class; the features need carry no
// attribute, and attributes are not read. A month is the set of its
// files; a class without drought that month has no file or an empty one.
// Classes nest, so a place in a D2 area is also in the D1 and D0 areas.
//
// Fatal: a file name that is not a release's (ingest.BadValue naming the
// accepted pattern), a month before the series began (2002-11), a feature
// without a polygon. There are no notices.
func ReadDrought(src Source, fn func(DroughtArea) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if !t.Spatial {
		return t.Errorf(t.HeaderAt, "the drought monitor needs geometry: give the GeoJSON (or shapefile), not %s", src.Format)
	}
	month, class, ok := ParseDroughtName(ingest.MemberName(t.Name)) // "cdm_2407.zip!CDM_2407_D2_LR.geojson": the member's
	if !ok {
		return t.BadValue(0, "file name", t.Name, []string{"CDM_{yy}{mm}_D{0-4}_LR.geojson", "CDM_{yy}{mm}_D{0-4}_LR.shp"})
	}
	if month < "2002-11" {
		return t.Errorf(0, "month %s is before the Canadian Drought Monitor began (2002-11)", month)
	}
	if src.Format == Shapefile {
		t.Recognise(DroughtShapefileLayout)
	} else {
		t.Recognise(DroughtGeoJSONLayout)
	}
	return t.Each(func(r *ingest.Row) error {
		g, why := polygonal(r.Geom)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		return fn(DroughtArea{Month: month, Class: class, Geometry: g})
	})
}
