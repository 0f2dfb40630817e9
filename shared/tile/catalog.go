package tile

import (
	"sort"

	"github.com/paulmach/orb"

	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Kind says what makes a layer's tiles.
type Kind uint8

const (
	// Grid layers draw the blocks of a survey grid as polygons, generated
	// from the grid models and official indexes or read from an archive.
	Grid Kind = iota + 1
	// Label layers draw one point per block, where its label reads well.
	Label
	// Data layers (agriculture, energy) exist only as built archives.
	Data
)

// Field is a feature property a layer's tiles carry.
type Field struct {
	Name        string
	Description string
}

// Layer is one published tile layer: a path under {tiles_url}, the source
// layer inside its tiles, its zoom range and properties.
type Layer struct {
	Region      string // ab, bc, sk, mb, on; ag, energy
	Name        string // path name: twp, twp-label, qtr-unit, soils, ...
	Title       string
	SourceLayer string
	MinZoom     int
	MaxZoom     int
	Kind        Kind
	Fields      []Field
	Bounds      orb.Bound

	// Survey grid and label layers: the blocks drawn.
	System   lld.System
	Unit     lld.Unit
	Province survey.Province // DLS: blocks of this province only
}

// Path is the layer's path under {tiles_url}: "ab/sec", "ab/sec-label",
// "energy/pipelines".
func (l Layer) Path() string { return l.Region + "/" + l.Name }

// Key is the layer's archive key in a blob store: "ab/sec.pmtiles".
func (l Layer) Key() string { return l.Path() + ".pmtiles" }

// Survey returns whether l is a survey grid or label layer (tiles can be
// generated on demand).
func (l Layer) Survey() bool { return l.Kind == Grid || l.Kind == Label }

// MaxDataZoom is the deepest zoom whose tiles are generated or archived;
// clients overzoom past it. Data layers published "to 22" are built to 14:
// a tile at z14 is about 2 km wide, finer than any of their features needs.
const MaxDataZoom = 14

// Province extents (lng/lat) used as layer bounds: the DLS coverage of each
// province, British Columbia's NTS extent and Ontario's.
var (
	boundsAB  = orb.Bound{Min: orb.Point{-120.0, 49.0}, Max: orb.Point{-110.0, 60.0}}
	boundsPRB = orb.Bound{Min: orb.Point{-122.0, 55.6}, Max: orb.Point{-119.9, 56.8}} // Peace River Block, townships 77-88
	boundsSK  = orb.Bound{Min: orb.Point{-110.0052, 49.0}, Max: orb.Point{-101.36, 60.0}}
	boundsMB  = orb.Bound{Min: orb.Point{-102.04, 49.0}, Max: orb.Point{-88.9, 60.0}}
	boundsBC  = orb.Bound{Min: orb.Point{-139.06, 48.3}, Max: orb.Point{-114.03, 60.0}}
	boundsON  = orb.Bound{Min: orb.Point{-95.16, 41.68}, Max: orb.Point{-74.34, 56.86}}
	boundsAg  = orb.Bound{Min: orb.Point{-139.06, 48.3}, Max: orb.Point{-88.9, 60.0}} // BC to MB
	boundsNRG = orb.Bound{Min: orb.Point{-120.0, 49.0}, Max: orb.Point{-88.9, 60.0}}  // AB, SK, MB
)

var (
	idField = Field{"id", "the block's legal land description, as search returns it (canonical)"}
	descrF  = Field{"descriptor", "the text to draw: the block's own part of the description (township-range-meridian, section number, quarter, LSD number, NTS code, lot or concession)"}
	twpF    = Field{"township", "DLS township number (1-126)"}
	rngF    = Field{"range", "DLS range number"}
	merF    = Field{"meridian", "DLS meridian: W1-W6, E1"}
	secF    = Field{"section", "section number (1-36)"}
	qtrF    = Field{"quarter_section", "quarter section: NE, NW, SW, SE"}
	mbQtrF  = Field{"quarter_section", "the section's quarter sections in coverage, comma-separated (SE,SW,NW,NE), as Manitoba's survey is published by quarter"}
	lsdF    = Field{"lsd", "legal subdivision number (1-16)"}
	serF    = Field{"series", "NTS series number (82, 83, 92, 93, 94, 102, 103, 104, 114)"}
	areaF   = Field{"area", "NTS map area letter (A-P)"}
	sheetF  = Field{"sheet", "NTS map sheet number (1-16)"}
	blockF  = Field{"block", "NTS block letter (A-L)"}
	unitF   = Field{"unit", "NTS unit number (1-100)"}
	quF     = Field{"qtr", "NTS quarter unit letter (A-D)"}
	lotF    = Field{"lot", "Ontario lot"}
	conF    = Field{"concession", "Ontario concession"}
	onTwpF  = Field{"twp", "Ontario geographic township"}
)

// gridSpec is one row of the spec's survey grid table.
type gridSpec struct {
	name     string
	unit     lld.Unit
	min      int
	title    string
	labelFs  []Field
	mbLabels []Field // DLS sec: Manitoba's label fields
}

var (
	dlsGrids = []gridSpec{
		{"twp", lld.Township, 0, "DLS townships", []Field{idField, descrF, twpF, rngF, merF}, nil},
		{"sec", lld.Section, 9, "DLS sections", []Field{idField, descrF, secF, twpF, rngF, merF}, []Field{idField, descrF, secF, twpF, rngF, merF, mbQtrF}},
		{"qtr", lld.QuarterSection, 9, "DLS quarter sections", []Field{idField, descrF, qtrF, secF, twpF, rngF, merF}, nil},
		{"lsd", lld.LSD, 9, "DLS legal subdivisions", []Field{idField, descrF, lsdF, secF, twpF, rngF, merF}, nil},
	}
	ntsGrids = []gridSpec{
		{"series", lld.MapSheet, 0, "NTS map sheets (series, area and sheet)", []Field{idField, descrF, serF, areaF, sheetF}, nil},
		{"block", lld.Block, 9, "NTS blocks", []Field{idField, descrF, blockF, serF, areaF, sheetF}, nil},
		{"unit", lld.NTSUnit, 9, "NTS units", []Field{idField, descrF, unitF, blockF, serF, areaF, sheetF}, nil},
		{"qtr-unit", lld.QuarterUnit, 9, "NTS quarter units", []Field{idField, descrF, quF, unitF, blockF, serF, areaF, sheetF}, nil},
	}
	onGrids = []gridSpec{
		{"twp", lld.Township, 0, "Ontario geographic townships", []Field{idField, descrF}, nil},
		{"con", lld.Concession, 9, "Ontario concessions", []Field{idField, descrF, conF, onTwpF}, nil},
		{"lot", lld.Lot, 9, "Ontario lots", []Field{idField, descrF, lotF, conF, onTwpF}, nil},
	}
)

// dataSpec is one row of the spec's agriculture or energy table.
type dataSpec struct {
	name, source string
	min, max     int
	title        string
}

var agArchives = []dataSpec{
	{"ag_summary_qs", "ag_summary", 9, 22, "Ag Summary, quarter section"},
	{"ag_summary_sec", "ag_summary_sec", 6, 9, "Ag Summary, section rollup"},
	{"ag_summary_twp", "ag_summary_twp", 0, 6, "Ag Summary, township rollup"},
	{"aafc_crop_summary", "crops", 9, 22, "Crops, quarter section"},
	{"aafc_crop_summary_sec", "crops_sec", 6, 9, "Crops, section rollup"},
	{"aafc_crop_summary_twp", "crops_twp", 0, 6, "Crops, township rollup"},
	{"soils", "soils", 6, 22, "Soil Landscapes"},
	{"lsrs_productivity", "lsrs", 9, 22, "Productivity, quarter section"},
	{"lsrs_productivity_sec", "lsrs_sec", 6, 9, "Productivity, section rollup"},
	{"lsrs_productivity_twp", "lsrs_twp", 0, 6, "Productivity, township rollup"},
	{"bc_ag_capability", "bc_ag_capability", 6, 22, "BC agricultural capability"},
	{"sk_ag_crown_land", "sk_ag_crown_land", 6, 22, "SK agricultural Crown land"},
	{"sk_ag_crown_land_labels", "sk_ag_crown_land", 10, 22, "SK agricultural Crown land labels"},
	{"sk_pastures", "sk_pastures", 4, 22, "SK pastures"},
	{"sk_pastures_labels", "sk_pastures", 8, 22, "SK pasture labels"},
	{"bc_alr", "bc_alr", 4, 22, "BC agricultural land reserve"},
	{"bc_alr_labels", "bc_alr", 10, 22, "BC agricultural land reserve labels"},
	{"bc_fwa_wetlands", "bc_fwa_wetlands", 6, 22, "BC freshwater atlas wetlands"},
}

var energyArchives = []dataSpec{
	{"pipelines", "pipelines", 0, 22, "Pipelines"},
	{"facilities", "facilities", 0, 22, "Facilities"},
	{"facilities_labels", "facilities_labels", 13, 22, "Facility labels"},
	{"og_activity_lsd", "og_activity", 9, 22, "Well activity, LSD"},
	{"og_activity_sec", "og_activity_sec", 6, 9, "Well activity, section rollup"},
	{"og_activity_twp", "og_activity_twp", 0, 6, "Well activity, township rollup"},
	{"lsd_production_12mo", "lsd_production", 9, 22, "Production, trailing 12 months, LSD"},
	{"lsd_production_12mo_sec", "production_sec", 6, 9, "Production rollup, section"},
	{"lsd_production_12mo_twp", "production_twp", 0, 6, "Production rollup, township"},
	{"petroleum_tenure", "petroleum_tenure", 0, 22, "Petroleum and natural gas tenure"},
	{"mineral_tenure", "mineral_tenure", 0, 22, "Mineral tenure"},
	{"mineral_tenure_labels", "mineral_tenure_labels", 8, 22, "Mineral tenure labels"},
}

// catalog is every published layer, by path.
var catalog = func() map[string]Layer {
	m := map[string]Layer{}
	add := func(l Layer) {
		if _, dup := m[l.Path()]; dup {
			panic("tile: duplicate layer " + l.Path())
		}
		m[l.Path()] = l
	}
	grids := func(region string, sys lld.System, p survey.Province, b orb.Bound, specs []gridSpec) {
		for _, g := range specs {
			source := region + "_" + underscore(g.name)
			base := Layer{Region: region, Name: g.name, Title: g.title, SourceLayer: source, MinZoom: g.min, MaxZoom: 14,
				Kind: Grid, Fields: []Field{idField}, Bounds: b, System: sys, Unit: g.unit, Province: p}
			add(base)
			label := base
			label.Name, label.SourceLayer, label.Kind = g.name+"-label", source+"_label", Label
			label.Title = g.title + ", labels"
			label.Fields = g.labelFs
			if region == "mb" && g.mbLabels != nil {
				label.Fields = g.mbLabels
			}
			add(label)
		}
	}
	grids("ab", lld.DLS, survey.AB, boundsAB, dlsGrids)
	grids("bc", lld.DLS, survey.BC, boundsPRB, dlsGrids)
	grids("sk", lld.DLS, survey.SK, boundsSK, dlsGrids)
	grids("mb", lld.DLS, survey.MB, boundsMB, dlsGrids)
	grids("bc", lld.NTS, survey.BC, boundsBC, ntsGrids)
	grids("on", lld.GeoTownship, survey.ON, boundsON, onGrids)
	for _, d := range agArchives {
		add(Layer{Region: "ag", Name: d.name, Title: d.title, SourceLayer: d.source, MinZoom: d.min, MaxZoom: d.max, Kind: Data, Bounds: boundsAg, Fields: dataFields[d.name]})
	}
	for _, d := range energyArchives {
		add(Layer{Region: "energy", Name: d.name, Title: d.title, SourceLayer: d.source, MinZoom: d.min, MaxZoom: d.max, Kind: Data, Bounds: boundsNRG, Fields: dataFields[d.name]})
	}
	return m
}()

func underscore(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '-' {
			b[i] = '_'
		}
	}
	return string(b)
}

// Lookup returns the published layer at region/name.
func Lookup(region, name string) (Layer, bool) {
	l, ok := catalog[region+"/"+name]
	return l, ok
}

// Layers returns every published layer, sorted by path.
func Layers() []Layer {
	out := make([]Layer, 0, len(catalog))
	for _, l := range catalog {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path() < out[j].Path() })
	return out
}
