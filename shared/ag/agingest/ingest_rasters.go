package agingest

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/paulmach/orb"

	"meridian/shared/ag"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// The ingest steps that read the crop inventory and land use rasters (or
// their per-quarter summaries) into each quarter's cropping and land use.

func (in *ingester) readCrops() error {
	byQuarter := map[uint64][]QuarterYear{} // the per-quarter summary file's
	err := read(in, in.f.CropSummaries, ReadCropSummaries, func(y QuarterYear) error {
		in.sum.Read["crop_quarter_years"]++
		k := qkey(y.Location)
		byQuarter[k] = append(byQuarter[k], y)
		return nil
	})
	if err != nil {
		return err
	}
	write := func(l lld.Location, years []QuarterYear) error {
		q := in.q(l)
		if q == nil {
			return nil
		}
		c, err := Summarize(years)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", filepath.Base(in.f.CropSummaries), l, err)
		}
		q.sections[ag.SKCropping] = ag.Cropping{
			Dominant:       ag.Crop{Code: fmt.Sprint(c.Dominant.Code), Name: c.Dominant.Label, Category: c.Dominant.Category.String()},
			Rotation:       c.Rotation,
			DiversityIndex: c.DiversityIndex,
			YearsCovered:   c.YearsCovered(),
		}
		return in.flush(q)
	}
	// A quarter's years of the rasters (merged across files) are written
	// as soon as they are known, with the summary file's if it has any.
	err = in.readRasterGroups(in.f.CropRasters, openCropRaster, "crop_quarter_years", func(l lld.Location, years []QuarterYear) error {
		k := qkey(l)
		if csv, ok := byQuarter[k]; ok {
			delete(byQuarter, k)
			l = csv[0].Location
			for _, y := range years {
				csv = mergeYear(csv, y)
			}
			years = csv
		}
		return write(l, years)
	})
	if err != nil {
		return err
	}
	for k, years := range byQuarter {
		delete(byQuarter, k)
		if err := write(years[0].Location, years); err != nil {
			return err
		}
	}
	in.source("cropping", "AAFC Annual Crop Inventory, per-quarter majority", cmp.Or(lastOf(in.f.CropRasters), in.f.CropSummaries))
	return nil
}

func (in *ingester) readLandUse() error {
	latest := map[uint64]QuarterYear{} // the per-quarter summary file's
	err := read(in, in.f.LandUse, ReadLandUse, func(y QuarterYear) error {
		in.sum.Read["land_use_quarter_years"]++
		if k := qkey(y.Location); y.Year > latest[k].Year {
			latest[k] = y
		}
		return nil
	})
	if err != nil {
		return err
	}
	write := func(y QuarterYear) error {
		q := in.q(y.Location)
		if q == nil {
			return nil
		}
		lu, err := DescribeLandUse(y)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", filepath.Base(in.f.LandUse), y.Location, err)
		}
		cls := func(c LandUseClass) ag.LandUseClass {
			return ag.LandUseClass{Code: fmt.Sprint(c.Code), Label: c.Label, IPCC: c.IPCC}
		}
		out := ag.LandUse{Dominant: cls(lu.Dominant), Year: lu.Year}
		for _, b := range lu.Breakdown {
			out.Breakdown = append(out.Breakdown, ag.LandUseShare{LandUseClass: cls(b.LandUseClass), Pct: b.Pct})
		}
		q.sections[ag.SKLandUse] = out
		return in.flush(q)
	}
	// A quarter's latest vintage (merged across zone files), or the
	// summary file's if later.
	err = in.readRasterGroups(in.f.LandUseRasters, openLandUseRaster, "land_use_quarter_years", func(l lld.Location, years []QuarterYear) error {
		k := qkey(l)
		last, ok := latest[k]
		delete(latest, k)
		for _, y := range years {
			if y.Year > last.Year {
				last = y
			}
		}
		if !ok && len(years) == 0 {
			return nil
		}
		return write(last)
	})
	if err != nil {
		return err
	}
	for k, y := range latest {
		delete(latest, k)
		if err := write(y); err != nil {
			return err
		}
	}
	in.source("land_use", "AAFC Land Use, per-quarter shares", cmp.Or(lastOf(in.f.LandUseRasters), in.f.LandUse))
	return nil
}

