package ag

import (
	"strconv"
	"strings"

	"github.com/paulmach/orb"
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
	// definition_en or a text DEFINITION; "" when the file gives only a
	// numeric NHN code (kept in DefinitionCode).
	Kind           string
	DefinitionCode int // NHN numeric DEFINITION; 0 when the file gives text
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

// ReadWaterBodies streams water body polygons (NHN_HN_Waterbody_2 or
// CanVec waterbody_2; shapefile or GeoJSON) to fn, and ReadWatercourses
// streams single-line watercourses (NHN_HN_SLWATER_1 or NLFLOW_1, CanVec
// watercourse_1). The layout follows the NRCan catalogue (docs/
// data-sources.md §16, ⚠ not yet checked against a download); attributes,
// by the first name present:
//
//   - id: NID, FEATURE_ID, ID
//   - name: NAME_EN, NAMEEN, NAME_1, NAME (empty when unnamed)
//   - kind: DEFINITION_EN, or DEFINITION as text or as an NHN code
//   - permanency: PERMANENCY_EN or PERMANENCY, as text (permanent,
//     intermittent, unknown) or as a code (⚠ NHN: 1 permanent,
//     2 intermittent, other values unknown)
func ReadWaterBodies(src Source, fn func(WaterFeature) error) error {
	return readWater(src, polygonal, fn)
}

// ReadWatercourses streams watercourse lines; see ReadWaterBodies.
func ReadWatercourses(src Source, fn func(WaterFeature) error) error {
	return readWater(src, linear, fn)
}

func readWater(src Source, shape func(orb.Geometry) (orb.Geometry, string), fn func(WaterFeature) error) error {
	t, err := src.open()
	if err != nil {
		return err
	}
	if !t.spatial {
		return t.errorf(t.headerAt, "hydrology needs geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	return each(t, func(r *row) error {
		w := WaterFeature{
			ID:   r.get("NID", "FEATURE_ID", "ID"),
			Name: r.get("NAME_EN", "NAMEEN", "NAME_1", "NAME"),
		}
		def := r.get("DEFINITION_EN", "DEFINITION")
		if n, err := strconv.Atoi(def); err == nil {
			if n < 0 {
				return t.errorf(r.line, "DEFINITION %d: want a code 0 or more, or text", n)
			}
			w.DefinitionCode = n
		} else {
			w.Kind = strings.ToLower(def)
		}
		perm := strings.ToLower(r.get("PERMANENCY_EN", "PERMANENCY"))
		switch perm {
		case "permanent", "1":
			w.Permanency = Permanent
		case "intermittent", "2":
			w.Permanency = Intermittent
		case "", "unknown", "0", "-1", "none":
		default:
			return t.errorf(r.line, "permanency %q: want permanent, intermittent or unknown", perm)
		}
		g, why := shape(r.geom)
		if why != "" {
			return t.errorf(r.line, "%s", why)
		}
		w.Geometry = g
		return fn(w)
	})
}
