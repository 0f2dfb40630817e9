package energy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"meridian/shared/ingest"
)

// lineTracker sits between a reader and a json.Decoder and maps the
// decoder's byte offsets to line numbers. It keeps the bytes the decoder
// may still refer to (forget drops the rest), so memory stays bounded by
// the decoder's own buffer.
type lineTracker struct {
	r        io.Reader
	chunks   [][]byte
	base     int64 // offset of chunks[0]
	baseLine int   // line number at base, from 1
}

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.chunks = append(t.chunks, append([]byte(nil), p[:n]...))
	}
	return n, err
}

// forget drops the chunks that end before off.
func (t *lineTracker) forget(off int64) {
	for len(t.chunks) > 1 && t.base+int64(len(t.chunks[0])) <= off {
		t.baseLine += countNewlines(t.chunks[0])
		t.base += int64(len(t.chunks[0]))
		t.chunks[0] = nil
		t.chunks = t.chunks[1:]
	}
}

func countNewlines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

// lineAt returns the line of byte offset off. With skip, it first moves off
// past whitespace and commas, to the start of the next value.
func (t *lineTracker) lineAt(off int64, skip bool) int {
	line := t.baseLine
	pos := t.base
	for _, c := range t.chunks {
		for _, b := range c {
			if pos >= off {
				if !skip || !(b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == ',') {
					return line
				}
			}
			if b == '\n' {
				line++
			}
			pos++
		}
	}
	return line
}

// feature is one member of a FeatureCollection's features array.
type feature struct {
	line  int               // line of its opening brace
	props map[string]string // values as text (numbers as written, null as ""), keys upper-cased
	null  map[string]bool   // properties that were JSON null
	geom  orb.Geometry      // nil for a null geometry
}

func (f *feature) get(names ...string) string {
	for _, n := range names {
		if v, ok := f.props[n]; ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func (f *feature) has(name string) bool {
	_, ok := f.props[name]
	return ok
}

// readFeatures streams the features of a GeoJSON FeatureCollection to fn,
// one at a time: the decoder walks the top-level object token by token and
// decodes each member of "features" on its own, so memory is bounded by
// the largest feature. Coordinates must be longitude/latitude: a "crs"
// member may name EPSG:4269 (NAD83, the AER's GCS product), EPSG:4326 or
// CRS84, nothing else. Geometries must be one of kinds (or null).
func readFeatures(r io.Reader, file string, kinds []string, fn func(*feature) error) error {
	lt := &lineTracker{r: r, baseLine: 1}
	dec := json.NewDecoder(lt)
	dec.UseNumber()
	fail := func(off int64, format string, args ...any) error {
		return ingest.Errorf(file, lt.lineAt(off, false), format, args...)
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(se.Offset, "not JSON: %v", se)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fail(te.Offset, "%s where %s was expected", te.Value, te.Type)
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(math.MaxInt64, "unexpected end of file: truncated GeoJSON")
		}
		return fail(dec.InputOffset(), "read: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fail(0, "not a GeoJSON object")
	}
	isCollection := false
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
				return fail(dec.InputOffset(), "type %q: want a FeatureCollection", t)
			}
			isCollection = true
		case "crs":
			var c struct {
				Properties struct {
					Name string `json:"name"`
				} `json:"properties"`
			}
			if err := dec.Decode(&c); err != nil {
				return syntax(err)
			}
			if !geographicCRS(c.Properties.Name) {
				return fail(dec.InputOffset(), "crs %q: want longitude/latitude (EPSG:4269 NAD83, EPSG:4326 or CRS84)", c.Properties.Name)
			}
		case "features":
			tok, err := dec.Token()
			if err != nil {
				return syntax(err)
			}
			if tok == nil {
				continue
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return fail(dec.InputOffset(), "features is not an array")
			}
			for dec.More() {
				off := dec.InputOffset()
				lt.forget(off)
				line := lt.lineAt(off, true)
				f, err := decodeFeature(dec, kinds)
				if err != nil {
					var se *json.SyntaxError
					if errors.As(err, &se) || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
						return syntax(err)
					}
					return ingest.Errorf(file, line, "feature: %v", err)
				}
				f.line = line
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
		return fail(dec.InputOffset(), "no \"type\": \"FeatureCollection\" member")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(dec.InputOffset(), "data after the FeatureCollection")
	}
	return nil
}