// readRasterGroups summarises the rasters of paths per quarter over the
// grid service's quarter polygons, printing each file's layout banner and
// form, and calls fn once with each quarter's years (classes merged
// across files, in code order with their shares; years in the order
// first met). The rasters on the same grid (a province's crop inventory
// years, a UTM zone's land use vintages) are swept together, so that a
// quarter's years are complete when the sweep leaves it and go to fn at
// once; only the quarters whose polygon meets another grid's raster too
// (a strip along the edges where two rasters overlap) are held, as a
// compact tally, until every raster is read.
func (in *ingester) readRasterGroups(paths []string, open func(string, RasterOptions) (*rasterFile, error),
	counter string, fn func(lld.Location, []QuarterYear) error) error {
	o := RasterOptions{Quarters: in.quarterPolygons}
	var files []*rasterFile
	defer func() {
		for _, rf := range files {
			rf.f.Close()
		}
	}()
	var groups [][]*rasterFile
	for _, p := range paths {
		rf, err := open(p, o)
		if err != nil {
			return err
		}
		files = append(files, rf)
		i := slices.IndexFunc(groups, func(g []*rasterFile) bool { return sameGrid(g[0].im, rf.im) })
		if i < 0 {
			groups = append(groups, nil)
			i = len(groups) - 1
		}
		groups[i] = append(groups[i], rf)
	}
	extents := make([]gridExtent, len(groups))
	for i, g := range groups {
		b, err := rasterExtent(g[0].im, g[0].p)
		if err != nil {
			return fmt.Errorf("%s: %w", g[0].name, err)
		}
		extents[i] = gridExtent{b, g[0].im, g[0].p}
	}
	held := map[uint64][]classPx{} // quarters met by more than one grid
	for gi, g := range groups {
		err := sweepRasters(g, in.quarterPolygons, func(ys []QuarterYear, b orb.Bound) error {
			if err := in.ctx.Err(); err != nil {
				return err
			}
			in.sum.Read[counter] += len(ys)
			k := qkey(ys[0].Location)
			hold := others(extents, gi, b)
			var t []classPx
			if hold {
				t = held[k]
			}
			for _, y := range ys {
				t = addClasses(t, y)
			}
			if hold {
				held[k] = t
				return nil
			}
			l := qloc(k)
			return fn(l, tallyYears(l, t))
		})
		if err != nil {
			return err
		}
		for _, rf := range g {
			in.sum.Rows[rf.path] += rf.im.Height // the sweep read every row of pixels
			info := rf.info
			in.progress("%s: %s", rf.name, info.Layout.Banner())
			if info.CRS != info.Layout {
				in.progress("%s: %s", rf.name, info.CRS.Banner())
			}
			in.progress("%s: %s; %d quarters, year %d", rf.name, info.Form, info.Quarters, info.Year)
		}
	}
	if len(groups) > 1 {
		in.progress("%d rasters on %d grids; %d quarters met by more than one grid, merged at the end", len(files), len(groups), len(held))
	}
	for k, t := range held {
		delete(held, k)
		l := qloc(k)
		if err := fn(l, tallyYears(l, t)); err != nil {
			return err
		}
	}
	return nil
}

// gridExtent is where a raster grid lies: its lng/lat bound, and its
// image and projection to place a quarter on its pixels.
type gridExtent struct {
	bound orb.Bound
	im    *geotiff.Image
	p     proj.Projection
}

// others reports whether a quarter of lng/lat bound b may have pixels on
// a grid other than the i-th: b meets the other grid's lng/lat bound and
// b's outline, put on its pixels, meets its image (with a pixel's
// margin). An outline that cannot be placed counts as meeting it.
func others(extents []gridExtent, i int, b orb.Bound) bool {
	for j, e := range extents {
		if j == i || !e.bound.Intersects(b) {
			continue
		}
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, pt := range [...]orb.Point{b.Min, b.Max, {b.Min[0], b.Max[1]}, {b.Max[0], b.Min[1]},
			{(b.Min[0] + b.Max[0]) / 2, b.Min[1]}, {(b.Min[0] + b.Max[0]) / 2, b.Max[1]}, {b.Min[0], (b.Min[1] + b.Max[1]) / 2}, {b.Max[0], (b.Min[1] + b.Max[1]) / 2}} {
			x, y, err := e.p.FromLngLat(pt)
			if err != nil {
				return true
			}
			c, r, ok := e.im.Geo.Pixel(x, y)
			if !ok {
				return true
			}
			minX, maxX, minY, maxY = min(minX, c), max(maxX, c), min(minY, r), max(maxY, r)
		}
		if maxX >= -1 && minX <= float64(e.im.Width)+1 && maxY >= -1 && minY <= float64(e.im.Height)+1 {
			return true
		}
	}
	return false
}

// quarterPolygons gives the rasters' zonal statistics the grid service's
// quarter sections in AB, SK and MB.
func (in *ingester) quarterPolygons(b orb.Bound, fn func(lld.Location, orb.Geometry) error) error {
	return in.svc.Blocks(in.ctx, lld.DLS, lld.QuarterSection, b, func(blk survey.Block) error {
		if blk.Province != survey.AB && blk.Province != survey.SK && blk.Province != survey.MB {
			return nil
		}
		return fn(blk.Location, blk.Geometry)
	})
}

// mergeYear adds a quarter's summary of one year to those already read:
// a quarter on the edge of two files (provinces, UTM zones) gets the
// pixels of both.
func mergeYear(years []QuarterYear, y QuarterYear) []QuarterYear {
	i := slices.IndexFunc(years, func(o QuarterYear) bool { return o.Year == y.Year })
	if i < 0 {
		return append(years, y)
	}
	m := &years[i]
	for _, c := range y.Classes {
		j := slices.IndexFunc(m.Classes, func(o ClassShare) bool { return o.Code == c.Code })
		if j < 0 {
			m.Classes = append(m.Classes, c)
		} else {
			m.Classes[j].Pixels += c.Pixels
		}
	}
	total := 0
	for _, c := range m.Classes {
		total += c.Pixels
	}
	for j := range m.Classes {
		m.Classes[j].Pct = math.Round(10000*float64(m.Classes[j].Pixels)/float64(total)) / 100
	}
	return years
}

func lastOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
