package datalayers

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/paulmach/orb/geo"
	"github.com/paulmach/orb/geojson"

	"meridian/shared/ag"
	"meridian/shared/kv"
)

// quarter is one quarter section's ag sections (nil: absent).
type quarter struct {
	id, sec, twp string
	areaHa       float64
	crop         *ag.Cropping
	lsrs, cli    *ag.Productivity
	soil         *ag.Soil
	landUse      *ag.LandUse
	drought      *ag.Drought
}

// agRollup aggregates quarters: the most common dominant crop (by
// quarters, ties by code), the area-weighted mean LSRS score, and the LSRS
// class and soil order of the largest area (ties by name).
type agRollup struct {
	quarters  int
	areaHa    float64
	crops     map[string]int
	cropOf    map[string]ag.Crop
	scoreArea float64
	scoreSum  float64
	classArea map[string]float64
	soilArea  map[string]float64
}

func (a *agRollup) add(q *quarter) {
	if a.crops == nil {
		a.crops, a.cropOf, a.classArea, a.soilArea = map[string]int{}, map[string]ag.Crop{}, map[string]float64{}, map[string]float64{}
	}
	a.quarters++
	a.areaHa += q.areaHa
	if q.crop != nil {
		a.crops[q.crop.Dominant.Code]++
		a.cropOf[q.crop.Dominant.Code] = q.crop.Dominant
	}
	if q.lsrs != nil {
		a.scoreSum += q.lsrs.Score * q.areaHa
		a.scoreArea += q.areaHa
		a.classArea[q.lsrs.Class] += q.areaHa
	}
	if q.soil != nil && q.soil.Classification.Order != "" {
		a.soilArea[q.soil.Classification.Order] += q.areaHa
	}
}

func modeInt(m map[string]int) (string, bool) {
	best, n := "", 0
	for k, v := range m {
		if v > n || v == n && k < best {
			best, n = k, v
		}
	}
	return best, n > 0
}

func modeFloat(m map[string]float64) (string, bool) {
	best, n, ok := "", 0.0, false
	for k, v := range m {
		if !ok || v > n || v == n && k < best {
			best, n, ok = k, v, true
		}
	}
	return best, ok
}

func (a *agRollup) props(crop, lsrs bool) geojson.Properties {
	p := geojson.Properties{"quarters": a.quarters, "area_ha": round(a.areaHa)}
	if code, ok := modeInt(a.crops); crop && ok {
		c := a.cropOf[code]
		p["dominant_crop"], p["dominant_crop_code"], p["crop_category"] = c.Name, c.Code, c.Category
	}
	if lsrs && a.scoreArea > 0 {
		p["lsrs_score"] = math.Round(a.scoreSum/a.scoreArea*100) / 100
		p["lsrs_class"], _ = modeFloat(a.classArea)
	}
	if o, ok := modeFloat(a.soilArea); lsrs && ok {
		p["soil_order"] = o
	}
	return p
}

func cropProps(p geojson.Properties, c *ag.Cropping) {
	if c != nil {
		p["dominant_crop"], p["dominant_crop_code"], p["crop_category"] = c.Dominant.Name, c.Dominant.Code, c.Dominant.Category
	}
}

func lsrsProps(p geojson.Properties, q *quarter) {
	if q.lsrs != nil {
		p["lsrs_score"], p["lsrs_class"] = q.lsrs.Score, q.lsrs.Class
	}
	if q.soil != nil && q.soil.Classification.Order != "" {
		p["soil_order"] = q.soil.Classification.Order
	}
}

func (ld *loader) readQuarter(ds kv.Dataset, id string) (*quarter, error) {
	q := &quarter{id: id}
	page := kv.Query{PK: ag.QuarterKey(id)}
	for {
		res, err := ds.Query(ld.ctx, page)
		if err != nil {
			return nil, err
		}
		for _, it := range res.Items {
			var v any
			switch it.SK {
			case ag.SKCropping:
				q.crop = new(ag.Cropping)
				v = q.crop
			case ag.SKLSRS:
				q.lsrs = new(ag.Productivity)
				v = q.lsrs
			case ag.SKCLI:
				q.cli = new(ag.Productivity)
				v = q.cli
			case ag.SKSoil:
				q.soil = new(ag.Soil)
				v = q.soil
			case ag.SKLandUse:
				q.landUse = new(ag.LandUse)
				v = q.landUse
			case ag.SKDrought:
				q.drought = new(ag.Drought)
				v = q.drought
			default:
				continue
			}
			if err := json.Unmarshal(it.Data, v); err != nil {
				return nil, fmt.Errorf("datalayers: %s %s: %w", it.PK, it.SK, err)
			}
		}
		if res.Next == "" {
			break
		}
		page.After = res.Next
	}
	return q, nil
}

