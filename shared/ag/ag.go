// Package ag is the agriculture report's data as the report store (package
// kv) holds it: each quarter section's sections (cropping, land use,
// productivity, soil, drought, wetlands, hydrology, municipality,
// provincial detail), which package agingest derives from the published
// datasets and publishes as one dataset, and the map layers' polygons; and
// the report of a quarter section assembled from them (Reporter.Report, in
// report.go), so that the rules of the report live with its data and
// package agapi only parses the request and writes the answer.
//
// Keys, one partition per quarter section, one item per report section,
// so an include projection reads only the sections it names:
//
//	PK                  SK               item
//	QS#<quarter>        CROPPING         dominant crop, rotation, diversity, years covered
//	QS#<quarter>        LAND_USE         dominant class and breakdown (latest vintage)
//	QS#<quarter>        LSRS, CLI        score, class, limiter
//	QS#<quarter>        SOIL             classification, drainage, slope (dominant SLC component)
//	QS#<quarter>        DROUGHT          class, severity label, month (latest assessment)
//	QS#<quarter>        WETLANDS         wetlands within the search radius
//	QS#<quarter>        HYDROLOGY        nearest watercourse and water body
//	QS#<quarter>        MUNICIPALITY     name and type
//	QS#<quarter>        PROVINCIAL       crown land, soils, pastures (SK; soils for MB)
//	SLC                 <poly id>        an SLC polygon with its dominant soil (soils map layer)
//	SK_CROWN            <lld>            an SK agricultural Crown land parcel (map layer)
//	SK_PASTURE          <name>           an SK provincial pasture (map layer)
//	BC_CAPABILITY       <seq>            a BC agricultural capability polygon (map layer)
//	BC_ALR              <id>             a BC Agricultural Land Reserve polygon (map layer)
//	BC_WETLAND          <id>             a BC Freshwater Atlas wetland (map layer)
//	SOURCES             <section>        dataset name and date (meta.sources)
//
// A section the data does not cover has no item: the report says so in
// meta.unavailable.
package ag

import (
	"github.com/paulmach/orb"
)

// Dataset is the report store dataset of the agriculture data.
const Dataset = "ag"

// PKSources holds one item per report section naming its dataset and date.
const PKSources = "SOURCES"

// Partitions of the polygon map layers.
const (
	PKSLC       = "SLC"
	PKSKCrown   = "SK_CROWN"
	PKSKPasture = "SK_PASTURE"

	// British Columbia: map layers only (the report is AB, SK and MB).
	PKBCCapability = "BC_CAPABILITY"
	PKBCALR        = "BC_ALR"
	PKBCWetland    = "BC_WETLAND"
)

// Area is a polygon of a map layer with its properties.
type Area struct {
	Polygons   orb.MultiPolygon   `json:"polygons"`
	Properties map[string]string  `json:"properties"`
	Numbers    map[string]float64 `json:"numbers,omitempty"` // numeric properties
}

// Section sort keys.
const (
	SKCropping     = "CROPPING"
	SKLandUse      = "LAND_USE"
	SKLSRS         = "LSRS"
	SKCLI          = "CLI"
	SKSoil         = "SOIL"
	SKDrought      = "DROUGHT"
	SKWetlands     = "WETLANDS"
	SKHydrology    = "HYDROLOGY"
	SKMunicipality = "MUNICIPALITY"
	SKProvincial   = "PROVINCIAL"
)

// SearchRadiusM is how far hydrology and wetlands look from a quarter's
// edge.
const SearchRadiusM = 500

// PKQuarterPrefix begins every quarter section's partition key
// (QuarterKey): readers that scan the quarters select them by it.
const PKQuarterPrefix = "QS#"

// QuarterKey is a quarter section's partition key.
func QuarterKey(quarter string) string { return PKQuarterPrefix + quarter }

// Cropping is the report's cropping section.
type Cropping struct {
	Dominant       Crop    `json:"dominant"`
	Rotation       string  `json:"rotation"`
	DiversityIndex float64 `json:"diversity_index"`
	YearsCovered   int     `json:"years_covered"`
}

// Crop names a crop inventory class.
type Crop struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// LandUse is the report's land-use section.
type LandUse struct {
	Dominant  LandUseClass   `json:"dominant"`
	Breakdown []LandUseShare `json:"breakdown"`
	Year      int            `json:"year"`
}

// LandUseClass is a land-use class with its IPCC group.
type LandUseClass struct {
	Code  string `json:"code"`
	Label string `json:"label"`
	IPCC  string `json:"ipcc_class"`
}

// LandUseShare is a class's share of a quarter.
type LandUseShare struct {
	LandUseClass
	Pct float64 `json:"pct"`
}

// Productivity is one rating of the productivity section.
type Productivity struct {
	Score   float64 `json:"score"`
	Class   string  `json:"class"`
	Limiter *string `json:"limiter"`
}

// CrownLand is an item of provincial_detail.crown_land.
type CrownLand struct {
	LeaseType   string `json:"lease_type"`
	Status      string `json:"status"`
	Disposition string `json:"disposition,omitempty"`
}

// Provincial is the provincial_detail section.
type Provincial struct {
	CrownLand []CrownLand      `json:"crown_land"`
	Soils     []ProvincialSoil `json:"soils"`
	Pastures  []Pasture        `json:"pastures"`
}

// ProvincialSoil is a soil component of the quarter's SLC polygon.
type ProvincialSoil struct {
	Name     string `json:"name"`
	Percent  int    `json:"percent"`
	Subgroup string `json:"subgroup"`
}

// Pasture is an item of provincial_detail.pastures.
type Pasture struct {
	Name    string `json:"name"`
	Program string `json:"program"`
}

// Soil is the report's soil section.
type Soil struct {
	Classification struct {
		Order        string `json:"order"`
		GreatGroup   string `json:"great_group"`
		SubgroupCode string `json:"subgroup_code"`
	} `json:"classification"`
	DrainageClass string `json:"drainage_class"`
	SlopeClass    string `json:"slope_class"`
	SoilName      string `json:"soil_name"`
	PolyID        int    `json:"slc_poly_id"`
}

// Drought is the report's drought section.
type Drought struct {
	Class         string `json:"class"`
	SeverityLabel string `json:"severity_label"`
	AsOf          string `json:"as_of"`
}

// Water is the nearest watercourse of the hydrology section, and what a
// water body has too.
type Water struct {
	Name       *string  `json:"name"`
	DistanceM  *float64 `json:"distance_m"`
	IsOnParcel bool     `json:"is_on_parcel"`
}

// WaterBody is the nearest water body: a Water and the share of the parcel
// it covers, null when there is none (the spec lists the field always).
type WaterBody struct {
	Water
	OnParcelPct *float64 `json:"on_parcel_pct"`
}

// Hydrology is the report's hydrology section.
type Hydrology struct {
	Watercourse   Water     `json:"watercourse"`
	WaterBody     WaterBody `json:"water_body"`
	SearchRadiusM float64   `json:"search_radius_m"`
}

// Wetlands is the report's wetlands section.
type Wetlands struct {
	Count       int      `json:"count"`
	OnParcel    bool     `json:"on_parcel"`
	OnParcelPct float64  `json:"on_parcel_pct"`
	NearestM    *float64 `json:"nearest_m"`
}

// Municipality is the parcel_context section's municipality.
type Municipality struct {
	Name string `json:"name"`
	Type string `json:"type"`
}
