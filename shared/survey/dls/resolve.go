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
	return survey.Block{
		Location:  canonical(l),
		Province:  pc.prov,
		Geometry:  survey.BoxPolygon(pc.box),
		Centroid:  pc.box.Center(),
		AccuracyM: m.accuracy(pc.prov, l),
		Source:    survey.SourceModel,
	}, true
}

// Expected error of the model's geometry, in metres, by area. They bound the
// distance between a modelled line and the surveyed one in typical
// townships; they are not guarantees near lakes, irregular surveys or
// re-surveyed areas. See the package documentation and
// calibration_internal_test.go for the measurements behind them.
const (
	// Alberta W5 and W6: largest section miss measured 83 m (§1.7), LSD
	// misses up to ~100 m are partly the data.
	accuracyABW5W6 = 100
	// Alberta W4: LSD misses up to 166 m (§1.7); the 4th meridian as
	// surveyed is only known to ~10 m.
	accuracyABW4 = 200
	// BC Peace River Block (W6): legacy surface locations miss their LSD by
	// up to ~120 m.
	accuracyPRB = 150
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
// province p. For Manitoba's W1 and E1 it is the figure of their
// unmeasured areas; Resolve refines it by township (manitoba.go).
func Accuracy(p survey.Province, mer lld.Meridian) float64 {
	switch {
	case p == survey.AB && mer == lld.W4:
		return accuracyABW4
	case p == survey.AB:
		return accuracyABW5W6
	case p == survey.BC:
		return accuracyPRB
	case p == survey.SK && mer != lld.W1:
		return accuracySKW2W3
	case p == survey.MB && (mer == lld.W1 || mer == lld.E1):
		return accuracyMBUnmeasured
	}
	return accuracyManitoba
}
