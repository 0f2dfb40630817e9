package geojsonfc

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/paulmach/orb"
)

// errNesting is a coordinates array nested other than its type says.
var errNesting = errors.New("wrong nesting")

// nesting says what the coordinates of each type are.
var nesting = map[string]string{
	"Point":           "a position",
	"MultiPoint":      "an array of positions",
	"LineString":      "an array of positions",
	"MultiLineString": "an array of lines",
	"Polygon":         "an array of rings",
	"MultiPolygon":    "an array of polygons",
}

// geometry decodes b, a geometry object, null or nothing (nil), and
// converts it with the collection's projection.
func (r *Reader) geometry(b []byte) (orb.Geometry, error) {
	s := scanner{b: b}
	switch c := s.peek(); c {
	case 0, 'n':
		return nil, nil
	case '{':
	default:
		return nil, fmt.Errorf("not a GeoJSON geometry object (%v)", kindOf(c))
	}
	var m [2][]byte
	r.pick(&s, m[:], "type", "coordinates")
	typ, coords := m[0], m[1]
	t := ""
	if len(typ) > 0 && typ[0] == '"' {
		t = r.name(typ)
	}
	if !slices.Contains(r.opts.Types, t) {
		if t == "" && len(typ) > 0 {
			return nil, fmt.Errorf(`"type" is %s: want %s`, excerpt(typ), r.want)
		}
		return nil, fmt.Errorf("type %q: want %s", t, r.want)
	}
	if len(coords) == 0 || coords[0] == 'n' {
		return nil, fmt.Errorf("%s without coordinates", t)
	}
	r.coords = scanner{b: coords} // in r, which is on the heap already
	g, err := r.coordinates(t, &r.coords)
	if err == errNesting {
		return nil, fmt.Errorf("%s coordinates are not %s", t, nesting[t])
	}
	return g, err
}

// coordinates decodes the coordinates of a geometry of type t.
func (r *Reader) coordinates(t string, s *scanner) (orb.Geometry, error) {
	switch t {
	case "Point":
		return r.position(s)
	case "MultiPoint":
		ps, err := r.positions(s)
		return orb.MultiPoint(ps), err
	case "LineString":
		return r.line(s)
	case "MultiLineString":
		ls, err := array(s, r.line)
		return orb.MultiLineString(ls), err
	case "Polygon":
		return r.polygon(s)
	case "MultiPolygon":
		ps, err := array(s, r.polygon)
		return orb.MultiPolygon(ps), err
	}
	return nil, fmt.Errorf("type %q is not supported", t)
}

// array decodes a JSON array of elements.
func array[T any](s *scanner, elem func(*scanner) (T, error)) ([]T, error) {
	if s.peek() != '[' {
		return nil, errNesting
	}
	var out []T
	for s.elements() {
		v, err := elem(s)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// position decodes a position: two numbers or more, of which the first
// two are kept, converted to longitude, latitude.
func (r *Reader) position(s *scanner) (orb.Point, error) {
	if s.peek() != '[' {
		return orb.Point{}, errNesting
	}
	var xy orb.Point
	n := 0
	for s.elements() {
		v := s.value()
		switch kindOf(v[0]) {
		case ArrayValue, ObjectValue:
			return orb.Point{}, errNesting
		case StringValue, BoolValue, NullValue:
			return orb.Point{}, fmt.Errorf("coordinate %s is not a number", excerpt(v))
		}
		if n < 2 {
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return orb.Point{}, fmt.Errorf("coordinate %s is not a finite number", excerpt(v))
			}
			xy[n] = f
		}
		n++
	}
	if n < 2 {
		return orb.Point{}, fmt.Errorf("position with %d numbers, want 2 or more", n)
	}
	if r.p == nil {
		return xy, nil
	}
	pt, err := r.p.ToLngLat(xy[0], xy[1])
	if err != nil {
		return orb.Point{}, fmt.Errorf("%w (converting %v from %s)", err, xy, r.p.Name())
	}
	return pt, nil
}

// positions decodes an array of positions into a slice of its own length.
func (r *Reader) positions(s *scanner) ([]orb.Point, error) {
	if s.peek() != '[' {
		return nil, errNesting
	}
	r.pts = r.pts[:0]
	for s.elements() {
		pt, err := r.position(s)
		if err != nil {
			return nil, err
		}
		r.pts = append(r.pts, pt)
	}
	return slices.Clone(r.pts), nil
}

// line decodes a line: two positions or more.
func (r *Reader) line(s *scanner) (orb.LineString, error) {
	ps, err := r.positions(s)
	if err != nil {
		return nil, err
	}
	if len(ps) < 2 {
		return nil, fmt.Errorf("line with %d positions, want 2 or more", len(ps))
	}
	return ps, nil
}

func (r *Reader) ring(s *scanner) (orb.Ring, error) { return r.positions(s) }

// polygon decodes a polygon: one ring or more, closed when the options
// say so.
func (r *Reader) polygon(s *scanner) (orb.Polygon, error) {
	p, err := array(s, r.ring)
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, errors.New("polygon without rings")
	}
	for i, ring := range p {
		if r.opts.ClosedRings && (len(ring) < 4 || ring[0] != ring[len(ring)-1]) {
			return nil, fmt.Errorf("ring %d is not closed with 4 positions or more", i)
		}
	}
	return p, nil
}
