package gridingest

import (
	"io"
	"strings"

	"meridian/shared/ingest"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/geojsonfc"
)

// geoFeature is one feature of a GeoJSON FeatureCollection, its geometry
// converted to lng/lat, oriented and closed.
type geoFeature struct {
	no    int               // 1-based feature number
	props map[string]string // property values as text, by headerName(key)
	geom  orb.Geometry      // nil for a feature without geometry
}

func (f *geoFeature) get(names ...string) string {
	for _, n := range names {
		if v, ok := f.props[n]; ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func (f *geoFeature) has(names ...string) bool {
	for _, n := range names {
		if _, ok := f.props[n]; ok {
			return true
		}
	}
	return false
}

// readGeoJSON streams the Polygon and MultiPolygon features of a GeoJSON
// FeatureCollection to fn, one at a time (see package geojsonfc, which
// also converts the coordinates of a legacy "crs" member). The geoFeature
// is reused for the next feature. Errors are *Error with the feature
// number as Line (0 for the structure of the file).
func readGeoJSON(r io.Reader, file string, fn func(*geoFeature) error) error {
	rd := geojsonfc.NewReader(r, geojsonfc.Options{Types: []string{"Polygon", "MultiPolygon"}})
	f := &geoFeature{props: make(map[string]string)}
	for {
		gf, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			ge := err.(*geojsonfc.Error) // as every error of Next but io.EOF
			return ingest.Errorf(file, ge.Feature, "%s", ge.Reason)
		}
		clear(f.props)
		for _, p := range gf.Properties {
			f.props[headerName(p.Name)] = p.Value
		}
		f.no, f.geom = gf.Number, gf.Geometry
		if f.geom != nil {
			f.geom = orientGeometry(f.geom)
			if why := checkPolygonal(f.geom); why != "" {
				return ingest.Errorf(file, f.no, "geometry: %s", why)
			}
		}
		if err := fn(f); err != nil {
			return err
		}
	}
}
