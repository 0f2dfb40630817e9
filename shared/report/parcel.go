package report

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"meridian/shared/survey"
)

// Parcel is the block a report is about: its area, its centre and (on
// request) its polygon.
type Parcel struct {
	AreaHa   float64           `json:"area_ha"`
	Centroid Point             `json:"centroid"`
	Geometry *geojson.Geometry `json:"geometry"` // null unless include names geometry
}

// NewParcel is the parcel of b, with its polygon when geometry is true.
func NewParcel(b survey.Block, geometry bool) Parcel {
	p := Parcel{AreaHa: AreaHa(b.Geometry), Centroid: PointOf(b.Centroid)}
	if geometry && b.Geometry != nil {
		p.Geometry = geojson.NewGeometry(b.Geometry)
	}
	return p
}

// Point is a location as the reports write it.
type Point struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// PointOf is the lng/lat point p to 6 decimals (about 0.1 m).
func PointOf(p orb.Point) Point { return Point{Lat: Round(p[1], 6), Lng: Round(p[0], 6)} }

// Round rounds v to digits decimals.
func Round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
