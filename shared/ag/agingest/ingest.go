package agingest

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"meridian/shared/ag"
	"meridian/shared/ingest"
	"meridian/shared/ingest/geotiff"
	"meridian/shared/ingest/proj"
	"meridian/shared/kv"
	"meridian/shared/lld"
	"meridian/shared/survey"
)

// Options tune an ingest.
type Options struct {
	Demo     bool
	Notices  *ingest.Notices // values the readers had not seen but could place; nil discards them
	AsOf     time.Time       // the date of files whose names carry none; default today
	Progress io.Writer
}

// Summary says what an ingest read and wrote.
type Summary struct {
	Version kv.Version
	// Read counts what the readers made of the files, by kind: quarter
	// years, polygons, features (a polygon's SLC components are one).
	Read map[string]int
	// Rows counts the records read from each file, by its path: a
	// table's rows, a GeoJSON file's features, a raster's rows of
	// pixels. `meridian ingest ag -check` prints them per file.
	Rows     map[string]int
	Quarters int
	Sections map[string]int // quarters with each section
	Items    int
}

// Grid is what ingest asks of the grid service (*grid.Service): the block
// of each record, and the blocks of a bound.
type Grid interface {
	Resolve(ctx context.Context, l lld.Location, input string) (survey.Block, error)
	Blocks(ctx context.Context, sys lld.System, u lld.Unit, b orb.Bound, fn func(survey.Block) error) error
}

// Ingest reads files, derives every quarter's report sections and
// publishes them as the ag dataset of store, atomically: a bad file is
// rejected (an *ingest.Error naming file, line and reason) and the data
// served before stays. Polygon layers are held in memory while quarters
// are placed in them (the prairie provinces' SLC, CLI and boundaries are
// tens of megabytes); per-quarter tables are streamed.
func Ingest(ctx context.Context, store kv.Store, svc Grid, files Files, o Options) (Summary, error) {
	if o.AsOf.IsZero() {
		o.AsOf = time.Now()
	}
	in := &ingester{ctx: ctx, svc: svc, f: files, o: o,
		sum:    Summary{Read: map[string]int{}, Rows: map[string]int{}, Sections: map[string]int{}},
		placed: newQuarterTable(), crown: map[uint64][]ag.CrownLand{}, sources: map[string]source{}}
	info := kv.DatasetInfo{Name: ag.Dataset, Source: "agriculture: AAFC crop inventory, land use, SLC v3.2, CLI, drought monitor; AGRASID; NHN; municipal boundaries; SK Crown land; BC ALR, Freshwater Atlas wetlands, BC agricultural capability", Demo: o.Demo}
	v, err := kv.Publish(ctx, store, info, in.run)
	in.sum.Version = v
	return in.sum, err
}

type quarter struct {
	loc      lld.Location
	province survey.Province
	geom     orb.Geometry
	centroid orb.Point
	sections map[string]any
}

type areaItem struct {
	pk, sk string
	area   ag.Area
}

func (in *ingester) area(pk, sk string, g orb.Geometry, props map[string]string) {
	if mp := ingest.MultiPolygon(g); len(mp) > 0 {
		in.areas = append(in.areas, areaItem{pk, sk, ag.Area{Polygons: mp, Properties: props}})
	}
}

type source struct {
	Name string `json:"name"`
	AsOf string `json:"as_of"`
	Demo bool   `json:"demo,omitempty"`
}

// The ingest writes each quarter's sections as soon as they are known,
// a phase at a time (crops, land use, LSRS, then the polygon layers). What
// it keeps of a quarter between phases is a byte of the quarter table
// (its province, whether AGRASID rated it): 4.9 MB for the whole DLS
// grid, whatever the input. The rasters on one grid are swept together,
// so a quarter's years are complete, and written, when the sweep leaves
// it; only the quarters that may also lie on another grid's raster (a
// strip where two rasters overlap: 0.9% of the quarters for the crop
// inventory, 19% for the land use zones at fraction 0.01) wait, as a
// tally of some 12 bytes a class and year, until every raster is read.
// Memory, besides: one band of each raster of a grid and the quarters
// open across it (some 56 000 and 30 MB for Alberta at 240 m), the
// polygon layers and their indexes (tens of MB), the SK Crown land and
// map layer polygons written at the end.
type ingester struct {
	areas   []areaItem // map layer polygons, written with the quarters
	ctx     context.Context
	svc     Grid
	f       Files
	o       Options
	sum     Summary
	w       *kv.Writer
	placed  *quarterTable             // quarters met: their province (ProvinceNone outside AB, SK, MB or the grid); rated by AGRASID
	crown   map[uint64][]ag.CrownLand // SK Crown land, written with the quarter's provincial section
	sources map[string]source
}

