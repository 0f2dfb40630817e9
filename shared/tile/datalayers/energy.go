package datalayers

import (
	"slices"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/survey"
	"meridian/shared/tile"
)

// energySums is what a block's LSDs add up to.
type energySums struct {
	lsds      int
	wells     energy.Liability
	fac, segs int
	prod      energy.Production
	producing int
}

func (a *energySums) add(s energy.LSDSummary) {
	a.lsds++
	a.wells.Total += s.Wells.Total
	a.wells.Active += s.Wells.Active
	a.wells.Suspended += s.Wells.Suspended
	a.wells.Abandoned += s.Wells.Abandoned
	a.wells.Orphan += s.Wells.Orphan
	a.wells.ReclamationCertified += s.Wells.ReclamationCertified
	a.fac += s.Facilities
	a.segs += s.Segments
	a.prod.Oil += s.Production.Oil
	a.prod.Gas += s.Production.Gas
	a.prod.Condensate += s.Production.Condensate
	a.prod.Water += s.Production.Water
	a.prod.LastProducingMonth = max(a.prod.LastProducingMonth, s.Production.LastProducingMonth)
	a.producing += s.ProducingWells
}

func (a *energySums) wellProps(rollup bool) geojson.Properties {
	p := geojson.Properties{
		"wells_total": a.wells.Total, "wells_active": a.wells.Active, "wells_suspended": a.wells.Suspended,
		"wells_abandoned": a.wells.Abandoned, "wells_orphan": a.wells.Orphan,
		"wells_reclamation_certified": a.wells.ReclamationCertified, "facilities": a.fac, "pipeline_segments": a.segs,
	}
	if rollup {
		p["lsds"] = a.lsds
	}
	return p
}

func (a *energySums) prodProps(rollup bool) geojson.Properties {
	p := geojson.Properties{
		"oil_m3": round(a.prod.Oil), "gas_e3m3": round(a.prod.Gas), "condensate_m3": round(a.prod.Condensate),
		"water_m3": round(a.prod.Water), "producing_wells": a.producing,
	}
	if a.prod.LastProducingMonth != "" {
		p["last_producing_month"] = a.prod.LastProducingMonth
	}
	if rollup {
		p["lsds"] = a.lsds
	}
	return p
}

func hasWells(s energy.LSDSummary) bool { return s.Wells.Total > 0 }

func hasProduction(s energy.LSDSummary) bool {
	p := s.Production
	return s.ProducingWells > 0 || p.Oil != 0 || p.Gas != 0 || p.Condensate != 0 || p.Water != 0
}

// rollup sums the LSDs keep selects into sections and townships, in
// order of first appearance (sorted keys: deterministic).
type rollup struct {
	order []string
	sums  map[string]*energySums
}

func (r *rollup) add(id string, s energy.LSDSummary) {
	if r.sums == nil {
		r.sums = map[string]*energySums{}
	}
	a := r.sums[id]
	if a == nil {
		a = &energySums{}
		r.sums[id] = a
		r.order = append(r.order, id)
	}
	a.add(s)
}

