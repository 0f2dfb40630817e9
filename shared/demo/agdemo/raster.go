package agdemo

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/paulmach/orb"

	"meridian/shared/ag/agingest"
	demodata "meridian/shared/demo"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
	"meridian/shared/report"
	"meridian/shared/survey/dls"
)

// The crop inventory and land use rasters. AAFC ships one ACI GeoTIFF per
// province and year and one Land Use GeoTIFF per UTM zone and vintage;
// the demo ships clips of them around its townships (as `gdal_translate
// -projwin` would cut), named as the published file with a
// "_demo-<township>" suffix, so that a few hundred kilobytes stand for
// gigabytes. Pixels are 30 m on a grid aligned to multiples of 30 m, so
// clips of one file line up; every pixel whose centre is in a demo quarter
// (by the grid model's polygon) holds a class, the others nodata (0).
// Each quarter's classes are laid out as strips, the minor classes first
// (a slough, a yard), in the shares demoShares draws.

// demoFarm says how a township's quarters are farmed.
type demoFarm struct {
	cycles  [][]int // crop rotations (ACI codes), one chosen per quarter
	pasture float64 // share of quarters in pasture and forage
	forest  float64 // share of quarters mostly forest
	minors  []int   // classes that share a quarter with its main class
}

var demoFarms = map[string]demoFarm{
	"24-1-W5":  {[][]int{{153, 133, 146}, {153, 133, 136, 133}}, 0.35, 0.05, []int{110, 80, 34}},
	"25-1-W5":  {[][]int{{153, 133, 146}, {133, 122, 122, 153}}, 0.30, 0.08, []int{110, 80, 20}},
	"50-26-W4": {[][]int{{153, 146, 133, 162}, {153, 146}}, 0.10, 0.02, []int{80, 34, 220}},
	"48-7-W5":  {[][]int{{153, 133, 136}}, 0.45, 0.30, []int{230, 80, 110}},
	"10-15-W4": {[][]int{{146, 177, 153, 178}, {147, 167, 146}, {146, 153}}, 0.12, 0, []int{110, 34, 20}},
	"10-14-W2": {[][]int{{146, 153, 174, 154}, {146, 174}}, 0.08, 0, []int{110, 80}},
	"38-5-W3":  {[][]int{{146, 153, 162, 131}, {146, 174, 153}}, 0.10, 0, []int{110, 80, 34}},
	"50-20-W3": {[][]int{{153, 146, 133, 136}}, 0.25, 0.10, []int{220, 80, 110}},
	"5-6-W1":   {[][]int{{158, 147, 146, 153}, {158, 146, 157}}, 0.03, 0, []int{34, 80}},
	"10-9-W1":  {[][]int{{146, 153, 158, 136}, {146, 153}}, 0.06, 0.02, []int{80, 34, 220}},
	"14-26-W1": {[][]int{{153, 146, 136, 133}, {153, 146}}, 0.20, 0.08, []int{220, 80, 110}},
}

