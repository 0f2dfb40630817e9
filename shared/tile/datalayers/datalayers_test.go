package datalayers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/maptile"
	"github.com/paulmach/orb/planar"

	"meridian/shared/ag"
	"meridian/shared/ag/agtest"
	"meridian/shared/energy"
	"meridian/shared/energy/energytest"
	"meridian/shared/kv"
	"meridian/shared/lld"
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

// children lists the LSDs or quarters of a township or section id.
func children(t *testing.T, id string, unit lld.Unit) []string {
	loc, err := lld.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	secs := []uint8{loc.Section}
	if loc.Unit == lld.Township {
		secs = nil
		for s := uint8(1); s <= 36; s++ {
			secs = append(secs, s)
		}
	}
	var out []string
	for _, s := range secs {
		c := loc
		c.Unit, c.Section = unit, s
		if unit == lld.LSD {
			for n := uint8(1); n <= 16; n++ {
				c.LSD = n
				out = append(out, c.String())
			}
		} else {
			for _, a := range []lld.Aliquot{lld.SE, lld.SW, lld.NW, lld.NE} {
				c.Aliquot = a
				out = append(out, c.String())
			}
		}
	}
	return out
}

// rolledUp decodes the roll-up tile over the source's feature i of layer
// name and returns the feature with that id.
func rolledUp(t *testing.T, s *Source, name string, i int) (string, map[string]any) {
	l := layer(t, name)
	tl, want := featureTile(t, s, l, i)
	id := want["id"].(string)
	for _, p := range decode(t, s, l, tl) {
		if p["id"] == id {
			return id, p
		}
	}
	t.Fatalf("%s: %s not in tile %v", name, id, tl)
	return "", nil
}

// Energy roll-ups: a section's and a township's values are the sums over
// their LSDs, read from the store here.
func TestEnergyRollups(t *testing.T) {
	store, svc := demo(t)
	s := New(store, svc)
	ctx := context.Background()
	ds, _, err := kv.Open(ctx, store, energy.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"og_activity_twp", "og_activity_sec", "lsd_production_12mo_twp", "lsd_production_12mo_sec"} {
		if err := loadAll(ctx, s); err != nil {
			t.Fatal(err)
		}
		for i := range min(3, len(heldFeatures(t, s, name).feats)) {
			id, got := rolledUp(t, s, name, i)
			want := map[string]float64{}
			lsds := 0
			for _, lsd := range children(t, id, lld.LSD) {
				it, ok, err := ds.Get(ctx, energy.LSDKey(lsd), energy.SKProduction)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				var sum energy.LSDSummary
				json.Unmarshal(it.Data, &sum)
				if name[:3] == "og_" {
					if sum.Wells.Total == 0 {
						continue
					}
					want["wells_total"] += float64(sum.Wells.Total)
					want["wells_active"] += float64(sum.Wells.Active)
					want["wells_suspended"] += float64(sum.Wells.Suspended)
					want["wells_abandoned"] += float64(sum.Wells.Abandoned)
					want["wells_orphan"] += float64(sum.Wells.Orphan)
					want["wells_reclamation_certified"] += float64(sum.Wells.ReclamationCertified)
					want["facilities"] += float64(sum.Facilities)
					want["pipeline_segments"] += float64(sum.Segments)
				} else {
					p := sum.Production
					if sum.ProducingWells == 0 && p.Oil == 0 && p.Gas == 0 && p.Condensate == 0 && p.Water == 0 {
						continue
					}
					want["oil_m3"] += p.Oil
					want["gas_e3m3"] += p.Gas
					want["condensate_m3"] += p.Condensate
					want["water_m3"] += p.Water
					want["producing_wells"] += float64(sum.ProducingWells)
				}
				lsds++
			}
			want["lsds"] = float64(lsds)
			if lsds == 0 {
				t.Fatalf("%s %s: no LSDs in the store", name, id)
			}
			for k, v := range want {
				g, _ := num(got[k])
				if math.Abs(g-v) > 0.051 { // volumes are rounded to 0.1
					t.Errorf("%s %s: %s = %v, want %v", name, id, k, got[k], v)
				}
			}
		}
	}
}

