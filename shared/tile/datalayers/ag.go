package datalayers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
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

// The bands of the ag roll-ups: the quarters each sums.
const (
	bandSummary = iota // ag_summary: every quarter drawn
	bandCrops          // aafc_crop_summary: those with cropping
	bandLSRS           // lsrs_productivity: those with an LSRS rating
	nBands
)

// bandLayers are the roll-up layers of each band, section then township.
var bandLayers = [nBands][2]string{
	{"ag_summary_sec", "ag_summary_twp"},
	{"aafc_crop_summary_sec", "aafc_crop_summary_twp"},
	{"lsrs_productivity_sec", "lsrs_productivity_twp"},
}

// agRollup aggregates the quarters of a section or a township, for the
// three bands at once: the most common dominant crop (by quarters, ties by
// code), the area-weighted mean LSRS score, and the LSRS class and soil
// order of the largest area (ties by name). The crop and LSRS sums are the
// same in the bands that draw them (the crops band sums every quarter with
// a crop, the LSRS band every quarter with a rating); soil and the counts
// are per band. A province holds some 600,000 sections: a rollup is a
// few small slices of interned strings, not maps.
type agRollup struct {
	first     [nBands]uint32 // 1 + its rank of first appearance in the band; 0: not in it
	quarters  [nBands]int32
	areaHa    [nBands]float64
	crops     []cropCount
	scoreArea float64
	scoreSum  float64
	classArea []namedSum
	soilArea  [2][]namedSum // summary band, LSRS band
}

type cropCount struct {
	crop ag.Crop // the last quarter's with this code
	n    int
}

type namedSum struct {
	name string
	v    float64
}

func addNamed(s []namedSum, name string, v float64) []namedSum {
	for i := range s {
		if s[i].name == name {
			s[i].v += v
			return s
		}
	}
	return append(s, namedSum{name, v})
}

