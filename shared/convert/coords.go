package convert

import (
	"math"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
)

// Canada's extent, used only to tell lng,lat from lat,lng when both read as
// valid coordinates.
const (
	canadaMinLat, canadaMaxLat = 41.0, 84.0
	canadaMinLng, canadaMaxLng = -142.0, -52.0
)

// ParsePoint reads a coordinate pair written "lng,lat" or "lat,lng" (comma
// or space separated), or in degrees-minutes-seconds with hemispheres
// (52°17'08"N 113°48'41"W). The order of a bare pair is decided by range: a
// value beyond ±90 is a longitude; when both orders are valid, the one that
// falls in Canada wins, and lng,lat (the documented order) otherwise.
func ParsePoint(s string) (orb.Point, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return orb.Point{}, apierr.Invalidf("invalid_coordinates", "coordinates are empty: send lng,lat such as -114.0719,51.0447")
	}
	if strings.ContainsAny(s, "NSEWnsew°'\"′″") {
		return parseDMS(s)
	}
	a, b, ok := splitPair(s)
	if !ok {
		return orb.Point{}, apierr.Invalidf("invalid_coordinates", "'%s' is not a coordinate pair: send lng,lat such as -114.0719,51.0447 (lat,lng is also accepted)", s)
	}
	return PointFrom(a, b)
}

func splitPair(s string) (a, b float64, ok bool) {
	var parts []string
	if i := strings.IndexByte(s, ','); i >= 0 {
		parts = []string{s[:i], s[i+1:]}
	} else {
		parts = strings.Fields(s)
	}
	if len(parts) != 2 {
		return 0, 0, false
	}
	a, err1 := parseFinite(strings.TrimSpace(parts[0]))
	b, err2 := parseFinite(strings.TrimSpace(parts[1]))
	return a, b, err1 == nil && err2 == nil
}

func parseFinite(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, strconv.ErrRange
	}
	return v, nil
}

// PointFrom orders a pair read as (a, b), as ParsePoint does.
func PointFrom(a, b float64) (orb.Point, error) {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return orb.Point{}, apierr.Invalidf("invalid_coordinates", "coordinates must be finite numbers")
	}
	lngLat := math.Abs(a) <= 180 && math.Abs(b) <= 90
	latLng := math.Abs(a) <= 90 && math.Abs(b) <= 180
	switch {
	case lngLat && latLng:
		if !inCanada(a, b) && inCanada(b, a) {
			return orb.Point{b, a}, nil
		}
		return orb.Point{a, b}, nil
	case lngLat:
		return orb.Point{a, b}, nil
	case latLng:
		return orb.Point{b, a}, nil
	}
	return orb.Point{}, apierr.Invalidf("invalid_coordinates", "%s,%s is not a coordinate pair: latitude must be within ±90 and longitude within ±180", trimFloat(a), trimFloat(b))
}

func inCanada(lng, lat float64) bool {
	return lat >= canadaMinLat && lat <= canadaMaxLat && lng >= canadaMinLng && lng <= canadaMaxLng
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// parseDMS reads two hemisphere-marked values: degrees, optional minutes and
// seconds, each ending in N, S, E or W, in either order.
func parseDMS(s string) (orb.Point, error) {
	bad := func() (orb.Point, error) {
		return orb.Point{}, apierr.Invalidf("invalid_coordinates", "'%s' is not a coordinate pair: write degrees-minutes-seconds with hemispheres such as 52°17'08\"N 113°48'41\"W, or decimal lng,lat such as -113.8114,52.2856", s)
	}
	r := strings.NewReplacer("°", " ", "'", " ", "\"", " ", "′", " ", "″", " ", ",", " ")
	fields := strings.Fields(r.Replace(s))
	var (
		vals           []float64
		lat, lng       float64
		hasLat, hasLng bool
	)
	for _, f := range fields {
		// A hemisphere letter may be glued to the last number: 113W.
		hemi := byte(0)
		if c := f[len(f)-1] | 0x20; c == 'n' || c == 's' || c == 'e' || c == 'w' {
			hemi = c
			f = f[:len(f)-1]
		}
		if f != "" {
			v, err := parseFinite(f)
			if err != nil || v < 0 {
				return bad()
			}
			vals = append(vals, v)
		}
		if hemi == 0 {
			continue
		}
		if len(vals) == 0 || len(vals) > 3 {
			return bad()
		}
		v := vals[0]
		if len(vals) > 1 {
			if vals[1] >= 60 {
				return bad()
			}
			v += vals[1] / 60
		}
		if len(vals) > 2 {
			if vals[2] >= 60 {
				return bad()
			}
			v += vals[2] / 3600
		}
		vals = vals[:0]
		switch hemi {
		case 'n', 's':
			if hasLat || v > 90 {
				return bad()
			}
			lat, hasLat = v, true
			if hemi == 's' {
				lat = -v
			}
		case 'e', 'w':
			if hasLng || v > 180 {
				return bad()
			}
			lng, hasLng = v, true
			if hemi == 'w' {
				lng = -v
			}
		}
	}
	if !hasLat || !hasLng || len(vals) > 0 {
		return bad()
	}
	return orb.Point{lng, lat}, nil
}

// fmtPoint writes a point as lng,lat the way callers send it.
func fmtPoint(pt orb.Point) string {
	return string(appendCoord(append(appendCoord(nil, pt[0]), ','), pt[1]))
}
