package agingest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
)

// ALRPolygon is a polygon of the BC Agricultural Land Reserve.
type ALRPolygon struct {
	ID          string       // ALR polygon id: ALR_POLY_ID, or OBJECTID when the file has none
	Status      string       // "ALR", ... as published
	FeatureCode string       // FEATURE_CODE (FTRCD in DataBC's shapefile); "" when absent
	AreaHa      float64      // published area in hectares; 0 when not published
	Geometry    orb.Geometry // orb.Polygon or orb.MultiPolygon, NAD83 lng/lat
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
	alrCodeCols   = []string{"FEATURE_CODE", "FTRCD", "FEATURE_CO"}
	// areaSqmCols hold areas in square metres.
	areaSqmCols = []string{"FEATURE_AREA_SQM", "FEATURE_AR", "AREA_SQM", "FEAT_AREA"}

	wetlandIDCols   = []string{"WATERBODY_POLY_ID", "WATERBODY_", "WBODY_ID"}
	wetlandTypeCols = []string{"WATERBODY_TYPE", "WATERBOD_1", "WATERBODY1", "WBODY_TYPE"}
	wetlandNameCols = []string{"GNIS_NAME_1", "GNIS_NAME_", "GNIS_NAME"}
	wetlandWSGCols  = []string{"WATERSHED_GROUP_CODE", "WSGCODE", "WSG_CODE"}
)

// The layouts of the BC readers.
var (
	// ALRWarehouseLayout is the BC Geographic Warehouse's
	// WHSE_LEGAL_ADMIN_BOUNDARIES.OATS_ALR_POLYS with its full names
	// (a WFS or GeoJSON download, or a file geodatabase export).
	ALRWarehouseLayout = ingest.Layout{
		Dataset:   "ALC ALR Polygons (OATS_ALR_POLYS)",
		Publisher: "Agricultural Land Commission / DataBC",
		Form:      "Warehouse names ALR_POLY_ID, STATUS, FEATURE_CODE, OBJECTID, FEATURE_AREA_SQM",
		Verified:  true,
		Evidence:  "evidence id 983348170 (docs/real-layouts.md, Agriculture)",
	}
	// ALRShapefileLayout is DataBC's shapefile download,
	// OATS_ALR_POLYS/TSLRPLS_polygon.shp, with DataBC's own short names.
	ALRShapefileLayout = ingest.Layout{
		Dataset:   "ALC ALR Polygons (OATS_ALR_POLYS)",
		Publisher: "Agricultural Land Commission / DataBC",
		Form:      "DataBC shapefile TSLRPLS_polygon.shp: STATUS, FTRCD, OBJECTID, AREA_SQM (the id: OBJECTID unless an ALR_POLY_ID column is there)",
		Verified:  true,
		Evidence:  "evidence id 28240129689: a geoprocessing script over the DataBC download names STATUS, FTRCD, OBJECTID, AREA_SQM (docs/real-layouts.md, Agriculture); the download's other columns were not seen",
	}
	// ALRCutLayout is the Warehouse layer converted to a shapefile by a
	// tool that cuts names to ten characters (ALR_POLY_I, FEATURE_AR).
	ALRCutLayout = ingest.Layout{
		Dataset:   "ALC ALR Polygons (OATS_ALR_POLYS)",
		Publisher: "Agricultural Land Commission / DataBC",
		Form:      "Warehouse names cut to ten characters by a conversion tool (ALR_POLY_I, FEATURE_AR)",
		Verified:  false,
		Evidence:  "not a publisher's form: a shapefile you converted yourself; check that ALR_POLY_I is the polygon id and FEATURE_AR the area in square metres",
	}
	// FWAWarehouseLayout is the BC Geographic Warehouse's
	// WHSE_BASEMAPPING.FWA_WETLANDS_POLY with its full names.
	FWAWarehouseLayout = ingest.Layout{
		Dataset:   "Freshwater Atlas Wetlands (FWA_WETLANDS_POLY)",
		Publisher: "GeoBC / DataBC",
		Form:      "Warehouse names waterbody_poly_id, watershed_group_id, waterbody_type, gnis_name_1, fwa_watershed_code, local_watershed_code, watershed_group_code, left_right_tributary, feature_area_sqm, feature_length_m",
		Verified:  true,
		Evidence:  "evidence id 508355847: a loader of WHSE_BASEMAPPING.FWA_WETLANDS_POLY lists these columns (docs/real-layouts.md, Agriculture)",
	}
	// FWAShapefileLayout is the layer as a shapefile with names cut to ten
	// characters.
	FWAShapefileLayout = ingest.Layout{
		Dataset:   "Freshwater Atlas Wetlands (FWA_WETLANDS_POLY)",
		Publisher: "GeoBC / DataBC",
		Form:      "a shapefile with the Warehouse names cut to ten characters (WATERBODY_, WATERBOD_1, GNIS_NAME_, WATERSHED_)",
		Verified:  false,
		Evidence:  "DataBC's shapefile download uses its own short names (as for the ALR, evidence id 28240129689), not seen for the wetlands: check the .dbf's column names; the Warehouse names (GeoJSON, WFS) are verified",
	}
)

