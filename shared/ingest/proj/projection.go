package proj

import (
	"errors"
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// A Projection converts between a coordinate reference system's x, y and
// NAD83 longitude and latitude in degrees. Projections are immutable and
// safe for concurrent use.
type Projection interface {
	// Name is the system's name, such as "NAD83 / UTM zone 13N".
	Name() string
	// EPSG is the system's EPSG code, or 0 when it has none (a Transverse
	// Mercator or Albers known only by its WKT parameters).
	EPSG() int
	// ToLngLat converts x, y (easting, northing in the system's units, or
	// longitude, latitude for a geographic system) to orb.Point{lng, lat}.
	ToLngLat(x, y float64) (orb.Point, error)
	// FromLngLat converts orb.Point{lng, lat} to x, y.
	FromLngLat(p orb.Point) (x, y float64, err error)
}

var (
	// ErrUnsupported is returned (wrapped) by FromEPSG and FromWKT for a
	// coordinate reference system this package cannot convert.
	ErrUnsupported = errors.New("proj: unsupported coordinate reference system")
	// ErrDomain is returned (wrapped) for coordinates that are NaN,
	// infinite or outside the domain of a projection.
	ErrDomain = errors.New("proj: coordinates out of domain")
)

// EPSG codes of the systems FromEPSG knows besides the UTM zones.
const (
	EPSGNAD83        = 4269
	EPSGWGS84        = 4326
	EPSGWebMercator  = 3857
	EPSGBCAlbers     = 3005  // NAD83 / BC Albers
	EPSGBCAlbersCSRS = 3153  // NAD83(CSRS) / BC Albers
	epsgNAD83UTMBase = 26900 // + zone
	epsgWGS84UTMBase = 32600 // + zone
)

// UTM zones FromEPSG accepts: those that cover Canada.
const (
	MinUTMZone = 7
	MaxUTMZone = 22
)

// FromEPSG returns the projection of an EPSG code: 4269 (NAD83), 4326
// (WGS 84), 3857 (Web Mercator), 3005 (NAD83 / BC Albers), 3153
// (NAD83(CSRS) / BC Albers), 3161 and 3162 (NAD83 and NAD83(CSRS) /
// Ontario MNR Lambert), 3978 and 3979 (… / Canada Atlas Lambert), 3347 and
// 3348 (… / Statistics Canada Lambert), 26907–26922 (NAD83 / UTM zones
// 7N–22N) or 32607–32622 (WGS 84 / UTM zones 7N–22N).
func FromEPSG(code int) (Projection, error) {
	if p, ok, err := canadaLCCFromEPSG(code); ok {
		return p, err
	}
	switch {
	case code == EPSGNAD83:
		return geographic{name: "NAD83", epsg: code}, nil
	case code == EPSGWGS84:
		return geographic{name: "WGS 84", epsg: code}, nil
	case code == EPSGWebMercator:
		return webMercator{}, nil
	case code == EPSGBCAlbers:
		return bcAlbers("NAD83 / BC Albers", code)
	case code == EPSGBCAlbersCSRS:
		return bcAlbers("NAD83(CSRS) / BC Albers", code)
	case code >= epsgNAD83UTMBase+MinUTMZone && code <= epsgNAD83UTMBase+MaxUTMZone:
		return utm(code-epsgNAD83UTMBase, grs80, "NAD83"), nil
	case code >= epsgWGS84UTMBase+MinUTMZone && code <= epsgWGS84UTMBase+MaxUTMZone:
		return utm(code-epsgWGS84UTMBase, wgs84, "WGS 84"), nil
	}
	return nil, fmt.Errorf("%w: EPSG:%d", ErrUnsupported, code)
}

// Geographic reports whether p is a geographic system (longitude and
// latitude in degrees, converted as they are), whose coordinates can carry
// the float noise of a boundary (a vertex at -180.00000000099996).
func Geographic(p Projection) bool {
	_, ok := p.(geographic)
	return ok
}

// geographic is longitude and latitude in degrees: the identity.
type geographic struct {
	name string
	epsg int
}

func (g geographic) Name() string { return g.name }
func (g geographic) EPSG() int    { return g.epsg }

func (g geographic) ToLngLat(x, y float64) (orb.Point, error) {
	if err := checkLngLat(x, y); err != nil {
		return orb.Point{}, err
	}
	return orb.Point{x, y}, nil
}

func (g geographic) FromLngLat(p orb.Point) (float64, float64, error) {
	if err := checkLngLat(p[0], p[1]); err != nil {
		return 0, 0, err
	}
	return p[0], p[1], nil
}

// checkLngLat reports an ErrDomain error unless lng is in [-180, 180] and
// lat in [-90, 90].
func checkLngLat(lng, lat float64) error {
	if !finite(lng) || !finite(lat) {
		return fmt.Errorf("%w: longitude %v, latitude %v not finite", ErrDomain, lng, lat)
	}
	if lng < -180 || lng > 180 || lat < -90 || lat > 90 {
		return fmt.Errorf("%w: longitude %v, latitude %v outside [-180, 180] × [-90, 90]", ErrDomain, lng, lat)
	}
	return nil
}

// checkXY reports an ErrDomain error unless x and y are finite.
func checkXY(x, y float64) error {
	if !finite(x) || !finite(y) {
		return fmt.Errorf("%w: x %v, y %v not finite", ErrDomain, x, y)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// normalizeLng brings a longitude in degrees into [-180, 180].
func normalizeLng(lng float64) float64 {
	if lng >= -180 && lng <= 180 {
		return lng
	}
	lng = math.Mod(lng+180, 360)
	if lng < 0 {
		lng += 360
	}
	return lng - 180
}

const (
	deg = math.Pi / 180
	rad = 180 / math.Pi
)