// demoQuarterKind is how a quarter is used: 0 cropland, 1 pasture, 2 forest.
func demoQuarterKind(twp string, loc lld.Location) (kind int, cycle []int, offset int) {
	f := demoFarms[twp]
	r := newDemoRand("use " + loc.String())
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

// demoShares splits a quarter's pixels between a main class and up to two
// minor ones.
func demoShares(r *demodata.Rand, main int, minors []int) []agingest.ClassShare {
	total := 690 + r.Intn(60)
	var cs []agingest.ClassShare
	left := total
	var picked []int
	for _, m := range minors {
		if m != main && len(picked) < 2 && r.Float() < 0.45 {
			picked = append(picked, m)
		}
	}
	mainPx := total
	if len(picked) > 0 {
		mainPx = int(float64(total) * (0.78 + 0.2*r.Float()))
	}
	cs = append(cs, agingest.ClassShare{Code: main, Pixels: mainPx})
	left -= mainPx
	for i, m := range picked {
		px := left
		if i < len(picked)-1 {
			px = max(1, left/2)
		}
		if px < 1 {
			break
		}
		cs = append(cs, agingest.ClassShare{Code: m, Pixels: px})
		left -= px
	}
	for i := range cs {
		cs[i].Pct = report.Round(100*float64(cs[i].Pixels)/float64(total), 2)
	}
	return cs
}

// demoClusters are the demo townships grouped into clips: adjacent
// townships share one, so that no pixel is in two clips.
var demoClusters = []struct {
	prov string // the ACI file's province
	zone int    // the Land Use file's UTM zone
	epsg int    // the ACI clip's coordinate system (the real one is unverified)
	twps []string
}{
	{"ab", 11, 26912, []string{"24-1-W5", "25-1-W5"}},
	{"ab", 12, 26912, []string{"50-26-W4"}},
	{"ab", 11, 26912, []string{"48-7-W5"}},
	{"ab", 12, 26912, []string{"10-15-W4"}},
	{"sk", 13, 26913, []string{"10-14-W2"}},
	{"sk", 13, 26913, []string{"38-5-W3"}},
	{"sk", 12, 26913, []string{"50-20-W3"}},
	{"mb", 14, 26914, []string{"5-6-W1"}},
	{"mb", 14, 26914, []string{"10-9-W1"}},
	{"mb", 14, 26914, []string{"14-26-W1"}},
}

// demoClass is a quarter's classes in one year, in pixel shares.
type demoClass func(loc lld.Location, twp string) []agingest.ClassShare

// raster writes a clip over townships twps in EPSG code epsg, 8-bit,
// tiled 256 × 256, nodata 0, each quarter's pixels split by classes.
func (d *demo) raster(name string, epsg, compression int, twps []string, classes demoClass) error {
	p, err := proj.FromEPSG(epsg)
	if err != nil {
		return err
	}
	type quarter struct {
		loc   lld.Location
		twp   string
		polys orb.MultiPolygon
	}
	var qs []quarter
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, twp := range twps {
		for _, loc := range demoQuarters(twp) {
			blk, ok := dls.Resolve(loc)
			if !ok {
				return fmt.Errorf("%s: not in the grid model", loc)
			}
			var polys orb.MultiPolygon
			switch g := blk.Geometry.(type) {
			case orb.Polygon:
				polys = orb.MultiPolygon{g}
			case orb.MultiPolygon:
				polys = g
			}
			for _, poly := range polys {
				for _, ll := range poly[0] {
					x, y, err := p.FromLngLat(ll)
					if err != nil {
						return err
					}
					minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
				}
			}
			qs = append(qs, quarter{loc, twp, polys})
		}
	}
	// A 300 m margin, on the 30 m grid.
	x0, y0 := math.Floor(minX/30)*30-300, math.Ceil(maxY/30)*30+300
	w, h := int(math.Ceil((maxX+300-x0)/30)), int(math.Ceil((y0-(minY-300))/30))
	geo := geotiff.Geo{Transform: [6]float64{x0, 30, 0, y0, 0, -30}}
	px := make([]byte, w*h) // a clip is a few hundred pixels each way
	for _, q := range qs {
		shares := classes(q.loc, q.twp)
		if len(shares) == 0 {
			continue
		}
		z, err := agingest.NewPixelZone(q.loc, q.polys, p, geo, w, h)
		if err != nil || z == nil {
			return fmt.Errorf("%s: %v", q.loc, err)
		}
		top, bot := z.Rows()
		n := 0
		for y := top; y <= bot; y++ {
			z.Spans(y, w, func(a, b int) { n += b - a })
		}
		// Quotas by largest remainder, each class at least one pixel;
		// minor classes first, from the quarter's north edge.
		order := append(slices.Clone(shares[1:]), shares[0])
		quota := make([]int, len(order))
		left := n
		for i, c := range order[:len(order)-1] {
			quota[i] = max(1, int(math.Round(float64(n)*c.Pct/100)))
			left -= quota[i]
		}
		quota[len(order)-1] = left
		k := 0
		for y := top; y <= bot; y++ {
			z.Spans(y, w, func(a, b int) {
				for x := a; x < b; x++ {
					for k < len(quota)-1 && quota[k] == 0 {
						k++
					}
					px[y*w+x] = byte(order[k].Code)
					quota[k]--
				}
			})
		}
	}
	nodata := 0
	o := geotiff.WriteOptions{Width: w, Height: h, Tiled: true, BlockWidth: 256, BlockHeight: 256,
		Compression: compression, Predictor: geotiff.PredictorHorizontal, EPSG: epsg,
		Origin: [2]float64{x0, y0}, PixelSize: [2]float64{30, 30}, NoData: &nodata}
	var b bytes.Buffer
	err = geotiff.Write(&b, o, func(bx, by int, buf []uint16) error {
		for i := range buf {
			if x, y := bx+i%o.BlockWidth, by+i/o.BlockWidth; x < w && y < h {
				buf[i] = uint16(px[y*w+x])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return d.write(name, b.Bytes())
}
