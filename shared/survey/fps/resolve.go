package fps

import (
	"errors"
	"fmt"
	"math"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/datum"
)

// Errors of Resolve and Locate.
var (
	// ErrInvalid: the location is not an FPS grid area, section or unit
	// the regulation defines.
	ErrInvalid = errors.New("fps: not a valid FPS location")
	// ErrOutside: the block or point lies outside the NAD27-NAD83 grid
	// (40°-84° N, 44°-142° W), so it cannot be placed on NAD83, or outside
	// the FPS grid (40°-85° N).
	ErrOutside = errors.New("fps: outside the NAD27 to NAD83 grid (40°-84° N, 44°-142° W)")
)

// earthRadiusM is the mean radius used for the geodesic bow (under 1% from
// the ellipsoid's meridian radius at these latitudes).
const earthRadiusM = 6371000.0

// Resolve returns the block the FPS location l names: its NAD27 box moved
// to NAD83 as a closed counter-clockwise ring (vertices at the corners and
// where edges cross NTv1 node lines), the NAD83 image of the box's centre,
// Province survey.CanadaLands, AccuracyM (see the package doc) and Source
// survey.SourceModel. It returns ErrInvalid for a location the regulation
// does not define and ErrOutside (wrapped) beyond the datum grid.
func Resolve(l lld.Location) (survey.Block, error) {
	b, ok := boxOf(l)
	if !ok {
		return survey.Block{}, ErrInvalid
	}
	ring, err := shiftRing(b)
	if err != nil {
		return survey.Block{}, err
	}
	c27 := orb.Point{-(b.east + b.west) / 120, (b.south + b.north) / 120}
	centroid, err := datum.NAD27ToNAD83(c27)
	if err != nil {
		return survey.Block{}, fmt.Errorf("%w: %v", ErrOutside, err)
	}
	return survey.Block{
		Location:  l,
		Province:  survey.CanadaLands,
		Geometry:  orb.Polygon{ring},
		Centroid:  centroid,
		AccuracyM: AccuracyM(l),
		Source:    survey.SourceModel,
	}, nil
}

// AccuracyM is the expected error of the block l resolves to, in metres:
// datum.AccuracyM plus the largest poleward bow of its grid area's geodesic
// north and south lines over the block's longitudes (0 at the grid's east
// and west edges, about 7.5 m at the middle of a 15′ grid, 19.5 m of a 30′
// grid at 70° N). It returns 0 for an invalid location.
func AccuracyM(l lld.Location) float64 {
	b, ok := boxOf(l)
	if !ok {
		return 0
	}
	r := l.FPS
	e, w := float64(r.Lng), float64(r.WidthMin())
	// x(W−x) is largest at the middle of the grid, else at the block's
	// edge nearest the middle.
	x := math.Max(b.east-e, math.Min(b.west-e, w/2))
	phi := b.north / 60 * math.Pi / 180
	rad := math.Pi / 180 / 60
	bow := math.Sin(phi) * math.Cos(phi) * (x * rad) * ((w - x) * rad) / 2 * earthRadiusM
	return datum.AccuracyM + bow
}

// shiftRing returns b's ring counter-clockwise from the south-west corner,
// with a vertex wherever an edge crosses a node line of the datum grid
// (datum.Grid.NodeRing), each vertex moved to NAD83.
func shiftRing(b box) (orb.Ring, error) {
	ring := datum.Canada().NodeRing(b.bound())
	for i, p := range ring {
		q, err := datum.NAD27ToNAD83(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrOutside, err)
		}
		ring[i] = q
	}
	return ring, nil
}

// Locate returns the FPS block of unit u (lld.Grid, lld.FPSSection or
// lld.FPSUnit) containing the NAD83 point p: p is moved to NAD27 and
// indexed there with half-open intervals. It returns ErrOutside (wrapped)
// beyond the datum grid or the FPS latitudes, and ErrInvalid for another
// unit.
func Locate(p orb.Point, u lld.Unit) (lld.Location, error) {
	switch u {
	case lld.Grid, lld.FPSSection, lld.FPSUnit:
	default:
		return lld.Location{}, ErrInvalid
	}
	p27, err := datum.NAD83ToNAD27(p)
	if err != nil {
		return lld.Location{}, fmt.Errorf("%w: %v", ErrOutside, err)
	}
	l, ok := Locate27(p27, u)
	if !ok {
		return lld.Location{}, ErrOutside
	}
	return l, nil
}
