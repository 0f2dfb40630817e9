package datalayers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/planar"

	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

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
