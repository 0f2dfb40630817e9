package tile

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"
)

// randomLayer is a layer of n features of every geometry type orb writes,
// with coordinates past the tile's edges and fractional, and properties
// drawn from few keys and values so that keys and values repeat across
// features (int and int64 of one number, 0 and -0, nil, NaN among them).
func randomLayer(r *rand.Rand, n int) *mvt.Layer {
	coord := func() float64 {
		if r.IntN(4) == 0 {
			return float64(r.IntN(4600) - 300)
		}
		return r.Float64()*4600 - 300
	}
	pt := func() orb.Point { return orb.Point{coord(), coord()} }
	line := func() orb.LineString {
		ls := make(orb.LineString, 1+r.IntN(6))
		for i := range ls {
			ls[i] = pt()
		}
		return ls
	}
	ring := func() orb.Ring {
		rg := orb.Ring(line())
		if r.IntN(3) > 0 {
			rg = append(rg, rg[0]) // closed, as most rings are
		}
		return rg
	}
	polygon := func() orb.Polygon {
		p := orb.Polygon{ring()}
		for range r.IntN(3) {
			p = append(p, ring())
		}
		return p
	}
	values := []any{
		nil, "", "a", "null", "ÉÈ long value " + string(make([]byte, 200)),
		0, 1, -1, 300, math.MaxInt64, math.MinInt64,
		int8(-3), int16(1000), int32(-70000), int64(1), int64(-1),
		uint(7), uint8(255), uint16(1), uint32(1 << 31), uint64(math.MaxUint64),
		float32(1.5), float32(-0.0), float32(math.NaN()), 0.0, math.Copysign(0, -1), 2.25, math.NaN(), math.Inf(1),
		true, false,
	}
	ids := []any{nil, 0, 5, -5, int64(1 << 40), uint32(9), 3.9, -2.0, "17", "x", "-4", float32(8)}
	keys := []string{"id", "name", "a", "b", "quarter", "z", "Ω"}

	l := &mvt.Layer{Name: "layer", Version: 2, Extent: Extent}
	for range n {
		var g orb.Geometry
		switch r.IntN(8) {
		case 0:
			g = pt()
		case 1:
			mp := make(orb.MultiPoint, 1+r.IntN(4))
			for i := range mp {
				mp[i] = pt()
			}
			g = mp
		case 2:
			g = line()
		case 3:
			g = orb.MultiLineString{line(), line()}
		case 4:
			g = ring()
		case 5:
			g = polygon()
		case 6:
			g = orb.MultiPolygon{polygon(), polygon()}
		case 7:
			g = nil // skipped by both
		}
		f := &geojson.Feature{Type: "Feature", Geometry: g, ID: ids[r.IntN(len(ids))], Properties: geojson.Properties{}}
		for range r.IntN(len(keys) + 1) {
			f.Properties[keys[r.IntN(len(keys))]] = values[r.IntN(len(values))]
		}
		l.Features = append(l.Features, f)
	}
	return l
}

// TestMarshalLayerMatchesOrb: marshalLayer writes the same bytes as orb's
// mvt.Marshal for every geometry type and property value it takes, so
// tiles are unchanged by it and decode everywhere orb's do.
func TestMarshalLayerMatchesOrb(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		l := randomLayer(r, r.IntN(40))
		want, err := mvt.Marshal(mvt.Layers{l})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := marshalLayer(l)
		if !ok {
			t.Fatalf("layer %d: not written", i)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("layer %d (%d features): %d bytes, orb writes %d\n got %x\nwant %x", i, len(l.Features), len(got), len(want), got, want)
		}
		if _, err := mvt.Unmarshal(got); err != nil {
			t.Fatalf("layer %d: orb cannot read it: %v", i, err)
		}
	}
}

// TestMarshalLayerKeyRuns: features one after another with the same keys,
// with as many keys but another one, and with fewer, are written as orb
// writes them (properties reuses the previous feature's sorted keys only
// when they are the same keys).
func TestMarshalLayerKeyRuns(t *testing.T) {
	sets := [][]string{{"c", "a", "b"}, {"d", "a", "b"}, {"a", "b"}, {}, {"b", "z", "a"}}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		l := &mvt.Layer{Name: "runs", Version: 2, Extent: 4096}
		set := sets[0]
		for j := range 30 {
			if r.IntN(3) == 0 {
				set = sets[r.IntN(len(sets))]
			}
			p := geojson.Properties{}
			for _, k := range set {
				p[k] = r.IntN(3)
			}
			l.Features = append(l.Features, &geojson.Feature{Type: "Feature", Geometry: orb.Point{float64(j), 1}, Properties: p})
		}
		want, err := mvt.Marshal(mvt.Layers{l})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := marshalLayer(l)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("layer %d: written %v, %d bytes; orb writes %d\n got %x\nwant %x", i, ok, len(got), len(want), got, want)
		}
	}
}