// add adds quarter q to the bands it is in, ranking a roll-up new to a
// band after those already in it; q's crop and rating count once.
func (a *agRollup) add(q *quarter, bands [nBands]bool, rank *[nBands]uint32, in intern) {
	for b := range nBands {
		if !bands[b] {
			continue
		}
		if a.first[b] == 0 {
			rank[b]++
			a.first[b] = rank[b]
		}
		a.quarters[b]++
		a.areaHa[b] += q.areaHa
	}
	if q.crop != nil {
		c := ag.Crop{Code: in.get(q.crop.Dominant.Code), Name: in.get(q.crop.Dominant.Name), Category: in.get(q.crop.Dominant.Category)}
		i := slices.IndexFunc(a.crops, func(x cropCount) bool { return x.crop.Code == c.Code })
		if i < 0 {
			a.crops = append(a.crops, cropCount{})
			i = len(a.crops) - 1
		}
		a.crops[i].crop = c
		a.crops[i].n++
	}
	if q.lsrs != nil {
		a.scoreSum += q.lsrs.Score * q.areaHa
		a.scoreArea += q.areaHa
		a.classArea = addNamed(a.classArea, in.get(q.lsrs.Class), q.areaHa)
	}
	if q.soil != nil && q.soil.Classification.Order != "" {
		o := in.get(q.soil.Classification.Order)
		a.soilArea[0] = addNamed(a.soilArea[0], o, q.areaHa)
		if bands[bandLSRS] {
			a.soilArea[1] = addNamed(a.soilArea[1], o, q.areaHa)
		}
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

func modeNamed(s []namedSum) (string, bool) {
	best, n, ok := "", 0.0, false
	for _, x := range s {
		if !ok || x.v > n || x.v == n && x.name < best {
			best, n, ok = x.name, x.v, true
		}
	}
	return best, ok
}

func (a *agRollup) props(band int) geojson.Properties {
	crop, lsrs := band != bandLSRS, band != bandCrops
	p := geojson.Properties{"quarters": int(a.quarters[band]), "area_ha": round(a.areaHa[band])}
	if crop && len(a.crops) > 0 {
		best := a.crops[0]
		for _, c := range a.crops[1:] {
			if c.n > best.n || c.n == best.n && c.crop.Code < best.crop.Code {
				best = c
			}
		}
		c := best.crop
		p["dominant_crop"], p["dominant_crop_code"], p["crop_category"] = c.Name, c.Code, c.Category
	}
	if lsrs && a.scoreArea > 0 {
		p["lsrs_score"] = math.Round(a.scoreSum/a.scoreArea*100) / 100
		p["lsrs_class"], _ = modeNamed(a.classArea)
	}
	soil := a.soilArea[0]
	if band == bandLSRS {
		soil = a.soilArea[1]
	}
	if o, ok := modeNamed(soil); lsrs && ok {
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

// decodeItem decodes one of a quarter's items into q: the sections the
// layers draw; an item of any other section is left alone.
func decodeItem(q *quarter, it kv.Item) error {
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
		return nil
	}
	return decodeJSON(it, v)
}

func (ld *loader) loadAg(store kv.Store) error {
	// Roll-ups by section and by township: sums, not features. The scan
	// hands the quarters over in grid order, so a township's quarters come
	// together: its roll-ups are added when the scan leaves it, and only
	// the current township's are held (a province has 600,000 sections).
	// Each layer's roll-ups are added in order of first appearance, as
	// they would be after the whole scan.
	var rank [2][nBands]uint32
	sums := [2]map[string]*agRollup{{}, {}}
	in := intern{}
	var twp string      // the township rolled up now
	var twpOrder uint64 // its grid order
	emit := func() error {
		for band := range nBands {
			for i, m := range sums {
				ids := make([]string, 0, len(m))
				for id, a := range m {
					if a.first[band] != 0 {
						ids = append(ids, id)
					}
				}
				slices.SortFunc(ids, func(x, y string) int { return cmp.Compare(m[x].first[band], m[y].first[band]) })
				if err := ld.addBlocks(bandLayers[band][i], ids, func(j int) geojson.Properties { return m[ids[j]].props(band) }); err != nil {
					return err
				}
			}
		}
		clear(sums[0])
		clear(sums[1])
		return nil
	}
	roll := func(q *quarter, bands [nBands]bool) error {
		if q.twp != twp {
			o, ok := gridOrder(q.twp)
			if !ok || twp != "" && o < twpOrder {
				return fmt.Errorf("datalayers: ag quarter %s came after township %s had been rolled up: the quarters are not in grid order (is %s a DLS quarter's canonical name?)", q.id, q.twp, q.id)
			}
			if err := emit(); err != nil {
				return err
			}
			twp, twpOrder = q.twp, o
		}
		for i, id := range [2]string{q.sec, q.twp} {
			a := sums[i][id]
			if a == nil {
				a = &agRollup{}
				sums[i][id] = a
			}
			a.add(q, bands, &rank[i], in)
		}
		return nil
	}
	err := ld.scanQuarters(store, func(q *quarter) error { return ld.addQuarter(q, roll) })
	if err != nil {
		return err
	}
	return emit()
}

// quarterBatch is how many decoded quarters scanQuarters hands over at a
// time.
const quarterBatch = 256

// scanQuarters calls fn with each quarter of the store's ag dataset,
// decoded, in grid order (scanByBlock). Reading the store in grid order
// (its external sort) and decoding the items take half of the load's
// CPU, resolving and adding the quarters the other half: the first runs
// in a goroutine of its own, a few batches ahead of fn, so that the load
// uses both of a build machine's cores. Memory: at most four batches
// waiting, beside the one each side holds.
func (ld *loader) scanQuarters(store kv.Store, fn func(q *quarter) error) error {
	ctx, cancel := context.WithCancel(ld.ctx)
	defer cancel()
	batches := make(chan []*quarter, 4)
	var scanErr error
	go func() {
		defer close(batches)
		batch := make([]*quarter, 0, quarterBatch)
		send := func() error {
			select {
			case batches <- batch:
				batch = make([]*quarter, 0, quarterBatch)
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		// A quarter's items are adjacent: it is complete when the next
		// quarter's first item comes, and at the end.
		var q *quarter
		var pk string
		scanErr = scanByBlock(ctx, store, ag.Dataset, ag.PKQuarterPrefix, func(it kv.Item) error {
			if q == nil || it.PK != pk {
				if q != nil && len(batch) == cap(batch) {
					if err := send(); err != nil {
						return err
					}
				}
				pk = it.PK
				q = &quarter{id: strings.TrimPrefix(pk, ag.PKQuarterPrefix)}
				batch = append(batch, q)
			}
			return decodeItem(q, it)
		})
		if scanErr == nil && len(batch) > 0 {
			scanErr = send()
		}
	}()
	for b := range batches {
		for _, q := range b {
			if err := fn(q); err != nil {
				cancel()
				for range batches { // the scan stops at its next send
				}
				return err
			}
		}
	}
	return scanErr
}

// intern hands out one copy of each string it is given, so the roll-ups
// naming a crop, a class or a soil order share it.
type intern map[string]string

func (in intern) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

// addQuarter adds the features of quarter q, decoded, and rolls it up.
func (ld *loader) addQuarter(q *quarter, roll func(q *quarter, bands [nBands]bool) error) error {
	id := q.id
	var err error
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
	if err := roll(q, [nBands]bool{bandSummary: true, bandCrops: q.crop != nil, bandLSRS: q.lsrs != nil}); err != nil {
		return err
	}
	if q.crop != nil {
		p := geojson.Properties{"rotation": q.crop.Rotation, "diversity_index": q.crop.DiversityIndex, "years_covered": q.crop.YearsCovered}
		cropProps(p, q.crop)
		if err := ld.addBlock("aafc_crop_summary", id, p); err != nil {
			return err
		}
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
	}
	return nil
}
