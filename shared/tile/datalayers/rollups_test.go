package datalayers

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/paulmach/orb/geo"

	"meridian/shared/ag"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/lld"
)

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
