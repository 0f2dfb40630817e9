package ag

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
)

// ALRPolygon is a polygon of the BC Agricultural Land Reserve.
type ALRPolygon struct {
	ID       string       // ALR polygon id
	Status   string       // "ALR", ... as published
	AreaHa   float64      // published area in hectares; 0 when not published
	Geometry orb.Geometry // orb.Polygon or orb.MultiPolygon, NAD83 lng/lat
}

// Wetland is a wetland polygon of the BC Freshwater Atlas.
type Wetland struct {
	ID             string  // WATERBODY_POLY_ID
	Type           string  // WATERBODY_TYPE: "W" for wetlands
	AreaHa         float64 // AREA_HA; 0 when not published
	Name           string  // GNIS_NAME_1; "" when unnamed
	WatershedGroup string  // WATERSHED_GROUP_CODE (e.g. "PCEA"); "" when absent
	Geometry       orb.Geometry
}

// Column names of the BC layers, by the first present. The BC Geographic
// Warehouse names come first, then the 10-character cuts a shapefile makes
// of them (GDAL keeps the first 10 characters and, for a later column
// with the same cut, the first 8 and _1, _2, ... ⚠), then other
// spellings.
var (
	alrIDCols     = []string{"ALR_POLY_ID", "ALR_POLY_I", "POLY_ID", "OBJECTID"}
	alrStatusCols = []string{"STATUS", "ALR_STATUS"}
	// areaSqmCols hold areas in square metres.
	areaSqmCols = []string{"FEATURE_AREA_SQM", "FEATURE_AR", "AREA_SQM", "FEAT_AREA"}

	wetlandIDCols   = []string{"WATERBODY_POLY_ID", "WATERBODY_", "WBODY_ID"}
	wetlandTypeCols = []string{"WATERBODY_TYPE", "WATERBOD_1", "WATERBODY1", "WBODY_TYPE"}
	wetlandNameCols = []string{"GNIS_NAME_1", "GNIS_NAME_", "GNIS_NAME"}
	wetlandWSGCols  = []string{"WATERSHED_GROUP_CODE", "WSGCODE", "WSG_CODE"}
)

// ReadALR streams the polygons of the BC Agricultural Land Reserve (the
// Agricultural Land Commission's "ALC ALR Polygons",
// WHSE_LEGAL_ADMIN_BOUNDARIES.OATS_ALR_POLYS, docs/data-sources.md §19;
// shapefile or GeoJSON) to fn. §19 names only the attributes (polygon
// id, status, area) ⚠; the reader follows the Warehouse's column names
// (ALR_POLY_ID, STATUS, FEATURE_AREA_SQM) and also reads, by the first
// column present, the shapefile cuts and other spellings ⚠ (the names in
// DataBC's shapefile downloads are not verified):
//
//   - id: ALR_POLY_ID, ALR_POLY_I, POLY_ID, OBJECTID; required. A whole
//     number written with a zero fraction ("4021.0") reads as "4021".
//   - status: STATUS, ALR_STATUS; "ALR" when the file has neither or the
//     value is empty ⚠ (the layer holds the reserve, so a polygon without
//     a status is taken to be in it)
//   - area: AREA_HA in hectares, or else FEATURE_AREA_SQM, FEATURE_AR,
//     AREA_SQM or FEAT_AREA in square metres (divided by 10,000); 0 when
//     none has a value. A negative or non-numeric area is an error.
//
// DataBC publishes the layer in BC Albers (EPSG:3005); coordinates are
// converted as for every reader (see the package documentation).
func ReadALR(src Source, fn func(ALRPolygon) error) error {
	t, err := src.open()
	if err != nil {
		return err
	}
	if !t.spatial {
		return t.errorf(t.headerAt, "the Agricultural Land Reserve needs geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	return each(t, func(r *row) error {
		a := ALRPolygon{ID: wholeID(r.get(alrIDCols...)), Status: r.get(alrStatusCols...)}
		if a.ID == "" {
			return t.errorf(r.line, "ALR polygon without an id (ALR_POLY_ID)")
		}
		if a.Status == "" {
			a.Status = "ALR"
		}
		var err error
		if a.AreaHa, a.Geometry, err = areaPolygon(t, r, "ALR polygon "+a.ID); err != nil {
			return err
		}
		return fn(a)
	})
}

// wetlandType is the FWA WATERBODY_TYPE of wetlands.
const wetlandType = "W"

// fwaTypes names the FWA waterbody types published in layers other than
// the wetlands.
var fwaTypes = map[string]string{"L": "lake", "X": "man-made water body", "R": "river"}

