package tile_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"meridian/shared/tile"
)

// surveyGridLayers is the survey grid list of the spec's map tile layers, in
// the order and grouping the page shows: for tests of the page on its own.
func surveyGridLayers() []tile.MapLayer {
	type grid struct {
		name, title string
		minZoom     int
	}
	dls := []grid{{"twp", "Townships", 0}, {"sec", "Sections", 9}, {"qtr", "Quarter sections", 9}, {"lsd", "Legal subdivisions", 9}}
	families := []struct {
		group, region string
		grids         []grid
	}{
		{"DLS Alberta", "ab", dls},
		{"DLS British Columbia", "bc", dls},
		{"DLS Saskatchewan", "sk", dls},
		{"DLS Manitoba", "mb", dls},
		{"NTS British Columbia", "bc", []grid{{"series", "Map sheets (series, area and sheet)", 0}, {"block", "Blocks", 9}, {"unit", "Units", 9}, {"qtr-unit", "Quarter units", 9}}},
		{"Ontario", "on", []grid{{"twp", "Geographic townships", 0}, {"con", "Concessions", 9}, {"lot", "Lots", 9}}},
	}
	var layers []tile.MapLayer
	for _, f := range families {
		for _, g := range f.grids {
			layers = append(layers, tile.MapLayer{
				ID:          f.region + "-" + g.name,
				Title:       g.title,
				Group:       f.group,
				Region:      f.region,
				Grid:        g.name,
				SourceLayer: f.region + "_" + strings.ReplaceAll(g.name, "-", "_"),
				Label:       true,
				MinZoom:     g.minZoom,
				MaxZoom:     14,
			})
		}
	}
	return layers
}

// The page's layers from the tile catalog are the spec's survey grids, in
// the page's order.
func TestMapLayersOfCatalog(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(surveyGridLayers(), tile.GridMapLayers(tile.Layers())); diff != "" {
		t.Errorf("tile.GridMapLayers(tile.Layers()) (-want +got):\n%s", diff)
	}
}

// Every data archive built is listed, grouped by domain, with the way the
// page draws it; those not built are not.
func TestDataMapLayers(t *testing.T) {
	t.Parallel()
	all := tile.DataMapLayers(tile.Layers(), func(tile.Layer) bool { return true })
	if len(all) != 30 {
		t.Errorf("%d data layers listed, want the 30 archives", len(all))
	}
	want := map[string]string{"ag-soils": "polygon", "energy-pipelines": "line", "energy-facilities": "point",
		"energy-facilities_labels": "label", "ag-bc_alr_labels": "label", "ag-bc_alr": "polygon", "energy-og_activity_twp": "polygon"}
	for _, l := range all {
		if g, ok := want[l.ID]; ok && l.Geometry != g {
			t.Errorf("%s drawn as %q, want %q", l.ID, l.Geometry, g)
		}
		if l.Kind != "data" || (l.Region == "ag") != (l.Group == "Agriculture data") {
			t.Errorf("%s: kind %q group %q", l.ID, l.Kind, l.Group)
		}
	}
	some := tile.DataMapLayers(tile.Layers(), func(l tile.Layer) bool { return l.Name == "bc_alr" })
	if len(some) != 1 || some[0].ID != "ag-bc_alr" {
		t.Errorf("only bc_alr built: listed %v", some)
	}
}
