package ingest

import (
	"fmt"
	"io"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// Ontario (Land Information Ontario) grid layers.
//
// Geographic Lot Fabric: one polygon per lot. Fields used (case-insensitive;
// others such as OGF_ID and CLASS_SUBTYPE are ignored):
//
//	LOT_IDENT                  the lot label ("10", "A", "GORE")
//	CONCESSION_IDENT, CONCESSION, CON_IDENT or CONC
//	                           the concession label (the first present);
//	                           the field's real name is not documented
//	                           publicly, these are our guesses
//	GEOGRAPHIC_TOWNSHIP_NAME   the geographic township ("ADJALA")
//
// A Shapefile's dBASE field names have at most 10 characters, and ArcGIS
// truncates longer ones: GEOGRAPHIC_TOWNSHIP_NAME becomes GEOGRAPHIC and
// CONCESSION_IDENT becomes CONCESSION, both accepted.
//
// Geographic Township Improved: one polygon per geographic township, its
// name in GEOGRAPHIC_TOWNSHIP_NAME (GEOGRAPHIC in a Shapefile),
// OFFICIAL_NAME (OFFICIAL_N), NAME or TOWNSHIP (the first present and
// non-empty).
//
// Labels: the Location is what lld.Parse makes of "Lot <lot> Con <con>
// <township>" (a trailing "Township" and leading "Lot"/"Con" words in the
// values are dropped first), so canonical forms always agree with what
// users type: township names in title case ("Adjala"), Roman numerals to
// arabic ("IV" → "4"), other labels upper case ("BF", "GORE"). A feature
// is skipped, and counted, when a label is empty, when lld.Parse refuses
// it, or when lld reads part of a label as the township (a township name
// that does not match the one "<township> Township" gives alone, as with
// "B.F." today). Features without geometry are skipped and counted too.
//
// Province ON. AccuracyM (our choice, unverified): 100 m. LIO compiled the
// fabric from historical township plans to show lots approximately; it is
// not survey data.
const onAccuracy = 100

// onFeature is what the Ontario readers need from a Shapefile or GeoJSON
// feature.
type onFeature interface {
	get(names ...string) string
	has(names ...string) bool
}

var (
	onLotField     = []string{"lot ident"}
	onConField     = []string{"concession ident", "concession", "con ident", "conc"}
	onTwpField     = []string{"geographic township name", "geographic"}
	onTwpNameField = []string{"geographic township name", "geographic", "official name", "official n", "name", "township"}
)

// onLot returns the Location of a lot feature or a skip reason.
func onLot(f onFeature) (lld.Location, string) {
	lot := trimWord(f.get(onLotField...), "lot")
	con := trimWord(trimWord(f.get(onConField...), "concession"), "con")
	twp := f.get(onTwpField...)
	if lot == "" || con == "" || twp == "" {
		return lld.Location{}, "lot without lot, concession or township label"
	}
	place, ok := onTownshipName(twp)
	if !ok {
		return lld.Location{}, "township name lld cannot parse"
	}
	l, err := lld.Parse("Lot " + lot + " Con " + con + " " + place)
	if err != nil || l.System != lld.GeoTownship || l.Unit != lld.Lot || l.Place != place {
		return lld.Location{}, "lot or concession label lld cannot parse"
	}
	return l, ""
}

// onTownshipName is the canonical (title case) name lld gives township
// name n.
func onTownshipName(n string) (string, bool) {
	n = strings.TrimSpace(n)
	for _, suffix := range []string{" township", " twp", " twp."} {
		if len(n) > len(suffix) && strings.EqualFold(n[len(n)-len(suffix):], suffix) {
			n = strings.TrimSpace(n[:len(n)-len(suffix)])
		}
	}
	if n == "" {
		return "", false
	}
	l, err := lld.Parse(n + " Township")
	if err != nil || l.System != lld.GeoTownship || l.Unit != lld.Township {
		return "", false
	}
	return l.Place, true
}

// trimWord drops a leading word w (case-insensitive, followed by a space,
// a dot or nothing) from s: "CON 4" → "4", "Lot. 10" → "10".
func trimWord(s, w string) string {
	s = strings.TrimSpace(s)
	if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) {
		if c := s[len(w)]; c == ' ' || c == '.' {
			return strings.TrimSpace(strings.TrimLeft(s[len(w):], ". "))
		}
	}
	return s
}