func (ld *loader) loadEnergy(store kv.Store) error {
	var wSec, wTwp, pSec, pTwp rollup
	facSeen := map[string]bool{}
	// The tenure rows of an LSD are adjacent in key order: its features are
	// drawn when the next LSD starts.
	type tenureLSD struct {
		first *energy.TenureRow
		n     int
	}
	var tenureAt string                   // the LSD of tenure
	tenure := map[string]*tenureLSD{}     // kind → its rows on tenureAt
	footprints := map[string]*footprint{} // kind + " " + disposition id
	var footprintOrder []string
	flushTenure := func() error {
		for _, kind := range []string{"png", "mineral"} {
			t := tenure[kind]
			if t == nil {
				continue
			}
			layer := "petroleum_tenure"
			if kind == "mineral" {
				layer = "mineral_tenure"
			}
			p := tenureProps(*t.first)
			p["dispositions"] = t.n
			if err := ld.addBlock(layer, tenureAt, p); err != nil {
				return err
			}
		}
		clear(tenure)
		return nil
	}
	err := ld.scan(store, energy.Dataset, energy.PKLSDPrefix, func(it kv.Item) error {
		lsd := strings.TrimPrefix(it.PK, energy.PKLSDPrefix)
		if lsd != tenureAt {
			if err := flushTenure(); err != nil {
				return err
			}
			tenureAt = lsd
		}
		switch {
		case it.SK == energy.SKProduction:
			var s energy.LSDSummary
			if err := decodeJSON(it, &s); err != nil {
				return err
			}
			sec, twp, err := parents(lsd)
			if err != nil {
				return err
			}
			var one energySums
			one.add(s)
			if hasWells(s) {
				if err := ld.addBlock("og_activity_lsd", lsd, one.wellProps(false)); err != nil {
					return err
				}
				wSec.add(sec, s)
				wTwp.add(twp, s)
			}
			if hasProduction(s) {
				if err := ld.addBlock("lsd_production_12mo", lsd, one.prodProps(false)); err != nil {
					return err
				}
				pSec.add(sec, s)
				pTwp.add(twp, s)
			}
		case strings.HasPrefix(it.SK, energy.SKFacilityPrefix):
			var f energy.FacilityRow
			if err := decodeJSON(it, &f); err != nil || facSeen[f.ID] {
				return err
			}
			facSeen[f.ID] = true
			pt := orb.Point{f.Location.Lng, f.Location.Lat}
			if pt == (orb.Point{}) {
				return nil
			}
			p := geojson.Properties{"id": f.ID, "name": f.FacilityName, "category": f.Category, "sub_type": f.SubType,
				"status": f.Status, "licence_number": f.LicenceNumber, "lsd": lsd}
			if f.Operator.Name != nil {
				p["operator"] = *f.Operator.Name
			}
			ld.add("facilities", pt, p)
			label := f.FacilityName
			if label == "" {
				label = f.ID
			}
			ld.add("facilities_labels", pt, geojson.Properties{"id": f.ID, "label": label, "category": f.Category})
		case strings.HasPrefix(it.SK, energy.SKTenurePrefix):
			var r energy.TenureRow
			if err := decodeJSON(it, &r); err != nil {
				return err
			}
			if r.TenureKind != "png" && r.TenureKind != "mineral" {
				return nil
			}
			t := tenure[r.TenureKind]
			if t == nil {
				t = &tenureLSD{first: &r} // SK order: soonest expiry first
				tenure[r.TenureKind] = t
			}
			t.n++
			fk := r.TenureKind + " " + r.ID
			fp := footprints[fk]
			if fp == nil {
				fp = &footprint{first: headOf(r)}
				footprints[fk] = fp
				footprintOrder = append(footprintOrder, fk)
			} else if lsd < fp.lsds[0] {
				fp.first = headOf(r) // the row of its first LSD in key order
			}
			fp.lsds = append(fp.lsds, lsd)
			if n := len(fp.lsds); n > 1 && lsd < fp.lsds[0] {
				fp.lsds[0], fp.lsds[n-1] = lsd, fp.lsds[0]
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flushTenure(); err != nil {
		return err
	}
	for _, b := range []struct {
		layer string
		r     *rollup
		props func(*energySums) geojson.Properties
	}{
		{"og_activity_sec", &wSec, func(a *energySums) geojson.Properties { return a.wellProps(true) }},
		{"og_activity_twp", &wTwp, func(a *energySums) geojson.Properties { return a.wellProps(true) }},
		{"lsd_production_12mo_sec", &pSec, func(a *energySums) geojson.Properties { return a.prodProps(true) }},
		{"lsd_production_12mo_twp", &pTwp, func(a *energySums) geojson.Properties { return a.prodProps(true) }},
	} {
		ids := b.r.order
		if err := ld.addBlocks(b.layer, ids, func(i int) geojson.Properties { return b.props(b.r.sums[ids[i]]) }); err != nil {
			return err
		}
	}
	for _, fk := range footprintOrder {
		kind, id, _ := strings.Cut(fk, " ")
		layer := "petroleum_tenure"
		if kind == "mineral" {
			layer = "mineral_tenure"
		}
		g, err := ld.footprint(footprints[fk].lsds)
		if err != nil {
			return err
		}
		fp := footprints[fk]
		props := tenureProps(fp.first.row())
		props["id"] = id
		ld.add(overview(layer), g, props)
		if kind == "mineral" && g != nil {
			// On the footprint, where a label reads well: a disposition's
			// centroid can fall outside it.
			ld.add("mineral_tenure_labels", tile.LabelPoint(g, g.Bound().Center()), mineralLabel(fp.first.row()))
		}
	}
	return nil
}

// footprint is a disposition drawn whole below OverviewZoom: what its
// overview feature and label draw of its first row (the row of its LSD
// first in key order), and its LSDs, that one first. A province has some
// hundred thousand: what they hold is kept small.
type footprint struct {
	first tenureHead
	lsds  []string
}

// tenureHead is what tenureProps and mineralLabel read of a TenureRow.
type tenureHead struct {
	id, number, typ, status string
	holder, ba, expiry      *string
	perpetual               bool
}

func headOf(r energy.TenureRow) tenureHead {
	return tenureHead{id: r.ID, number: r.DispositionNumber, typ: r.DispositionType, status: r.Status,
		holder: r.Holder.Name, ba: r.Holder.BACode, expiry: r.ExpiryDate, perpetual: r.Perpetual}
}

func (h tenureHead) row() energy.TenureRow {
	return energy.TenureRow{ID: h.id, DispositionNumber: h.number, DispositionType: h.typ, Status: h.status,
		Holder: energy.Party{Name: h.holder, BACode: h.ba}, ExpiryDate: h.expiry, Perpetual: h.perpetual}
}

// footprint returns the union of LSD blocks: dissolved where they share
// edges exactly (the LSDs of a section do), else the blocks side by side.
//
// The LSDs are dissolved in key order, whatever order the scan found them
// in: the union's rings, and so what a coarse tile keeps of a small
// disposition, depend on it.
func (ld *loader) footprint(lsds []string) (orb.Geometry, error) {
	slices.Sort(lsds)
	var polys []orb.Polygon
	for _, id := range lsds {
		g, err := ld.blockOf(id)
		if err != nil {
			return nil, err
		}
		switch g := g.(type) {
		case orb.Polygon:
			polys = append(polys, g)
		case orb.MultiPolygon:
			polys = append(polys, g...)
		}
	}
	if len(polys) == 0 {
		return nil, nil
	}
	if g, err := survey.Dissolve(polys); err == nil {
		return g, nil
	}
	return orb.MultiPolygon(polys), nil
}

func tenureProps(r energy.TenureRow) geojson.Properties {
	p := geojson.Properties{"disposition_id": r.ID, "disposition_type": r.DispositionType, "status": r.Status, "perpetual": r.Perpetual}
	if r.Holder.Name != nil {
		p["holder"] = *r.Holder.Name
	}
	if r.Holder.BACode != nil {
		p["holder_ba_code"] = *r.Holder.BACode
	}
	if r.ExpiryDate != nil {
		p["expiry_date"] = *r.ExpiryDate
	}
	return p
}

// mineralLabel is the properties of a mineral disposition's label.
func mineralLabel(r energy.TenureRow) geojson.Properties {
	p := geojson.Properties{"disposition_id": r.ID, "label": r.DispositionNumber}
	if r.Holder.Name != nil {
		p["holder"] = *r.Holder.Name
	}
	if r.ExpiryDate != nil {
		p["expiry_date"] = *r.ExpiryDate
	}
	return p
}

func round(v float64) float64 {
	if v < 0 {
		return -round(-v)
	}
	return float64(int64(v*10+0.5)) / 10
}
