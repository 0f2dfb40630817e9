package gridingest

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"meridian/shared/ingest"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/gridindex"
)

// Ontario (Land Information Ontario) grid layers, as LIO publishes them
// (docs/real-layouts.md, "LIO Geographic Lot Fabric / Geographic Township
// Improved": the field list of LIO's own LIO_Open06 MapServer, evidence id
// 71584105982). LIO downloads come in Ontario MNR Lambert (EPSG:3161) as
// often as in NAD83 longitude and latitude; a shapefile's .prj or a
// GeoJSON's legacy crs member says which, and package proj converts
// EPSG:3161, UTM and lat/lng alike.
//
// Geographic Lot Fabric (Lot Fabric Improved): one polygon per lot. Fields
// read (names case-insensitive; OGF_ID, LOCATION_ACCURACY, the dates and
// any other field are ignored):
//
//	LOT_IDENT                  the lot label ("10", "A", "GORE")
//	CONCESSION_IDENT           the concession label ("1", "IV", "BF")
//	GEOGRAPHIC_TOWNSHIP_NAME   the geographic township ("ADJALA")
//	CLASS_SUBTYPE              what the polygon is (optional)
//	ROAD_ALLOWANCE_STATUS_FLG  whether it is a road allowance (optional)
//	VERIFICATION_STATUS_FLG    whether LIO verified it (optional)
//
// A Shapefile's dBASE field names have at most 10 characters, and ArcGIS
// truncates longer ones: LOT_IDENT, CONCESSION, GEOGRAPHIC, CLASS_SUBT,
// ROAD_ALLOW and VERIFICATI are read as the fields above.
//
// Geographic Township Improved: one polygon per geographic township, its
// name in OFFICIAL_NAME (OFFICIAL_N in a Shapefile), with
// TOWNSHIP_SURVEY_SYSTEM (TOWNSHIP_S) and ANNULMENT_STATUS_FLG (ANNULMENT_).
//
// Values. The evidence gives the field names, not the words LIO writes in
// the flags, so the readers know a few and say what they do with others:
//
//   - ROAD_ALLOWANCE_STATUS_FLG decides whether a polygon is a lot, so a word
//     the reader does not know rejects the dataset (BadValue, naming the
//     words accepted: Y, YES, TRUE, T, 1 for a road allowance; N, NO, FALSE,
//     F, 0 or empty for a lot). A road allowance is skipped and counted.
//   - CLASS_SUBTYPE: a subtype naming a road allowance ("ROAD ALLOWANCE") is
//     skipped like the flag; LOT and GORE are known; any other word is a
//     Notice and the polygon is placed by its lot and concession labels.
//   - VERIFICATION_STATUS_FLG and ANNULMENT_STATUS_FLG: the yes/no words
//     above, or VERIFIED, UNVERIFIED, ANNULLED, NOT ANNULLED; another word is
//     a Notice (the value does not change where the record goes). An
//     annulled township is still read: its name stays in old descriptions.
//   - TOWNSHIP_SURVEY_SYSTEM: the township survey systems of Ontario
//     (SINGLE FRONT, DOUBLE FRONT, SECTIONAL, 1000 ACRE SECTIONAL, FRONT AND
//     REAR, 2400 ACRE SECTIONAL); another word is a Notice.
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
// not survey data. (A GridSource's AccuracyM raises it for data known to
// be rougher, such as the fixtures.)
const onAccuracy = 100