// onTownship returns the Location of a township feature or a skip reason.
func onTownship(f onFeature) (lld.Location, string) {
	for _, n := range onTwpNameField {
		name := f.get(n)
		if name == "" {
			continue
		}
		place, ok := onTownshipName(name)
		if !ok {
			return lld.Location{}, "township name lld cannot parse"
		}
		return lld.Location{System: lld.GeoTownship, Unit: lld.Township, Place: place}, ""
	}
	return lld.Location{}, "township without a name"
}

// Ontario's extent with a margin, for sanity checks of converted polygons.
var onBound = orb.Bound{Min: orb.Point{-95.5, 41.5}, Max: orb.Point{-74.0, 57.0}}

// onEmit emits feature no as a record of loc, or counts it skipped.
func onEmit(st *Stats, out emitter, file string, no int, loc lld.Location, skip string, g orb.Geometry) error {
	if skip == "" && g == nil {
		skip = "feature without geometry"
	}
	if skip != "" {
		st.skip(skip)
		return nil
	}
	if b := g.Bound(); !onBound.Contains(b.Min) || !onBound.Contains(b.Max) {
		return Errorf(file, no, "%s lies at %v-%v, not in Ontario: is the coordinate system right?", loc, b.Min, b.Max)
	}
	return out.send(gridindex.Record{Location: loc, Province: survey.ON, Geometry: g, AccuracyM: onAccuracy})
}

// ReadOntarioLotsGeoJSON reads the LIO Geographic Lot Fabric as a GeoJSON
// FeatureCollection (see readGeoJSON for the CRS rules and ontario.go for
// the fields) and emits one record per lot. Errors carry the feature number
// as Line.
func ReadOntarioLotsGeoJSON(r io.Reader, file string, emit Emit) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readGeoJSON(r, file, func(f *geoFeature) error {
		st.Rows++
		if !checked {
			if err := onCheckLotFields(f, file, f.no); err != nil {
				return err
			}
			checked = true
		}
		loc, skip := onLot(f)
		return onEmit(&st, out, file, f.no, loc, skip, f.geom)
	})
	return st, err
}

// ReadOntarioTownshipsGeoJSON reads LIO Geographic Township Improved as a
// GeoJSON FeatureCollection and emits one Township record per feature.
func ReadOntarioTownshipsGeoJSON(r io.Reader, file string, emit Emit) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readGeoJSON(r, file, func(f *geoFeature) error {
		st.Rows++
		if !checked {
			if !f.has(onTwpNameField...) {
				return Errorf(file, f.no, "no township name field (GEOGRAPHIC_TOWNSHIP_NAME, OFFICIAL_NAME, NAME or TOWNSHIP)")
			}
			checked = true
		}
		loc, skip := onTownship(f)
		return onEmit(&st, out, file, f.no, loc, skip, f.geom)
	})
	return st, err
}

// onCheckLotFields rejects a lot layer that lacks a field altogether (as
// opposed to a feature with an empty value, which is skipped).
func onCheckLotFields(f onFeature, file string, no int) error {
	switch {
	case !f.has(onLotField...):
		return Errorf(file, no, "no LOT_IDENT field")
	case !f.has(onConField...):
		return Errorf(file, no, "no concession field (CONCESSION_IDENT, CONCESSION, CON_IDENT or CONC)")
	case !f.has(onTwpField...):
		return Errorf(file, no, "no GEOGRAPHIC_TOWNSHIP_NAME (or GEOGRAPHIC) field")
	}
	return nil
}

