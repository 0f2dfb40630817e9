package agingest

import (
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
)

// Permanency says whether water is there all year.
type Permanency uint8

// Permanency values.
const (
	PermanencyUnknown Permanency = iota
	Permanent
	Intermittent
)

// String returns "unknown", "permanent" or "intermittent".
func (p Permanency) String() string {
	switch p {
	case Permanent:
		return "permanent"
	case Intermittent:
		return "intermittent"
	}
	return "unknown"
}

// WaterFeature is a water body (polygon) or a watercourse (line) of the
// National Hydro Network or CanVec Hydro.
type WaterFeature struct {
	ID   string // NID (NHN) or feature_id (CanVec)
	Name string // English name, "" when unnamed
	// Kind is the feature's definition in lower case: "lake", "reservoir",
	// "pond", "watercourse", "canal", "ditch", "wetland", ... from CanVec's
	// definition_en, a text DEFINITION or the word of an NHN code.
	Kind           string
	DefinitionCode int // NHN numeric DEFINITION (1-9); 0 when the file gives text
	Permanency     Permanency
	Geometry       orb.Geometry // Polygon/MultiPolygon or LineString/MultiLineString
}

// IsWetland reports whether a water body is a wetland (Kind wetland,
// marsh, swamp, bog, fen or slough): the report's wetlands section comes
// from these.
func (w WaterFeature) IsWetland() bool {
	for _, k := range []string{"wetland", "marsh", "swamp", "bog", "fen", "slough"} {
		if strings.Contains(w.Kind, k) {
			return true
		}
	}
	return false
}

// The layouts the hydrology readers read.
var (
	// NHNLayout is the National Hydro Network (NHN_HN_WATERBODY_2,
	// NHN_HN_NLFLOW_1, NHN_HN_SLWATER_1) with its numeric DEFINITION.
	NHNLayout = ingest.Layout{
		Dataset:   "National Hydro Network (NHN) water bodies and flow lines",
		Publisher: "NRCan",
		Form:      "NID, NAME_EN (or NAMEEN), DEFINITION as a code 1 Canal … 9 Watercourse, PERMANENCY",
		Verified:  true,
		Evidence:  "evidence id 67186078951: a pipeline over the NHN work-unit GeoPackages maps DEFINITION 1 Canal, 2 Conduit, 3 Ditch, 4 Lake, 5 Liquid Waste, 6 Reservoir, 7 River, 8 Tidal River, 9 Watercourse; PERMANENCY codes (1 permanent, 2 intermittent) are NOT verified: check them in the NHN catalogue",
	}
	// CanVecHydroLayout is CanVec Hydro (waterbody_2, watercourse_1) with
	// English text columns.
	CanVecHydroLayout = ingest.Layout{
		Dataset:   "CanVec Hydro water bodies and watercourses",
		Publisher: "NRCan",
		Form:      "feature_id, name_en, definition_en (text), permanency_en (text)",
		Verified:  false,
		Evidence:  "from the NRCan catalogue (docs/data-sources.md §16), no file seen: check the column names and the definition_en and permanency_en words of a download",
	}
)

// nhnDefinitions are the NHN DEFINITION codes (evidence id 67186078951).
var nhnDefinitions = map[int]string{
	1: "canal", 2: "conduit", 3: "ditch", 4: "lake", 5: "liquid waste",
	6: "reservoir", 7: "river", 8: "tidal river", 9: "watercourse",
}

// knownDefinitions are the definition words the reader knows: the NHN
// words and the water body kinds of CanVec the report uses (wetlands).
var knownDefinitions = map[string]bool{
	"canal": true, "conduit": true, "ditch": true, "lake": true, "liquid waste": true,
	"reservoir": true, "river": true, "tidal river": true, "watercourse": true,
	"pond": true, "wetland": true, "marsh": true, "swamp": true, "bog": true, "fen": true, "slough": true,
	"unknown": true,
}