// ReadALR streams the polygons of the BC Agricultural Land Reserve (the
// Agricultural Land Commission's "ALC ALR Polygons",
// WHSE_LEGAL_ADMIN_BOUNDARIES.OATS_ALR_POLYS, docs/data-sources.md §19;
// shapefile or GeoJSON) to fn, in the Warehouse's column names
// (ALR_POLY_ID, STATUS, FEATURE_CODE, OBJECTID, FEATURE_AREA_SQM) or
// DataBC's shapefile short names (STATUS, FTRCD, OBJECTID, AREA_SQM), both
// seen in real use, and also, by the first column present, the ten-letter
// cuts of a converted shapefile and other spellings ⚠:
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
// Layouts: ALRWarehouseLayout, ALRShapefileLayout (a file with FTRCD),
// ALRCutLayout (a file with ALR_POLY_I or FEATURE_AR). The feature code
// is FEATURE_CODE, FTRCD or FEATURE_CO, as given. Fatal: no id, a bad
// area, a feature without a polygon. There are no notices: STATUS and the
// feature code are kept as given (no published list of their values seen).
//
// DataBC publishes the layer in BC Albers (EPSG:3005); coordinates are
// converted as for every reader (see the package documentation).
func ReadALR(src Source, fn func(ALRPolygon) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if !t.Spatial {
		return t.Errorf(t.HeaderAt, "the Agricultural Land Reserve needs geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	chosen := false
	return t.Each(func(r *ingest.Row) error {
		if !chosen {
			if _, err := t.Choose(r, alrLayouts); err != nil {
				return err
			}
			chosen = true
		}
		a := ALRPolygon{ID: wholeID(r.Get(alrIDCols...)), Status: r.Get(alrStatusCols...), FeatureCode: r.Get(alrCodeCols...)}
		if a.ID == "" {
			return t.Errorf(r.Line, "ALR polygon without an id (ALR_POLY_ID)")
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

// alrLayouts are the ALR layouts, told apart by their columns: DataBC's
// short FTRCD, a converted shapefile's cuts, the Warehouse's names; each
// needs an id.
var alrLayouts = []ingest.Candidate{
	{Layout: ALRShapefileLayout, Required: [][]string{{"FTRCD"}, alrIDCols}},
	{Layout: ALRCutLayout, Required: [][]string{{"ALR_POLY_I", "FEATURE_AR"}, alrIDCols}},
	{Layout: ALRWarehouseLayout, Required: [][]string{alrIDCols}},
}

// fwaLayouts are the FWA wetlands layouts: a converted shapefile's cut
// id, or the Warehouse's.
var fwaLayouts = []ingest.Candidate{
	{Layout: FWAShapefileLayout, Required: [][]string{{"WATERBODY_", "WATERBOD_1"}}},
	{Layout: FWAWarehouseLayout, Required: [][]string{wetlandIDCols}},
}

// wetlandType is the FWA WATERBODY_TYPE of wetlands.
const wetlandType = "W"

// fwaTypes names the FWA waterbody types published in layers other than
// the wetlands.
var fwaTypes = map[string]string{"L": "lake", "X": "man-made water body", "R": "river"}

// ReadFWAWetlands streams the wetland polygons of the BC Freshwater Atlas
// (GeoBC's "Freshwater Atlas Wetlands", WHSE_BASEMAPPING.FWA_WETLANDS_POLY,
// docs/data-sources.md §20; shapefile or GeoJSON) to fn. The columns are
// the Warehouse's (waterbody_poly_id, watershed_group_id, waterbody_type,
// gnis_name_1, fwa_watershed_code, local_watershed_code,
// watershed_group_code, left_right_tributary, feature_area_sqm,
// feature_length_m: seen in real use), read by the first present, with
// the 10-character cuts a converted shapefile makes of them ⚠ (DataBC's
// own shapefile short names for this layer are not known):
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
// Layouts: FWAWarehouseLayout (verified), FWAShapefileLayout (a file with
// WATERBODY_ or WATERBOD_1; guessed). Fatal: no id, a waterbody type
// other than W (ingest.BadValue), a bad area, a feature without a
// polygon. There are no notices.
//
// GeoBC publishes the layer in BC Albers (EPSG:3005); coordinates are
// converted as for every reader (see the package documentation).
func ReadFWAWetlands(src Source, fn func(Wetland) error) error {
	t, err := src.Open()
	if err != nil {
		return err
	}
	if !t.Spatial {
		return t.Errorf(t.HeaderAt, "FWA wetlands need geometry: give the shapefile or GeoJSON, not %s", src.Format)
	}
	chosen := false
	return t.Each(func(r *ingest.Row) error {
		if !chosen {
			if _, err := t.Choose(r, fwaLayouts); err != nil {
				return err
			}
			chosen = true
		}
		w := Wetland{
			ID:             wholeID(r.Get(wetlandIDCols...)),
			Type:           strings.ToUpper(r.Get(wetlandTypeCols...)),
			Name:           r.Get(wetlandNameCols...),
			WatershedGroup: r.Get(wetlandWSGCols...),
		}
		if w.ID == "" {
			return t.Errorf(r.Line, "wetland without an id (WATERBODY_POLY_ID)")
		}
		switch w.Type {
		case "":
			w.Type = wetlandType
		case wetlandType:
		default:
			if kind, ok := fwaTypes[w.Type]; ok {
				return t.Errorf(r.Line, "waterbody %s: type %s (%s): this layer takes wetlands only (W); lakes, rivers and man-made water bodies are other FWA files", w.ID, w.Type, kind)
			}
			return t.BadValue(r.Line, "WATERBODY_TYPE", w.Type, []string{"W (wetland)"})
		}
		if w.WatershedGroup == "" {
			if v := r.Get("WATERSHED_"); !isNumber(v) {
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
func hectares(r *ingest.Row) (float64, error) {
	col, v, per := "AREA_HA", r.Get("AREA_HA"), 1.0
	if v == "" {
		for _, c := range areaSqmCols {
			if r.Has(c) {
				col, v, per = c, r.Get(c), 1e4 // square metres a hectare
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
func areaPolygon(t *ingest.Table, r *ingest.Row, what string) (float64, orb.Geometry, error) {
	area, err := hectares(r)
	if err != nil {
		return 0, nil, t.Errorf(r.Line, "%s: %v", what, err)
	}
	g, why := polygonal(r.Geom)
	if why != "" {
		return 0, nil, t.Errorf(r.Line, "%s: %s", what, why)
	}
	return area, g, nil
}
