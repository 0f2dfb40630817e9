package agdemo

import (
	"strconv"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
)

// demoSoils are the invented soil names (SOIL_ID, name, kind, drainage,
// order, great group, subgroup, parent material deposition).
var demoSoils = [][8]string{
	{"ABDMA~~~~~A", "ELBOW RIDGE", "M", "W", "CH", "BLC", "O", "TILL"},
	{"ABDMB~~~~~A", "JUMPING FLATS", "M", "MW", "CH", "DGC", "O", "TILL"},
	{"ABDMC~~~~~A", "BEAVER MEADOW", "M", "P", "GL", "HG", "R", "LACU"},
	{"ABDMD~~~~~A", "TOFIELD WEST", "M", "W", "CH", "BLC", "E", "LACU"},
	{"ABDME~~~~~N", "MODESTE HILLS", "M", "W", "LU", "GL", "O", "TILL"},
	{"ABDMF~~~~~N", "PEMBINA FEN", "O", "VP", "OR", "M", "T", "FNPT"},
	{"ABDMG~~~~~A", "CHIN COULEE", "M", "W", "CH", "BC", "O", "LACU"},
	{"ABDMH~~~~~A", "TABER BENCH", "M", "W", "CH", "DBC", "O", "FLUV"},
	{"ABDMI~~~~~A", "RETLAW FLATS", "M", "MW", "SZ", "SS", "B", "TILL"},
	{"SKDMA~~~~~A", "SOURIS PLAIN", "M", "W", "CH", "DBC", "O", "TILL"},
	{"SKDMB~~~~~A", "RADVILLE BENCH", "M", "W", "CH", "BC", "CA", "TILL"},
	{"SKDMC~~~~~A", "OUTRAM FLATS", "M", "I", "SZ", "SZ", "DB", "TILL"},
	{"SKDMD~~~~~A", "GOOSE LAKE", "M", "W", "CH", "DBC", "O", "LACU"},
	{"SKDME~~~~~A", "HARRIS PLAIN", "M", "W", "CH", "DBC", "R", "GLFL"},
	{"SKDMF~~~~~A", "MEADOW CREEK", "M", "W", "CH", "BLC", "O", "TILL"},
	{"SKDMG~~~~~N", "WATERHEN RIDGE", "M", "W", "LU", "GL", "O", "TILL"},
	{"MBDMA~~~~~A", "PLUM VALLEY CLAY", "M", "I", "VE", "HV", "O", "LACU"},
	{"MBDMB~~~~~A", "ALTONA PLAIN", "M", "W", "CH", "BLC", "O", "LACU"},
	{"MBDMC~~~~~A", "BOYNE PLAINS", "M", "I", "CH", "BLC", "GLR", "LACU"},
	{"MBDMD~~~~~A", "SILVER RIDGE", "M", "W", "CH", "BLC", "O", "TILL"},
	{"MBDME~~~~~A", "ASSINIBOINE BENCH", "M", "MW", "CH", "DGC", "GL", "GLFL"},
}

