package tile

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"meridian/shared/lld"
	"meridian/shared/survey/gridindex"
)

// DemoAttributionPrefix starts the attribution of an archive built from the
// generated demo data (datalayers), so that a reader of the archive (the
// map page's configuration) can tell it apart.
const DemoAttributionPrefix = "Demo data, invented by Meridian in the published formats, not real: "

// MapLayer is one layer of the local server's map page (its
// GET /map/config.json): for a survey grid, a line layer from the tiles
// at {tiles_url}/{region}/{grid}.json and, when Label is set, a label layer
// from {tiles_url}/{region}/{grid}-label.json (source layer SourceLayer+"_label").
// The page groups the layer switcher by Group, in the order given, and
// expects the layers of a group to come coarse to fine.
type MapLayer struct {
	ID          string `json:"id"`           // unique, used in MapLibre source and layer ids: "ab-twp"
	Title       string `json:"title"`        // switcher label: "Townships"
	Group       string `json:"group"`        // switcher heading: "DLS Alberta"
	Region      string `json:"region"`       // "ab"
	Grid        string `json:"grid"`         // "twp"
	SourceLayer string `json:"source_layer"` // layer name inside the tiles: "ab_twp"
	Label       bool   `json:"label"`        // the grid's -label layer is published
	MinZoom     int    `json:"min_zoom"`     // zoom range of its tiles
	MaxZoom     int    `json:"max_zoom"`
	// Kind is "data" for an agriculture or energy archive (Grid is then the
	// archive name), drawn as Geometry "polygon" (a fill), "line", "point"
	// or "label" (its points' label property as text); "" for a survey grid.
	Kind     string `json:"kind,omitempty"`
	Geometry string `json:"geometry,omitempty"`
	// Source says what the layer is drawn from, for the page's legend:
	// "model" (computed from the survey rules), "official" (an official
	// dataset ingested), "fixture" (generated in an official dataset's
	// format, not the real dataset) or "demo" (invented report data).
	// Attribution names it, as the layer's TileJSON does. Both are set per
	// request (layerSources), since data is ingested while serving.
	Source      string `json:"source,omitempty"`
	Attribution string `json:"attribution,omitempty"`
}

// DataMapLayers lists the agriculture and energy archives of the catalog
// that built reports as built (their archive exists), for the page's
// "Energy data" and "Agriculture data" groups, off by default.
func DataMapLayers(catalog []Layer, built func(Layer) bool) []MapLayer {
	var out []MapLayer
	for _, l := range catalog {
		if l.Kind != Data || !built(l) {
			continue
		}
		group, geom := "Energy data", "polygon"
		if l.Region == "ag" {
			group = "Agriculture data"
		}
		switch {
		case l.Name == "pipelines":
			geom = "line"
		case strings.HasSuffix(l.Name, "_labels"):
			geom = "label" // points with a "label" property: drawn as text
		case l.Name == "facilities":
			geom = "point"
		}
		out = append(out, MapLayer{ID: l.Region + "-" + l.Name, Title: l.Title, Group: group, Region: l.Region, Grid: l.Name,
			SourceLayer: l.SourceLayer, MinZoom: l.MinZoom, MaxZoom: min(l.MaxZoom, MaxDataZoom), Kind: "data", Geometry: geom})
	}
	return out
}

// GridSources is what PageLayers asks of the grid service
// (*grid.Service): where each system's blocks come from.
type GridSources interface {
	Sources(lld.System) []string
	SourceMetas(lld.System) []gridindex.Meta
}

// PageLayers lists the map page's layers with their sources as they
// stand: the survey grids, then the data archives built (Describer's
// attribution; DemoAttributionPrefix marks the demo data's).
func PageLayers(ctx context.Context, svc GridSources, archives Archives) []MapLayer {
	attribution := Attribution(svc.Sources)
	grids := GridMapLayers(Layers())
	for i, l := range grids {
		tl, _ := Lookup(l.Region, l.Grid)
		grids[i].Attribution = attribution(tl)
		grids[i].Source = GridSource(svc.SourceMetas(tl.System), tl)
	}
	info := map[string]ArchiveInfo{}
	data := DataMapLayers(Layers(), func(l Layer) bool {
		a, err := archives.Archive(ctx, l)
		if err != nil || a == nil {
			return false
		}
		if d, ok := a.(Describer); ok {
			info[l.Path()], _ = d.Info(ctx)
		}
		return true
	})
	for i, l := range data {
		a := info[l.Region+"/"+l.Grid].Attribution
		data[i].Attribution, data[i].Source = a, "official"
		if strings.HasPrefix(a, DemoAttributionPrefix) {
			data[i].Source = "demo"
		}
	}
	return append(grids, data...)
}

// GridSource is what grid layer l's blocks come from, given the loaded
// indexes of its system: "fixture" when an index of its province is a
// fixture, "official" when one is loaded, otherwise "model" (DLS and NTS
// are computed; Ontario has no model: "none", its grid is empty without an
// index).
func GridSource(metas []gridindex.Meta, l Layer) string {
	src := "model"
	if l.System == lld.GeoTownship {
		src = "none"
	}
	for _, m := range metas {
		if len(m.Provinces) > 0 && !slices.Contains(m.Provinces, l.Province.Code()) {
			continue
		}
		if m.Fixture {
			return "fixture"
		}
		src = "official"
	}
	return src
}

// GridMapLayers picks the page's layers out of the tile catalog
// (Layers()): one per survey grid layer, labelled when the grid's
// -label layer is published, grouped "DLS Alberta" ... "DLS Manitoba",
// "NTS British Columbia", "Ontario", and coarse to fine within a group.
func GridMapLayers(catalog []Layer) []MapLayer {
	labelled := map[string]bool{}
	var grids []Layer
	for _, l := range catalog {
		switch l.Kind {
		case Grid:
			grids = append(grids, l)
		case Label:
			labelled[l.Region+"/"+strings.TrimSuffix(l.Name, "-label")] = true
		}
	}
	// lld orders systems DLS, NTS, ..., Ontario and each system's units
	// coarse to fine.
	slices.SortStableFunc(grids, func(a, b Layer) int {
		return cmp.Or(cmp.Compare(a.System, b.System), cmp.Compare(a.Province, b.Province), cmp.Compare(a.Unit, b.Unit))
	})
	layers := make([]MapLayer, 0, len(grids))
	for _, l := range grids {
		group := l.Province.Name()
		switch l.System {
		case lld.DLS, lld.NTS:
			group = l.System.String() + " " + group
		}
		layers = append(layers, MapLayer{
			ID:          l.Region + "-" + l.Name,
			Title:       shortTitle(l.Title),
			Group:       group,
			Region:      l.Region,
			Grid:        l.Name,
			SourceLayer: l.SourceLayer,
			Label:       labelled[l.Path()],
			MinZoom:     l.MinZoom,
			MaxZoom:     l.MaxZoom,
		})
	}
	return layers
}

// shortTitle drops what the group heading already says from a catalog
// title: "DLS quarter sections" becomes "Quarter sections".
func shortTitle(title string) string {
	for _, prefix := range []string{"DLS ", "NTS ", "Ontario "} {
		title = strings.TrimPrefix(title, prefix)
	}
	r, n := utf8.DecodeRuneInString(title)
	if n == 0 {
		return title
	}
	return string(unicode.ToUpper(r)) + title[n:]
}
