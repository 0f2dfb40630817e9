package agingest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/paulmach/orb"

	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
)

// The sweep: rasters of one grid read band by band, every quarter's
// zone opened when the sweep reaches it and emitted when it is done.

// errSwept stops the goroutines of a sweep that ended early.
var errSwept = errors.New("ag: raster sweep stopped")

// sweepRasters summarises rasters of the same grid (sameGrid: the years
// of one province's crop inventory, one UTM zone's land use vintages)
// together, one band of each at a time: a quarter's polygon is found and
// projected once for all of them, and fn receives, when the band holding
// its last row is done, the quarter's summaries of every raster with
// counted pixels (in the order of files) and its lng/lat bound. Memory:
// one band of each raster, the quarters open across the band and the
// projected points kept (proj.MemoPoints, 2 MiB).
func sweepRasters(files []*rasterFile, quarters Quarters, fn func([]QuarterYear, orb.Bound) error) error {
	if quarters == nil {
		return fmt.Errorf("ag: %s: no quarter polygons to summarise the raster over", files[0].name)
	}
	lead := files[0]
	// A quarter's corners are its neighbours' too: each is projected
	// about once (runZones).
	im, p := lead.im, proj.Memo(lead.p, proj.MemoPoints)
	for _, rf := range files[1:] {
		if !sameGrid(im, rf.im) {
			return fmt.Errorf("ag: %s and %s are not on the same grid", lead.name, rf.name)
		}
	}
	// The other rasters' bands come from goroutines, in step with the
	// lead's: each hands over a band and waits until it is done.
	type band struct {
		r   *geotiff.Rows
		err error
	}
	others := files[1:]
	bands := make([]chan band, len(others))
	acks := make([]chan struct{}, len(others))
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for i, rf := range others {
		bands[i], acks[i] = make(chan band), make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := rf.im.Rows(func(r *geotiff.Rows) error {
				select {
				case bands[i] <- band{r: r}:
				case <-quit:
					return errSwept
				}
				select {
				case <-acks[i]:
					return nil
				case <-quit:
					return errSwept
				}
			})
			select {
			case bands[i] <- band{err: err}:
			case <-quit:
			}
		}()
	}
	defer func() {
		close(quit)
		wg.Wait()
	}()

	var active []*zone
	open := map[uint64]bool{} // the quarters of active
	done := newQuarterBits()  // the quarters handed over, or never to be
	const tileCols = 256
	data := make([]bool, (im.Width+tileCols-1)/tileCols)
	rows := make([]*geotiff.Rows, len(files))
	err := im.Rows(func(r0 *geotiff.Rows) error {
		rows[0] = r0
		for i := range others {
			b := <-bands[i]
			if b.r == nil {
				if b.err == nil {
					b.err = fmt.Errorf("ended before %s", lead.name)
				}
				return fmt.Errorf("%s: %w", others[i].name, b.err)
			}
			rows[i+1] = b.r
		}
		if err := sweepBand(files, rows, p, quarters, data, tileCols, open, done, &active, fn); err != nil {
			return err
		}
		for i := range others {
			acks[i] <- struct{}{}
		}
		return nil
	})
	if err != nil {
		var bad *ingest.Error
		if errors.As(err, &bad) {
			return err
		}
		return fmt.Errorf("%s: %w", lead.name, err)
	}
	for _, z := range active {
		if err := z.emit(files, fn); err != nil {
			return err
		}
	}
	return nil
}

// sweepBand checks one band of each raster, opens the quarters across it,
// counts their pixels and hands over those whose last row it holds.
func sweepBand(files []*rasterFile, rows []*geotiff.Rows, p proj.Projection, quarters Quarters, data []bool, tileCols int,
	open map[uint64]bool, done quarterBits, active *[]*zone, fn func([]QuarterYear, orb.Bound) error) error {
	im := files[0].im
	r0 := rows[0]
	end := r0.Y + r0.Height
	clear(data)
	for i, rf := range files {
		r := rows[i]
		for y := r.Y; y < end; y++ { // every pixel is checked, inside a quarter or not
			row := r.Row(y)
			for c := range data {
				if data[c] {
					continue
				}
				for x := c * tileCols; x < min(im.Width, (c+1)*tileCols); x++ {
					v := 0
					if row != nil {
						v = int(row[x])
					} else {
						v = r.At(x, y)
					}
					if v < 0 || v >= 256 || !rf.skip[v] {
						data[c] = true
						break
					}
				}
			}
			if row != nil && !slices.ContainsFunc(row, func(v byte) bool { return !rf.skip[v] && !rf.valid[v] }) {
				continue
			}
			for x := range im.Width {
				v := r.At(x, y)
				if v >= 0 && v < 256 && (rf.skip[v] || rf.valid[v]) {
					continue
				}
				return ingest.BadValue(rf.name, y+1, fmt.Sprintf("pixel %d (row %d)", x, y), strconv.Itoa(v), rf.accepted)
			}
		}
	}
	zones, err := bandZones(im, p, quarters, r0.Y, end, data, tileCols, open, done)
	if err != nil {
		return err
	}
	for _, z := range zones {
		z.counts = make([][]ClassShare, len(files))
		open[qkey(z.loc)] = true
	}
	*active = append(*active, zones...)
	kept := (*active)[:0]
	for _, z := range *active {
		for y := max(z.top, r0.Y); y <= min(z.bot, end-1); y++ {
			z.scan(files, rows, y, im.Width)
		}
		if z.bot >= end {
			kept = append(kept, z)
			continue
		}
		delete(open, qkey(z.loc))
		done.add(z.loc)
		if err := z.emit(files, fn); err != nil {
			return err
		}
	}
	clear((*active)[len(kept):])
	*active = kept
	return nil
}

