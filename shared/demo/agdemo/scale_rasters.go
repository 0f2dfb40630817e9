package agdemo

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	demodata "meridian/shared/demo"
	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// The province-size crop inventory and land use rasters.

// scaleFarms are the demo's farm profiles of each province: a township
// farms as one of them.
var scaleFarms = map[survey.Province][]string{
	survey.AB: {"24-1-W5", "25-1-W5", "50-26-W4", "48-7-W5", "10-15-W4"},
	survey.SK: {"10-14-W2", "38-5-W3", "50-20-W3"},
	survey.MB: {"5-6-W1", "10-9-W1", "14-26-W1"},
}

func (g *scaleGen) farm(t scaleTwp) demoFarm {
	fs := scaleFarms[t.prov]
	return demoFarms[fs[g.rand("farm", uint64(t.i)).Intn(len(fs))]]
}

// kind is how a quarter is used: 0 cropland, 1 pasture, 2 forest, with its
// rotation and the year it starts in.
func (g *scaleGen) kind(f demoFarm, l lld.Location) (kind int, cycle []int, offset int) {
	r := g.rand("use", scaleKey(l))
	x := r.Float()
	switch {
	case x < f.forest:
		return 2, nil, 0
	case x < f.forest+f.pasture:
		return 1, nil, 0
	}
	cycle = f.cycles[r.Intn(len(f.cycles))]
	return 0, cycle, r.Intn(len(cycle))
}

// pixelClass is a quarter's classes in one raster: the main class and one
// minor class holding a share (0 to 1) of its pixels (minor 0: none), and
// a key that varies the pixels.
type pixelClass struct {
	main, minor byte
	share       uint64 // of 1<<32
	key         uint64
}

func (g *scaleGen) shares(salt string, l lld.Location, main int, minors []int) pixelClass {
	r := g.rand(salt, scaleKey(l))
	pc := pixelClass{main: byte(main), key: r.Next()}
	if len(minors) > 0 && r.Float() < 0.45 {
		if m := minors[r.Intn(len(minors))]; m != main {
			pc.minor, pc.share = byte(m), uint64((0.05+0.15*r.Float())*(1<<32))
		}
	}
	return pc
}

func (pc pixelClass) at(x, y int) byte {
	if pc.minor != 0 && demodata.Mix64(pc.key^uint64(x)<<32^uint64(y))&0xffffffff < pc.share {
		return pc.minor
	}
	return pc.main
}

