package agingest

import (
	"strconv"
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
	// "pond", "watercourse", "canal", "ditch", "ocean", ... from CanVec's
	// definit_en (or definit_fr, or its definit code), or the NHN's
	// DEFINITION as a word or the word of its code; "" when the file says
	// "Not Identified".
	Kind           string
	DefinitionCode int // NHN numeric DEFINITION (1-9); 0 when the file gives text, and for CanVec (whose definit codes are another list)
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
	// CanVecHydroLayout is CanVec Hydro (waterbody_2, watercourse_1,
	// water_linear_flow_1) as NRCan ships it: each coded attribute as its
	// code and its English and French words.
	CanVecHydroLayout = ingest.Layout{
		Dataset:   "CanVec Hydro water bodies and watercourses",
		Publisher: "NRCan",
		Form:      "feature_id, definit (code) with definit_en and definit_fr, perm (code) with perm_en and perm_fr, name_en",
		Verified:  true,
		Evidence:  "the real national 1:15M files (waterbody_2, watercourse_1; testdata/real/canvec-hydro, from bcgov/bcmaps) and the feature catalogue NRCan ships with them (definit 79 Canal … 83 Lake … 91 Watercourse, 20 Not Identified; perm 59 Permanent, 60 Intermittent, 20 Not Identified)",
	}
)

// hydroLayouts are the hydrology layouts, told apart by their columns:
// CanVec's definit and perm (any of the code and its words) against the
// NHN's NID and DEFINITION.
var hydroLayouts = []ingest.Candidate{
	{Layout: CanVecHydroLayout, Required: [][]string{{"FEATURE_ID"}, {"DEFINIT_EN", "DEFINIT_FR", "DEFINIT"}, {"PERM_EN", "PERM_FR", "PERM"}}},
	{Layout: NHNLayout, Required: [][]string{{"NID"}, {"DEFINITION"}}},
}

// nhnDefinitions are the NHN DEFINITION codes (evidence id 67186078951).
var nhnDefinitions = map[int]string{
	1: "canal", 2: "conduit", 3: "ditch", 4: "lake", 5: "liquid waste",
	6: "reservoir", 7: "river", 8: "tidal river", 9: "watercourse",
}

// canvecDefinitions are CanVec's definit codes, from the feature catalogue
// NRCan ships with CanVec Hydro (SRDB_EXPL_ESSIM_15M_Hydro.gfc.xml): the
// English word of each, in lower case; 20 is "Not Identified".
var canvecDefinitions = map[int]string{
	20: "", 79: "canal", 80: "conduit", 81: "ditch", 82: "diversion", 83: "lake",
	84: "liquid waste", 85: "ocean", 86: "pond", 87: "reservoir", 88: "side channel",
	89: "tidal river", 90: "underground connection", 91: "watercourse",
}

// canvecFrench are the French words of the same catalogue (definit_fr),
// for a file without definit_en.
var canvecFrench = map[string]string{
	"non identifié": "", "canal": "canal", "conduit": "conduit", "fossé de drainage": "ditch",
	"dérivation": "diversion", "lac": "lake", "déchets liquides": "liquid waste", "océan": "ocean",
	"étang": "pond", "réservoir": "reservoir", "voie d'eau latérale": "side channel",
	"rivière à marée": "tidal river", "connexion souterraine": "underground connection", "cours d'eau": "watercourse",
}

// knownDefinitions are the definition words the reader knows: the NHN
// words, CanVec's and the wetland kinds the report uses.
var knownDefinitions = map[string]bool{
	"canal": true, "conduit": true, "ditch": true, "lake": true, "liquid waste": true,
	"reservoir": true, "river": true, "tidal river": true, "watercourse": true,
	"diversion": true, "ocean": true, "side channel": true, "underground connection": true,
	"pond": true, "wetland": true, "marsh": true, "swamp": true, "bog": true, "fen": true, "slough": true,
	"unknown": true,
}