// demoSLC are the SLC polygons: id, township, sections covered (all when
// nil) and components (SOIL_ID, percent, slope, stone, surface form).
var demoSLC = []struct {
	id   int
	twp  string
	secs []int
	cmps [][5]string
}{
	{990001, "24-1-W5", nil, [][5]string{{"ABDMA~~~~~A", "60", "C", "S", "H"}, {"ABDMB~~~~~A", "30", "D", "S", "H"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990002, "25-1-W5", nil, [][5]string{{"ABDMB~~~~~A", "50", "C", "S", "R"}, {"ABDMA~~~~~A", "40", "C", "S", "H"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990003, "50-26-W4", demoRange(1, 18), [][5]string{{"ABDMD~~~~~A", "70", "B", "N", "U"}, {"ABDMC~~~~~A", "30", "A", "N", "L"}}},
	{990004, "50-26-W4", demoRange(19, 36), [][5]string{{"ABDMA~~~~~A", "55", "B", "S", "U"}, {"ABDMD~~~~~A", "35", "B", "N", "U"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990005, "48-7-W5", nil, [][5]string{{"ABDME~~~~~N", "65", "C", "S", "H"}, {"ABDMF~~~~~N", "25", "A", "N", "L"}, {"ABDMC~~~~~A", "10", "A", "N", "L"}}},
	{990006, "10-15-W4", nil, [][5]string{{"ABDMG~~~~~A", "45", "A", "N", "L"}, {"ABDMH~~~~~A", "35", "A", "N", "U"}, {"ABDMI~~~~~A", "20", "B", "N", "U"}}},
	{990007, "10-14-W2", nil, [][5]string{{"SKDMA~~~~~A", "50", "B", "S", "U"}, {"SKDMB~~~~~A", "30", "B", "S", "U"}, {"SKDMC~~~~~A", "20", "A", "N", "L"}}},
	{990008, "38-5-W3", nil, [][5]string{{"SKDMD~~~~~A", "60", "A", "N", "L"}, {"SKDME~~~~~A", "40", "B", "N", "U"}}},
	{990009, "50-20-W3", nil, [][5]string{{"SKDMF~~~~~A", "55", "C", "S", "H"}, {"SKDMG~~~~~N", "45", "C", "S", "H"}}},
	{990010, "5-6-W1", nil, [][5]string{{"MBDMA~~~~~A", "70", "A", "N", "L"}, {"MBDMB~~~~~A", "30", "A", "N", "L"}}},
	// Components 1 and 2 tie: the first listed is dominant.
	{990011, "10-9-W1", nil, [][5]string{{"MBDMC~~~~~A", "40", "A", "N", "L"}, {"MBDMB~~~~~A", "40", "A", "N", "L"}, {"MBDME~~~~~A", "20", "B", "N", "U"}}},
	// Covers the south half only: no soil north of section 18.
	{990012, "14-26-W1", demoRange(1, 18), [][5]string{{"MBDMD~~~~~A", "75", "B", "S", "U"}, {"MBDME~~~~~A", "25", "B", "S", "U"}}},
}

func (d *demo) slcBound(i int) orb.Bound {
	p := demoSLC[i]
	if p.secs == nil {
		return demoBound(p.twp)
	}
	return demoSections(p.twp, p.secs...)
}

func (d *demo) slc() error {
	pat := []shp.Field{nField("AREA", 12, 9), nField("PERIMETER", 12, 9), nField("POLY_ID", 10, 0), nField("ECO_ID", 6, 0)}
	err := d.shapefile(SLCPolygons, shp.Polygon, pat, func(add func(orb.Geometry, ...string) error) error {
		for i, p := range demoSLC {
			b := d.slcBound(i)
			w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
			if err := add(b.ToPolygon(), strconv.FormatFloat(w*h, 'f', 9, 64), strconv.FormatFloat(2*(w+h), 'f', 9, 64), strconv.Itoa(p.id), strconv.Itoa(p.id/1000)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var rows [][]string
	for _, p := range demoSLC {
		for i, c := range p.cmps {
			id := c[0]
			rows = append(rows, []string{strconv.Itoa(p.id), strconv.Itoa(i + 1), c[1], c[2], c[3], c[4], id[:2], id[2:5], id[5:10], id[10:], id, strconv.Itoa(p.id*100 + i + 1)})
		}
	}
	cmpFields := []shp.Field{nField("POLY_ID", 10, 0), nField("CMP", 2, 0), nField("PERCENT", 3, 0), cField("SLOPE", 1), cField("STONE", 1), cField("LOCSF", 3),
		cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), cField("SOIL_ID", 11), nField("CMP_ID", 12, 0)}
	if err := d.dbfTable(SLCComponents, cmpFields, rows); err != nil {
		return err
	}
	return writeSoilTables(demoSoils, d.dbfTable)
}

// writeSoilTables writes the SLC soil name and layer tables of soils
// (SOIL_ID, name, kind, drainage, ...; see demoSoils) through table: the
// demo's and the province-size generator's.
func writeSoilTables(soils [][8]string, table func(name string, fields []shp.Field, rows [][]string) error) error {
	var rows [][]string
	for _, s := range soils {
		id := s[0]
		rows = append(rows, []string{id, id[:2], id[2:5], id[5:10], id[10:], s[1], s[2], "NO", "0", "-", s[3], "M", "-", "-", "VC", "-", "-", s[7], "-", "-", "", "", "", s[4], s[5], s[6]})
	}
	sntFields := []shp.Field{cField("SOIL_ID", 11), cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), cField("SOILNAME", 30),
		cField("KIND", 1), cField("WATERTBL", 2), cField("ROOTRESTRI", 1), cField("RESTR_TYPE", 2), cField("DRAINAGE", 2),
		cField("PMTEX1", 2), cField("PMTEX2", 2), cField("PMTEX3", 2), cField("PMCHEM1", 2), cField("PMCHEM2", 2), cField("PMCHEM3", 2),
		cField("MDEP1", 4), cField("MDEP2", 4), cField("MDEP3", 4), cField("ORDER2", 2), cField("G_GROUP2", 3), cField("S_GROUP2", 4),
		cField("ORDER3", 2), cField("G_GROUP3", 3), cField("S_GROUP3", 4)}
	if err := table(SoilNames, sntFields, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, s := range soils {
		id := s[0]
		for i, l := range demoLayers(s) {
			rows = append(rows, append([]string{id, id[:2], id[2:5], id[5:10], id[10:], strconv.Itoa(i + 1)}, l...))
		}
	}
	sltFields := []shp.Field{cField("SOIL_ID", 11), cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), nField("LAYER_NO", 2, 0),
		nField("UDEPTH", 4, 0), nField("LDEPTH", 4, 0), cField("HZN_MAS", 3), nField("TSAND", 4, 0), nField("TSILT", 4, 0), nField("TCLAY", 4, 0),
		nField("ORGCARB", 5, 1), nField("PH2", 4, 1), nField("CEC", 4, 0), nField("BD", 5, 2), nField("EC", 4, 1), nField("KSAT", 5, 1)}
	return table(SoilLayers, sltFields, rows)
}

// demoLayers invents three horizons for a soil: A, B and C (or three
// organic tiers).
func demoLayers(s [8]string) [][]string {
	r := newDemoRand("layers " + s[0])
	clay := 15 + r.Intn(30)
	if s[4] == "VE" {
		clay = 55 + r.Intn(15)
	}
	sand := max(5, 70-clay-r.Intn(25))
	oc := 1.5 + 4*r.Float()
	if s[5] == "BC" || s[5] == "DBC" {
		oc /= 2
	}
	ec := 0.0
	if s[4] == "SZ" {
		ec = 4 + 4*r.Float()
	}
	if s[4] == "OR" {
		return [][]string{
			{"0", "40", "O", "-9", "-9", "-9", "45.0", "5.8", "120", "0.12", "0.0", "-9"},
			{"40", "120", "O", "-9", "-9", "-9", "40.0", "6.0", "110", "0.15", "0.0", "-9"},
			{"120", "160", "C", "30", "40", "30", "1.0", "7.2", "20", "1.40", "0.0", "1.0"},
		}
	}
	layer := func(u, l int, h string, sand, clay int, oc, ph, ec float64) []string {
		silt := 100 - sand - clay
		cec := clay/2 + int(oc*3)
		bd := 1.1 + float64(sand)/200 + float64(u)/400
		ks := max(0.1, float64(sand)/4-float64(clay)/8)
		return []string{strconv.Itoa(u), strconv.Itoa(l), h, strconv.Itoa(sand), strconv.Itoa(silt), strconv.Itoa(clay),
			strconv.FormatFloat(oc, 'f', 1, 64), strconv.FormatFloat(ph, 'f', 1, 64), strconv.Itoa(cec),
			strconv.FormatFloat(bd, 'f', 2, 64), strconv.FormatFloat(ec, 'f', 1, 64), strconv.FormatFloat(ks, 'f', 1, 64)}
	}
	top := 10 + r.Intn(15)
	return [][]string{
		layer(0, top, "A", sand, clay, oc, 6.2+r.Float(), ec/4),
		layer(top, top+30, "B", max(5, sand-5), min(80, clay+8), oc/4, 6.8+r.Float(), ec/2),
		layer(top+30, 100, "C", sand, clay+3, 0.4, 7.6+r.Float()/2, ec),
	}
}