// The layouts the Ontario readers read. The field names are LIO's own
// (evidence 71584105982); the flag words are not in the evidence (see
// above), which the Evidence says.
var (
	OntarioLotFabricShapefileLayout = ingest.Layout{
		Dataset: "LIO Geographic Lot Fabric (Lot Fabric Improved)", Publisher: "Land Information Ontario",
		Form: "Shapefile (.shp, .dbf, .prj) in Ontario MNR Lambert (EPSG:3161), NAD83 lat/lng or UTM; " +
			"fields LOT_IDENT, CONCESSION (CONCESSION_IDENT), GEOGRAPHIC (GEOGRAPHIC_TOWNSHIP_NAME), CLASS_SUBT, ROAD_ALLOW, VERIFICATI",
		Verified: true,
		Evidence: onEvidence,
	}
	OntarioLotFabricGeoJSONLayout = ingest.Layout{
		Dataset: "LIO Geographic Lot Fabric (Lot Fabric Improved)", Publisher: "Land Information Ontario",
		Form: "GeoJSON FeatureCollection in lat/lng, or in EPSG:3161 or UTM named by a legacy crs member; " +
			"fields LOT_IDENT, CONCESSION_IDENT, GEOGRAPHIC_TOWNSHIP_NAME, CLASS_SUBTYPE, ROAD_ALLOWANCE_STATUS_FLG, VERIFICATION_STATUS_FLG",
		Verified: true,
		Evidence: onEvidence,
	}
	OntarioTownshipShapefileLayout = ingest.Layout{
		Dataset: "LIO Geographic Township Improved", Publisher: "Land Information Ontario",
		Form:     "Shapefile (.shp, .dbf, .prj) in EPSG:3161, NAD83 lat/lng or UTM; fields OFFICIAL_N (OFFICIAL_NAME), TOWNSHIP_S, ANNULMENT_",
		Verified: true,
		Evidence: onEvidence,
	}
	OntarioTownshipGeoJSONLayout = ingest.Layout{
		Dataset: "LIO Geographic Township Improved", Publisher: "Land Information Ontario",
		Form:     "GeoJSON FeatureCollection in lat/lng, or in EPSG:3161 or UTM named by a legacy crs member; fields OFFICIAL_NAME, TOWNSHIP_SURVEY_SYSTEM, ANNULMENT_STATUS_FLG",
		Verified: true,
		Evidence: onEvidence,
	}
	// OntarioLayouts lists the layouts above.
	OntarioLayouts = []ingest.Layout{OntarioLotFabricShapefileLayout, OntarioLotFabricGeoJSONLayout, OntarioTownshipShapefileLayout, OntarioTownshipGeoJSONLayout}
)

const onEvidence = "field names: LIO_Open06 MapServer, layers Lot Fabric Improved and Geographic Township Improved " +
	"(evidence id 71584105982, docs/real-layouts.md); CRS EPSG:3161 or lat/lng: real-layouts.md. " +
	"The flag words are not in the evidence: an unknown ROAD_ALLOWANCE_STATUS_FLG word rejects the file, other new words are notices"

// OntarioReader reads LIO's Ontario layers. Its zero value is ready to
// use; ReadOntarioLots and the other functions are a zero OntarioReader's
// methods. A reader reads one file at a time.
type OntarioReader struct {
	// Notices receives the values the reader had not seen but could place
	// (nil discards them).
	Notices *ingest.Notices
	// Layout is set by each read to the layout it recognised in the
	// file's header (zero until then, and when the header is refused).
	Layout ingest.Layout
}

// onFeature is what the Ontario readers need from a Shapefile or GeoJSON
// feature.
type onFeature interface {
	get(names ...string) string
	has(names ...string) bool
}

// Field names, normalised as headerName does: the full name, then the
// Shapefile's 10-character truncation.
var (
	onLotField     = []string{"lot ident"}
	onConField     = []string{"concession ident", "concession"}
	onTwpField     = []string{"geographic township name", "geographic"}
	onSubtypeField = []string{"class subtype", "class subt"}
	onRoadField    = []string{"road allowance status flg", "road allow"}
	onVerifyField  = []string{"verification status flg", "verificati"}
	onTwpNameField = []string{"official name", "official n"}
	onSystemField  = []string{"township survey system", "township s"}
	onAnnulField   = []string{"annulment status flg", "annulment"}
)

// Words of the flags (compared in upper case, spaces and underscores
// alike).
var (
	onYes         = []string{"Y", "YES", "TRUE", "T", "1"}
	onNo          = []string{"N", "NO", "FALSE", "F", "0", ""}
	onSubtypes    = []string{"LOT", "GORE", "ROAD ALLOWANCE"}
	onVerifyWords = []string{"VERIFIED", "UNVERIFIED", "NOT VERIFIED"}
	onAnnulWords  = []string{"ANNULLED", "NOT ANNULLED"}
	onSystems     = []string{"SINGLE FRONT", "DOUBLE FRONT", "SECTIONAL", "1000 ACRE SECTIONAL", "2400 ACRE SECTIONAL", "FRONT AND REAR"}
)

// onWord is a flag value as compared: upper case, '_' and runs of space as
// one space.
func onWord(v string) string {
	return strings.Join(strings.Fields(strings.ToUpper(strings.ReplaceAll(v, "_", " "))), " ")
}

// onColumn is the name of the first of names f has, as a column name
// (upper case, underscores), for messages.
func onColumn(f onFeature, names []string) string {
	n := names[0]
	for _, m := range names {
		if f.has(m) {
			n = m
			break
		}
	}
	if n == "annulment" {
		return "ANNULMENT_" // the dBASE name; headerName drops its trailing '_'
	}
	return strings.ToUpper(strings.ReplaceAll(n, " ", "_"))
}

