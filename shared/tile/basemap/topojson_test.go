package basemap_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paulmach/orb"

	"meridian/shared/tile/basemap"
)

// quantized is a quantized topology: scale 0.5 x 0.25 from (-100, 40),
// arcs delta-encoded. Arc 0 runs (0,0) (4,0) (4,4), arc 1 (4,4) (0,4)
// (0,0), arc 2 is the square (1,1) (1,3) (3,3) (3,1) (1,1), arc 3 the line
// (10,0) (12,2) (14,0).
const quantized = `{
  "type": "Topology",
  "bbox": [-100, 40, -93, 41],
  "transform": {"scale": [0.5, 0.25], "translate": [-100, 40]},
  "arcs": [
    [[0, 0], [4, 0], [0, 4]],
    [[4, 4], [-4, 0], [0, -4]],
    [[1, 1], [0, 2], [2, 0], [0, -2], [-2, 0]],
    [[10, 0], [2, 2], [2, -2, 99]]
  ],
  "objects": {
    "shapes": {"type": "GeometryCollection", "geometries": [
      {"type": "Polygon", "id": "A", "properties": {"gu": "CAN", "ct": [-99, 40.5]}, "arcs": [[0, 1], [-3]]},
      {"type": "MultiLineString", "id": 7, "arcs": [[3], [-4]]},
      {"type": "LineString", "arcs": [-2, -1]},
      {"type": "MultiPolygon", "arcs": [[[2]], [[0, 1]]]},
      {"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [2, 2]}]},
      {"type": null}
    ]},
    "single": {"type": "LineString", "arcs": [3]}
  }
}`

// TestReadTopology decodes a quantized topology: delta-encoded arcs, a
// reversed arc (~i), a polygon with a hole, lines joined at their shared
// position, a MultiLineString, a quantized point (not delta-encoded).
func TestReadTopology(t *testing.T) {
	t.Parallel()
	topo, err := basemap.ReadTopology(strings.NewReader(quantized))
	if err != nil {
		t.Fatal(err)
	}
	square := orb.Ring{{-100, 40}, {-98, 40}, {-98, 41}, {-100, 41}, {-100, 40}}
	hole := orb.Ring{{-99.5, 40.25}, {-98.5, 40.25}, {-98.5, 40.75}, {-99.5, 40.75}, {-99.5, 40.25}} // arc 2 reversed
	line := orb.LineString{{-95, 40}, {-94, 40.5}, {-93, 40}}
	gs := topo.Objects["shapes"]
	if len(gs) != 6 {
		t.Fatalf("shapes has %d geometries, want 6 (the nested collection flattened)", len(gs))
	}
	want := []struct {
		typ, id string
		geo     orb.Geometry
	}{
		{"Polygon", "A", orb.Polygon{square, hole}},
		{"MultiLineString", "7", orb.MultiLineString{line, {line[2], line[1], line[0]}}},
		// Arc 1 reversed then arc 0 reversed: one position where they meet.
		{"LineString", "", orb.LineString{{-100, 40}, {-100, 41}, {-98, 41}, {-98, 40}, {-100, 40}}},
		{"MultiPolygon", "", orb.MultiPolygon{{{{-99.5, 40.25}, {-99.5, 40.75}, {-98.5, 40.75}, {-98.5, 40.25}, {-99.5, 40.25}}}, {square}}},
		{"Point", "", orb.Point{-99, 40.5}},
		{"", "", nil},
	}
	for i, w := range want {
		g := gs[i]
		if g.Type != w.typ || g.ID != w.id {
			t.Errorf("geometry %d: type %q id %q, want %q %q", i, g.Type, g.ID, w.typ, w.id)
		}
		if diff := cmp.Diff(w.geo, topo.Geometry(g)); diff != "" {
			t.Errorf("geometry %d (%s): (-want +got)\n%s", i, w.typ, diff)
		}
	}
	if got := gs[0].Properties["gu"]; got != "CAN" {
		t.Errorf("properties gu = %v, want CAN", got)
	}
	if single := topo.Objects["single"]; len(single) != 1 || !cmp.Equal(topo.Geometry(single[0]), line) {
		t.Errorf("object single = %v, want one LineString %v", single, line)
	}
	if diff := cmp.Diff([]float64{-100, 40, -93, 41}, topo.BBox); diff != "" {
		t.Errorf("bbox (-want +got)\n%s", diff)
	}
}