func (in *ingester) progress(format string, args ...any) {
	if in.o.Progress != nil {
		fmt.Fprintf(in.o.Progress, format+"\n", args...)
	}
}

// readNoting is read with the ingest's notices.
func readNoting[T any](in *ingester, path string, reader func(Source, func(T) error) error, fn func(T) error) error {
	_, err := readFile(in, path, in.o.Notices, reader, fn)
	return err
}

// readLayout is readNoting that also returns the layout the reader took
// the file to be (the zero Layout when it said none).
func readLayout[T any](in *ingester, path string, reader func(Source, func(T) error) error, fn func(T) error) (ingest.Layout, error) {
	return readFile(in, path, in.o.Notices, reader, fn)
}

// read opens path and runs a reader over it, without notices; "" means
// no such file.
func read[T any](in *ingester, path string, reader func(Source, func(T) error) error, fn func(T) error) error {
	_, err := readFile(in, path, nil, reader, fn)
	return err
}

// readFile runs a reader over path with notices, counting the file's rows
// in Summary.Rows, and returns the layout the reader took it to be.
func readFile[T any](in *ingester, path string, notices *ingest.Notices, reader func(Source, func(T) error) error, fn func(T) error) (ingest.Layout, error) {
	var l ingest.Layout
	if path == "" {
		return l, nil
	}
	f, err := Open(path)
	if err != nil {
		return l, err
	}
	defer f.Close()
	s := f.Source
	s.Notices = notices
	s.Recognised = func(got ingest.Layout) { l = got }
	rows := 0
	s.Rows = &rows
	err = reader(s, fn)
	in.sum.Rows[path] += rows
	return l, err
}

func (in *ingester) source(section, name, path string) {
	if path == "" {
		return
	}
	if in.o.Demo {
		name = ingest.DemoLabel + ": " + name
	}
	asOf := ingest.FileDate(path)
	if asOf == "" {
		asOf = in.o.AsOf.Format("2006-01-02")
	}
	in.sources[section] = source{Name: name, AsOf: asOf, Demo: in.o.Demo}
}

// qkey packs a DLS quarter section into a map key; qloc unpacks it.
func qkey(l lld.Location) uint64 { return scaleKey(l) }

func qloc(k uint64) lld.Location {
	return lld.Location{System: lld.DLS, Meridian: lld.Meridian(k >> 48), Range: uint8(k >> 40), Township: uint8(k >> 32),
		Section: uint8(k >> 24), Aliquot: lld.Aliquot(k >> 16), Unit: lld.Unit(k >> 8), LSD: uint8(k)}
}

// q returns an empty quarter of l (a quarter section) to fill and flush,
// placing l on the grid the first time; nil when it is outside the grid or
// not in AB, SK or MB. The quarter has no geometry: see located.
func (in *ingester) q(l lld.Location) *quarter {
	p, ok := in.placed.province(l)
	if !ok {
		b, err := in.svc.Resolve(in.ctx, l, l.String())
		if err == nil && (b.Province == survey.AB || b.Province == survey.SK || b.Province == survey.MB) {
			p = b.Province
		}
		in.placed.setProvince(l, p)
	}
	if p == survey.ProvinceNone {
		return nil
	}
	return &quarter{loc: l, province: p, sections: map[string]any{}}
}

// located returns the quarter l of province p with its geometry and
// centroid.
func (in *ingester) located(l lld.Location, p survey.Province) (*quarter, error) {
	b, err := in.svc.Resolve(in.ctx, l, l.String())
	if err != nil {
		return nil, fmt.Errorf("ag: %s: %w", l, err)
	}
	return &quarter{loc: l, province: p, geom: b.Geometry, centroid: b.Centroid, sections: map[string]any{}}, nil
}

// flush writes q's sections.
func (in *ingester) flush(q *quarter) error {
	if len(q.sections) == 0 {
		return nil
	}
	names := make([]string, 0, len(q.sections))
	for s := range q.sections {
		names = append(names, s)
	}
	sort.Strings(names)
	pk := ag.QuarterKey(q.loc.String())
	for _, s := range names {
		if err := in.w.Put(pk, s, q.sections[s]); err != nil {
			return err
		}
		in.sum.Sections[s]++
	}
	return nil
}

