package report

import (
	"math"
	"strconv"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"meridian/shared/api"
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

// AppendJSON appends the parcel as encoding/json writes it without HTML
// escaping (api.WriteJSON), no final newline. A parcel
// without its polygon (every report unless include names geometry) is
// written here: encoding it by reflection was 2-3% of a report's CPU.
// With its polygon, or with a number encoding/json writes in exponent
// form (or refuses), it goes through encoding/json.
func (p Parcel) AppendJSON(dst []byte) ([]byte, error) {
	if p.Geometry != nil || !plainFloat(p.AreaHa) || !plainFloat(p.Centroid.Lat) || !plainFloat(p.Centroid.Lng) {
		return api.AppendJSON(dst, p)
	}
	dst = append(dst, `{"area_ha":`...)
	dst, _ = AppendFloat(dst, p.AreaHa)
	dst = append(dst, `,"centroid":{"lat":`...)
	dst, _ = AppendFloat(dst, p.Centroid.Lat)
	dst = append(dst, `,"lng":`...)
	dst, _ = AppendFloat(dst, p.Centroid.Lng)
	return append(dst, `},"geometry":null}`...), nil
}

// AppendFloat appends f as encoding/json writes it when that is strconv's
// 'f' format at the shortest precision (plainFloat); otherwise it returns
// dst unchanged and false, and the caller goes through encoding/json.
func AppendFloat(dst []byte, f float64) ([]byte, bool) {
	if !plainFloat(f) {
		return dst, false
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64), true
}

// AppendString appends s quoted as encoding/json writes it when it needs
// no escape (every byte printable ASCII other than a quote or a
// backslash; without HTML escaping, as api.WriteJSON writes); otherwise
// it returns dst unchanged and false.
func AppendString(dst []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return dst, false
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), true
}

// plainFloat reports whether encoding/json writes f as strconv's 'f'
// format with the shortest precision: a finite f that is 0 or whose
// magnitude is within [1e-6, 1e21).
func plainFloat(f float64) bool {
	a := math.Abs(f)
	return a == 0 || a >= 1e-6 && a < 1e21
}
