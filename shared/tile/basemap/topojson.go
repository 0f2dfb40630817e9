package basemap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/paulmach/orb"
)

// Topology is a TopoJSON topology (format specification 1.0) with its
// arcs decoded to longitude/latitude.
type Topology struct {
	BBox    []float64              // the "bbox" member, when given
	Arcs    []orb.LineString       // absolute positions, quantization undone
	Objects map[string][]*Geometry // each object's geometries: a GeometryCollection's members, flattened, or the object itself
}

// Geometry is one geometry of a topology object, its arcs not yet
// resolved: Topology.Geometry resolves them.
type Geometry struct {
	Type       string // Point, MultiPoint, LineString, MultiLineString, Polygon or MultiPolygon; "" for a null geometry
	ID         string // the "id" member: a string's value or a number's JSON text; "" when absent
	Properties map[string]any

	// parts are the arc references: LineString one part of one line,
	// MultiLineString one part of its lines, Polygon one part of its
	// rings, MultiPolygon a part per polygon. A reference i >= 0 is arc
	// i, ^i is arc i reversed.
	parts [][][]int
	// points are a Point's or a MultiPoint's positions.
	points []orb.Point
}

type topologyJSON struct {
	Type      string                     `json:"type"`
	BBox      []float64                  `json:"bbox"`
	Transform *transformJSON             `json:"transform"`
	Objects   map[string]json.RawMessage `json:"objects"`
	// Positions beyond the second element (a position may carry more)
	// are dropped by the array type.
	Arcs [][][2]float64 `json:"arcs"`
}

type transformJSON struct {
	Scale     [2]float64 `json:"scale"`
	Translate [2]float64 `json:"translate"`
}

type geometryJSON struct {
	Type        string          `json:"type"`
	ID          json.RawMessage `json:"id"`
	Properties  map[string]any  `json:"properties"`
	Arcs        json.RawMessage `json:"arcs"`
	Coordinates json.RawMessage `json:"coordinates"`
	Geometries  []geometryJSON  `json:"geometries"`
}

// ReadTopology decodes a TopoJSON topology. A quantized topology (one with
// a "transform") has delta-encoded arcs, each position the change from the
// previous one, and quantized points: both are turned into
// longitude/latitude as x*scale + translate. Every arc reference is
// checked, so Topology.Geometry cannot fail.
func ReadTopology(r io.Reader) (*Topology, error) {
	var tj topologyJSON
	if err := json.NewDecoder(r).Decode(&tj); err != nil {
		return nil, fmt.Errorf("basemap: topology: %w", err)
	}
	if tj.Type != "Topology" {
		return nil, fmt.Errorf("basemap: topology: type is %q, want \"Topology\"", tj.Type)
	}
	t := &Topology{BBox: tj.BBox, Arcs: make([]orb.LineString, len(tj.Arcs)), Objects: map[string][]*Geometry{}}
	position := func(p [2]float64) orb.Point { return orb.Point(p) }
	if tf := tj.Transform; tf != nil {
		position = func(p [2]float64) orb.Point {
			return orb.Point{p[0]*tf.Scale[0] + tf.Translate[0], p[1]*tf.Scale[1] + tf.Translate[1]}
		}
	}
	for i, a := range tj.Arcs {
		if len(a) < 2 {
			return nil, fmt.Errorf("basemap: topology: arc %d has %d positions, want at least 2", i, len(a))
		}
		line := make(orb.LineString, len(a))
		var x, y float64
		for k, p := range a {
			if tj.Transform != nil {
				x, y = x+p[0], y+p[1]
				p = [2]float64{x, y}
			}
			line[k] = position(p)
		}
		t.Arcs[i] = line
	}
	for name, raw := range tj.Objects {
		var g geometryJSON
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("basemap: topology: object %q: %w", name, err)
		}
		var out []*Geometry
		if err := t.flatten(&g, position, &out); err != nil {
			return nil, fmt.Errorf("basemap: topology: object %q: %w", name, err)
		}
		t.Objects[name] = out
	}
	return t, nil
}

// flatten appends g's geometries to out: g itself, or its members when g
// is a GeometryCollection (recursively).
func (t *Topology) flatten(g *geometryJSON, position func([2]float64) orb.Point, out *[]*Geometry) error {
	if g.Type == "GeometryCollection" {
		for i := range g.Geometries {
			if err := t.flatten(&g.Geometries[i], position, out); err != nil {
				return err
			}
		}
		return nil
	}
	geo := &Geometry{Type: g.Type, Properties: g.Properties}
	if len(g.ID) > 0 && !bytes.Equal(g.ID, []byte("null")) {
		if g.ID[0] == '"' {
			if err := json.Unmarshal(g.ID, &geo.ID); err != nil {
				return fmt.Errorf("id: %w", err)
			}
		} else {
			geo.ID = string(g.ID)
		}
	}
	var err error
	switch g.Type {
	case "", "null":
		geo.Type = ""
	case "Point":
		var p [2]float64
		err = json.Unmarshal(g.Coordinates, &p)
		geo.points = []orb.Point{position(p)}
	case "MultiPoint":
		var ps [][2]float64
		err = json.Unmarshal(g.Coordinates, &ps)
		for _, p := range ps {
			geo.points = append(geo.points, position(p))
		}
	case "LineString":
		var line []int
		err = json.Unmarshal(g.Arcs, &line)
		geo.parts = [][][]int{{line}}
	case "MultiLineString", "Polygon":
		var lines [][]int
		err = json.Unmarshal(g.Arcs, &lines)
		geo.parts = [][][]int{lines}
	case "MultiPolygon":
		err = json.Unmarshal(g.Arcs, &geo.parts)
	default:
		return fmt.Errorf("geometry type %q is not TopoJSON's", g.Type)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", g.Type, geo.ID, err)
	}
	for _, part := range geo.parts {
		for _, line := range part {
			if len(line) == 0 {
				return fmt.Errorf("%s %s: a line or ring has no arcs", g.Type, geo.ID)
			}
			for _, ref := range line {
				if i := arcIndex(ref); i >= len(t.Arcs) {
					return fmt.Errorf("%s %s: arc %d of %d", g.Type, geo.ID, i, len(t.Arcs))
				}
			}
		}
	}
	*out = append(*out, geo)
	return nil
}