// DeriveOntario completes one geographic township: given all its records
// (lots, and the township polygon when LIO has it), it returns a Concession
// record per concession, the dissolved union of its lots, and a Township
// record, the union of all lots, when group has none. Unions keep their
// outer boundaries only (a lake without lots is still in the township).
// Lots are noded first (a vertex of one lot lying on another's edge is
// inserted into that edge), so fabrics whose neighbours do not share every
// vertex still dissolve. Concessions come in the order of their first lot.
// Records of other townships, or a lot set that will not dissolve, are an
// error.
func DeriveOntario(group []gridindex.Record) ([]gridindex.Record, error) {
	var place string
	hasTownship := false
	cons := map[string]*onConcession{}
	var order []string
	var all []orb.Polygon
	acc := 0.0
	for _, r := range group {
		l := r.Location
		if l.System != lld.GeoTownship {
			return nil, fmt.Errorf("ingest: derive Ontario: %s is not an Ontario geographic township record", l)
		}
		if place == "" {
			place = l.Place
		} else if l.Place != place {
			return nil, fmt.Errorf("ingest: derive Ontario: %s is not in %s", l, place)
		}
		switch l.Unit {
		case lld.Township:
			hasTownship = true
		case lld.Lot:
			c := cons[l.Concession]
			if c == nil {
				c = &onConcession{}
				cons[l.Concession] = c
				order = append(order, l.Concession)
			}
			ps := polygonsOf(r.Geometry)
			c.polys = append(c.polys, ps...)
			c.acc = max(c.acc, r.AccuracyM)
			all = append(all, ps...)
			acc = max(acc, r.AccuracyM)
		}
	}
	var out []gridindex.Record
	for _, con := range order {
		c := cons[con]
		g, err := Dissolve(node(c.polys))
		if err != nil {
			return nil, fmt.Errorf("ingest: derive Ontario: Con %s %s: %w", con, place, err)
		}
		loc := lld.Location{System: lld.GeoTownship, Unit: lld.Concession, Concession: con, Place: place}
		out = append(out, gridindex.Record{Location: loc, Province: survey.ON, Geometry: outerOnly(g), AccuracyM: c.acc})
	}
	if !hasTownship && len(all) > 0 {
		g, err := Dissolve(node(all))
		if err != nil {
			return nil, fmt.Errorf("ingest: derive Ontario: %s Township: %w", place, err)
		}
		loc := lld.Location{System: lld.GeoTownship, Unit: lld.Township, Place: place}
		out = append(out, gridindex.Record{Location: loc, Province: survey.ON, Geometry: outerOnly(g), AccuracyM: acc})
	}
	return out, nil
}

type onConcession struct {
	polys []orb.Polygon
	acc   float64
}

// polygonsOf lists the polygons of a Polygon or MultiPolygon.
func polygonsOf(g orb.Geometry) []orb.Polygon {
	switch g := g.(type) {
	case orb.Polygon:
		return []orb.Polygon{g}
	case orb.MultiPolygon:
		return g
	}
	return nil
}

// ReadOntarioLots reads the LIO Geographic Lot Fabric as a Shapefile (.shp,
// .dbf and the .prj text; see readShapefile) and emits one record per lot.
// Errors carry the record number as Line.
func ReadOntarioLots(shpR, dbfR io.Reader, prj, file string, emit Emit) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readShapefile(shpR, dbfR, prj, file, func(no int, f shpFeature, g orb.Geometry) error {
		st.Rows++
		if !checked {
			if err := onCheckLotFields(f, file, 0); err != nil {
				return err
			}
			checked = true
		}
		loc, skip := onLot(f)
		return onEmit(&st, out, file, no, loc, skip, g)
	})
	return st, err
}

// ReadOntarioTownships reads LIO Geographic Township Improved as a
// Shapefile and emits one Township record per feature.
func ReadOntarioTownships(shpR, dbfR io.Reader, prj, file string, emit Emit) (Stats, error) {
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readShapefile(shpR, dbfR, prj, file, func(no int, f shpFeature, g orb.Geometry) error {
		st.Rows++
		if !checked {
			if !f.has(onTwpNameField...) {
				return Errorf(file, 0, "no township name field (GEOGRAPHIC_TOWNSHIP_NAME, OFFICIAL_NAME, NAME or TOWNSHIP)")
			}
			checked = true
		}
		loc, skip := onTownship(f)
		return onEmit(&st, out, file, no, loc, skip, g)
	})
	return st, err
}
