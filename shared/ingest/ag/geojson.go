package ag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/proj"
)

// lineCounter passes reads through and remembers where the newlines are,
// so that a byte offset can be turned into a line number. Offsets must be
// asked for in increasing order; newlines before the last offset asked for
// are forgotten, so memory is bounded by the decoder's read-ahead.
type lineCounter struct {
	r    io.Reader
	off  int64   // bytes read
	nl   []int64 // offsets of newlines not yet counted
	line int     // line of the last offset asked for
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			c.nl = append(c.nl, c.off+int64(i))
		}
	}
	c.off += int64(n)
	return n, err
}

// lineAt returns the 1-based line of the byte at off.
func (c *lineCounter) lineAt(off int64) int {
	k := 0
	for k < len(c.nl) && c.nl[k] < off {
		k++
	}
	c.line += k
	c.nl = c.nl[k:]
	return c.line
}

// geoJSON streams the features of a FeatureCollection: the decoder walks
// the top-level object token by token and decodes one feature at a time,
// so memory is bounded by the largest feature, not the file.
type geoJSON struct {
	name    string
	lc      *lineCounter
	dec     *json.Decoder
	p       proj.Projection // from a legacy "crs" member; nil for lng/lat
	state   int
	sawType bool
	rw      row
}

const (
	gjFeatures = iota // inside the features array
	gjDone
)

func openGeoJSON(r io.Reader, name string) (*table, error) {
	lc := &lineCounter{r: r, line: 1}
	g := &geoJSON{name: name, lc: lc, dec: json.NewDecoder(lc)}
	g.dec.UseNumber()
	tok, err := g.dec.Token()
	if err != nil {
		return nil, g.syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, g.errorf(1, "not a GeoJSON object")
	}
	if err := g.members(false); err != nil {
		return nil, err
	}
	return &table{name: name, spatial: true, next: g.next}, nil
}

func (g *geoJSON) errorf(line int, format string, args ...any) error {
	return ingest.Errorf(g.name, line, format, args...)
}

// here is the line the decoder has reached.
func (g *geoJSON) here() int { return g.lc.lineAt(g.dec.InputOffset()) }

// syntax turns a decoding error into an *ingest.Error.
func (g *geoJSON) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return g.errorf(g.lc.lineAt(se.Offset), "not JSON: %v", se)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return g.errorf(g.here(), "unexpected end of file: truncated GeoJSON")
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return g.errorf(g.here(), "%s where GeoJSON wants a %s", te.Value, te.Type)
	}
	return g.errorf(g.here(), "read: %v", err)
}

// members reads the top-level members up to the features array (or, when
// after is set, from the end of that array to the end of the object).
func (g *geoJSON) members(after bool) error {
	for {
		tok, err := g.dec.Token()
		if err != nil {
			return g.syntax(err)
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			if !after {
				return g.errorf(g.here(), "no features member: want a FeatureCollection")
			}
			if !g.sawType {
				return g.errorf(g.here(), `no "type": "FeatureCollection" member`)
			}
			if _, err := g.dec.Token(); err != io.EOF {
				return g.errorf(g.here(), "data after the FeatureCollection")
			}
			g.state = gjDone
			return nil
		}
		k, _ := tok.(string)
		switch k {
		case "type":
			var s string
			if err := g.dec.Decode(&s); err != nil {
				return g.syntax(err)
			}
			if s != "FeatureCollection" {
				return g.errorf(g.here(), "type %q: want a FeatureCollection", s)
			}
			g.sawType = true
		case "crs":
			if after {
				return g.errorf(g.here(), "crs member after the features: it must come first")
			}
			if err := g.crs(); err != nil {
				return err
			}
		case "features":
			if after {
				return g.errorf(g.here(), "features member appears twice")
			}
			tok, err := g.dec.Token()
			if err != nil {
				return g.syntax(err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return g.errorf(g.here(), "features is not an array")
			}
			g.state = gjFeatures
			return nil
		default:
			var skip json.RawMessage
			if err := g.dec.Decode(&skip); err != nil {
				return g.syntax(err)
			}
		}
	}
}

// crs reads a legacy crs member naming an EPSG code.
func (g *geoJSON) crs() error {
	var c struct {
		Type       string `json:"type"`
		Properties struct {
			Name string `json:"name"`
		} `json:"properties"`
	}
	if err := g.dec.Decode(&c); err != nil {
		return g.syntax(err)
	}
	name := strings.ToUpper(strings.TrimSpace(c.Properties.Name))
	if strings.HasSuffix(name, "CRS84") {
		return nil
	}
	i := strings.LastIndexByte(name, ':')
	code, err := strconv.Atoi(name[i+1:])
	if i < 0 || !strings.Contains(name, "EPSG") || err != nil {
		return g.errorf(g.here(), "crs %q: want an EPSG code such as EPSG:4326", c.Properties.Name)
	}
	p, err := proj.FromEPSG(code)
	if err != nil {
		return g.errorf(g.here(), "crs %q: %v", c.Properties.Name, err)
	}
	if p.EPSG() != proj.EPSGNAD83 && p.EPSG() != proj.EPSGWGS84 {
		g.p = p
	}
	return nil
}

func (g *geoJSON) next() (*row, error) {
	if g.state == gjDone {
		return nil, io.EOF
	}
	if !g.dec.More() {
		if _, err := g.dec.Token(); err != nil { // the closing ]
			return nil, g.syntax(err)
		}
		if err := g.members(true); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	var raw json.RawMessage
	if err := g.dec.Decode(&raw); err != nil {
		return nil, g.syntax(err)
	}
	line := g.lc.lineAt(g.dec.InputOffset() - int64(len(raw)))
	if err := g.feature(raw, line); err != nil {
		return nil, err
	}
	return &g.rw, nil
}

// feature decodes one feature into g.rw.
func (g *geoJSON) feature(raw []byte, line int) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	bad := func(format string, args ...any) error {
		return g.errorf(line, "feature: "+format, args...)
	}
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return bad("not an object")
	}
	g.rw = row{line: line, idx: make(map[string]int)}
	var geomRaw json.RawMessage
	sawType := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad("%v", err)
		}
		k, _ := tok.(string)
		switch k {
		case "type":
			var s string
			if err := dec.Decode(&s); err != nil || s != "Feature" {
				return bad(`want "type": "Feature"`)
			}
			sawType = true
		case "geometry":
			if err := dec.Decode(&geomRaw); err != nil {
				return bad("geometry: %v", err)
			}
		case "properties":
			if err := g.properties(dec, bad); err != nil {
				return err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad("%s: %v", k, err)
			}
		}
	}
	if !sawType {
		return bad(`no "type": "Feature" member`)
	}
	geom, err := decodeGeometry(geomRaw)
	if err != nil {
		return bad("geometry: %v", err)
	}
	if geom != nil && g.p != nil {
		if geom, err = proj.Geometry(geom, g.p); err != nil {
			return bad("%s: %v", g.p.Name(), err)
		}
	}
	if geom != nil {
		if why := checkLngLat(geom); why != "" {
			return bad("%s", why)
		}
	}
	g.rw.geom = geom
	return nil
}

