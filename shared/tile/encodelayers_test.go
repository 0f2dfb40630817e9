package tile_test

import (
	"bytes"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/tile"
)

// TestEncodeLayers checks a tile of several layers: each layer as Encode
// writes it, in order, empty ones left out, and one layer's tile the same
// bytes as Encode's.
func TestEncodeLayers(t *testing.T) {
	t.Parallel()
	tl := maptile.At(calgary, 10)
	b := tl.Bound()
	line := func() *geojson.Feature {
		f := geojson.NewFeature(orb.LineString{b.Min, b.Max})
		f.Properties = geojson.Properties{"admin_level": 4}
		return f
	}
	point := func() *geojson.Feature {
		f := geojson.NewFeature(calgary)
		f.Properties = geojson.Properties{"name": "Calgary", "rank": 1}
		return f
	}
	far := geojson.NewFeature(orb.Point{0, 0}) // clipped away

	data, err := tile.EncodeLayers(tl,
		tile.LayerFeatures{Name: "boundaries", Features: []*geojson.Feature{line()}},
		tile.LayerFeatures{Name: "empty", Features: []*geojson.Feature{far}},
		tile.LayerFeatures{Name: "places", Features: []*geojson.Feature{point()}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ls := decode(t, data)
	if len(ls) != 2 || ls[0].Name != "boundaries" || ls[1].Name != "places" {
		t.Fatalf("layers = %v, want boundaries and places", names(ls))
	}
	if len(ls[0].Features) != 1 || ls[0].Features[0].Properties["admin_level"] != float64(4) {
		t.Errorf("boundaries = %+v", ls[0].Features)
	}
	if len(ls[1].Features) != 1 || ls[1].Features[0].Properties["name"] != "Calgary" {
		t.Errorf("places = %+v", ls[1].Features)
	}

	one, err := tile.EncodeLayers(tl, tile.LayerFeatures{Name: "places", Features: []*geojson.Feature{point()}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := tile.Encode("places", []*geojson.Feature{point()}, tl)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one, want) {
		t.Errorf("EncodeLayers of one layer = %d bytes, Encode = %d bytes: want the same", len(one), len(want))
	}

	if got, err := tile.EncodeLayers(tl, tile.LayerFeatures{Name: "empty", Features: []*geojson.Feature{geojson.NewFeature(orb.Point{0, 0})}}); got != nil || err != nil {
		t.Errorf("EncodeLayers of an empty layer = %d bytes, %v; want nil, nil", len(got), err)
	}
	if _, err := tile.EncodeLayers(tl, tile.LayerFeatures{Name: "a"}, tile.LayerFeatures{Name: "a"}); err == nil {
		t.Error("EncodeLayers with a repeated name: no error")
	}
	if _, err := tile.EncodeLayers(tl, tile.LayerFeatures{}); err == nil {
		t.Error("EncodeLayers with an empty name: no error")
	}
}

func names(ls mvt.Layers) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}
