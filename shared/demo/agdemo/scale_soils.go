package agdemo

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/shp"
	"meridian/shared/survey"
	"meridian/shared/survey/dls"
)

// The province-size soil and productivity layers: SLC with its tables,
// AGRASID and SLC LSRS, CLI.

// scaleSoil is an invented soil of a province: the classification of one
// of the demo's soils under an id and name of its own.
func scaleSoil(prov string, i int) [8]string {
	s := demoSoils[i%len(demoSoils)]
	code := "X" + string(rune('A'+i/26%26)) + string(rune('A'+i%26))
	s[0] = prov + code + "~~~~~A"
	s[1] = fmt.Sprintf("DEMO SERIES %s %02d", prov, i+1)
	return s
}

const scaleSoilsPerProvince = 30

func (g *scaleGen) slcID(t scaleTwp) int { return 9_000_000 + t.i }

func (g *scaleGen) slcComponents(t scaleTwp) [][5]string {
	r := g.rand("slc", uint64(t.i))
	prov := t.prov.Code()
	n := 2 + r.Intn(2)
	pcts := []int{60, 40}
	if n == 3 {
		pcts = []int{50, 30, 20}
	}
	slopes, stones, forms := []string{"A", "B", "C", "D"}, []string{"N", "S"}, []string{"L", "U", "H", "R"}
	var out [][5]string
	seen := map[int]bool{}
	for k := range n {
		i := r.Intn(scaleSoilsPerProvince)
		for seen[i] {
			i = (i + 1) % scaleSoilsPerProvince
		}
		seen[i] = true
		out = append(out, [5]string{scaleSoil(prov, i)[0], strconv.Itoa(pcts[k]), slopes[r.Intn(4)], stones[r.Intn(2)], forms[r.Intn(4)]})
	}
	return out
}

func (g *scaleGen) slc() error {
	pat := []shp.Field{nField("AREA", 12, 9), nField("PERIMETER", 12, 9), nField("POLY_ID", 10, 0), nField("ECO_ID", 6, 0)}
	err := g.shapefile(SLCPolygons, shp.Polygon, pat, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			b := t.b
			w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
			id := g.slcID(t)
			return add(b.ToPolygon(), strconv.FormatFloat(w*h, 'f', 9, 64), strconv.FormatFloat(2*(w+h), 'f', 9, 64), strconv.Itoa(id), strconv.Itoa(id/1000))
		})
	})
	if err != nil {
		return err
	}
	cmpFields := []shp.Field{nField("POLY_ID", 10, 0), nField("CMP", 2, 0), nField("PERCENT", 3, 0), cField("SLOPE", 1), cField("STONE", 1), cField("LOCSF", 3),
		cField("PROVINCE", 2), cField("SOIL_CODE", 3), cField("MODIFIER", 5), cField("PROFILE", 1), cField("SOIL_ID", 11), nField("CMP_ID", 12, 0)}
	err = g.shapefile(SLCComponents, shp.Null, cmpFields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			id := g.slcID(t)
			for i, c := range g.slcComponents(t) {
				s := c[0]
				if err := add(nil, strconv.Itoa(id), strconv.Itoa(i+1), c[1], c[2], c[3], c[4], s[:2], s[2:5], s[5:10], s[10:], s, strconv.Itoa(id*100+i+1)); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	var soils [][8]string
	for _, prov := range []string{"AB", "SK", "MB"} {
		for i := range scaleSoilsPerProvince {
			soils = append(soils, scaleSoil(prov, i))
		}
	}
	return writeSoilTables(soils, g.table)
}

// table writes a small dBASE table (the soils: 90 names, 270 layers).
func (g *scaleGen) table(name string, fields []shp.Field, rows [][]string) error {
	return g.shapefile(name, shp.Null, fields, func(add func(orb.Geometry, ...string) error) error {
		for _, r := range rows {
			if err := add(nil, r...); err != nil {
				return err
			}
		}
		return nil
	})
}

var scaleSLCRatings = []string{"3A", "2A 7:3 4N", "2W", "2W 6:4 3D", "3H", "2H", "4M", "3M(2W)", "5W"}

func (g *scaleGen) lsrs() error {
	var pool []string
	for _, twp := range scaleFarms[survey.AB] {
		pool = append(pool, demoAGRASID[twp]...)
	}
	fields := []shp.Field{cField("PARCEL_ID", 12), nField("M", 1, 0), nField("RGE", 2, 0), nField("TWP", 3, 0), nField("SEC", 2, 0), cField("QS", 2), cField("Dom_LSRS", 16)}
	n := 0
	err := g.shapefile(AGRASIDLSRS, shp.Polygon, fields, func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			if t.prov != survey.AB {
				return nil
			}
			return t.quarters(func(blk survey.Block) error {
				loc := blk.Location
				if blk.Province != survey.AB {
					return nil
				}
				r := g.rand("lsrs", scaleKey(loc))
				x := r.Float()
				if x < 0.03 {
					return nil // not in AGRASID
				}
				rating := pool[r.Intn(len(pool))]
				if x < 0.04 {
					rating = "" // not rated
				}
				n++
				return add(dls.Bound(loc).ToPolygon(), fmt.Sprintf("AB%010d", 9000000+n), strconv.Itoa(loc.Meridian.Number()),
					strconv.Itoa(int(loc.Range)), strconv.Itoa(int(loc.Township)), strconv.Itoa(int(loc.Section)), loc.Aliquot.String(), rating)
			})
		})
	})
	if err != nil {
		return err
	}
	var rows int64
	err = g.stream(SLCLSRS, func(w *bufio.Writer) error {
		w.WriteString("POLY_ID,PROVINCE,CROP,RATING\n")
		return g.each(func(t scaleTwp) error {
			if t.prov == survey.AB {
				return nil
			}
			r := g.rand("slc lsrs", uint64(t.i))
			if r.Float() < 0.05 {
				return nil // no rating
			}
			rows++
			_, err := fmt.Fprintf(w, "%d,%s,SSSG,%s\n", g.slcID(t), t.prov.Code(), scaleSLCRatings[r.Intn(len(scaleSLCRatings))])
			return err
		})
	})
	if err != nil {
		return err
	}
	return g.file(SLCLSRS, rows)
}

// stream writes name through a buffer.
func (g *scaleGen) stream(name string, fn func(*bufio.Writer) error) error {
	f, err := os.Create(filepath.Join(g.d.dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fn(bw); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func (g *scaleGen) cli() error {
	return g.shapefile(CLI, shp.Polygon, cliFields(), func(add func(orb.Geometry, ...string) error) error {
		return g.each(func(t scaleTwp) error {
			r := g.rand("cli", uint64(t.i))
			if r.Float() < 0.05 {
				return nil // not in the inventory
			}
			for _, half := range [2][2]int{{1, 18}, {19, 36}} {
				c := demoCLI[r.Intn(len(demoCLI))]
				vals := make([]string, 20)
				for i := range 3 {
					vals[i], vals[6+i], vals[12+2*i], vals[13+2*i] = c.attrs[4*i], c.attrs[4*i+1], c.attrs[4*i+2], c.attrs[4*i+3]
				}
				if err := add(t.sections(half[0], half[1]).ToPolygon(), vals...); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