// properties reads a properties object (or null) into g.rw in file order,
// values as text: strings as they are, numbers as written, booleans as
// true and false, null as "", arrays and objects as JSON.
func (g *geoJSON) properties(dec *json.Decoder, bad func(string, ...any) error) error {
	tok, err := dec.Token()
	if err != nil {
		return bad("properties: %v", err)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('{') {
		return bad("properties is not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad("properties: %v", err)
		}
		name, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return bad("property %q: %v", name, err)
		}
		var s string
		switch v := v.(type) {
		case nil:
		case string:
			s = v
		case json.Number:
			s = v.String()
		case bool:
			s = strconv.FormatBool(v)
		default:
			b, _ := json.Marshal(v)
			s = string(b)
		}
		k := key(name)
		if _, dup := g.rw.idx[k]; dup {
			return bad("property %s appears twice", k)
		}
		g.rw.idx[k] = len(g.rw.vals)
		g.rw.vals = append(g.rw.vals, strings.TrimSpace(s))
	}
	if _, err := dec.Token(); err != nil {
		return bad("properties: %v", err)
	}
	return nil
}

// decodeGeometry decodes a GeoJSON geometry object; null gives nil.
// Polygon rings must be closed with four positions or more; they are
// returned outer ring counter-clockwise, holes clockwise.
func decodeGeometry(raw json.RawMessage) (orb.Geometry, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var gj struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	if err := json.Unmarshal(raw, &gj); err != nil {
		return nil, err
	}
	if len(gj.Coordinates) == 0 || string(gj.Coordinates) == "null" {
		return nil, fmt.Errorf("%s without coordinates", gj.Type)
	}
	switch gj.Type {
	case "Point":
		var c []float64
		if err := json.Unmarshal(gj.Coordinates, &c); err != nil {
			return nil, err
		}
		return position(c)
	case "LineString":
		var c [][]float64
		if err := json.Unmarshal(gj.Coordinates, &c); err != nil {
			return nil, err
		}
		return lineString(c)
	case "MultiLineString":
		var c [][][]float64
		if err := json.Unmarshal(gj.Coordinates, &c); err != nil {
			return nil, err
		}
		ml := make(orb.MultiLineString, 0, len(c))
		for _, l := range c {
			ls, err := lineString(l)
			if err != nil {
				return nil, err
			}
			ml = append(ml, ls)
		}
		return ml, nil
	case "Polygon":
		var c [][][]float64
		if err := json.Unmarshal(gj.Coordinates, &c); err != nil {
			return nil, err
		}
		return polygon(c)
	case "MultiPolygon":
		var c [][][][]float64
		if err := json.Unmarshal(gj.Coordinates, &c); err != nil {
			return nil, err
		}
		mp := make(orb.MultiPolygon, 0, len(c))
		for _, pc := range c {
			p, err := polygon(pc)
			if err != nil {
				return nil, err
			}
			mp = append(mp, p)
		}
		return mp, nil
	}
	return nil, fmt.Errorf("type %q: want Point, LineString, MultiLineString, Polygon or MultiPolygon", gj.Type)
}

func position(c []float64) (orb.Point, error) {
	if len(c) < 2 {
		return orb.Point{}, fmt.Errorf("position with %d numbers, want 2 or 3", len(c))
	}
	return orb.Point{c[0], c[1]}, nil
}

func lineString(c [][]float64) (orb.LineString, error) {
	if len(c) < 2 {
		return nil, fmt.Errorf("line with %d positions, want 2 or more", len(c))
	}
	ls := make(orb.LineString, len(c))
	for i, pc := range c {
		p, err := position(pc)
		if err != nil {
			return nil, err
		}
		ls[i] = p
	}
	return ls, nil
}

func polygon(c [][][]float64) (orb.Polygon, error) {
	if len(c) == 0 {
		return nil, errors.New("polygon without rings")
	}
	p := make(orb.Polygon, len(c))
	for i, rc := range c {
		ls, err := lineString(rc)
		if err != nil {
			return nil, err
		}
		if len(ls) < 4 || ls[0] != ls[len(ls)-1] {
			return nil, fmt.Errorf("ring %d is not closed with 4 positions or more", i)
		}
		p[i] = orb.Ring(ls)
	}
	return orientRings(p), nil
}
