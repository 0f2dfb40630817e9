package agdemo

import (
	"fmt"
	"math"
	"strings"

	"github.com/paulmach/orb"

	demodata "meridian/shared/demo"
	"meridian/shared/ingest/shp"
	"meridian/shared/lld"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
)

// The province-size map layers: drought, municipalities, hydrology,
// Saskatchewan Crown land and pastures, British Columbia.

type scaleBlock struct {
	key  [3]int // meridian, range / n, township / n
	prov survey.Province
	b    orb.Bound
}

// blocks groups the selected townships (of prov; 0: all) into blocks of
// n × n townships, in the order they are first met, each with the bound
// of its selected townships.
func (g *scaleGen) blocks(prov survey.Province, n int) []scaleBlock {
	var out []scaleBlock
	at := map[[3]int]int{}
	for _, t := range g.twps {
		if prov != survey.ProvinceNone && t.prov != prov {
			continue
		}
		k := [3]int{int(t.loc.Meridian), (int(t.loc.Range) - 1) / n, (int(t.loc.Township) - 1) / n}
		if i, ok := at[k]; ok {
			out[i].b = out[i].b.Union(t.b)
			continue
		}
		at[k] = len(out)
		out = append(out, scaleBlock{key: k, prov: t.prov, b: t.b})
	}
	return out
}

