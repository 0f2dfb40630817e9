package convert

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/apierr"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/datum"
)

// Datum is the horizontal datum of the coordinates a caller sends and
// receives: NAD83, the service's own and the default, or NAD27, in which
// much oil and gas data still circulates. The service works in NAD83
// throughout; a NAD27 caller's points are moved to NAD83 on the way in and
// the answer's geometries back to NAD27 on the way out, with NRCan's NTv1
// grid (package datum: 40°–84° N, 44°–142° W).
type Datum uint8

// The datums a caller may name.
const (
	NAD83 Datum = iota
	NAD27
)

// String is the datum's name as the datum parameter and the datum feature
// property write it.
func (d Datum) String() string {
	if d == NAD27 {
		return "NAD27"
	}
	return "NAD83"
}

// ParseDatum reads a datum parameter: NAD83 or NAD27 in any case, and the
// empty string for NAD83. Anything else is an invalid_parameter error
// naming the accepted values.
func ParseDatum(s string) (Datum, error) {
	switch t := strings.TrimSpace(s); {
	case t == "", strings.EqualFold(t, "NAD83"):
		return NAD83, nil
	case strings.EqualFold(t, "NAD27"):
		return NAD27, nil
	}
	return NAD83, apierr.Invalidf("invalid_parameter", "datum '%s' is not valid: use NAD83 (the default) or NAD27", s)
}

// datumParam reads the datum query parameter of r.
func datumParam(r *http.Request) (Datum, error) {
	return ParseDatum(r.URL.Query().Get("datum"))
}

// ToNAD83 moves a caller's point, given in d, to NAD83. A NAD27 point
// outside NRCan's grid is an invalid_coordinates error: there is no
// transformation to apply.
func (d Datum) ToNAD83(pt orb.Point) (orb.Point, error) {
	if d != NAD27 {
		return pt, nil
	}
	q, err := datum.NAD27ToNAD83(pt)
	if errors.Is(err, datum.ErrOutside) {
		return pt, apierr.Invalidf("invalid_coordinates", "%s is outside NRCan's NAD27 to NAD83 grid (40° to 84° N, 44° to 142° W), the only area where NAD27 coordinates can be read: send NAD83 coordinates (datum=NAD83, the default)", fmtPoint(pt))
	}
	return q, err
}

// explain adds to a not-found answer for a point sent in NAD27 that the
// coordinates it quotes are the point's NAD83 position.
func (d Datum) explain(err error, sent orb.Point) error {
	e := apierr.As(err)
	if d != NAD27 || e == nil || e.Kind != apierr.NotFound {
		return err
	}
	c := *e
	c.Message += fmt.Sprintf(" (NAD83; sent as %s in NAD27)", fmtPoint(sent))
	return &c
}

// Block returns b, computed in NAD83, with its geometry and centroid in d
// and AccuracyM the expected error there. A NAD27 answer is a copy (b's
// geometry may be shared); its accuracy is the model's or source's plus
// the transformation's (datum.AccuracyM, 2 m), except for the grids
// defined on NAD27 (NTS), which are exact there.
func (d Datum) Block(b survey.Block) (survey.Block, error) {
	if d != NAD27 {
		return b, nil
	}
	var err error
	move := func(p orb.Point) orb.Point {
		q, e := datum.NAD83ToNAD27(p)
		if e != nil && err == nil {
			err = e
		}
		return q
	}
	moveRing := func(r orb.Ring) orb.Ring {
		out := make(orb.Ring, len(r))
		for i, p := range r {
			out[i] = move(p)
		}
		return out
	}
	movePolygon := func(p orb.Polygon) orb.Polygon {
		out := make(orb.Polygon, len(p))
		for i, r := range p {
			out[i] = moveRing(r)
		}
		return out
	}
	switch g := b.Geometry.(type) {
	case orb.Polygon:
		b.Geometry = movePolygon(g)
	case orb.MultiPolygon:
		mp := make(orb.MultiPolygon, len(g))
		for i, p := range g {
			mp[i] = movePolygon(p)
		}
		b.Geometry = mp
	case orb.Point:
		b.Geometry = move(g)
	}
	b.Centroid = move(b.Centroid)
	if err != nil {
		return survey.Block{}, apierr.Invalidf("invalid_parameter", "%s cannot be given in NAD27: it lies outside NRCan's NAD27 to NAD83 grid (40° to 84° N, 44° to 142° W); ask for NAD83 (the default)", b.Location)
	}
	switch b.Location.System {
	case lld.NTS:
		b.AccuracyM = 0 // exact on NAD27
	case lld.FPS:
		b.AccuracyM -= datum.AccuracyM // what is left is the bow of geodesic grid edges
	default:
		b.AccuracyM += datum.AccuracyM
	}
	return b, nil
}

// blocks applies Block to each of blocks, in place.
func (d Datum) blocks(blocks []survey.Block) error {
	for i := range blocks {
		b, err := d.Block(blocks[i])
		if err != nil {
			return err
		}
		blocks[i] = b
	}
	return nil
}