// TestMarshalLayerDeclines: what marshalLayer does not write it leaves to
// orb (Encode falls back), rather than writing something else.
func TestMarshalLayerDeclines(t *testing.T) {
	for name, f := range map[string]*geojson.Feature{
		"collection": geojson.NewFeature(orb.Collection{orb.Point{1, 2}}),
		"bound":      geojson.NewFeature(orb.Bound{Max: orb.Point{1, 1}}),
		"empty line": geojson.NewFeature(orb.LineString{}),
		"empty ring": geojson.NewFeature(orb.Polygon{orb.Ring{}}),
		"slice":      {Type: "Feature", Geometry: orb.Point{1, 2}, Properties: geojson.Properties{"a": []int{1}}},
		"map":        {Type: "Feature", Geometry: orb.Point{1, 2}, Properties: geojson.Properties{"a": map[string]any{}}},
	} {
		if _, ok := marshalLayer(&mvt.Layer{Name: "l", Version: 2, Extent: Extent, Features: []*geojson.Feature{f}}); ok {
			t.Errorf("%s: written", name)
		}
	}
	// A Stringer is written by orb as its String(): Encode's fallback.
	f := &geojson.Feature{Type: "Feature", Geometry: orb.Point{1, 2}, Properties: geojson.Properties{"a": stringer{}}}
	if _, err := Encode("l", []*geojson.Feature{f}, maptile.New(1, 1, 2)); err != nil {
		t.Errorf("Encode with a Stringer value: %v", err)
	}
}

type stringer struct{}

func (stringer) String() string { return "s" }

// BenchmarkMarshalLayer compares marshalLayer with orb's mvt.Marshal on
// the same layers (ratio, same run).
func BenchmarkMarshalLayer(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	layers := make([]*mvt.Layer, 64)
	for i := range layers {
		layers[i] = randomLayer(r, 30)
	}
	b.Run("meridian", func(b *testing.B) {
		b.ReportAllocs()
		e := encoders.Get().(*layerEncoder)
		for i := 0; b.Loop(); i++ {
			e.marshal(layers[i%len(layers)])
		}
	})
	b.Run("orb", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			mvt.Marshal(mvt.Layers{layers[i%len(layers)]})
		}
	})
}

// TestEncodeFeaturesMatchesEncode: EncodeFeatures writes the bytes Encode
// writes for the same features with their properties in maps, when
// features are clipped away or dropped as too small (its properties
// follow the features that are left), when keys change from feature to
// feature, and when a value is one only orb writes (the fallback).
func TestEncodeFeaturesMatchesEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tl := maptile.New(830, 1370, 12)
	b := tl.Bound()
	w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
	pt := func(spread float64) orb.Point {
		return orb.Point{b.Min[0] + (r.Float64()*spread-(spread-1)/2)*w, b.Min[1] + (r.Float64()*spread-(spread-1)/2)*h}
	}
	keySets := [][]string{{"a", "b", "c"}, {"a", "c"}, {}, {"id", "z"}}
	values := []any{nil, "x", "null", 1, int64(1), 2.5, float32(2.5), true, uint8(9), math.NaN()}
	fallbacks := 0
	for i := range 300 {
		n := r.IntN(30)
		var fs []Feature
		var maps []*geojson.Feature
		for range n {
			var g orb.Geometry
			switch r.IntN(4) {
			case 0:
				g = pt(3) // often outside the tile and its buffer: clipped away
			case 1:
				g = orb.LineString{pt(1.5), pt(1.5), pt(1.5)}
			case 2:
				c := pt(1.2)
				d := w * 1e-5 // under a tile unit: dropped as empty
				if r.IntN(2) == 0 {
					d = w / 4
				}
				g = orb.Polygon{{c, {c[0] + d, c[1]}, {c[0] + d, c[1] + d}, {c[0], c[1] + d}, c}}
			case 3:
				g = orb.MultiPoint{pt(1), pt(2)}
			}
			keys := keySets[r.IntN(len(keySets))]
			vals := make([]any, len(keys))
			p := geojson.Properties{}
			for j, k := range keys {
				vals[j] = values[r.IntN(len(values))]
				if i%10 == 9 && j == 0 {
					vals[j] = stringer{} // only orb writes it
				}
				p[k] = vals[j]
			}
			fs = append(fs, Feature{Geometry: orb.Clone(g), Keys: keys, Vals: vals})
			maps = append(maps, &geojson.Feature{Type: "Feature", Geometry: orb.Clone(g), Properties: p})
		}
		want, err := Encode("l", maps, tl)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeFeatures("l", fs, tl)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("tile %d (%d features): %d bytes, Encode writes %d", i, n, len(got), len(want))
		}
		if i%10 == 9 && len(want) > 0 {
			fallbacks++
		}
	}
	if fallbacks == 0 {
		t.Fatal("no tile went through orb's encoder")
	}
}