func (in *ingester) run(w *kv.Writer) error {
	in.w = w
	steps := []func() error{in.readCrops, in.readLandUse, in.readLSRS, in.readCrownLand, in.readSpatial}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	quarters := 0
	in.placed.each(func(lld.Location, survey.Province) error { quarters++; return nil })
	for _, a := range in.areas {
		if err := w.Put(a.pk, a.sk, a.area); err != nil {
			return err
		}
	}
	if err := in.readBC(w); err != nil {
		return err
	}
	for section, s := range in.sources {
		if err := w.Put(ag.PKSources, section, s); err != nil {
			return err
		}
	}
	in.sum.Quarters, in.sum.Items = quarters, w.Len()
	return nil
}

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

func ratingOf(r Rating) (ag.Productivity, bool) {
	score, ok := r.Score()
	if !ok {
		return ag.Productivity{}, false
	}
	p := ag.Productivity{Score: float64(score), Class: fmt.Sprint(r.Class())}
	if l, ok := r.Limiter(); ok {
		s := l.String()
		p.Limiter = &s
	}
	return p, true
}

func (in *ingester) readLSRS() error {
	err := readNoting(in, in.f.AGRASIDLSRS, ReadAGRASIDLSRS, func(r LSRSQuarter) error {
		in.sum.Read["lsrs_quarters"]++
		if q := in.q(r.Location); q != nil {
			if p, ok := ratingOf(r.Rating); ok {
				q.sections[ag.SKLSRS] = p
				if q.province != survey.AB {
					in.placed.set(q.loc, in.placed.get(q.loc)|qtLSRS)
				}
				return in.flush(q)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.source("lsrs", "Alberta AGRASID 4.1 dominant LSRS by quarter section; SLC LSRS (SK, MB)", in.f.AGRASIDLSRS)
	return nil
}

func (in *ingester) provincial(q *quarter) *ag.Provincial {
	p, _ := q.sections[ag.SKProvincial].(*ag.Provincial)
	if p == nil {
		p = &ag.Provincial{CrownLand: []ag.CrownLand{}, Soils: []ag.ProvincialSoil{}, Pastures: []ag.Pasture{}}
		q.sections[ag.SKProvincial] = p
	}
	return p
}

func (in *ingester) readCrownLand() error {
	err := readNoting(in, in.f.CrownLand, ReadCrownLand, func(c CrownLand) error {
		in.sum.Read["sk_crown_land"]++
		in.area(ag.PKSKCrown, c.Location.String(), c.Geometry, map[string]string{"lld": c.Location.String(), "lease_type": c.LeaseType, "status": c.Status, "disposition": c.Disposition})
		if q := in.q(c.Location); q != nil && q.province == survey.SK {
			k := qkey(q.loc)
			in.crown[k] = append(in.crown[k], ag.CrownLand{LeaseType: c.LeaseType, Status: c.Status, Disposition: c.Disposition})
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.source("provincial_detail", "Saskatchewan agricultural Crown land and provincial pastures", in.f.CrownLand)
	return nil
}

// readSpatial loads the polygon and line layers and places every quarter
// known so far in them.
func (in *ingester) readSpatial() error {
	var slc []SLCPolygon
	if err := read(in, in.f.SLCPolygons, ReadSLCPolygons, func(p SLCPolygon) error { slc = append(slc, p); return nil }); err != nil {
		return err
	}
	names := map[string]SoilName{}
	if err := read(in, in.f.SoilNames, ReadSoilNames, func(n SoilName) error { names[n.SoilID] = n; return nil }); err != nil {
		return err
	}
	comps := map[int][]Component{}
	if err := read(in, in.f.SLCComponents, ReadPolygonComponents, func(p PolygonSoils) error { comps[p.PolyID] = p.Components; return nil }); err != nil {
		return err
	}
	slcLSRS := map[int]Rating{}
	if err := readNoting(in, in.f.SLCLSRS, ReadSLCLSRS, func(p LSRSPolygon) error { slcLSRS[p.PolyID] = p.Rating; return nil }); err != nil {
		return err
	}
	var cli []CLIPolygon
	if err := readNoting(in, in.f.CLI, ReadCLI, func(p CLIPolygon) error { cli = append(cli, p); return nil }); err != nil {
		return err
	}
	var drought []DroughtArea
	month, latest := latestDrought(in.f.Drought)
	for _, p := range latest {
		if err := readNoting(in, p, ReadDrought, func(d DroughtArea) error { drought = append(drought, d); return nil }); err != nil {
			return err
		}
	}
	if len(latest) > 0 {
		in.source("drought", "Canadian Drought Monitor", latest[0])
		s := in.sources["drought"]
		s.AsOf = month
		in.sources["drought"] = s
	}
	var bodies, courses []WaterFeature
	for _, p := range in.f.WaterBodies {
		l, err := readLayout(in, p, ReadWaterBodies, func(w WaterFeature) error { bodies = append(bodies, w); return nil })
		if err != nil {
			return err
		}
		// The product the file was read as: CanVec and the NHN are both
		// NRCan's, but a user checks the one they downloaded.
		product := "National Hydro Network"
		if l.Dataset == CanVecHydroLayout.Dataset {
			product = "NRCan CanVec Hydro"
		}
		in.source("hydrology", product, p)
		in.source("wetlands", product+" wetlands", p)
	}
	for _, p := range in.f.Watercourses {
		if err := readNoting(in, p, ReadWatercourses, func(w WaterFeature) error { courses = append(courses, w); return nil }); err != nil {
			return err
		}
	}
	var munis []Municipality
	for _, p := range in.f.Municipalities {
		if err := readNoting(in, p, ReadMunicipalities, func(m Municipality) error { munis = append(munis, m); return nil }); err != nil {
			return err
		}
	}
	var pastures []Pasture
	if err := readNoting(in, in.f.Pastures, ReadPastures, func(p Pasture) error { pastures = append(pastures, p); return nil }); err != nil {
		return err
	}
	in.sum.Read["slc_polygons"], in.sum.Read["cli_polygons"], in.sum.Read["drought_areas"] = len(slc), len(cli), len(drought)
	in.sum.Read["water_bodies"], in.sum.Read["watercourses"], in.sum.Read["municipalities"] = len(bodies), len(courses), len(munis)
	in.source("soil", "AAFC Soil Landscapes of Canada v3.2", in.f.SLCPolygons)
	in.source("cli", "Canada Land Inventory, soil capability for agriculture", in.f.CLI)
	if len(in.f.Municipalities) > 0 {
		in.source("parcel_context", "Municipal boundaries", in.f.Municipalities[0])
	}
	met := 0
	in.placed.each(func(lld.Location, survey.Province) error { met++; return nil })
	in.progress("placing %d quarters in %d soil, %d CLI, %d drought polygons", met, len(slc), len(cli), len(drought))
	for _, p := range slc {
		props := map[string]string{"poly_id": fmt.Sprint(p.PolyID)}
		if dom, ok := Dominant(comps[p.PolyID]); ok {
			if n, ok := names[dom.SoilID]; ok {
				if s, err := DescribeSoil(dom, n); err == nil {
					props["soil_name"], props["soil_order"], props["great_group"], props["subgroup"], props["drainage"] = s.Name, s.Order, s.GreatGroup, s.Subgroup, s.Drainage
				}
			}
		}
		in.area(ag.PKSLC, fmt.Sprintf("%08d", p.PolyID), p.Geometry, props)
	}
	for _, p := range pastures {
		in.area(ag.PKSKPasture, p.Name, p.Geometry, map[string]string{"name": p.Name, "program": p.Program})
	}

	slcIx := newBucketIndex(len(slc), func(i int) orb.Bound { return geomBound(slc[i].Geometry) })
	cliIx := newBucketIndex(len(cli), func(i int) orb.Bound { return geomBound(cli[i].Geometry) })
	droughtIx := newBucketIndex(len(drought), func(i int) orb.Bound { return geomBound(drought[i].Geometry) })
	muniIx := newBucketIndex(len(munis), func(i int) orb.Bound { return geomBound(munis[i].Geometry) })
	pastureIx := newBucketIndex(len(pastures), func(i int) orb.Bound { return geomBound(pastures[i].Geometry) })
	bodyIx := newBucketIndex(len(bodies), func(i int) orb.Bound { return geomBound(bodies[i].Geometry) })
	courseIx := newBucketIndex(len(courses), func(i int) orb.Bound { return geomBound(courses[i].Geometry) })
	var nearBodies, nearCourses []WaterFeature
	err := in.placed.each(func(l lld.Location, p survey.Province) error {
		if err := in.ctx.Err(); err != nil { // Ctrl-C: 2.5 million quarters take minutes
			return err
		}
		k := qkey(l)
		q, err := in.located(l, p)
		if err != nil {
			return err
		}
		if cl, ok := in.crown[k]; ok {
			in.provincial(q).CrownLand = cl
			delete(in.crown, k)
		}
		c := q.centroid
		for _, i := range slcIx.containing(c) {
			p := slc[i]
			if !ingest.ContainsPoint(p.Geometry, c) {
				continue
			}
			if dom, ok := Dominant(comps[p.PolyID]); ok {
				if n, ok := names[dom.SoilID]; ok {
					if s, err := DescribeSoil(dom, n); err == nil {
						var out ag.Soil
						out.Classification.Order, out.Classification.GreatGroup = s.Order, s.GreatGroup
						out.Classification.SubgroupCode = s.Subgroup
						out.DrainageClass, out.SlopeClass, out.SoilName, out.PolyID = s.Drainage, s.Slope.Range, s.Name, p.PolyID
						q.sections[ag.SKSoil] = out
					}
				}
			}
			if in.placed.get(l)&qtLSRS == 0 && q.province != survey.AB {
				if r, ok := slcLSRS[p.PolyID]; ok {
					if pr, ok := ratingOf(r); ok {
						q.sections[ag.SKLSRS] = pr
					}
				}
			}
			if q.province != survey.AB {
				prov := in.provincial(q)
				for _, cmp := range comps[p.PolyID] {
					if n, ok := names[cmp.SoilID]; ok {
						prov.Soils = append(prov.Soils, ag.ProvincialSoil{Name: n.Name, Percent: cmp.Percent, Subgroup: Classify(n).Subgroup})
					}
				}
			}
			break
		}
		for _, i := range cliIx.containing(c) {
			if p := cli[i]; ingest.ContainsPoint(p.Geometry, c) {
				if score, ok := p.Score(); ok {
					prim, _ := p.Primary()
					out := ag.Productivity{Score: float64(score), Class: prim.Class}
					if l, ok := p.Limiter(); ok {
						s := l.String()
						out.Limiter = &s
					}
					q.sections[ag.SKCLI] = out
				}
				break
			}
		}
		worst := -1
		for _, i := range droughtIx.containing(c) {
			if d := drought[i]; int(d.Class) > worst && ingest.ContainsPoint(d.Geometry, c) {
				worst = int(d.Class)
			}
		}
		if worst >= 0 {
			cls := DroughtClass(worst)
			q.sections[ag.SKDrought] = ag.Drought{Class: cls.String(), SeverityLabel: cls.Label(), AsOf: month}
		}
		for _, i := range muniIx.containing(c) {
			if m := munis[i]; ingest.ContainsPoint(m.Geometry, c) {
				q.sections[ag.SKMunicipality] = ag.Municipality{Name: m.Name, Type: m.Type}
				break
			}
		}
		if q.province == survey.SK {
			for _, i := range pastureIx.containing(c) {
				if p := pastures[i]; ingest.ContainsPoint(p.Geometry, c) {
					pr := in.provincial(q)
					pr.Pastures = append(pr.Pastures, ag.Pasture{Name: p.Name, Program: p.Program})
				}
			}
		}
		if len(bodies)+len(courses) > 0 {
			// The features near the quarter, in file order: those farther
			// than the search radius are skipped by hydrology anyway.
			box := searchBox(geomBound(q.geom), ag.SearchRadiusM)
			nearBodies, nearCourses = nearBodies[:0], nearCourses[:0]
			for _, i := range bodyIx.near(box) {
				nearBodies = append(nearBodies, bodies[i])
			}
			for _, i := range courseIx.near(box) {
				nearCourses = append(nearCourses, courses[i])
			}
			in.hydrology(q, nearBodies, nearCourses)
		}
		return in.flush(q)
	})
	if err != nil {
		return err
	}
	if q := in.f.Pastures; q != "" {
		in.source("provincial_detail", "Saskatchewan agricultural Crown land and provincial pastures", q)
	}
	return nil
}

// hydrology finds the nearest watercourse and water body (non-wetland)
// within SearchRadiusM of the quarter, and the wetlands there. Distances are
// from the quarter's edge (0 when on it), in a local plane around the
// quarter; the on-parcel share of a water body is sampled on a 20×20 grid
// of the quarter.
func (in *ingester) hydrology(q *quarter, bodies, courses []WaterFeature) {
	toM := localPlane(q.centroid)
	parcel := toM.geometry(q.geom)
	h := ag.Hydrology{SearchRadiusM: ag.SearchRadiusM}
	wet := ag.Wetlands{}
	nearest := func(fs []WaterFeature, wetland bool, into *ag.Water) {
		best := math.Inf(1)
		var bestF *WaterFeature
		for i := range fs {
			f := &fs[i]
			if f.IsWetland() != wetland {
				continue
			}
			d := distance(parcel, toM.geometry(f.Geometry))
			if d > ag.SearchRadiusM {
				continue
			}
			if wetland {
				wet.Count++
				if wet.NearestM == nil || d < *wet.NearestM {
					dd := math.Round(d)
					wet.NearestM = &dd
				}
				if d == 0 {
					wet.OnParcel = true
					wet.OnParcelPct += sampledShare(q.geom, f.Geometry)
				}
				continue
			}
			if d < best {
				best, bestF = d, f
			}
		}
		if bestF != nil && into != nil {
			dd := math.Round(best)
			into.DistanceM, into.IsOnParcel = &dd, best == 0
			if bestF.Name != "" {
				n := bestF.Name
				into.Name = &n
			}
			if into == &h.WaterBody.Water {
				pct := sampledShare(q.geom, bestF.Geometry)
				h.WaterBody.OnParcelPct = &pct
			}
		}
	}
	nearest(courses, false, &h.Watercourse)
	nearest(bodies, false, &h.WaterBody.Water)
	nearest(bodies, true, nil)
	q.sections[ag.SKHydrology] = h
	wet.OnParcelPct = math.Min(100, math.Round(wet.OnParcelPct*10)/10)
	q.sections[ag.SKWetlands] = wet
}

// plane maps lng/lat near an origin to metres.
type plane struct{ lng0, lat0, kx, ky float64 }

func localPlane(o orb.Point) plane {
	return plane{o[0], o[1], 111_320 * math.Cos(o[1]*math.Pi/180), 110_574}
}

func (p plane) point(pt orb.Point) orb.Point {
	return orb.Point{(pt[0] - p.lng0) * p.kx, (pt[1] - p.lat0) * p.ky}
}

func (p plane) geometry(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case orb.Point:
		return p.point(g)
	case orb.LineString:
		out := make(orb.LineString, len(g))
		for i, pt := range g {
			out[i] = p.point(pt)
		}
		return out
	case orb.MultiLineString:
		out := make(orb.MultiLineString, len(g))
		for i, l := range g {
			out[i] = p.geometry(l).(orb.LineString)
		}
		return out
	case orb.Ring:
		return orb.Ring(p.geometry(orb.LineString(g)).(orb.LineString))
	case orb.Polygon:
		out := make(orb.Polygon, len(g))
		for i, r := range g {
			out[i] = p.geometry(r).(orb.Ring)
		}
		return out
	case orb.MultiPolygon:
		out := make(orb.MultiPolygon, len(g))
		for i, poly := range g {
			out[i] = p.geometry(poly).(orb.Polygon)
		}
		return out
	}
	return nil
}

// distance is the least distance between a parcel polygon and a feature
// (0 when they meet), in the plane's metres.
func distance(parcel, f orb.Geometry) float64 {
	if parcel == nil || f == nil {
		return math.Inf(1)
	}
	var pts []orb.Point
	collect(f, &pts)
	best := math.Inf(1)
	for _, pt := range pts {
		if ingest.ContainsPoint(parcel, pt) {
			return 0
		}
		best = math.Min(best, planar.DistanceFrom(boundary(parcel), pt))
	}
	var ppts []orb.Point
	collect(parcel, &ppts)
	for _, pt := range ppts {
		if ingest.ContainsPoint(f, pt) {
			return 0
		}
		if d := planar.DistanceFrom(f, pt); d < best {
			best = d
		}
	}
	return best
}

func boundary(g orb.Geometry) orb.Geometry {
	switch g := g.(type) {
	case orb.Polygon:
		return orb.MultiLineString{orb.LineString(g[0])}
	case orb.MultiPolygon:
		var out orb.MultiLineString
		for _, p := range g {
			out = append(out, orb.LineString(p[0]))
		}
		return out
	}
	return g
}

func collect(g orb.Geometry, out *[]orb.Point) {
	switch g := g.(type) {
	case orb.Point:
		*out = append(*out, g)
	case orb.LineString:
		*out = append(*out, g...)
	case orb.MultiLineString:
		for _, l := range g {
			*out = append(*out, l...)
		}
	case orb.Ring:
		*out = append(*out, g...)
	case orb.Polygon:
		for _, r := range g {
			*out = append(*out, r...)
		}
	case orb.MultiPolygon:
		for _, p := range g {
			collect(p, out)
		}
	}
}

// sampledShare is the percentage of a 20×20 grid of points over the
// parcel's box, inside the parcel, that also lie in f (a polygon).
func sampledShare(parcel, f orb.Geometry) float64 {
	if parcel == nil || f == nil || f.Dimensions() != 2 {
		return 0
	}
	b, fb := parcel.Bound(), f.Bound()
	in, all := 0, 0
	for i := range 20 {
		for j := range 20 {
			pt := orb.Point{b.Min[0] + (float64(i)+0.5)/20*(b.Max[0]-b.Min[0]), b.Min[1] + (float64(j)+0.5)/20*(b.Max[1]-b.Min[1])}
			if !ingest.ContainsPoint(parcel, pt) {
				continue
			}
			all++
			if fb.Contains(pt) && ingest.ContainsPoint(f, pt) {
				in++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return math.Round(float64(in)/float64(all)*1000) / 10
}

// readBC streams the British Columbia map layers (agricultural capability,
// the Agricultural Land Reserve, Freshwater Atlas wetlands) to w, one
// polygon at a time: province-wide they are hundreds of thousands of
// polygons, and no report section reads them.
func (in *ingester) readBC(w *kv.Writer) error {
	n := 0
	err := readNoting(in, in.f.BCCapability, ReadCLI, func(p CLIPolygon) error {
		n++
		mp := ingest.MultiPolygon(p.Geometry)
		a, ok := p.Primary()
		if len(mp) == 0 || !ok {
			return nil // land the inventory does not rate: nothing to draw
		}
		props := map[string]string{"class": a.Class, "capability": capability(p)}
		props["class_description"], _ = CLIClass(a.Class)
		if l, ok := p.Limiter(); ok {
			props["limitation"], props["limitation_description"] = l.Code, l.Label
		}
		var nums map[string]float64
		if score, ok := p.Score(); ok {
			nums = map[string]float64{"score": float64(score)}
		}
		return w.Put(ag.PKBCCapability, fmt.Sprintf("%08d", n), ag.Area{Polygons: mp, Properties: props, Numbers: nums})
	})
	if err != nil {
		return err
	}
	in.sum.Read["bc_capability_polygons"] = n
	n = 0
	err = readNoting(in, in.f.ALR, ReadALR, func(a ALRPolygon) error {
		n++
		if mp := ingest.MultiPolygon(a.Geometry); len(mp) > 0 {
			props := map[string]string{"alr_poly_id": a.ID, "status": a.Status}
			if a.FeatureCode != "" {
				props["feature_code"] = a.FeatureCode
			}
			return w.Put(ag.PKBCALR, a.ID, ag.Area{Polygons: mp, Properties: props,
				Numbers: map[string]float64{"area_ha": a.AreaHa}})
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.sum.Read["bc_alr_polygons"] = n
	n = 0
	err = readNoting(in, in.f.FWAWetlands, ReadFWAWetlands, func(wl Wetland) error {
		n++
		if mp := ingest.MultiPolygon(wl.Geometry); len(mp) > 0 {
			return w.Put(ag.PKBCWetland, wl.ID, ag.Area{Polygons: mp, Properties: map[string]string{"waterbody_poly_id": wl.ID, "name": wl.Name, "watershed_group": wl.WatershedGroup},
				Numbers: map[string]float64{"area_ha": wl.AreaHa}})
		}
		return nil
	})
	in.sum.Read["bc_fwa_wetlands"] = n
	return err
}

// capability is a CLI polygon's rating as the maps print it: "4^6W 5^4ST".
func capability(p CLIPolygon) string {
	parts := make([]string, len(p.Components))
	for i, c := range p.Components {
		parts[i] = c.String()
	}
	return strings.Join(parts, " ")
}
