package dls

import (
	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Bound returns the model's lng/lat box of a DLS township, section, half
// section, quarter section or LSD. W ranges are clipped at the next meridian
// (the last range before it is fractional). It applies no province rules
// (see Resolve) and returns the zero Bound when l is not a valid DLS
// location or lies wholly west of the next meridian.
func Bound(l lld.Location) orb.Bound {
	b, _ := std.bound(l)
	return b
}

// Resolve returns the block the DLS location l names: a counter-clockwise
// closed lng/lat ring (SW, SE, NE, NW, SW) as an orb.Polygon, its centroid,
// province, AccuracyM (see Accuracy) and Source survey.SourceModel. ok is
// false when l is not a valid DLS location or names no block in coverage
// (the rules of Province). Fields of l its unit does not use are cleared in
// the returned Location.
func Resolve(l lld.Location) (b survey.Block, ok bool) { return std.resolve(l) }

func (m *model) resolve(l lld.Location) (survey.Block, bool) {
	bd, ok := m.bound(l)
	if !ok {
		return survey.Block{}, false
	}
	c := bd.Center()
	p, ok := m.province(l, c)
	if !ok {
		return survey.Block{}, false
	}
	return survey.Block{
		Location:  canonical(l),
		Province:  p,
		Geometry:  survey.BoxPolygon(bd),
		Centroid:  c,
		AccuracyM: m.accuracy(l, p),
		Source:    survey.SourceModel,
	}, true
}

// Expected error of the model's geometry, in metres, by area. In Alberta
// and the Peace River Block they are measured (correction_table.go): the
// 95th percentile of the miss distance of held-out real wells, that is of
// the distance from a well to the modelled LSD its licence names (0
// inside), over wells of townships never used in the fit (HeldOut). They
// bound how far a real well may lie outside its modelled block in 19 cases
// of 20; they are not guarantees near lakes, irregular surveys or
// re-surveyed areas. See the package documentation.
const (
	// Saskatchewan W2, W3: the same third-system model as Alberta, but never
	// measured (no open SK ground truth) and W2's surveyed longitude is not
	// known (102° vs 102.0068° is 450 m): unverified, set at 1 km.
	accuracySKW2W3 = 1000
	// Manitoba and Saskatchewan W1: first-system (489-chain) townships
	// 1871–80 and later systems mixed; one formula misses by 0.1–4 km.
	accuracyManitoba = 4000
)

// Accuracy returns the model's AccuracyM for blocks of meridian mer in
// province p far from the calibration wells: in Alberta and the Peace
// River Block, the measured figure of the regional constants alone
// (regionalAccuracyM). Resolve reports the smaller measured figure of the
// fitted surface (surfaceAccuracyM) in the townships it covers.
func Accuracy(p survey.Province, mer lld.Meridian) float64 {
	switch {
	case p == survey.AB && mer == lld.W4:
		return regionalAccuracyM[regionABW4]
	case p == survey.AB && mer == lld.W5:
		return regionalAccuracyM[regionABW5]
	case p == survey.AB && mer == lld.W6:
		return regionalAccuracyM[regionABW6]
	case p == survey.BC:
		return regionalAccuracyM[regionPRB]
	case p == survey.SK && mer != lld.W1:
		return accuracySKW2W3
	}
	return accuracyManitoba
}

// accuracy returns the AccuracyM of block l in province p: the surface's
// figure where l's township has a fitted shift of its own, else Accuracy.
func (m *model) accuracy(l lld.Location, p survey.Province) float64 {
	if p == survey.AB || p == survey.BC {
		if _, ok := m.townshipShift(l.Meridian, int(l.Range), int(l.Township)); ok {
			if p == survey.BC {
				return surfaceAccuracyM[regionPRB]
			}
			return surfaceAccuracyM[regionABW4+region(l.Meridian-lld.W4)]
		}
	}
	return Accuracy(p, l.Meridian)
}
