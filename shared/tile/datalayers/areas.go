package datalayers

import (
	"strings"

	"github.com/paulmach/orb/geojson"

	"meridian/shared/agri"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/tile"
)

// loadPipelines adds every segment line of the energy dataset to the
// pipelines layer, labelled with its licence and line.
func (ld *loader) loadPipelines(store kv.Store) error {
	ds, keys, ok, err := datasetKeys(ld.ctx, store, energy.Dataset, "PIPELINE#")
	if err != nil || !ok {
		return err
	}
	for _, k := range keys {
		if !strings.HasPrefix(k.SK, energy.SKPipelineGeometry) {
			continue
		}
		var g energy.PipelineGeometry
		if ok, err := getJSON(ld.ctx, ds, k, &g); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		props := geojson.Properties{"id": g.SegmentID, "licence_number": g.Licence, "label": g.Licence + "-" + g.LineNo,
			"status": g.Status, "substance": g.Substance}
		if g.H2SPct != nil {
			props["h2s_pct"] = *g.H2SPct
		}
		ld.add("pipelines", g.Lines, props)
	}
	return nil
}

// loadAreas adds the ag dataset's polygon layers (SLC soils, SK Crown land
// and pastures) and the label points of the latter two.
func (ld *loader) loadAreas(store kv.Store) error {
	for _, set := range []struct{ pk, layer, labels, labelProp string }{
		{agri.PKSLC, "soils", "", ""},
		{agri.PKSKCrown, "sk_ag_crown_land", "sk_ag_crown_land_labels", "lld"},
		{agri.PKSKPasture, "sk_pastures", "sk_pastures_labels", "name"},
	} {
		ds, keys, ok, err := datasetKeys(ld.ctx, store, agri.Dataset, set.pk)
		if err != nil || !ok {
			return err
		}
		for _, k := range keys {
			if k.PK != set.pk {
				continue
			}
			var a agri.Area
			if ok, err := getJSON(ld.ctx, ds, k, &a); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
			props := geojson.Properties{"id": k.SK}
			for name, v := range a.Properties {
				props[name] = v
			}
			ld.add(set.layer, a.Polygons, props)
			if set.labels != "" {
				label := geojson.Properties{"id": k.SK, "label": a.Properties[set.labelProp]}
				ld.add(set.labels, tile.LabelPoint(a.Polygons, a.Polygons.Bound().Center()), label)
			}
		}
	}
	return nil
}