func (g *scaleGen) drought() error {
	blocks := g.blocks(survey.ProvinceNone, 10)
	for mi, m := range demoDroughtMonths {
		for d := range m.classes {
			name := fmt.Sprintf("CDM_%s_D%d_LR.geojson", m.yymm, d)
			err := g.geoJSON(name, func(add func(orb.Geometry, ...prop) error) error {
				for bi, b := range blocks {
					// The block's worst class this month: -1 (none) to 2.
					worst := g.rand("drought", uint64(bi)<<8|uint64(mi)).Intn(m.classes+2) - 2
					if worst >= d {
						if err := add(b.b.ToPolygon()); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// scaleWord invents a name from syllables: "Karvel", "Tomsa".
func scaleWord(r *demodata.Rand) string {
	first := []string{"K", "T", "M", "V", "Br", "S", "L", "Gr", "N", "D", "F", "P"}
	vowel := []string{"a", "e", "o", "i", "u", "ae"}
	mid := []string{"rv", "ms", "nd", "lt", "sk", "rr", "nt", "lv"}
	end := []string{"el", "a", "on", "ia", "ar", "et", "ov", "en"}
	return first[r.Intn(len(first))] + vowel[r.Intn(len(vowel))] + mid[r.Intn(len(mid))] + end[r.Intn(len(end))]
}

func (g *scaleGen) municipalities() error {
	err := g.geoJSON(Municipalities, func(add func(orb.Geometry, ...prop) error) error {
		for _, p := range []struct {
			prov survey.Province
			n    int
			pr   string
		}{{survey.AB, 6, "48"}, {survey.SK, 3, "47"}} {
			for i, b := range g.blocks(p.prov, p.n) {
				r := g.rand("municipality "+p.pr, uint64(b.key[0])<<32|uint64(b.key[1])<<16|uint64(b.key[2]))
				uid := fmt.Sprintf("%s%02d%03d", p.pr, 90+i/1000, i%1000)
				name, typ := "Demo "+scaleWord(r)+" County", "MD"
				if p.prov == survey.SK {
					name, typ = fmt.Sprintf("RM of Demo %s No. %d", scaleWord(r), 900+i), "RM"
				}
				if err := add(b.b.ToPolygon(), prop{"CSDUID", uid}, prop{"CSDNAME", name}, prop{"CSDTYPE", typ}, prop{"PRUID", p.pr}, prop{"DEMO", "Y"}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return g.geoJSON(MBMunicipalities, func(add func(orb.Geometry, ...prop) error) error {
		for _, b := range g.blocks(survey.MB, 4) {
			r := g.rand("municipality mb", uint64(b.key[0])<<32|uint64(b.key[1])<<16|uint64(b.key[2]))
			name, typ := "Demo "+scaleWord(r), "Rural Municipality"
			if r.Float() < 0.3 {
				typ = "Municipality"
			}
			if err := add(b.b.ToPolygon(), prop{"MUNI_NAME", name}, prop{"MUNI_TYPE", typ},
				prop{"MUNI_LIST_NAME_WITH_TYPE", strings.ToUpper(name + " (" + typ + ")")}, prop{"DEMO", "Y"}); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *scaleGen) hydro() error {
	defs := []string{"Lake", "Wetland", "Wetland", "Pond", "Reservoir", "Wetland"}
	lakes := 0
	id := 0
	err := g.geoJSON(WaterBodies, func(add func(orb.Geometry, ...prop) error) error {
		return g.each(func(t scaleTwp) error {
			r := g.rand("water", uint64(t.i))
			for range r.Intn(4) {
				x0, y0 := 0.05+0.8*r.Float(), 0.05+0.8*r.Float()
				sx, sy := 0.02+0.1*r.Float(), 0.02+0.1*r.Float()
				def := defs[r.Intn(len(defs))]
				perm := "Permanent"
				if r.Float() < 0.3 {
					perm = "Intermittent"
				}
				var name any
				if def == "Lake" || def == "Reservoir" {
					lakes++
					name = fmt.Sprintf("Demo %s %d", def, lakes)
				}
				id++
				b := demoPart(t.b, x0, y0, min(1, x0+sx), min(1, y0+sy))
				if err := add(b.ToPolygon(), prop{"feature_id", fmt.Sprintf("demo-wb-%07d", id)}, prop{"definit_en", def}, prop{"perm_en", perm}, prop{"name_en", name}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	fields := []shp.Field{cField("NID", 32), nField("DEFINITION", 2, 0), nField("PERMANENCY", 2, 0), cField("NAME_EN", 40)}
	n := 0
	return g.shapefile(Watercourses, shp.PolyLine, fields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			r := g.rand("stream", uint64(t.i))
			if r.Float() < 0.5 {
				return nil
			}
			var ls orb.LineString
			y := r.Float()
			for k := range 4 {
				y = math.Min(1, math.Max(0, y+0.3*(r.Float()-0.5)))
				ls = append(ls, demoPart(t.b, 0, 0, float64(k)/3, y).Max)
			}
			n++
			def, name := "9", ""
			if r.Float() < 0.1 {
				def = "1"
			}
			if r.Float() < 0.4 {
				name = fmt.Sprintf("Demo Creek %d", n)
			}
			perm := "1"
			if r.Float() < 0.3 {
				perm = "2"
			}
			return add(ls, fmt.Sprintf("demo-nhn-flow-%07d", n), def, perm, name)
		})
	})
}

func (g *scaleGen) crownLand() error {
	fields := []shp.Field{cField("LLD", 16), cField("LEASE_TYPE", 12), cField("STATUS", 8), cField("DISP_NO", 10)}
	types := []string{"Grazing", "Grazing", "Cultivation", "Hay"}
	n := 0
	return g.shapefile(CrownLand, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			if t.prov != survey.SK {
				return nil
			}
			return t.quarters(func(blk survey.Block) error {
				r := g.rand("crown", scaleKey(blk.Location))
				// The reader takes Crown land west of the second or third
				// meridian: Saskatchewan's W1 and W4 ranges have none here.
				if blk.Province != survey.SK || (blk.Location.Meridian != lld.W2 && blk.Location.Meridian != lld.W3) || r.Float() >= 0.04 {
					return nil
				}
				n++
				status := "Leased"
				if r.Float() < 0.2 {
					status = "Vacant"
				}
				return add(dls.Bound(blk.Location).ToPolygon(), blk.Location.String(), types[r.Intn(len(types))], status, fmt.Sprintf("GL%07d", n))
			})
		})
	})
}

func (g *scaleGen) pastures() error {
	programs := []string{"Saskatchewan Pastures Program", "Former PFRA", "Patron-operated"}
	return g.geoJSON(Pastures, func(add func(orb.Geometry, ...prop) error) error {
		n := 0
		for _, b := range g.blocks(survey.SK, 3) {
			r := g.rand("pasture", uint64(b.key[0])<<32|uint64(b.key[1])<<16|uint64(b.key[2]))
			if r.Float() >= 0.03 {
				continue
			}
			n++
			if err := add(b.b.ToPolygon(), prop{"PASTURE", fmt.Sprintf("Demo Community Pasture %d", n)}, prop{"PROGRAM", programs[r.Intn(len(programs))]}); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *scaleGen) bc() error {
	for _, step := range []struct {
		write func() error
		name  string
		shape bool
	}{{g.d.bcCapability, BCCapability, true}, {g.d.alr, ALR, true}, {g.d.fwaWetlands, FWAWetlands, false}} {
		if err := step.write(); err != nil {
			return err
		}
		names := []string{step.name}
		if step.shape {
			base := strings.TrimSuffix(step.name, ".shp")
			names = []string{base + ".shp", base + ".shx", base + ".dbf", base + ".prj", base + ".cpg"}
		}
		for _, n := range names {
			if err := g.file(n, 0); err != nil {
				return err
			}
		}
	}
	return nil
}