// TestClipLayerMatchesOrb: clipLayer leaves the features and geometry
// orb's Layer.Clip leaves (type included), for polygons inside the box,
// across it, outside it, with a hole outside the outer ring's bound, with
// empty rings, multipolygons of one and of several, and the other types.
func TestClipLayerMatchesOrb(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	box := orb.Bound{Min: orb.Point{-Buffer, -Buffer}, Max: orb.Point{Extent + Buffer, Extent + Buffer}}
	square := func(inside bool) orb.Ring {
		var x, y, d float64
		if inside {
			d = 1 + r.Float64()*500
			x, y = -Buffer+r.Float64()*(Extent+2*Buffer-d), -Buffer+r.Float64()*(Extent+2*Buffer-d)
		} else {
			d = 1 + r.Float64()*3000
			x, y = r.Float64()*8000-3000, r.Float64()*8000-3000
		}
		switch r.IntN(10) {
		case 0:
			x = box.Max[0] - d // on the box's edge: inside, as orb counts it
		case 1:
			x = box.Min[0] - 0.25 // just outside it
		}
		rg := orb.Ring{{x, y}, {x + d, y}, {x + d, y + d}, {x, y + d}}
		if r.IntN(4) > 0 {
			rg = append(rg, rg[0])
		}
		return rg
	}
	polygon := func() orb.Polygon {
		in := r.IntN(3) > 0
		p := orb.Polygon{square(in)}
		for range r.IntN(3) {
			switch r.IntN(6) {
			case 0:
				p = append(p, orb.Ring{})
			case 1:
				p = append(p, square(false)) // a hole off the outer ring
			default:
				p = append(p, square(in))
			}
		}
		if r.IntN(20) == 0 {
			p = orb.Polygon{}
		}
		return p
	}
	inside := 0
	for i := range 2000 {
		var g orb.Geometry
		switch r.IntN(5) {
		case 0, 1:
			g = polygon()
		case 2:
			mp := orb.MultiPolygon{}
			for range r.IntN(4) {
				mp = append(mp, polygon())
			}
			g = mp
		case 3:
			g = orb.LineString{square(r.IntN(2) == 0)[0], square(false)[2]}
		case 4:
			g = orb.Point{r.Float64()*6000 - 1000, r.Float64()*6000 - 1000}
		}
		if polygonsInside(box, g) {
			inside++
		}
		want := &mvt.Layer{Features: []*geojson.Feature{geojson.NewFeature(orb.Clone(g))}}
		want.Clip(box)
		got := &mvt.Layer{Features: []*geojson.Feature{geojson.NewFeature(orb.Clone(g))}}
		clipLayer(got, box)
		if len(got.Features) != len(want.Features) {
			t.Fatalf("geometry %d %v: %d features left, orb leaves %d", i, g, len(got.Features), len(want.Features))
		}
		if len(got.Features) == 1 && !reflect.DeepEqual(got.Features[0].Geometry, want.Features[0].Geometry) {
			t.Fatalf("geometry %d %v:\n got %#v\nwant %#v", i, g, got.Features[0].Geometry, want.Features[0].Geometry)
		}
	}
	if inside < 200 {
		t.Fatalf("only %d geometries took the unclipped path", inside)
	}
}
