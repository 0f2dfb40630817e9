package agingest

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/paulmach/orb"

	"meridian/shared/ag"
	"meridian/shared/ingest"
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
// polygon layers and their indexes (tens of MB) with a copy of the
// indexes' query state per core (4 bytes a feature) while the quarters are
// placed in them, up to 3 batches of 256 placed quarters per core waiting
// to be written, the SK Crown land and map layer polygons written at the
// end.
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