// TestReadTopologyUnquantized reads positions as they are when there is no
// transform.
func TestReadTopologyUnquantized(t *testing.T) {
	t.Parallel()
	topo, err := basemap.ReadTopology(strings.NewReader(`{"type": "Topology",
		"arcs": [[[-110.5, 49], [-110.5, 52.25]]],
		"objects": {"o": {"type": "GeometryCollection", "geometries": [{"type": "LineString", "arcs": [-1]}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := topo.Geometry(topo.Objects["o"][0]), (orb.LineString{{-110.5, 52.25}, {-110.5, 49}}); !cmp.Equal(got, want) {
		t.Errorf("line = %v, want %v", got, want)
	}
}

func TestReadTopologyErrors(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"not json":       `{`,
		"not a topology": `{"type": "FeatureCollection", "arcs": [], "objects": {}}`,
		"arc out of range": `{"type": "Topology", "arcs": [[[0, 0], [1, 1]]],
			"objects": {"o": {"type": "LineString", "arcs": [1]}}}`,
		"reversed arc out of range": `{"type": "Topology", "arcs": [[[0, 0], [1, 1]]],
			"objects": {"o": {"type": "LineString", "arcs": [-2]}}}`,
		"short arc":     `{"type": "Topology", "arcs": [[[0, 0]]], "objects": {}}`,
		"unknown type":  `{"type": "Topology", "arcs": [], "objects": {"o": {"type": "Circle"}}}`,
		"empty ring":    `{"type": "Topology", "arcs": [], "objects": {"o": {"type": "Polygon", "arcs": [[]]}}}`,
		"bad arcs json": `{"type": "Topology", "arcs": [], "objects": {"o": {"type": "Polygon", "arcs": [0]}}}`,
	} {
		if _, err := basemap.ReadTopology(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// meshTopology has three squares in a row, A B C, unquantized. Arcs 1
// (A|B) and 3 (B|C) are shared; 0, 2, 4 and 5 are coasts, one square's
// alone. D, apart, is two squares of one MultiPolygon: their seam, arc 6,
// is used twice by the same geometry.
const meshTopology = `{
  "type": "Topology",
  "arcs": [
    [[1, 0], [0, 0], [0, 1], [1, 1]],
    [[1, 1], [1, 0]],
    [[1, 0], [2, 0]],
    [[2, 0], [2, 1]],
    [[2, 1], [1, 1]],
    [[2, 1], [3, 1], [3, 0], [2, 0]],
    [[5, 0], [5, 1]],
    [[5, 1], [4, 1], [4, 0], [5, 0]],
    [[5, 0], [6, 0], [6, 1], [5, 1]]
  ],
  "objects": {"squares": {"type": "GeometryCollection", "geometries": [
    {"type": "Polygon", "id": "A", "properties": {"gu": "X"}, "arcs": [[0, 1]]},
    {"type": "Polygon", "id": "B", "properties": {"gu": "X"}, "arcs": [[-2, -5, -4, -3]]},
    {"type": "Polygon", "id": "C", "properties": {"gu": "Y"}, "arcs": [[3, 5]]},
    {"type": "MultiPolygon", "id": "D", "arcs": [[[6, 7]], [[8, -7]]]}
  ]}}
}`

// TestMesh checks the mesh: shared arcs once, coasts never, the filter
// given the two geometries.
func TestMesh(t *testing.T) {
	t.Parallel()
	topo, err := basemap.ReadTopology(strings.NewReader(meshTopology))
	if err != nil {
		t.Fatal(err)
	}
	all, err := topo.Mesh("squares", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 3}, all); diff != "" {
		t.Errorf("Mesh (-want +got)\n%s", diff)
	}
	var pairs []string
	same, err := topo.Mesh("squares", func(a, b *basemap.Geometry) bool {
		pairs = append(pairs, a.ID+b.ID)
		return a.Properties["gu"] == b.Properties["gu"]
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1}, same); diff != "" {
		t.Errorf("Mesh of one country (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"AB", "BC"}, pairs); diff != "" {
		t.Errorf("filter calls (-want +got)\n%s", diff)
	}
	if _, err := topo.Mesh("nothing", nil); err == nil {
		t.Error("Mesh of a missing object: no error")
	}
}

// TestStitch joins arcs that meet end to end, one reversed, and leaves
// apart those that do not.
func TestStitch(t *testing.T) {
	t.Parallel()
	topo, err := basemap.ReadTopology(strings.NewReader(meshTopology))
	if err != nil {
		t.Fatal(err)
	}
	// 4 runs (2,1)-(1,1), 3 (2,0)-(2,1), 2 (1,0)-(2,0): one line.
	got := topo.Stitch([]int{4, 2, 3})
	want := orb.LineString{{1, 1}, {2, 1}, {2, 0}, {1, 0}}
	if len(got) != 1 || !(cmp.Equal(got[0], want) || cmp.Equal(got[0], reversed(want))) {
		t.Errorf("Stitch(4, 2, 3) = %v, want %v either way", got, want)
	}
	// 1 (A|B) and 3 (B|C) do not meet.
	if got := topo.Stitch([]int{1, 3}); len(got) != 2 || !cmp.Equal(got[0], orb.LineString{{1, 1}, {1, 0}}) && !cmp.Equal(got[0], orb.LineString{{1, 0}, {1, 1}}) {
		t.Errorf("Stitch(1, 3) = %v, want arcs 1 and 3 apart", got)
	}
}

func reversed(ls orb.LineString) orb.LineString {
	out := make(orb.LineString, len(ls))
	for i, p := range ls {
		out[len(ls)-1-i] = p
	}
	return out
}
