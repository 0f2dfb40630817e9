package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
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

// readGeoJSON streams the features of a GeoJSON FeatureCollection to fn,
// one at a time: the decoder walks the top-level object token by token and
// decodes each member of "features" on its own, so memory is bounded by the
// largest feature, not the file. Coordinates are longitude, latitude (RFC
// 7946) unless a legacy "crs" member names another system by EPSG code
// ("EPSG:3857", "urn:ogc:def:crs:EPSG::26917"); package proj decides which
// codes are supported. A crs member must come before "features". Errors are
// *Error with the feature number as Line (0 for the structure of the file).
func readGeoJSON(r io.Reader, file string, fn func(*geoFeature) error) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	fail := func(no int, format string, args ...any) error {
		return Errorf(file, no, format, args...)
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(0, "not JSON: %v at byte %d", se, se.Offset)
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(0, "unexpected end of file: truncated GeoJSON")
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fail(0, "%s at byte %d: want a GeoJSON object", te.Value, te.Offset)
		}
		return fail(0, "read: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fail(0, "not a GeoJSON object")
	}
	var p proj.Projection
	sawFeatures, isCollection := false, false
	no := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string)
		switch key {
		case "type":
			var t string
			if err := dec.Decode(&t); err != nil {
				return syntax(err)
			}
			if t != "FeatureCollection" {
				return fail(0, "type %q: want a FeatureCollection", t)
			}
			isCollection = true
		case "crs":
			var c struct {
				Type       string `json:"type"`
				Properties struct {
					Name string `json:"name"`
				} `json:"properties"`
			}
			if err := dec.Decode(&c); err != nil {
				return syntax(err)
			}
			if sawFeatures {
				return fail(0, "the crs member comes after the features: it must come first")
			}
			if p, err = crsProjection(c.Properties.Name); err != nil {
				return fail(0, "crs %q: %v", c.Properties.Name, err)
			}
		case "features":
			sawFeatures = true
			tok, err := dec.Token()
			if err != nil {
				return syntax(err)
			}
			if tok == nil {
				continue
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return fail(0, "features is not an array")
			}
			for dec.More() {
				no++
				var raw struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
					Geometry   json.RawMessage            `json:"geometry"`
				}
				if err := dec.Decode(&raw); err != nil {
					var te *json.UnmarshalTypeError
					if errors.As(err, &te) {
						return fail(no, "feature is not a GeoJSON Feature object (%s)", te.Value)
					}
					return syntax(err)
				}
				if raw.Type != "Feature" {
					return fail(no, "type %q: want Feature", raw.Type)
				}
				f := &geoFeature{no: no, props: make(map[string]string, len(raw.Properties))}
				for k, v := range raw.Properties {
					s, err := propertyText(v)
					if err != nil {
						return fail(no, "property %q: %v", k, err)
					}
					f.props[headerName(k)] = s
				}
				g, err := geoJSONGeometry(raw.Geometry, p)
				if err != nil {
					return fail(no, "geometry: %v", err)
				}
				f.geom = g
				if err := fn(f); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return syntax(err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return syntax(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	if !isCollection {
		return fail(0, "no \"type\": \"FeatureCollection\" member")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(0, "data after the FeatureCollection")
	}
	return nil
}

// propertyText renders a property value as text: strings as they are,
// numbers as written, true/false, null as "".
func propertyText(v json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(v))
	switch {
	case s == "null" || s == "":
		return "", nil
	case s[0] == '"':
		var t string
		if err := json.Unmarshal(v, &t); err != nil {
			return "", err
		}
		return t, nil
	case s == "true" || s == "false":
		return s, nil
	case s[0] == '{' || s[0] == '[':
		return s, nil
	}
	if _, ok := parseNumber(s); !ok {
		return "", fmt.Errorf("value %s is not text or a number", s)
	}
	return s, nil
}

var epsgInName = regexp.MustCompile(`(?i)EPSG:{1,2}(?:[0-9.]*:)?([0-9]+)$`)

// crsProjection returns the projection a legacy GeoJSON crs name gives, or
// nil for longitude/latitude.
func crsProjection(name string) (proj.Projection, error) {
	n := strings.TrimSpace(name)
	if strings.HasSuffix(strings.ToUpper(n), "CRS84") {
		return nil, nil
	}
	m := epsgInName.FindStringSubmatch(n)
	if m == nil {
		return nil, fmt.Errorf("names no EPSG code (want e.g. urn:ogc:def:crs:EPSG::3857)")
	}
	code, err := strconv.Atoi(m[1])
	if err != nil {
		return nil, err
	}
	switch code {
	case 4326, 4269, 4617: // WGS 84, NAD83, NAD83(CSRS): already lng/lat
		return nil, nil
	case 900913, 102100, 102113, 3785:
		code = proj.EPSGWebMercator
	}
	p, err := proj.FromEPSG(code)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// geoJSONGeometry decodes a Polygon or MultiPolygon, converts it with p (nil:
// already lng/lat), orients its rings and checks it. null gives nil.
func geoJSONGeometry(raw json.RawMessage, p proj.Projection) (orb.Geometry, error) {
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return nil, nil
	}
	var g struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("not a GeoJSON geometry")
	}
	var out orb.Geometry
	switch g.Type {
	case "Polygon":
		var c [][][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil {
			return nil, fmt.Errorf("polygon coordinates are not an array of rings")
		}
		poly, err := geoJSONPolygon(c, p)
		if err != nil {
			return nil, err
		}
		out = poly
	case "MultiPolygon":
		var c [][][][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil {
			return nil, fmt.Errorf("MultiPolygon coordinates are not an array of polygons")
		}
		mp := make(orb.MultiPolygon, 0, len(c))
		for _, pc := range c {
			poly, err := geoJSONPolygon(pc, p)
			if err != nil {
				return nil, err
			}
			mp = append(mp, poly)
		}
		out = mp
	default:
		return nil, fmt.Errorf("type %q: want Polygon or MultiPolygon", g.Type)
	}
	out = orientGeometry(out)
	if why := checkPolygonal(out); why != "" {
		return nil, errors.New(why)
	}
	return out, nil
}

func geoJSONPolygon(c [][][]float64, p proj.Projection) (orb.Polygon, error) {
	poly := make(orb.Polygon, 0, len(c))
	for _, rc := range c {
		ring := make(orb.Ring, 0, len(rc))
		for _, pos := range rc {
			if len(pos) < 2 {
				return nil, fmt.Errorf("position with %d numbers, want at least 2", len(pos))
			}
			pt := orb.Point{pos[0], pos[1]}
			if p != nil {
				var err error
				if pt, err = p.ToLngLat(pos[0], pos[1]); err != nil {
					return nil, err
				}
			}
			ring = append(ring, pt)
		}
		poly = append(poly, ring)
	}
	return poly, nil
}
