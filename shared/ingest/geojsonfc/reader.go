// Package geojsonfc streams the features of a GeoJSON FeatureCollection
// (RFC 7946), one at a time, for the ingest readers.
//
// A json.Decoder walks the collection's top-level members token by token
// and takes each member of "features" as one value, so memory is bounded by
// the largest feature, not the file. Members may come in any order. Each
// feature comes with its 1-based line and number, its properties as text in
// file order and its geometry as an orb.Geometry in longitude and latitude.
//
// Coordinates are longitude, latitude unless a legacy "crs" member names
// another system by EPSG code ("EPSG:3857", "urn:ogc:def:crs:EPSG::26917"):
// the codes of proj.FromEPSG and the old codes of Web Mercator are
// converted; NAD83, NAD83(CSRS), WGS 84, OGC CRS84 and a crs of null or
// without a name are taken as longitude, latitude. A crs member that names
// a projection must come before the features.
//
// Member names are matched exactly, as GeoJSON spells them. Every error is
// an *Error; a read that failed keeps failing.
package geojsonfc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/proj"
)

// Options says what the features of a collection must be.
type Options struct {
	// Types are the geometry types a feature may have, by their GeoJSON
	// names (Point, MultiPoint, LineString, MultiLineString, Polygon,
	// MultiPolygon); empty allows all of them. A null geometry is always
	// allowed, GeometryCollection never.
	Types []string
	// ClosedRings requires every polygon ring to have 4 positions or more,
	// the last equal to the first (RFC 7946 §3.1.6). Without it rings are
	// returned as they are written, open or closed, of any length.
	ClosedRings bool
}

// Kind is the JSON type of a property value.
type Kind uint8

// Kinds of property values.
const (
	NullValue Kind = iota
	StringValue
	NumberValue
	BoolValue
	ObjectValue
	ArrayValue
)

var kindNames = [...]string{"null", "string", "number", "boolean", "object", "array"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Property is a member of a feature's "properties" object.
type Property struct {
	Name string
	Kind Kind
	// Value is the value as text: a string as it is, a number as written,
	// "true" or "false", "" for null, an object or an array as its JSON
	// text.
	Value string
}

// Feature is one member of the features array.
type Feature struct {
	Number     int        // 1-based position in the features array
	Line       int        // 1-based line of its opening brace
	Properties []Property // in file order; a properties member of null or none gives none
	// Geometry is in longitude, latitude: a Point, MultiPoint, LineString,
	// MultiLineString, Polygon or MultiPolygon; nil for a null or absent
	// geometry. It is the caller's to keep.
	Geometry orb.Geometry
}

// Error is a problem in the collection.
type Error struct {
	// Line is the 1-based line where a bad feature starts, or otherwise
	// where reading stopped.
	Line int
	// Feature is the Number of the bad feature; 0 when the problem is in
	// the structure of the file (JSON syntax, truncation, top-level
	// members).
	Feature int
	Reason  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("geojsonfc: line %d: %s", e.Line, e.Reason)
}

// allTypes are the geometry types the reader decodes.
var allTypes = []string{"Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"}

// Reader reads the features of one FeatureCollection.
type Reader struct {
	opts     Options
	want     string // the allowed geometry types, for messages
	lines    lineCounter
	dec      *json.Decoder
	started  bool // the opening brace has been read
	err      error
	sawType  bool
	sawArray bool            // the features member has been read
	p        proj.Projection // from the crs member; nil for longitude, latitude
	f        Feature
	raw      rawValue
	names    map[string]string // property names seen, shared between features
	pts      []orb.Point       // scratch for a run of positions
	coords   scanner           // of a geometry's coordinates
}

// NewReader returns a Reader of the collection r holds.
func NewReader(r io.Reader, opts Options) *Reader {
	if len(opts.Types) == 0 {
		opts.Types = allTypes
	}
	rd := &Reader{opts: opts, want: list(opts.Types), names: make(map[string]string)}
	rd.lines = lineCounter{r: r, line: 1}
	rd.dec = json.NewDecoder(&rd.lines)
	return rd
}

// list joins names as "A, B or C".
func list(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Next returns the next feature, or io.EOF after the last one once the
// whole collection has been read and found well formed. The Feature and its
// Properties are reused by the next call; the Geometry is not.
func (r *Reader) Next() (*Feature, error) {
	if r.err != nil {
		return nil, r.err
	}
	f, err := r.next()
	if err != nil {
		r.err = err
	}
	return f, err
}

func (r *Reader) next() (*Feature, error) {
	if !r.started {
		r.started = true
		tok, err := r.dec.Token()
		if err != nil {
			return nil, r.syntax(err)
		}
		if tok != json.Delim('{') {
			return nil, r.errorf("not a GeoJSON object")
		}
		if err := r.members(); err != nil {
			return nil, err
		}
	}
	if r.dec.More() {
		return r.feature()
	}
	if _, err := r.dec.Token(); err != nil { // the closing bracket
		return nil, r.syntax(err)
	}
	return nil, r.members() // io.EOF, or an error in the members after the features
}

// members reads top-level members until the features array opens (nil) or
// the collection ends (io.EOF or an *Error).
func (r *Reader) members() error {
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return r.syntax(err)
		}
		if tok == json.Delim('}') {
			return r.end()
		}
		switch tok {
		case "type":
			var t any
			if err := r.dec.Decode(&t); err != nil {
				return r.syntax(err)
			}
			if t != "FeatureCollection" {
				return r.errorf("type %s: want a FeatureCollection", excerpt(t))
			}
			r.sawType = true
		case "crs":
			if err := r.crs(); err != nil {
				return err
			}
		case "features":
			if r.sawArray {
				return r.errorf("features member appears twice")
			}
			tok, err := r.dec.Token()
			if err != nil {
				return r.syntax(err)
			}
			if tok != json.Delim('[') {
				return r.errorf("features is not an array")
			}
			r.sawArray = true
			return nil
		default:
			if err := r.dec.Decode(&r.raw); err != nil {
				return r.syntax(err)
			}
		}
	}
}