func (g *scaleGen) crops() error {
	epsg := map[survey.Province]int{survey.AB: 26912, survey.SK: 26913, survey.MB: 26914}
	for i, y := range demoYears {
		for _, prov := range []survey.Province{survey.AB, survey.SK, survey.MB} {
			name := fmt.Sprintf("aci_%d_%s.tif", y, strings.ToLower(prov.Code()))
			err := g.raster(name, epsg[prov], geotiff.CompressionLZW, func(t scaleTwp) bool { return t.prov == prov },
				func(t scaleTwp, f demoFarm, blk survey.Block) (pixelClass, bool) {
					if blk.Province != prov {
						return pixelClass{}, false
					}
					kind, cycle, off := g.kind(f, blk.Location)
					r := g.rand(fmt.Sprint("crop ", y), scaleKey(blk.Location))
					main := demoCropClass(kind, cycle, i+off, r)
					return g.shares(fmt.Sprint("crop shares ", y), blk.Location, main, f.minors), true
				})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// utmZone is the UTM zone of a longitude.
func utmZone(lng float64) int { return int(math.Floor((lng+180)/6)) + 1 }

func (g *scaleGen) landUse() error {
	for _, y := range []int{2015, 2020} {
		for zone := 11; zone <= 15; zone++ {
			west, east := float64(zone-1)*6-180, float64(zone)*6-180
			name := fmt.Sprintf("IMG_AAFC_LANDUSE_Z%02d_%d.tif", zone, y)
			err := g.raster(name, 3978, geotiff.CompressionDeflate, func(t scaleTwp) bool { return t.b.Max[0] >= west && t.b.Min[0] < east },
				func(t scaleTwp, f demoFarm, blk survey.Block) (pixelClass, bool) {
					if utmZone(blk.Centroid[0]) != zone {
						return pixelClass{}, false
					}
					kind, _, _ := g.kind(f, blk.Location)
					main, minors := demoLandUseClasses(kind)
					return g.shares(fmt.Sprint("landuse ", y), blk.Location, main, minors), true
				})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// raster writes a GeoTIFF in EPSG code epsg over the selected townships
// that in keeps, ScalePixelM pixels on a grid of multiples of it, tiled
// 256 × 256, 8-bit, nodata 0: every pixel whose centre is in a quarter
// class accepts holds the class's pixel. It is drawn one band of 256 rows
// at a time, from the townships across the band; a raster without a
// township is not written.
func (g *scaleGen) raster(name string, epsg, compression int, in func(scaleTwp) bool,
	class func(scaleTwp, demoFarm, survey.Block) (pixelClass, bool)) error {
	p, err := proj.FromEPSG(epsg)
	if err != nil {
		return err
	}
	// A quarter's corners are its neighbours' too, and a township's
	// quarters are drawn again in each band of rows it crosses.
	p = proj.Memo(p, proj.MemoPoints)
	type span struct {
		t            scaleTwp
		minY, maxY   float64 // projected
		minX, maxX   float64
		rowTop, rowB int
	}
	var spans []span
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, t := range g.twps {
		if !in(t) {
			continue
		}
		s := span{t: t, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
		for i := 0; i <= 4; i++ {
			for j := 0; j <= 4; j++ {
				ll := orb.Point{t.b.Min[0] + float64(i)/4*(t.b.Max[0]-t.b.Min[0]), t.b.Min[1] + float64(j)/4*(t.b.Max[1]-t.b.Min[1])}
				x, y, err := p.FromLngLat(ll)
				if err != nil {
					return err
				}
				s.minX, s.maxX, s.minY, s.maxY = min(s.minX, x), max(s.maxX, x), min(s.minY, y), max(s.maxY, y)
			}
		}
		minX, maxX, minY, maxY = min(minX, s.minX), max(maxX, s.maxX), min(minY, s.minY), max(maxY, s.maxY)
		spans = append(spans, s)
	}
	if len(spans) == 0 {
		return nil
	}
	const px, margin = ScalePixelM, 1000
	x0, y0 := math.Floor((minX-margin)/px)*px, math.Ceil((maxY+margin)/px)*px
	w, h := int(math.Ceil((maxX+margin-x0)/px)), int(math.Ceil((y0-(minY-margin))/px))
	geo := geotiff.Geo{Transform: [6]float64{x0, px, 0, y0, 0, -px}}
	for i := range spans {
		spans[i].rowTop = int(math.Floor((y0 - spans[i].maxY) / px))
		spans[i].rowB = int(math.Ceil((y0 - spans[i].minY) / px))
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.rowTop - b.rowTop })

	const bh = 256
	band := make([]byte, w*bh)
	bandY := -1
	next := 0        // the first span not yet opened
	var open []span  // spans across the band
	var pixels int64 // pixels holding a class
	draw := func(by int) error {
		clear(band)
		for next < len(spans) && spans[next].rowTop < by+bh {
			open = append(open, spans[next])
			next++
		}
		kept := open[:0]
		for _, s := range open {
			if s.rowB >= by {
				kept = append(kept, s)
			}
		}
		open = kept
		for _, s := range open {
			if err := g.ctx.Err(); err != nil {
				return err
			}
			f := g.farm(s.t)
			err := s.t.quarters(func(blk survey.Block) error {
				pc, ok := class(s.t, f, blk)
				if !ok {
					return nil
				}
				z, err := agingest.NewPixelZone(blk.Location, ingest.MultiPolygon(blk.Geometry), p, geo, w, h)
				if err != nil || z == nil {
					return err
				}
				top, bot := z.Rows()
				for y := max(top, by); y <= min(bot, by+bh-1); y++ {
					row := band[(y-by)*w:]
					z.Spans(y, w, func(a, b int) {
						for x := a; x < b; x++ {
							row[x] = pc.at(x, y)
						}
						pixels += int64(b - a)
					})
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	nodata := 0
	o := geotiff.WriteOptions{Width: w, Height: h, Tiled: true, BlockWidth: 256, BlockHeight: bh,
		Compression: compression, Predictor: geotiff.PredictorHorizontal, EPSG: epsg,
		Origin: [2]float64{x0, y0}, PixelSize: [2]float64{px, px}, NoData: &nodata}
	f, err := os.Create(filepath.Join(g.d.dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 64<<10)
	err = geotiff.Write(bw, o, func(bx, by int, buf []uint16) error {
		if by != bandY {
			if err := draw(by); err != nil {
				return err
			}
			bandY = by
		}
		for i := range buf {
			x, y := bx+i%o.BlockWidth, i/o.BlockWidth
			if x < w && by+y < h {
				buf[i] = uint16(band[y*w+x])
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return g.file(name, pixels)
}