// ReadWaterBodies streams water body polygons (NHN_HN_WATERBODY_2 or
// CanVec waterbody_2; shapefile or GeoJSON) to fn, and ReadWatercourses
// streams flow lines (NHN_HN_NLFLOW_1 or SLWATER_1, CanVec
// watercourse_1). Two layouts: NHNLayout (verified for DEFINITION) and
// CanVecHydroLayout (guessed; a file with DEFINITION_EN or PERMANENCY_EN
// is taken to be CanVec). Attributes, by the first name present:
//
//   - id: NID, FEATURE_ID, ID
//   - name: NAME_EN, NAMEEN, NAME_1, NAME (empty when unnamed)
//   - kind: DEFINITION_EN, or DEFINITION as text or as an NHN code
//     (1 canal, 2 conduit, 3 ditch, 4 lake, 5 liquid waste, 6 reservoir,
//     7 river, 8 tidal river, 9 watercourse; "4.0" reads as 4)
//   - permanency: PERMANENCY_EN or PERMANENCY, as text (permanent,
//     intermittent, unknown) or as a code (⚠ not verified: 1 permanent,
//     2 intermittent, 0 and -1 unknown)
//
// Fatal: a numeric DEFINITION that is not an NHN code (ingest.BadValue
// with the codes), a feature without the right geometry. Notices (the
// feature is kept): a definition word not in the NHN list nor the known
// CanVec kinds (kept as given, lower case), a permanency word or code not
// above (permanency left unknown).
func ReadWaterBodies(src Source, fn func(WaterFeature) error) error {
	return readWater(src, polygonal, fn)
}

// ReadWatercourses streams watercourse lines; see ReadWaterBodies.
func ReadWatercourses(src Source, fn func(WaterFeature) error) error {
	return readWater(src, linear, fn)
}

func readWater(src Source, shape func(orb.Geometry) (orb.Geometry, string), fn func(WaterFeature) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if !t.Spatial {
		return t.Errorf(t.HeaderAt, "hydrology needs geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	return t.Each(func(r *ingest.Row) error {
		if r.Has("DEFINITION_EN", "PERMANENCY_EN") {
			t.Recognise(CanVecHydroLayout)
		} else {
			t.Recognise(NHNLayout)
		}
		w := WaterFeature{
			ID:   r.Get("NID", "FEATURE_ID", "ID"),
			Name: r.Get("NAME_EN", "NAMEEN", "NAME_1", "NAME"),
		}
		col, def := "DEFINITION_EN", r.Get("DEFINITION_EN")
		if def == "" {
			col, def = "DEFINITION", r.Get("DEFINITION")
		}
		if isNumber(def) {
			n, err := parseInt(def, 1, 9)
			if err != nil {
				return t.BadValue(r.Line, col, def, nhnDefinitionCodes)
			}
			w.DefinitionCode, w.Kind = n, nhnDefinitions[n]
		} else {
			w.Kind = strings.ToLower(def)
			if w.Kind != "" && !knownDefinitions[w.Kind] {
				t.Notice(r.Line, col, def, "kept as given")
			}
		}
		pcol, perm := "PERMANENCY_EN", r.Get("PERMANENCY_EN")
		if perm == "" {
			pcol, perm = "PERMANENCY", r.Get("PERMANENCY")
		}
		switch strings.ToLower(perm) {
		case "permanent", "1":
			w.Permanency = Permanent
		case "intermittent", "2":
			w.Permanency = Intermittent
		case "", "unknown", "0", "-1", "none":
		default:
			t.Notice(r.Line, pcol, perm, "permanency left unknown")
		}
		g, why := shape(r.Geom)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		w.Geometry = g
		return fn(w)
	})
}

// nhnDefinitionCodes lists the NHN DEFINITION codes, for errors.
var nhnDefinitionCodes = []string{"1 (canal)", "2 (conduit)", "3 (ditch)", "4 (lake)", "5 (liquid waste)", "6 (reservoir)", "7 (river)", "8 (tidal river)", "9 (watercourse)"}
