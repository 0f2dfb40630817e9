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
//
// North of the divide (townships 56–126) blocks stop at 120°W and at the
// Peace River Block's west edge: a block the line crosses answers with its
// part in coverage. In townships 77–88 a block crossing 120°W has a part in
// each province; Resolve answers the one holding the block's centroid and
// ResolveAt the one on a given point's side.
func Resolve(l lld.Location) (b survey.Block, ok bool) { return std.resolve(l) }

// ResolveAt is Resolve, except that where the block of l is split between
// Alberta and the Peace River Block at 120°W it answers the part on pt's
// side of the line. Resolve(Locate(pt, u)) may miss pt there;
// ResolveAt(Locate(pt, u), pt) always holds it.
func ResolveAt(l lld.Location, pt orb.Point) (b survey.Block, ok bool) {
	return std.resolveAt(l, &pt)
}

func (m *model) resolve(l lld.Location) (survey.Block, bool) { return m.resolveAt(l, nil) }

// resolveAt resolves l, choosing the part on *at's side where the block is
// split between two provinces (place).
func (m *model) resolveAt(l lld.Location, at *orb.Point) (survey.Block, bool) {
	bd, ok := m.bound(l)
	if !ok {
		return survey.Block{}, false
	}
	pc, ok := m.place(l, bd, at)
	if !ok {
		return survey.Block{}, false
	}
	acc := m.accuracy(l, pc.prov)
	if pc.prov == survey.AB && dividesAt(l) && abbc.near(pc.box) {
		acc += abbcToleranceM // the divide's own error (divide_line.go)
	}
	return survey.Block{
		Location:  canonical(l),
		Province:  pc.prov,
		Geometry:  survey.BoxPolygon(pc.box),
		Centroid:  pc.box.Center(),
		AccuracyM: acc,
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
	// Saskatchewan W1 and Manitoba E2: not measured (with one third-system
	// formula Manitoba's official centroids were 0.2–2.1 km off). Manitoba's
	// W1 and E1 blocks get their survey system's figure (manitoba.go).
	accuracyManitoba = 4000
)

// Accuracy returns the model's AccuracyM for blocks of meridian mer in
// province p far from the calibration wells: in Alberta and the Peace
// River Block, the measured figure of the regional constants alone
// (regionalAccuracyM). Resolve reports the smaller measured figure of the
// fitted surface (surfaceAccuracyM) in the townships it covers.
// For Manitoba's W1 and E1 it is the figure of their unmeasured areas;
// Resolve refines it by township and survey system (manitoba.go).
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
	case p == survey.MB && (mer == lld.W1 || mer == lld.E1):
		return accuracyMBUnmeasured
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
	if p == survey.MB {
		return m.manitobaAccuracy(p, l)
	}
	return Accuracy(p, l.Meridian)
}