// arcIndex is the arc a reference names: ref, or ^ref for a reversed arc.
func arcIndex(ref int) int {
	if ref < 0 {
		return ^ref
	}
	return ref
}

// line joins the referenced arcs into one line, in order, each arc after
// the first without its first position (the previous arc's last).
func (t *Topology) line(refs []int) orb.LineString {
	n := 1
	for _, ref := range refs {
		n += len(t.Arcs[arcIndex(ref)]) - 1
	}
	out := make(orb.LineString, 0, n)
	for k, ref := range refs {
		out = appendArc(out, t.Arcs[arcIndex(ref)], ref < 0, k > 0)
	}
	return out
}

// appendArc appends arc a to line, backwards when reversed, without its
// first position (in the direction it is walked) when joint.
func appendArc(line, a orb.LineString, reversed, joint bool) orb.LineString {
	skip := 0
	if joint {
		skip = 1
	}
	if !reversed {
		return append(line, a[skip:]...)
	}
	for j := len(a) - 1 - skip; j >= 0; j-- {
		line = append(line, a[j])
	}
	return line
}

// Geometry returns g with its arcs resolved: an orb.Point, MultiPoint,
// LineString, MultiLineString, Polygon or MultiPolygon after g's type, in
// new slices; nil for a null geometry. Polygon rings are in the order and
// orientation the topology gives.
func (t *Topology) Geometry(g *Geometry) orb.Geometry {
	switch g.Type {
	case "Point":
		return g.points[0]
	case "MultiPoint":
		return orb.MultiPoint(slices.Clone(g.points))
	case "LineString":
		return t.line(g.parts[0][0])
	case "MultiLineString":
		out := make(orb.MultiLineString, len(g.parts[0]))
		for i, refs := range g.parts[0] {
			out[i] = t.line(refs)
		}
		return out
	case "Polygon":
		return t.polygon(g.parts[0])
	case "MultiPolygon":
		out := make(orb.MultiPolygon, len(g.parts))
		for i, rings := range g.parts {
			out[i] = t.polygon(rings)
		}
		return out
	}
	return nil
}

func (t *Topology) polygon(rings [][]int) orb.Polygon {
	out := make(orb.Polygon, len(rings))
	for i, refs := range rings {
		out[i] = orb.Ring(t.line(refs))
	}
	return out
}

// Mesh returns the arcs that two different geometries of object share, each
// once, in ascending order, keeping those for which keep, given the two
// geometries, returns true (keep nil keeps all). An arc that one geometry
// alone uses (a coast, for countries) is never in it, nor one a geometry
// uses twice. This is TopoJSON's mesh with a filter, restricted to
// interior arcs: boundaries between neighbours.
func (t *Topology) Mesh(object string, keep func(a, b *Geometry) bool) ([]int, error) {
	gs, ok := t.Objects[object]
	if !ok {
		return nil, fmt.Errorf("basemap: topology has no object %q", object)
	}
	// first and second user of each arc, as geometry index + 1; shared
	// marks an arc a third geometry uses, which a planar topology has not.
	first := make([]int32, len(t.Arcs))
	second := make([]int32, len(t.Arcs))
	for gi, g := range gs {
		id := int32(gi + 1)
		for _, part := range g.parts {
			for _, line := range part {
				for _, ref := range line {
					i := arcIndex(ref)
					switch {
					case first[i] == 0:
						first[i] = id
					case first[i] == id || second[i] == id:
					case second[i] == 0:
						second[i] = id
					default:
						return nil, fmt.Errorf("basemap: topology object %q: arc %d is used by three geometries", object, i)
					}
				}
			}
		}
	}
	var out []int
	for i := range t.Arcs {
		if second[i] == 0 {
			continue
		}
		if keep == nil || keep(gs[first[i]-1], gs[second[i]-1]) {
			out = append(out, i)
		}
	}
	return out, nil
}

// Stitch joins arcs (indexes, as Mesh returns) that meet end to end into
// longer lines: at either end, a line goes on with any arc not yet used
// that starts or ends there. Lines come in the order of their first arc;
// their direction is arbitrary.
func (t *Topology) Stitch(arcs []int) orb.MultiLineString {
	ends := map[orb.Point][]int{} // endpoint -> positions in arcs
	for k, i := range arcs {
		a := t.Arcs[i]
		ends[a[0]] = append(ends[a[0]], k)
		if last := a[len(a)-1]; last != a[0] {
			ends[last] = append(ends[last], k)
		}
	}
	used := make([]bool, len(arcs))
	// extend appends to line the unused arcs that continue it from its
	// last position.
	extend := func(line orb.LineString) orb.LineString {
		for {
			p := line[len(line)-1]
			next := -1
			for _, k := range ends[p] {
				if !used[k] {
					next = k
					break
				}
			}
			if next < 0 {
				return line
			}
			used[next] = true
			a := t.Arcs[arcs[next]]
			line = appendArc(line, a, a[0] != p, true) // backwards when it ends here
		}
	}
	var out orb.MultiLineString
	for k, i := range arcs {
		if used[k] {
			continue
		}
		used[k] = true
		line := extend(slices.Clone(t.Arcs[i]))
		slices.Reverse(line)
		out = append(out, extend(line))
	}
	return out
}
