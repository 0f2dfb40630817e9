package datalayers

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"

	"meridian/shared/ag"
	"meridian/shared/ag/agtest"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
	"meridian/shared/survey/grid"
	"meridian/shared/tile"
)

var demoData struct {
	once  sync.Once
	store kv.Store // nil when the first ingest failed
}

// demo is a store holding the demo energy and ag datasets, ingested once.
func demo(t testing.TB) (kv.Store, *grid.Service) {
	t.Helper()
	demoData.once.Do(func() {
		store := kv.NewMem()
		energytest.IngestDemo(t, store)
		agtest.IngestDemo(t, store)
		demoData.store = store
	})
	if demoData.store == nil {
		t.Fatal("the demo store was not filled (see the first test that asked for it)")
	}
	return demoData.store, grid.New()
}

func layer(t testing.TB, name string) tile.Layer {
	for _, region := range []string{"energy", "ag"} {
		if l, ok := tile.Lookup(region, name); ok {
			return l
		}
	}
	t.Fatalf("no layer %s", name)
	return tile.Layer{}
}

// zoomOf is a zoom inside the layer's band.
func zoomOf(l tile.Layer) maptile.Zoom {
	switch {
	case l.MaxZoom <= 6:
		return 5
	case l.MaxZoom <= 9:
		return 8
	default:
		return maptile.Zoom(max(l.MinZoom, 12))
	}
}