// end checks the collection once its closing brace has been read.
func (r *Reader) end() error {
	switch {
	case !r.sawArray:
		return r.errorf("no features member: want a FeatureCollection")
	case !r.sawType:
		return r.errorf(`no "type": "FeatureCollection" member`)
	}
	if _, err := r.dec.Token(); err != io.EOF {
		return r.errorf("data after the FeatureCollection")
	}
	return io.EOF
}

// crs reads a legacy crs member.
func (r *Reader) crs() error {
	var c struct {
		Properties struct {
			Name string `json:"name"`
		} `json:"properties"`
	}
	if err := r.dec.Decode(&c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return r.errorf(`crs: %s where a {"type": "name", "properties": {"name": ...}} object was expected`, te.Value)
		}
		return r.syntax(err)
	}
	name := c.Properties.Name
	p, err := crsProjection(name)
	if err != nil {
		return r.errorf("crs %q: %v", name, err)
	}
	if r.sawArray && p != nil {
		return r.errorf("crs member after the features: %q names a projection, so it must come first", name)
	}
	r.p = p
	return nil
}

// feature decodes the next member of the features array.
func (r *Reader) feature() (*Feature, error) {
	if err := r.dec.Decode(&r.raw); err != nil {
		return nil, r.syntax(err)
	}
	b := r.raw.b
	f := &r.f
	f.Number++
	f.Line = r.lines.lineAt(r.dec.InputOffset() - int64(len(b)))
	f.Properties, f.Geometry = f.Properties[:0], nil
	if why := r.decodeFeature(f, b); why != "" {
		return nil, &Error{Line: f.Line, Feature: f.Number, Reason: "feature: " + why}
	}
	return f, nil
}

// decodeFeature fills f from b, a JSON value, or returns why it cannot.
func (r *Reader) decodeFeature(f *Feature, b []byte) string {
	s := scanner{b: b}
	if s.peek() != '{' {
		return fmt.Sprintf("not a GeoJSON Feature object (%v)", kindOf(s.peek()))
	}
	var m [3][]byte
	r.pick(&s, m[:], "type", "properties", "geometry")
	typ, props, geom := m[0], m[1], m[2]
	if typ == nil {
		return `no "type": "Feature" member`
	}
	if typ[0] != '"' || r.name(typ) != "Feature" {
		return fmt.Sprintf(`"type" is %s: want "type": "Feature"`, excerpt(typ))
	}
	if why := r.properties(f, props); why != "" {
		return why
	}
	g, err := r.geometry(geom)
	if err != nil {
		return "geometry: " + err.Error()
	}
	f.Geometry = g
	return ""
}