// ReadFWAWetlands streams the wetland polygons of the BC Freshwater Atlas
// (GeoBC's "Freshwater Atlas Wetlands", WHSE_BASEMAPPING.FWA_WETLANDS_POLY,
// docs/data-sources.md §20; shapefile or GeoJSON) to fn. The columns are
// the FWA's (⚠ from documentation, not a download), read by the first
// present, with the 10-character cuts a shapefile makes of them ⚠:
//
//   - id: WATERBODY_POLY_ID, WATERBODY_, WBODY_ID; required. WATERBODY_ is
//     the cut of WATERBODY_POLY_ID, the first of the layer's WATERBODY_
//     columns. A whole number written with a zero fraction reads as a
//     whole number.
//   - type: WATERBODY_TYPE, WATERBOD_1 (the cut of the second WATERBODY_
//     column, the type in the layer's column order ⚠), WATERBODY1,
//     WBODY_TYPE; "W" when the file has none or the value is empty. The
//     layer holds wetlands only: any other type, such as L (lake),
//     X (man-made) or R (river), whose polygons are in sibling FWA layers,
//     is an error.
//   - area: AREA_HA in hectares, or else FEATURE_AREA_SQM and the other
//     square-metre columns ReadALR reads; 0 when none has a value. A
//     negative or non-numeric area is an error.
//   - name: GNIS_NAME_1, GNIS_NAME_ (its cut), GNIS_NAME; "" when unnamed
//   - watershed group: WATERSHED_GROUP_CODE, WSGCODE, WSG_CODE, or
//     WATERSHED_ when its value is not a number (WATERSHED_ is also the cut
//     of WATERSHED_GROUP_ID, a number that comes first in the layer); ""
//     when absent
//
// GeoBC publishes the layer in BC Albers (EPSG:3005); coordinates are
// converted as for every reader (see the package documentation).
func ReadFWAWetlands(src Source, fn func(Wetland) error) error {
	t, err := src.open()
	if err != nil {
		return err
	}
	if !t.spatial {
		return t.errorf(t.headerAt, "FWA wetlands need geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	return each(t, func(r *row) error {
		w := Wetland{
			ID:             wholeID(r.get(wetlandIDCols...)),
			Type:           strings.ToUpper(r.get(wetlandTypeCols...)),
			Name:           r.get(wetlandNameCols...),
			WatershedGroup: r.get(wetlandWSGCols...),
		}
		if w.ID == "" {
			return t.errorf(r.line, "wetland without an id (WATERBODY_POLY_ID)")
		}
		switch w.Type {
		case "":
			w.Type = wetlandType
		case wetlandType:
		default:
			if kind, ok := fwaTypes[w.Type]; ok {
				return t.errorf(r.line, "waterbody %s: type %s (%s): this layer takes wetlands only (W); lakes, rivers and man-made water bodies are other FWA files", w.ID, w.Type, kind)
			}
			return t.errorf(r.line, "waterbody %s: type %q: this layer takes wetlands only (W)", w.ID, w.Type)
		}
		if w.WatershedGroup == "" {
			if v := r.get("WATERSHED_"); !isNumber(v) {
				w.WatershedGroup = v
			}
		}
		var err error
		if w.AreaHa, w.Geometry, err = areaPolygon(t, r, "wetland "+w.ID); err != nil {
			return err
		}
		return fn(w)
	})
}

// hectares returns a row's area in hectares: AREA_HA, or else the first
// square-metre column present divided by 10,000; 0 when neither has a
// value.
func hectares(r *row) (float64, error) {
	col, v, per := "AREA_HA", r.get("AREA_HA"), 1.0
	if v == "" {
		for _, c := range areaSqmCols {
			if r.has(c) {
				col, v, per = c, r.get(c), 1e4 // square metres a hectare
				break
			}
		}
	}
	if v == "" {
		return 0, nil
	}
	a, err := parseFloat(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %v, want an area of 0 or more", col, err)
	}
	if a < 0 {
		return 0, fmt.Errorf("%s: %s is negative, want an area of 0 or more", col, v)
	}
	return a / per, nil
}

// wholeID returns an id trimmed, and a whole number written with a zero
// fraction ("4021.0", as dBASE float fields hold numeric ids) without it.
func wholeID(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '.'); i > 0 && strings.Trim(s[:i], "0123456789") == "" && strings.Trim(s[i+1:], "0") == "" {
		return s[:i]
	}
	return s
}

// isNumber reports whether s reads as a number.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// areaPolygon reads a BC polygon's published area (hectares) and its
// polygonal geometry; errors name the record as what.
func areaPolygon(t *table, r *row, what string) (float64, orb.Geometry, error) {
	area, err := hectares(r)
	if err != nil {
		return 0, nil, t.errorf(r.line, "%s: %v", what, err)
	}
	g, why := polygonal(r.geom)
	if why != "" {
		return 0, nil, t.errorf(r.line, "%s: %s", what, why)
	}
	return area, g, nil
}