// ReadWaterBodies streams water body polygons (CanVec waterbody_2 or
// NHN_HN_WATERBODY_2; shapefile or GeoJSON) to fn, and ReadWatercourses
// streams flow lines (CanVec watercourse_1 or water_linear_flow_1,
// NHN_HN_NLFLOW_1 or SLWATER_1). The layout is chosen by the columns the
// file has (the first feature's, for GeoJSON): CanVecHydroLayout (verified
// on the real national files) when it has feature_id, definit (or
// definit_en or definit_fr) and perm (or perm_en or perm_fr);
// NHNLayout when it has NID and DEFINITION. A file with neither set is an
// error naming its columns and the closest layout's missing ones: it is
// never read as the other layout. Attributes:
//
//   - id: FEATURE_ID (CanVec), NID (NHN)
//   - name: NAME_EN, NAMEEN, NAME_1, NAME (empty when unnamed)
//   - kind, CanVec: definit_en in lower case, else definit_fr's English
//     word, else the word of the definit code (79 canal … 83 lake … 91
//     watercourse, from NRCan's feature catalogue; "3.0" reads as 3);
//     "Not Identified" (20) is "".
//   - kind, NHN: DEFINITION as text, or as a code (1 canal, 2 conduit,
//     3 ditch, 4 lake, 5 liquid waste, 6 reservoir, 7 river, 8 tidal
//     river, 9 watercourse)
//   - permanency, CanVec: perm_en or perm_fr (Permanent, Intermittent,
//     Not Identified / Non identifié) or the perm code (59, 60, 20)
//   - permanency, NHN: PERMANENCY as text (permanent, intermittent,
//     unknown) or as a code (⚠ not verified: 1 permanent, 2 intermittent,
//     0 and -1 unknown)
//
// Fatal: no layout matches; a numeric NHN DEFINITION that is not an NHN
// code (ingest.BadValue with the codes); a feature without the right
// geometry. Notices (the feature is kept): a definition word not known
// (kept as given, lower case), a CanVec definit code not in the catalogue
// (kind left unknown), a permanency word or code not above (permanency
// left unknown). A feature whose geometry is invalid is skipped by the
// table with a notice (see package ingest).
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
	layout := -1
	return t.Each(func(r *ingest.Row) error {
		if layout < 0 {
			if layout, err = t.Choose(r, hydroLayouts); err != nil {
				return err
			}
		}
		var w WaterFeature
		if hydroLayouts[layout].Layout == CanVecHydroLayout {
			w = canvecWater(t, r)
		} else if w, err = nhnWater(t, r); err != nil {
			return err
		}
		g, why := shape(r.Geom)
		if why != "" {
			return t.Errorf(r.Line, "%s", why)
		}
		w.Geometry = g
		return fn(w)
	})
}

// canvecWater reads a CanVec feature's attributes.
func canvecWater(t *ingest.Table, r *ingest.Row) WaterFeature {
	w := WaterFeature{ID: r.Get("FEATURE_ID"), Name: r.Get("NAME_EN", "NAMEEN", "NAME_1", "NAME")}
	switch def := r.Get("DEFINIT_EN"); {
	case def != "":
		w.Kind = strings.ToLower(def)
		if w.Kind == "not identified" {
			w.Kind = ""
		} else if !knownDefinitions[w.Kind] {
			t.Notice(r.Line, "DEFINIT_EN", def, "kept as given")
		}
	case r.Get("DEFINIT_FR") != "":
		fr := r.Get("DEFINIT_FR")
		k, ok := canvecFrench[strings.ToLower(fr)]
		if !ok {
			k = strings.ToLower(fr)
			t.Notice(r.Line, "DEFINIT_FR", fr, "kept as given")
		}
		w.Kind = k
	case r.Get("DEFINIT") != "":
		code := r.Get("DEFINIT")
		n, err := parseInt(code, 0, 999)
		k, ok := canvecDefinitions[n]
		if err != nil || !ok {
			t.Notice(r.Line, "DEFINIT", code, "not in the CanVec catalogue: kind left unknown")
		}
		w.Kind = k
	}
	pcol, perm := "PERM_EN", r.Get("PERM_EN")
	if perm == "" {
		pcol, perm = "PERM_FR", r.Get("PERM_FR")
	}
	if perm == "" {
		pcol, perm = "PERM", r.Get("PERM")
		if n, err := parseInt(perm, 0, 999); err == nil {
			perm = strconv.Itoa(n)
		}
	}
	switch strings.ToLower(perm) {
	case "permanent", "59":
		w.Permanency = Permanent
	case "intermittent", "60":
		w.Permanency = Intermittent
	case "", "not identified", "non identifié", "20":
	default:
		t.Notice(r.Line, pcol, perm, "permanency left unknown")
	}
	return w
}

// nhnWater reads an NHN feature's attributes.
func nhnWater(t *ingest.Table, r *ingest.Row) (WaterFeature, error) {
	w := WaterFeature{ID: r.Get("NID"), Name: r.Get("NAME_EN", "NAMEEN", "NAME_1", "NAME")}
	def := r.Get("DEFINITION")
	if isNumber(def) {
		n, err := parseInt(def, 1, 9)
		if err != nil {
			return w, t.BadValue(r.Line, "DEFINITION", def, nhnDefinitionCodes)
		}
		w.DefinitionCode, w.Kind = n, nhnDefinitions[n]
	} else {
		w.Kind = strings.ToLower(def)
		if w.Kind != "" && !knownDefinitions[w.Kind] {
			t.Notice(r.Line, "DEFINITION", def, "kept as given")
		}
	}
	perm := r.Get("PERMANENCY")
	switch strings.ToLower(perm) {
	case "permanent", "1":
		w.Permanency = Permanent
	case "intermittent", "2":
		w.Permanency = Intermittent
	case "", "unknown", "0", "-1", "none":
	default:
		t.Notice(r.Line, "PERMANENCY", perm, "permanency left unknown")
	}
	return w, nil
}

// nhnDefinitionCodes lists the NHN DEFINITION codes, for errors.
var nhnDefinitionCodes = []string{"1 (canal)", "2 (conduit)", "3 (ditch)", "4 (lake)", "5 (liquid waste)", "6 (reservoir)", "7 (river)", "8 (tidal river)", "9 (watercourse)"}