// onRoadAllowance reports whether a lot feature is a road allowance, or
// an error for a ROAD_ALLOWANCE_STATUS_FLG word it does not know. A new
// CLASS_SUBTYPE word is a notice.
func (rd *OntarioReader) onRoadAllowance(f onFeature, file string, no int) (bool, error) {
	road := false
	if f.has(onRoadField...) {
		v := onWord(f.get(onRoadField...))
		switch {
		case slices.Contains(onYes, v):
			road = true
		case slices.Contains(onNo, v):
		default:
			return false, ingest.BadValue(file, no, onColumn(f, onRoadField), f.get(onRoadField...), append(slices.Clone(onYes), onNo[:len(onNo)-1]...))
		}
	}
	if sub := onWord(f.get(onSubtypeField...)); sub != "" {
		switch {
		case strings.Contains(sub, "ROAD ALLOWANCE"):
			road = true
		case !slices.Contains(onSubtypes, sub):
			rd.Notices.Add(ingest.Notice{File: file, Line: no, Column: onColumn(f, onSubtypeField), Value: f.get(onSubtypeField...),
				Reason: "placed by its lot and concession labels"})
		}
	}
	if v := onWord(f.get(onVerifyField...)); !slices.Contains(onYes, v) && !slices.Contains(onNo, v) && !slices.Contains(onVerifyWords, v) {
		rd.Notices.Add(ingest.Notice{File: file, Line: no, Column: onColumn(f, onVerifyField), Value: f.get(onVerifyField...),
			Reason: "not used: the lot is placed by its labels"})
	}
	return road, nil
}

// onTownshipNotices notes the township flags the reader does not know.
func (rd *OntarioReader) onTownshipNotices(f onFeature, file string, no int) {
	if v := onWord(f.get(onAnnulField...)); !slices.Contains(onYes, v) && !slices.Contains(onNo, v) && !slices.Contains(onAnnulWords, v) {
		rd.Notices.Add(ingest.Notice{File: file, Line: no, Column: onColumn(f, onAnnulField), Value: f.get(onAnnulField...),
			Reason: "township read as any other"})
	}
	if v := onWord(f.get(onSystemField...)); v != "" && !slices.Contains(onSystems, v) {
		rd.Notices.Add(ingest.Notice{File: file, Line: no, Column: onColumn(f, onSystemField), Value: f.get(onSystemField...),
			Reason: "not used"})
	}
}

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
	name := f.get(onTwpNameField...)
	if name == "" {
		return lld.Location{}, "township without a name"
	}
	place, ok := onTownshipName(name)
	if !ok {
		return lld.Location{}, "township name lld cannot parse"
	}
	return lld.Location{System: lld.GeoTownship, Unit: lld.Township, Place: place}, ""
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
		return ingest.Errorf(file, no, "%s lies at %v-%v, not in Ontario: is the coordinate system right?", loc, b.Min, b.Max)
	}
	return out.send(gridindex.Record{Location: loc, Province: survey.ON, Geometry: g, AccuracyM: onAccuracy})
}

// ReadOntarioLotsGeoJSON reads the LIO Geographic Lot Fabric as a GeoJSON
// FeatureCollection: OntarioReader.LotsGeoJSON without notices.
func ReadOntarioLotsGeoJSON(r io.Reader, file string, emit Emit) (Stats, error) {
	var rd OntarioReader
	return rd.LotsGeoJSON(r, file, emit)
}

// ReadOntarioTownshipsGeoJSON reads LIO Geographic Township Improved as a
// GeoJSON FeatureCollection: OntarioReader.TownshipsGeoJSON without
// notices.
func ReadOntarioTownshipsGeoJSON(r io.Reader, file string, emit Emit) (Stats, error) {
	var rd OntarioReader
	return rd.TownshipsGeoJSON(r, file, emit)
}

// ReadOntarioLots reads the LIO Geographic Lot Fabric as a Shapefile:
// OntarioReader.Lots without notices.
func ReadOntarioLots(shpR, dbfR io.Reader, prj, file string, emit Emit) (Stats, error) {
	var rd OntarioReader
	return rd.Lots(shpR, dbfR, prj, file, emit)
}

// ReadOntarioTownships reads LIO Geographic Township Improved as a
// Shapefile: OntarioReader.Townships without notices.
func ReadOntarioTownships(shpR, dbfR io.Reader, prj, file string, emit Emit) (Stats, error) {
	var rd OntarioReader
	return rd.Townships(shpR, dbfR, prj, file, emit)
}

