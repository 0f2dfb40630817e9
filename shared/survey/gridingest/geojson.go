package gridingest

import (
	"io"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/geojsonfc"
)

// geoFeature is one feature of a GeoJSON FeatureCollection, its geometry
// converted to lng/lat, oriented and closed.
type geoFeature struct {
	no   int          // 1-based feature number
	row  *ingest.Row  // property values as trimmed text, by headerName(key)
	geom orb.Geometry // nil for a feature without geometry
}

func (f *geoFeature) get(names ...string) string { return f.row.Get(names...) }

func (f *geoFeature) has(names ...string) bool { return f.row.Has(names...) }

// readGeoJSON streams the Polygon and MultiPolygon features of a GeoJSON
// FeatureCollection to fn, one at a time (an ingest.Table over package
// geojsonfc, which also converts the coordinates of a legacy "crs"
// member). The geoFeature is reused for the next feature. Errors are
// *Error with the feature number as Line (0 for the structure of the
// file); a property given twice (after headerName) is one.
func readGeoJSON(r io.Reader, file string, fn func(*geoFeature) error) error {
	t, err := ingest.Source{
		Name: file, Format: ingest.GeoJSON, R: r,
		Names:          headerName,
		Features:       &geojsonfc.Options{Types: []string{"Polygon", "MultiPolygon"}},
		FeatureNumbers: true,
		Strict:         true, // a bad feature is an error, never skipped
		Geometry: func(g orb.Geometry) (orb.Geometry, string) {
			g, why := blockPolygon(g)
			if why != "" {
				why = "geometry: " + why
			}
			return g, why
		},
	}.Open()
	if err != nil {
		return err
	}
	f := new(geoFeature)
	return t.Each(func(r *ingest.Row) error {
		f.no, f.row, f.geom = r.Line, r, r.Geom
		return fn(f)
	})
}
