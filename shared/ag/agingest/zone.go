package agingest

import (
	"fmt"
	"math"
	"slices"

	"github.com/paulmach/orb"

	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
)

// A quarter's pixels in a raster: the rows and column spans its polygon
// covers, and the class counts a sweep adds up in them.

// zone is one quarter's polygon in pixel coordinates with its counts.
type zone struct {
	loc      lld.Location
	bound    orb.Bound      // the quarter's polygons, lng/lat
	rings    [][]orb.Point  // x = column, y = row, fractional
	top, bot int            // first and last pixel rows whose centres may be inside
	counts   [][]ClassShare // a slice per raster of the group: Pixels only, unsorted
	xs       []float64
	runs     [][2]int
}

// newZone puts a quarter's polygons in pixel coordinates; nil when no
// pixel centre of a width × height image can be inside.
func newZone(loc lld.Location, polys orb.MultiPolygon, p proj.Projection, geo geotiff.Geo, width, height int) (*zone, error) {
	z := &zone{loc: loc, bound: polys.Bound()}
	minY, maxY := math.Inf(1), math.Inf(-1)
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, poly := range polys {
		for _, ring := range poly {
			pr := make([]orb.Point, len(ring))
			for i, ll := range ring {
				x, y, err := p.FromLngLat(ll)
				if err != nil {
					return nil, fmt.Errorf("ag: quarter %s: %w", loc, err)
				}
				c, r, ok := geo.Pixel(x, y)
				if !ok {
					return nil, fmt.Errorf("ag: the raster's geotransform cannot be inverted")
				}
				pr[i] = orb.Point{c, r}
				minX, maxX = min(minX, c), max(maxX, c)
				minY, maxY = min(minY, r), max(maxY, r)
			}
			z.rings = append(z.rings, pr)
		}
	}
	// Rows whose centre y+0.5 lies in [minY, maxY].
	z.top = max(0, int(math.Ceil(minY-0.5)))
	z.bot = min(height-1, int(math.Floor(maxY-0.5)))
	if z.top > z.bot || maxX < 0 || minX > float64(width) {
		return nil, nil
	}
	return z, nil
}

// PixelZone is a quarter section's polygons in a raster's pixel grid: the
// pixels whose centres are inside, exactly those the raster readers count
// for the quarter. The demo generators (demo/agdemo) fill these pixels
// with the quarter's classes so that reading the raster back gives the
// shares they chose. Spans reuses scratch memory: a PixelZone is for one
// goroutine.
type PixelZone struct{ z *zone }

// NewPixelZone puts a quarter's polygons (lng/lat) in the pixel grid of a
// width × height raster georeferenced by geo in projection p; nil when no
// pixel centre of the raster can be inside. loc names the quarter in
// errors.
func NewPixelZone(loc lld.Location, polys orb.MultiPolygon, p proj.Projection, geo geotiff.Geo, width, height int) (*PixelZone, error) {
	z, err := newZone(loc, polys, p, geo, width, height)
	if err != nil || z == nil {
		return nil, err
	}
	return &PixelZone{z}, nil
}

// Rows returns the first and last rows whose pixel centres may be inside.
func (z *PixelZone) Rows() (top, bot int) { return z.z.top, z.z.bot }

// Spans calls fn with each run [x0, x1) of row y's pixels whose centres
// are inside (even-odd rule; a centre on a left edge is inside, on a right
// edge outside, so that quarters sharing an edge never share a pixel);
// width is the raster's.
func (z *PixelZone) Spans(y, width int, fn func(x0, x1 int)) { z.z.spans(y, width, fn) }

// spans calls fn with each run [x0, x1) of row y's pixels whose centres
// are inside the zone (even-odd rule; a centre on a left edge is inside,
// on a right edge outside, so that quarters sharing an edge never share a
// pixel).
func (z *zone) spans(y, width int, fn func(x0, x1 int)) {
	yc := float64(y) + 0.5
	z.xs = z.xs[:0]
	for _, ring := range z.rings {
		for i := 0; i+1 < len(ring); i++ {
			a, b := ring[i], ring[i+1]
			if (a[1] <= yc) != (b[1] <= yc) {
				z.xs = append(z.xs, a[0]+(yc-a[1])*(b[0]-a[0])/(b[1]-a[1]))
			}
		}
	}
	slices.Sort(z.xs)
	for i := 0; i+1 < len(z.xs); i += 2 {
		// Centres x+0.5 in [xs[i], xs[i+1]).
		x0 := max(0, int(math.Ceil(z.xs[i]-0.5)))
		x1 := min(width, int(math.Ceil(z.xs[i+1]-0.5)))
		if x0 < x1 {
			fn(x0, x1)
		}
	}
}

// scan counts the pixels of row y inside the zone in each raster, nodata
// left out.
func (z *zone) scan(files []*rasterFile, rows []*geotiff.Rows, y, width int) {
	z.runs = z.runs[:0]
	z.spans(y, width, func(x0, x1 int) { z.runs = append(z.runs, [2]int{x0, x1}) })
	for i, rf := range files {
		r := rows[i]
		for _, run := range z.runs {
			for x := run[0]; x < run[1]; x++ {
				if v := r.At(x, y); v >= 256 || !rf.skip[v] {
					z.counts[i] = addPixel(z.counts[i], v)
				}
			}
		}
	}
}

func addPixel(counts []ClassShare, code int) []ClassShare {
	for i := range counts {
		if counts[i].Code == code {
			counts[i].Pixels++
			return counts
		}
	}
	return append(counts, ClassShare{Code: code, Pixels: 1})
}

// emit hands over a finished zone with its shares in each raster that has
// pixels in it; nothing when none has.
func (z *zone) emit(files []*rasterFile, fn func([]QuarterYear, orb.Bound) error) error {
	var ys []QuarterYear
	for i, counts := range z.counts {
		if len(counts) == 0 {
			continue
		}
		total := 0
		for _, c := range counts {
			total += c.Pixels
		}
		slices.SortFunc(counts, func(a, b ClassShare) int { return a.Code - b.Code })
		for j := range counts {
			counts[j].Pct = round(100*float64(counts[j].Pixels)/float64(total), 2)
		}
		files[i].info.Quarters++
		ys = append(ys, QuarterYear{Location: z.loc, Year: files[i].info.Year, Classes: counts})
	}
	z.counts, z.rings = nil, nil
	if len(ys) == 0 {
		return nil
	}
	return fn(ys, z.bound)
}