func (ld *loader) loadAg(store kv.Store) error {
	type band struct {
		order []string
		sums  map[string]*agRollup
	}
	bands := map[string]*band{}
	roll := func(layer, id string, q *quarter) {
		b := bands[layer]
		if b == nil {
			b = &band{sums: map[string]*agRollup{}}
			bands[layer] = b
		}
		a := b.sums[id]
		if a == nil {
			a = &agRollup{}
			b.sums[id] = a
			b.order = append(b.order, id)
		}
		a.add(q)
	}
	// A quarter's items are adjacent in key order: it is read whole (one
	// query) on its first key.
	last := ""
	err := scanDataset(ld.ctx, store, ag.Dataset, "QS#", func(ds kv.Dataset, k kv.Key) error {
		if k.PK == last {
			return nil
		}
		last = k.PK
		return ld.addQuarter(ds, strings.TrimPrefix(k.PK, "QS#"), roll)
	})
	if err != nil {
		return err
	}

	for _, layer := range []string{"ag_summary_sec", "ag_summary_twp", "aafc_crop_summary_sec", "aafc_crop_summary_twp", "lsrs_productivity_sec", "lsrs_productivity_twp"} {
		b := bands[layer]
		if b == nil {
			continue
		}
		crop, lsrs := !strings.HasPrefix(layer, "lsrs"), !strings.HasPrefix(layer, "aafc")
		for _, id := range b.order {
			if err := ld.addBlock(layer, id, b.sums[id].props(crop, lsrs)); err != nil {
				return err
			}
		}
	}
	return nil
}

// addQuarter reads quarter id and adds its features, and rolls it up.
func (ld *loader) addQuarter(ds kv.Dataset, id string, roll func(layer, id string, q *quarter)) error {
	q, err := ld.readQuarter(ds, id)
	if err != nil {
		return err
	}
	if q.crop == nil && q.lsrs == nil && q.soil == nil {
		return nil
	}
	if q.sec, q.twp, err = parents(id); err != nil {
		return err
	}
	g, err := ld.blockOf(id)
	if err != nil {
		return err
	}
	if g == nil {
		return nil
	}
	q.areaHa = geo.Area(g) / 1e4

	p := geojson.Properties{}
	cropProps(p, q.crop)
	lsrsProps(p, q)
	if q.cli != nil {
		p["cli_class"] = q.cli.Class
	}
	if q.landUse != nil && q.landUse.Dominant.Label != "" {
		p["land_use"] = q.landUse.Dominant.Label
	}
	if q.drought != nil && q.drought.Class != "" {
		p["drought_class"] = q.drought.Class
	}
	if err := ld.addBlock("ag_summary_qs", id, p); err != nil {
		return err
	}
	roll("ag_summary_sec", q.sec, q)
	roll("ag_summary_twp", q.twp, q)
	if q.crop != nil {
		p := geojson.Properties{"rotation": q.crop.Rotation, "diversity_index": q.crop.DiversityIndex, "years_covered": q.crop.YearsCovered}
		cropProps(p, q.crop)
		if err := ld.addBlock("aafc_crop_summary", id, p); err != nil {
			return err
		}
		roll("aafc_crop_summary_sec", q.sec, q)
		roll("aafc_crop_summary_twp", q.twp, q)
	}
	if q.lsrs != nil {
		p := geojson.Properties{}
		lsrsProps(p, q)
		if q.lsrs.Limiter != nil {
			p["lsrs_limiter"] = *q.lsrs.Limiter
		}
		if q.cli != nil {
			p["cli_class"] = q.cli.Class
		}
		if err := ld.addBlock("lsrs_productivity", id, p); err != nil {
			return err
		}
		roll("lsrs_productivity_sec", q.sec, q)
		roll("lsrs_productivity_twp", q.twp, q)
	}
	return nil
}