// LotsGeoJSON reads the LIO Geographic Lot Fabric as a GeoJSON
// FeatureCollection (see readGeoJSON for the CRS rules and the top of
// ontario.go for the fields and values) and emits one record per lot.
// Errors carry the feature number as Line.
func (rd *OntarioReader) LotsGeoJSON(r io.Reader, file string, emit Emit) (Stats, error) {
	rd.Layout = ingest.Layout{}
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readGeoJSON(r, file, func(f *geoFeature) error {
		st.Rows++
		if !checked {
			if err := onCheckLotFields(f, file, f.no); err != nil {
				return err
			}
			rd.Layout, checked = OntarioLotFabricGeoJSONLayout, true
		}
		return rd.lot(&st, out, file, f.no, f, f.geom)
	})
	return st, err
}

// TownshipsGeoJSON reads LIO Geographic Township Improved as a GeoJSON
// FeatureCollection and emits one Township record per feature.
func (rd *OntarioReader) TownshipsGeoJSON(r io.Reader, file string, emit Emit) (Stats, error) {
	rd.Layout = ingest.Layout{}
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readGeoJSON(r, file, func(f *geoFeature) error {
		st.Rows++
		if !checked {
			if !f.has(onTwpNameField...) {
				return ingest.Errorf(file, f.no, "no OFFICIAL_NAME field")
			}
			rd.Layout, checked = OntarioTownshipGeoJSONLayout, true
		}
		rd.onTownshipNotices(f, file, f.no)
		loc, skip := onTownship(f)
		return onEmit(&st, out, file, f.no, loc, skip, f.geom)
	})
	return st, err
}

// Lots reads the LIO Geographic Lot Fabric as a Shapefile (.shp, .dbf and
// the .prj text; see readShapefile) and emits one record per lot. Errors
// carry the record number as Line.
func (rd *OntarioReader) Lots(shpR, dbfR io.Reader, prj, file string, emit Emit) (Stats, error) {
	rd.Layout = ingest.Layout{}
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readShapefile(shpR, dbfR, prj, file, func(no int, f shpFeature, g orb.Geometry) error {
		st.Rows++
		if !checked {
			if err := onCheckLotFields(f, file, 0); err != nil {
				return err
			}
			rd.Layout, checked = OntarioLotFabricShapefileLayout, true
		}
		return rd.lot(&st, out, file, no, f, g)
	})
	return st, err
}

// Townships reads LIO Geographic Township Improved as a Shapefile and
// emits one Township record per feature.
func (rd *OntarioReader) Townships(shpR, dbfR io.Reader, prj, file string, emit Emit) (Stats, error) {
	rd.Layout = ingest.Layout{}
	var st Stats
	out := emitter{emit: emit, stats: &st}
	checked := false
	err := readShapefile(shpR, dbfR, prj, file, func(no int, f shpFeature, g orb.Geometry) error {
		st.Rows++
		if !checked {
			if !f.has(onTwpNameField...) {
				return ingest.Errorf(file, 0, "no OFFICIAL_NAME (OFFICIAL_N) field")
			}
			rd.Layout, checked = OntarioTownshipShapefileLayout, true
		}
		rd.onTownshipNotices(f, file, no)
		loc, skip := onTownship(f)
		return onEmit(&st, out, file, no, loc, skip, g)
	})
	return st, err
}

// lot emits lot feature no, or counts it skipped.
func (rd *OntarioReader) lot(st *Stats, out emitter, file string, no int, f onFeature, g orb.Geometry) error {
	road, err := rd.onRoadAllowance(f, file, no)
	if err != nil {
		return err
	}
	if road {
		st.skip("road allowance")
		return nil
	}
	loc, skip := onLot(f)
	return onEmit(st, out, file, no, loc, skip, g)
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
		g, err := survey.Dissolve(survey.Node(c.polys))
		if err != nil {
			return nil, fmt.Errorf("ingest: derive Ontario: Con %s %s: %w", con, place, err)
		}
		loc := lld.Location{System: lld.GeoTownship, Unit: lld.Concession, Concession: con, Place: place}
		out = append(out, gridindex.Record{Location: loc, Province: survey.ON, Geometry: outerOnly(g), AccuracyM: c.acc})
	}
	if !hasTownship && len(all) > 0 {
		g, err := survey.Dissolve(survey.Node(all))
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

// onCheckLotFields rejects a lot layer that lacks a field altogether (as
// opposed to a feature with an empty value, which is skipped).
func onCheckLotFields(f onFeature, file string, no int) error {
	switch {
	case !f.has(onLotField...):
		return ingest.Errorf(file, no, "no LOT_IDENT field")
	case !f.has(onConField...):
		return ingest.Errorf(file, no, "no CONCESSION_IDENT (or CONCESSION) field")
	case !f.has(onTwpField...):
		return ingest.Errorf(file, no, "no GEOGRAPHIC_TOWNSHIP_NAME (or GEOGRAPHIC) field")
	}
	return nil
}