// Ag roll-ups: the area-weighted mean LSRS score and most common crop over
// the quarters of a section or township, read from the store here.
func TestAgRollups(t *testing.T) {
	store, svc := demo(t)
	s := New(store, svc)
	ctx := context.Background()
	ds, _, err := kv.Open(ctx, store, ag.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	if err := loadAll(ctx, s); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lsrs_productivity_twp", "lsrs_productivity_sec", "aafc_crop_summary_twp", "aafc_crop_summary_sec"} {
		for i := range min(3, len(heldFeatures(t, s, name).feats)) {
			id, got := rolledUp(t, s, name, i)
			var sumW, sumA float64
			crops := map[string]int{}
			quarters := 0
			for _, q := range children(t, id, lld.QuarterSection) {
				var sk string
				if name[:4] == "lsrs" {
					sk = ag.SKLSRS
				} else {
					sk = ag.SKCropping
				}
				it, ok, err := ds.Get(ctx, ag.QuarterKey(q), sk)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				quarters++
				if sk == ag.SKLSRS {
					var p ag.Productivity
					json.Unmarshal(it.Data, &p)
					loc, _ := lld.Parse(q)
					b, err := svc.Resolve(ctx, loc, q)
					if err != nil {
						t.Fatal(err)
					}
					a := geo.Area(b.Geometry)
					sumW += p.Score * a
					sumA += a
				} else {
					var c ag.Cropping
					json.Unmarshal(it.Data, &c)
					crops[c.Dominant.Code]++
				}
			}
			if quarters == 0 {
				t.Fatalf("%s %s: no quarters in the store", name, id)
			}
			if g, _ := num(got["quarters"]); int(g) != quarters {
				t.Errorf("%s %s: quarters %v, want %d", name, id, got["quarters"], quarters)
			}
			if sumA > 0 {
				if g, _ := num(got["lsrs_score"]); math.Abs(g-sumW/sumA) > 0.006 {
					t.Errorf("%s %s: lsrs_score %v, want %.3f", name, id, got["lsrs_score"], sumW/sumA)
				}
			}
			if len(crops) > 0 {
				best, _ := modeInt(crops)
				if got["dominant_crop_code"] != best || crops[best] == 0 {
					t.Errorf("%s %s: crop %v, want %s (%v)", name, id, got["dominant_crop_code"], best, crops)
				}
			}
		}
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

// readLog records the partitions a store is read under.
type readLog struct {
	kv.Store
	mu  sync.Mutex
	pks []string
}

func (r *readLog) note(pk string) {
	r.mu.Lock()
	r.pks = append(r.pks, pk)
	r.mu.Unlock()
}

func (r *readLog) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	r.note(pk)
	return r.Store.Get(ctx, pk, sk)
}

func (r *readLog) Query(ctx context.Context, q kv.Query) (kv.Page, error) {
	r.note(q.PK)
	return r.Store.Query(ctx, q)
}

func (r *readLog) ScanKeys(ctx context.Context, prefix string, fn func([]kv.Key) error) error {
	r.note(prefix)
	return r.Store.ScanKeys(ctx, prefix, fn)
}

func (r *readLog) ScanItems(ctx context.Context, prefix string, fn func([]kv.Item) error) error {
	r.note(prefix)
	return r.Store.(kv.ItemScanner).ScanItems(ctx, prefix, fn)
}

// A Source reads a domain's data for that domain's layers only: an energy
// archive's build reads nothing of the ag dataset.
func TestSourceReadsOneRegion(t *testing.T) {
	store, svc := demo(t)
	log := &readLog{Store: store}
	s := New(log, svc)
	ctx := context.Background()
	if _, _, err := s.BuildOptions(ctx, layer(t, "og_activity_lsd")); err != nil {
		t.Fatal(err)
	}
	energy, ag := 0, 0
	for _, pk := range log.pks {
		switch {
		case strings.HasPrefix(pk, "ag@"):
			ag++
		case strings.HasPrefix(pk, "energy@"):
			energy++
		}
	}
	if energy == 0 || ag != 0 {
		t.Errorf("an energy layer read %d energy and %d ag partitions", energy, ag)
	}
	log.pks = nil
	if _, _, err := s.BuildOptions(ctx, layer(t, "bc_alr")); err != nil {
		t.Fatal(err)
	}
	for _, pk := range log.pks {
		if strings.HasPrefix(pk, "energy@") {
			t.Errorf("an ag layer read the energy partition %s (already loaded)", pk)
		}
	}
}

// Below OverviewZoom a tenure layer draws each disposition once, its LSDs
// merged into one footprint of the same area, with the disposition's id.
func TestTenureOverview(t *testing.T) {
	store, svc := demo(t)
	s := New(store, svc)
	ctx := context.Background()
	for _, name := range []string{"petroleum_tenure", "mineral_tenure"} {
		l := layer(t, name)
		if f := Fields(name); f[0].Name != "id" || !strings.Contains(f[0].Description, fmt.Sprintf("zoom %d", OverviewZoom)) {
			t.Errorf("%s: TileJSON says %q of the id, want the overview zoom %d", name, f[0].Description, OverviewZoom)
		}
		detail, err := s.layerAt(ctx, l, OverviewZoom)
		if err != nil {
			t.Fatal(err)
		}
		over, err := s.layerAt(ctx, l, OverviewZoom-1)
		if err != nil || over == nil || over == detail {
			t.Fatalf("%s: no overview features (%v)", name, err)
		}
		// Each disposition's LSD area, from the detail features.
		lsdArea := map[string]float64{}
		ids := map[string]bool{}
		for _, f := range detail.feats {
			ids[f.props()["disposition_id"].(string)] = true
		}
		for _, f := range over.feats {
			id := f.props()["id"].(string)
			if f.props()["disposition_id"] != id || f.props()["dispositions"] != nil {
				t.Errorf("%s overview %s: props %v", name, id, f.props())
			}
			lsdArea[id] += geo.Area(f.geom)
		}
		merged := 0
		for _, f := range over.feats {
			if p, ok := f.geom.(orb.Polygon); ok && len(p) == 1 && lsdArea[f.props()["id"].(string)] > 8*15e4 {
				merged++ // eight LSDs or more as one ring: dissolved
			}
		}
		if merged == 0 {
			t.Errorf("%s: no footprint of several LSDs is a single polygon", name)
		}
		if len(over.feats) != len(lsdArea) {
			t.Errorf("%s: %d overview features for %d dispositions", name, len(over.feats), len(lsdArea))
		}
		for id := range ids {
			if _, ok := lsdArea[id]; !ok {
				t.Errorf("%s: disposition %s (soonest expiring on some LSD) has no overview feature", name, id)
			}
		}
		// A footprint covers exactly the LSDs of its disposition: the
		// store's disposition detail lists them.
		for _, f := range over.feats[:min(4, len(over.feats))] {
			id := f.props()["id"].(string)
			var want float64
			ds, _, _ := kv.Open(ctx, store, energy.Dataset)
			it, ok, err := ds.Get(ctx, energy.DispositionKey(id), energy.SKInfo)
			var r energy.TenureRow
			if err != nil || !ok || json.Unmarshal(it.Data, &r) != nil || len(r.LSDs) == 0 {
				t.Fatalf("%s: disposition %s not in the store (%v)", name, id, err)
			}
			for _, lsd := range r.LSDs {
				loc, _ := lld.Parse(lsd)
				b, err := svc.Resolve(ctx, loc, lsd)
				if err != nil {
					t.Fatal(err)
				}
				want += geo.Area(b.Geometry)
			}
			if got := lsdArea[id]; math.Abs(got-want) > 1e-6*want {
				t.Errorf("%s %s: footprint %.0f m², its LSDs %.0f m²", name, id, got, want)
			}
		}
		// Mineral labels sit on their footprints.
		if name == "mineral_tenure" {
			labels, err := s.layer(ctx, layer(t, "mineral_tenure_labels"))
			if err != nil || labels == nil || len(labels.feats) != len(over.feats) {
				t.Fatalf("mineral labels: %v for %d dispositions (%v)", labels, len(over.feats), err)
			}
			foot := map[string]orb.Geometry{}
			for _, f := range over.feats {
				foot[f.props()["id"].(string)] = f.geom
			}
			for _, f := range labels.feats {
				id := f.props()["disposition_id"].(string)
				pt := f.geom.(orb.Point)
				if g := foot[id]; g == nil || !inside(g, pt) {
					t.Errorf("label of %s at %v is not on its footprint", id, pt)
				}
			}
		}
		// And the overview tile decodes with those ids.
		tl, _ := featureTile(t, s, l, 0)
		tl = tl.Parent().Parent().Parent() // zoom 9 from 12
		if got := decode(t, s, l, tl); len(got) == 0 || got[0]["id"] != got[0]["disposition_id"] {
			t.Errorf("%s overview tile %v: %v", name, tl, got)
		}
	}
}

func inside(g orb.Geometry, pt orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return planar.PolygonContains(g, pt)
	case orb.MultiPolygon:
		return planar.MultiPolygonContains(g, pt)
	}
	return false
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