// decode returns the features of tile t of layer l, checking the source
// layer name and that every property is documented.
func decode(t *testing.T, s *Source, l tile.Layer, tl maptile.Tile) []map[string]any {
	t.Helper()
	data, err := s.Tile(context.Background(), l, tl)
	if err != nil {
		t.Fatal(err)
	}
	if data == nil {
		return nil
	}
	layers, err := mvt.UnmarshalGzipped(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 || layers[0].Name != l.SourceLayer {
		t.Fatalf("%s %v: layers %v, want one named %s", l.Name, tl, layers, l.SourceLayer)
	}
	doc := map[string]bool{}
	for _, f := range Fields(l.Name) {
		doc[f.Name] = true
	}
	var out []map[string]any
	for _, f := range layers[0].Features {
		for k := range f.Properties {
			if !doc[k] {
				t.Errorf("%s: property %q not in Fields", l.Name, k)
			}
		}
		out = append(out, f.Properties)
	}
	return out
}

// heldFeatures returns the features s holds for layer name.
func heldFeatures(t testing.TB, s *Source, name string) *layerData {
	t.Helper()
	d, err := s.layer(context.Background(), layer(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// featureTile returns a tile of l's band over the centre of the feature
// the source holds at index i, with that feature's id.
func featureTile(t *testing.T, s *Source, l tile.Layer, i int) (maptile.Tile, map[string]any) {
	t.Helper()
	if err := loadAll(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	d := heldFeatures(t, s, l.Name)
	if d == nil || len(d.feats) <= i {
		t.Fatalf("%s: no feature %d in the demo data", l.Name, i)
	}
	f := d.feats[i]
	c := f.bound.Center()
	if pt, ok := f.geom.(orb.Point); ok {
		c = pt
	}
	return maptile.At(c, zoomOf(l)), f.props()
}

func TestEveryArchiveDecodes(t *testing.T) {
	store, svc := demo(t)
	s := New(store, svc)
	names := Names()
	data := 0
	for _, l := range tile.Layers() {
		if l.Kind == tile.Data {
			data++
		}
	}
	if len(names) != 30 || data != 30 {
		t.Errorf("%d archives built of the catalog's %d, want the spec's 30: %v", len(names), data, names)
	}
	for _, name := range names {
		l := layer(t, name)
		if !Supported(l) || len(Fields(name)) == 0 {
			t.Errorf("%s not supported", name)
		}
		tl, want := featureTile(t, s, l, 0)
		got := decode(t, s, l, tl)
		if len(got) == 0 {
			t.Errorf("%s %v: no features", name, tl)
			continue
		}
		key := "id"
		if _, ok := want["id"]; !ok {
			key = "disposition_id"
		}
		found := false
		for _, p := range got {
			if p[key] == want[key] {
				found = true
				for k, v := range want {
					if !equal(p[k], v) {
						t.Errorf("%s %v: %s = %v, want %v", name, want[key], k, p[k], v)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s %v: feature %v missing", name, tl, want[key])
		}
	}
}

func equal(a, b any) bool {
	x, xok := num(a)
	y, yok := num(b)
	if xok && yok {
		return math.Abs(x-y) < 1e-6
	}
	return a == b
}

func num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float32:
		return float64(n), true
	}
	return 0, false
}

func TestEmptyAreaAndZooms(t *testing.T) {
	store, svc := demo(t)
	s := New(store, svc)
	ctx := context.Background()
	for _, name := range Names() {
		l := layer(t, name)
		// Hudson Bay at the band's zoom: no data.
		tl := maptile.At(orb.Point{-86.0, 59.0}, zoomOf(l))
		if data, err := s.Tile(ctx, l, tl); err != nil || data != nil {
			t.Errorf("%s %v: %d bytes, %v; want nil", name, tl, len(data), err)
		}
		// A zoom outside the band.
		if l.MinZoom > 0 {
			tl, _ := featureTile(t, s, l, 0)
			tl = maptile.At(tl.Center(), maptile.Zoom(l.MinZoom-1))
			if data, err := s.Tile(ctx, l, tl); err != nil || data != nil {
				t.Errorf("%s %v outside zooms: %d bytes, %v", name, tl, len(data), err)
			}
		}
	}
	// A store with no datasets: every tile nil.
	empty := New(kv.NewMem(), svc)
	l := layer(t, "og_activity_twp")
	if data, err := empty.Tile(ctx, l, maptile.New(0, 0, 0)); err != nil || data != nil {
		t.Errorf("empty store: %d bytes, %v", len(data), err)
	}
}

type discard struct{ n int }

func (d *discard) Add(z uint8, x, y uint32, data []byte) error { d.n++; return nil }

// TestBuildTimes builds every archive over its data (Source.BuildOptions)
// and logs the time: `go test -run BuildTimes -v`.
func TestBuildTimes(t *testing.T) {
	store, svc := demo(t)
	s := New(store, svc)
	ctx := context.Background()
	start := time.Now()
	if err := loadAll(ctx, s); err != nil {
		t.Fatal(err)
	}
	t.Logf("load: %v", time.Since(start))
	for _, name := range Names() {
		l := layer(t, name)
		o, ok, err := s.BuildOptions(ctx, l)
		if err != nil || !ok {
			t.Fatalf("%s: no data (%v)", name, err)
		}
		var sink discard
		st, err := tile.Build(ctx, l, s.Tile, &sink, o)
		if err != nil {
			t.Fatal(err)
		}
		if st.Tiles == 0 || sink.n != st.Tiles {
			t.Errorf("%s: %d tiles, sink got %d", name, st.Tiles, sink.n)
		}
		t.Logf("%-24s z%d-%d visited %6d tiles %6d bytes %8d in %v", name, l.MinZoom, min(l.MaxZoom, tile.MaxDataZoom), st.Visited, st.Tiles, st.Bytes, st.Elapsed.Round(time.Millisecond))
	}
}

// TestTilesListsEveryTileWithData checks Source.Tiles, which lets a build
// skip empty tiles: no tile it leaves out has features. Every tile over
// the data's bounds is checked up to zoom 12; at 13 and 14 (hundreds of
// thousands of tiles) the ring of tiles around those listed, where a
// feature reaching past its tile would show.
func TestTilesListsEveryTileWithData(t *testing.T) {
	store, svc := demo(t)
	s := New(store, svc)
	ctx := context.Background()
	b, err := dataExtent(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		l := layer(t, name)
		listedWithData := 0
		for z := maptile.Zoom(l.MinZoom); int(z) <= min(l.MaxZoom, tile.MaxDataZoom); z++ {
			listed := map[maptile.Tile]bool{}
			d, err := s.layerAt(ctx, l, z)
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range d.tiles(z) {
				listed[tl] = true
			}
			var others []maptile.Tile
			if z <= 12 {
				others = cover(b, z)
			} else {
				for tl := range listed {
					for dx := -1; dx <= 1; dx++ {
						for dy := -1; dy <= 1; dy++ {
							others = append(others, maptile.New(uint32(int(tl.X)+dx), uint32(int(tl.Y)+dy), z))
						}
					}
				}
			}
			for _, tl := range others {
				if listed[tl] {
					continue
				}
				data, err := s.Tile(ctx, l, tl)
				if err != nil {
					t.Fatal(err)
				}
				if data != nil {
					t.Errorf("%s: tile %d/%d/%d has features but Tiles leaves it out", name, tl.Z, tl.X, tl.Y)
				}
			}
			for tl := range listed {
				if data, err := s.Tile(ctx, l, tl); err != nil {
					t.Fatal(err)
				} else if data != nil {
					listedWithData++
				}
			}
		}
		if listedWithData == 0 {
			t.Errorf("%s: no listed tile has data", name)
		}
	}
}

func TestALRLabel(t *testing.T) {
	for _, c := range []struct {
		ha   float64
		want string
	}{{4758.82084, "ALR 4,759 ha"}, {12.4, "ALR 12 ha"}, {999.6, "ALR 1,000 ha"}, {1234567, "ALR 1,234,567 ha"}, {0, "ALR"}} {
		a := ag.Area{Properties: map[string]string{"status": "ALR"}, Numbers: map[string]float64{"area_ha": c.ha}}
		if got := alrLabel(a); got != c.want {
			t.Errorf("alrLabel(%v ha) = %q, want %q", c.ha, got, c.want)
		}
	}
}

// BenchmarkBuild builds each archive over the demo data, as build-tiles
// and the first start do (the store loaded once, outside the timing).
func BenchmarkBuild(b *testing.B) {
	store, svc := demo(b)
	s := New(store, svc)
	ctx := context.Background()
	if err := loadAll(ctx, s); err != nil {
		b.Fatal(err)
	}
	for _, name := range Names() {
		l := layer(b, name)
		o, ok, err := s.BuildOptions(ctx, l)
		if err != nil || !ok {
			b.Fatalf("%s: no data (%v)", name, err)
		}
		o.Workers = 1
		b.Run(name, func(b *testing.B) {
			tiles := 0
			for b.Loop() {
				var sink discard
				st, err := tile.Build(ctx, l, s.Tile, &sink, o)
				if err != nil {
					b.Fatal(err)
				}
				tiles = st.Tiles
			}
			b.ReportMetric(float64(tiles), "tiles")
		})
	}
}

// loadAll reads every region's data.
func loadAll(ctx context.Context, s *Source) error {
	for name := range s.regions {
		if _, err := s.region(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// dataExtent is the extent of every region's data, zero when none.
func dataExtent(ctx context.Context, s *Source) (orb.Bound, error) {
	if err := loadAll(ctx, s); err != nil {
		return orb.Bound{}, err
	}
	var b orb.Bound
	for _, r := range s.regions {
		switch {
		case r.extent.IsZero():
		case b.IsZero():
			b = r.extent
		default:
			b = b.Union(r.extent)
		}
	}
	return b, nil
}

// props returns the feature's properties as a new map.
func (f feature) props() geojson.Properties {
	p := make(geojson.Properties, len(f.keys))
	for i, k := range f.keys {
		p[k] = f.vals[i]
	}
	return p
}
