package datalayers

import (
	"math"
	"strconv"
	"strings"

	"github.com/paulmach/orb/geojson"

	"meridian/shared/ag"
	"meridian/shared/energy"
	"meridian/shared/kv"
	"meridian/shared/tile"
)

// loadPipelines adds every segment line of the energy dataset to the
// pipelines layer, labelled with its licence and line.
func (ld *loader) loadPipelines(store kv.Store) error {
	return scanDataset(ld.ctx, store, energy.Dataset, energy.PKPipelinePrefix, func(it kv.Item) error {
		if !strings.HasPrefix(it.SK, energy.SKPipelineGeometry) {
			return nil
		}
		var g energy.PipelineGeometry
		if err := decodeJSON(it, &g); err != nil {
			return err
		}
		props := geojson.Properties{"id": g.SegmentID, "licence_number": g.Licence, "label": g.Licence + "-" + g.LineNo,
			"status": g.Status, "substance": g.Substance}
		if g.H2SPct != nil {
			props["h2s_pct"] = *g.H2SPct
		}
		ld.add("pipelines", g.Lines, props)
		return nil
	})
}

// loadAreas adds the ag dataset's polygon layers (SLC soils, SK Crown land
// and pastures, the BC layers) and the label points of those that have
// label archives.
func (ld *loader) loadAreas(store kv.Store) error {
	prop := func(name string) func(ag.Area) string {
		return func(a ag.Area) string { return a.Properties[name] }
	}
	for _, set := range []struct {
		pk, layer, labels string
		label             func(ag.Area) string
	}{
		{ag.PKSLC, "soils", "", nil},
		{ag.PKSKCrown, "sk_ag_crown_land", "sk_ag_crown_land_labels", prop("lld")},
		{ag.PKSKPasture, "sk_pastures", "sk_pastures_labels", prop("name")},
		{ag.PKBCCapability, "bc_ag_capability", "", nil},
		{ag.PKBCALR, "bc_alr", "bc_alr_labels", alrLabel},
		{ag.PKBCWetland, "bc_fwa_wetlands", "", nil},
	} {
		err := scanDataset(ld.ctx, store, ag.Dataset, set.pk, func(it kv.Item) error {
			if it.PK != set.pk {
				return nil
			}
			var a ag.Area
			if err := decodeJSON(it, &a); err != nil {
				return err
			}
			props := geojson.Properties{"id": it.SK}
			for name, v := range a.Properties {
				props[name] = v
			}
			for name, v := range a.Numbers {
				props[name] = v
			}
			ld.add(set.layer, a.Polygons, props)
			if set.labels != "" {
				label := geojson.Properties{"id": it.SK, "label": set.label(a)}
				ld.add(set.labels, tile.LabelPoint(a.Polygons, a.Polygons.Bound().Center()), label)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// alrLabel is an ALR polygon's label: its status and area, "ALR 1,254 ha".
func alrLabel(a ag.Area) string {
	ha, ok := a.Numbers["area_ha"]
	if !ok || ha <= 0 {
		return a.Properties["status"]
	}
	n := strconv.FormatFloat(math.Round(ha), 'f', 0, 64)
	for i := len(n) - 3; i > 0; i -= 3 {
		n = n[:i] + "," + n[i:]
	}
	return a.Properties["status"] + " " + n + " ha"
}