// properties appends the members of props, a JSON object, null or nothing,
// to f.Properties.
func (r *Reader) properties(f *Feature, props []byte) string {
	s := scanner{b: props}
	switch s.peek() {
	case 0, 'n':
		return ""
	case '{':
	default:
		return "properties is not an object"
	}
	for s.members() {
		p := Property{Name: r.name(s.key())}
		v := s.value()
		switch p.Kind = kindOf(v[0]); p.Kind {
		case NullValue:
		case StringValue:
			p.Value = unquote(v)
		case BoolValue:
			p.Value = "false"
			if v[0] == 't' {
				p.Value = "true"
			}
		default:
			p.Value = string(v)
		}
		f.Properties = append(f.Properties, p)
	}
	return ""
}

// pick sets vals[i] to the JSON text of the member names[i] of the object
// at s (of a repeated name, the last), leaving absent ones nil.
func (r *Reader) pick(s *scanner, vals [][]byte, names ...string) {
	for s.members() {
		k := r.name(s.key())
		v := s.value()
		if i := slices.Index(names, k); i >= 0 {
			vals[i] = v
		}
	}
}

// maxNames bounds the property names a Reader keeps for reuse.
const maxNames = 1024

// name returns the member name of the JSON string raw, reusing the string
// of an earlier feature when it has one.
func (r *Reader) name(raw []byte) string {
	if n, ok := r.names[string(raw)]; ok {
		return n
	}
	n := unquote(raw)
	if len(r.names) < maxNames {
		r.names[string(raw)] = n
	}
	return n
}

// errorf returns an *Error about the structure of the file at the
// decoder's position.
func (r *Reader) errorf(format string, args ...any) error {
	return &Error{Line: r.lines.lineAt(r.dec.InputOffset()), Reason: fmt.Sprintf(format, args...)}
}

// syntax turns an error of the decoder into an *Error.
func (r *Reader) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &Error{Line: r.lines.lineAt(r.syntaxOffset()), Reason: "not JSON: " + se.Error()}
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Line: r.lines.lineAt(r.lines.off), Reason: "unexpected end of file: truncated GeoJSON"}
	}
	return &Error{Line: r.lines.lineAt(r.dec.InputOffset()), Reason: "read: " + err.Error()}
}

// syntaxOffset is where the decoder's syntax error lies in the input. The
// decoder stops at the start of the value it could not read, and its
// SyntaxError.Offset does not count every byte read, so the buffered rest
// is scanned again to find the bad byte.
func (r *Reader) syntaxOffset() int64 {
	off := r.dec.InputOffset()
	var se *json.SyntaxError
	if err := json.NewDecoder(r.dec.Buffered()).Decode(&rawValue{}); errors.As(err, &se) && se.Offset > 0 {
		off += se.Offset - 1
	}
	return off
}

// rawValue keeps the bytes of a decoded value where the decoder holds
// them, without a copy: they are valid until the decoder reads again.
type rawValue struct{ b []byte }

func (v *rawValue) UnmarshalJSON(b []byte) error {
	v.b = b
	return nil
}

// excerpt describes a value for a message: its JSON text, cut short.
func excerpt(v any) string {
	b, ok := v.([]byte)
	if !ok {
		b, _ = json.Marshal(v)
	}
	const max = 40
	if len(b) > max {
		return string(bytes.ToValidUTF8(b[:max], nil)) + "…"
	}
	return string(b)
}

// kindOf is the Kind of the JSON value that starts with c.
func kindOf(c byte) Kind {
	switch c {
	case 'n':
		return NullValue
	case '"':
		return StringValue
	case 't', 'f':
		return BoolValue
	case '{':
		return ObjectValue
	case '[':
		return ArrayValue
	}
	return NumberValue
}