func geographicCRS(name string) bool {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "", "EPSG:4269", "URN:OGC:DEF:CRS:EPSG::4269", "EPSG:4326", "URN:OGC:DEF:CRS:EPSG::4326",
		"URN:OGC:DEF:CRS:OGC:1.3:CRS84", "CRS84", "OGC:CRS84":
		return true
	}
	return false
}

func decodeFeature(dec *json.Decoder, kinds []string) (*feature, error) {
	var raw struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Geometry   json.RawMessage            `json:"geometry"`
	}
	if err := dec.Decode(&raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("not a GeoJSON Feature object (%s where %s was expected)", te.Value, te.Type)
		}
		return nil, err
	}
	if raw.Type != "Feature" {
		return nil, fmt.Errorf("type %q: want Feature", raw.Type)
	}
	f := &feature{props: make(map[string]string, len(raw.Properties))}
	for k, v := range raw.Properties {
		s, isNull, err := propertyText(v)
		if err != nil {
			return nil, fmt.Errorf("property %q: %v", k, err)
		}
		k = strings.ToUpper(strings.TrimSpace(k))
		f.props[k] = s
		if isNull {
			if f.null == nil {
				f.null = make(map[string]bool)
			}
			f.null[k] = true
		}
	}
	g, err := featureGeometry(raw.Geometry, kinds)
	if err != nil {
		return nil, fmt.Errorf("geometry: %v", err)
	}
	f.geom = g
	return f, nil
}

// propertyText renders a property value as text: strings as they are,
// numbers as written, booleans as true/false, null as "".
func propertyText(v json.RawMessage) (text string, isNull bool, err error) {
	s := strings.TrimSpace(string(v))
	switch {
	case s == "null" || s == "":
		return "", true, nil
	case s[0] == '"':
		var t string
		if err := json.Unmarshal(v, &t); err != nil {
			return "", false, err
		}
		return t, false, nil
	case s == "true" || s == "false":
		return s, false, nil
	case s[0] == '{' || s[0] == '[':
		return "", false, errors.New("an object or array where text or a number was expected")
	}
	if _, ok := parseNumber(s); !ok {
		return "", false, fmt.Errorf("%s is not text or a number", s)
	}
	return s, false, nil
}

// featureGeometry decodes a GeoJSON geometry of one of kinds, checking that
// its coordinates are longitudes and latitudes.
func featureGeometry(raw json.RawMessage, kinds []string) (orb.Geometry, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("not a GeoJSON geometry object")
	}
	ok := false
	for _, k := range kinds {
		ok = ok || head.Type == k
	}
	if !ok {
		return nil, fmt.Errorf("type %q: want %s", head.Type, strings.Join(kinds, " or "))
	}
	g, err := geojson.UnmarshalGeometry(raw)
	if err != nil {
		return nil, err
	}
	geom := g.Geometry()
	if geom == nil {
		return nil, fmt.Errorf("type %q without coordinates", head.Type)
	}
	if err := checkLngLat(geom); err != nil {
		return nil, err
	}
	return geom, nil
}

// checkLngLat refuses coordinates outside longitude/latitude ranges (a
// projected file such as AER's 10TM variant) and empty parts.
func checkLngLat(g orb.Geometry) error {
	var bad error
	check := func(ps []orb.Point, min int) {
		if len(ps) < min && bad == nil {
			bad = fmt.Errorf("a line or ring with %d points (want %d or more)", len(ps), min)
		}
		for _, p := range ps {
			if !(p[0] >= -180 && p[0] <= 180 && p[1] >= -90 && p[1] <= 90) && bad == nil {
				bad = fmt.Errorf("coordinate %v is not longitude, latitude (a projected file?)", p)
			}
		}
	}
	switch g := g.(type) {
	case orb.LineString:
		check(g, 2)
	case orb.MultiLineString:
		if len(g) == 0 {
			return errors.New("a MultiLineString without lines")
		}
		for _, l := range g {
			check(l, 2)
		}
	case orb.Polygon:
		if len(g) == 0 {
			return errors.New("a Polygon without rings")
		}
		for _, r := range g {
			check(r, 4)
		}
	case orb.MultiPolygon:
		if len(g) == 0 {
			return errors.New("a MultiPolygon without polygons")
		}
		for _, p := range g {
			if len(p) == 0 {
				return errors.New("a polygon without rings")
			}
			for _, r := range p {
				check(r, 4)
			}
		}
	case orb.Point:
		check([]orb.Point{g}, 1)
	}
	return bad
}