// bandZones returns the quarters to open in rows [y0, y1) of the image,
// in pixel coordinates: those met over the band that have rows from y0
// on, neither open already (in open) nor done with (done: handed over,
// without a pixel, or wholly in bands already read), so that a quarter is
// not projected again in every later band whose outline it meets. Only
// the runs of columns whose tiles (tileCols wide) hold data in the band,
// data[c], are searched: the
// quarters wholly over nodata are neither projected nor held (the grid
// model's quarters of a province's rectangle are millions; a raster
// covers only the farmed ones). A quarter met first in a later band than
// its first row lost nothing: its rows in the bands before were nodata.
// Each quarter is thus opened once, and only the quarters across the band
// being read are held, not the raster's.
func bandZones(im *geotiff.Image, p proj.Projection, quarters Quarters, y0, y1 int, data []bool, tileCols int, open map[uint64]bool, done quarterBits) ([]*zone, error) {
	var zones []*zone
	met := map[uint64]bool{} // a quarter across two runs of columns is met twice
	for c0 := 0; c0 < len(data); c0++ {
		if !data[c0] {
			continue
		}
		c1 := c0 + 1
		for c1 < len(data) && data[c1] {
			c1++
		}
		x0, x1 := c0*tileCols, min(im.Width, c1*tileCols)
		var err error
		if zones, err = runZones(im, p, quarters, x0, x1, y0, y1, open, met, done, zones); err != nil {
			return nil, err
		}
		c0 = c1
	}
	return zones, nil
}

// runZones adds to zones the quarters across columns [x0, x1) and rows
// [y0, y1) neither open nor met.
func runZones(im *geotiff.Image, p proj.Projection, quarters Quarters, x0, x1, y0, y1 int, open, met map[uint64]bool, done quarterBits, zones []*zone) ([]*zone, error) {
	// The outline in lng/lat, from points along its edges (a projected
	// straight edge bends in lng/lat: pad by ~100 m).
	var b orb.Bound
	first := true
	const steps = 16
	for i := 0; i <= steps; i++ {
		f := float64(i) / steps
		for _, cr := range [][2]float64{{f, 0}, {f, 1}, {0, f}, {1, f}} {
			x, y := im.Geo.Map(float64(x0)+cr[0]*float64(x1-x0), float64(y0)+cr[1]*float64(y1-y0))
			ll, err := p.ToLngLat(x, y)
			if err != nil {
				return nil, fmt.Errorf("ag: raster point %.0f, %.0f: %w", x, y, err)
			}
			if first {
				b, first = ll.Bound(), false
			} else {
				b = b.Extend(ll)
			}
		}
	}
	b = b.Pad(0.001)
	err := quarters(b, func(loc lld.Location, g orb.Geometry) error {
		k := qkey(loc)
		if open[k] || met[k] || done.has(loc) {
			return nil
		}
		var polys orb.MultiPolygon
		switch g := g.(type) {
		case orb.Polygon:
			polys = orb.MultiPolygon{g}
		case orb.MultiPolygon:
			polys = g
		default:
			return nil
		}
		z, err := newZone(loc, polys, p, im.Geo, im.Width, im.Height)
		if err != nil {
			return err
		}
		if z == nil || z.bot < y0 { // no pixel, or all in bands already read
			done.add(loc)
			return nil
		}
		if z.top >= y1 { // met again in the band of its first row: not held before
			return nil
		}
		met[k] = true
		zones = append(zones, z)
		return nil
	})
	return zones, err
}
